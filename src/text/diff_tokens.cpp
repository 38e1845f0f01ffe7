// SPDX-License-Identifier: MIT
// diff_tokens(): the tokens text_change.h compares (see the header).
#include "text/diff_tokens.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include "text/symbol_runs.h"
#include "text/text_normalizer.h"
#include "text/utf8_repair.h"

namespace simhash {
namespace {

bool is_word_character(UChar32 c) {
  const std::int32_t category = u_charType(c);
  switch (category) {
    case U_UPPERCASE_LETTER:
    case U_LOWERCASE_LETTER:
    case U_TITLECASE_LETTER:
    case U_MODIFIER_LETTER:
    case U_OTHER_LETTER:
    case U_NON_SPACING_MARK:
    case U_ENCLOSING_MARK:
    case U_COMBINING_SPACING_MARK:
    case U_DECIMAL_DIGIT_NUMBER:
    case U_LETTER_NUMBER:
    case U_OTHER_NUMBER:
    case U_CONNECTOR_PUNCTUATION:
      return true;
    default:
      return false;
  }
}

// Scripts written without spaces between words: one token per character.
bool is_unspaced_script(UChar32 c) {
  UErrorCode status = U_ZERO_ERROR;
  switch (uscript_getScript(c, &status)) {
    case USCRIPT_HAN:
    case USCRIPT_HIRAGANA:
    case USCRIPT_KATAKANA:
    case USCRIPT_THAI:
    case USCRIPT_LAO:
    case USCRIPT_KHMER:
    case USCRIPT_MYANMAR:
      return true;
    default:
      return false;
  }
}

bool is_apostrophe(UChar32 c) { return c == 0x27 || c == 0x2019; }

bool is_quotation(UChar32 c) {
  return c == 0x60 || u_hasBinaryProperty(c, UCHAR_QUOTATION_MARK) ||
         u_charType(c) == U_INITIAL_PUNCTUATION || u_charType(c) == U_FINAL_PUNCTUATION;
}

bool is_line_break(UChar32 c) { return c == 0x0A || c == 0x0D || c == 0x2028 || c == 0x2029; }

bool is_sentence_mark(UChar32 c) { return u_hasBinaryProperty(c, UCHAR_TERMINAL_PUNCTUATION) != 0; }

// What the cutting and the marking ask of a character, all at once.
struct CharClass {
  bool space = false;
  bool word = false;      // joins a word (is_word_character, not an unspaced script)
  bool unspaced = false;  // a word character of an unspaced script: a token alone
  bool bullet = false;
  bool dash = false;
  bool quotation = false;
  bool sentence_mark = false;
};

CharClass classify(UChar32 c) {
  CharClass out;
  out.space = u_isUWhiteSpace(c) != 0;
  const bool word_character = is_word_character(c);
  out.unspaced = word_character && is_unspaced_script(c);
  out.word = word_character && !out.unspaced;
  out.bullet = is_bullet(c);
  out.dash = is_dash(c);
  out.quotation = is_quotation(c);
  out.sentence_mark = is_sentence_mark(c);
  return out;
}

// ASCII, most of most texts, from a table made once by classify() itself,
// so the two cannot disagree; ICU's property lookups for the rest.
CharClass class_of(UChar32 c) {
  static const std::array<CharClass, 128> kAscii = [] {
    std::array<CharClass, 128> table{};
    for (UChar32 ascii = 0; ascii < 128; ++ascii) {
      table[static_cast<std::size_t>(ascii)] = classify(ascii);
    }
    return table;
  }();
  return c >= 0 && c < 128 ? kAscii[static_cast<std::size_t>(c)] : classify(c);
}

// Reads the code points of a well-formed UTF-8 text, with one of lookahead.
class CodePoints {
 public:
  explicit CodePoints(std::string_view text) : text_(text) {}
  bool done() const { return at_ >= size(); }
  UChar32 peek() const {
    std::int32_t at = at_;
    UChar32 c = 0;
    U8_NEXT(text_.data(), at, size(), c);
    return c;
  }
  UChar32 next() {
    UChar32 c = 0;
    U8_NEXT(text_.data(), at_, size(), c);
    return c;
  }
  // The code point after the next one, or -1 at the end.
  UChar32 peek_second() const {
    std::int32_t at = at_;
    UChar32 c = 0;
    U8_NEXT(text_.data(), at, size(), c);
    if (at >= size()) {
      return -1;
    }
    U8_NEXT(text_.data(), at, size(), c);
    return c;
  }

 private:
  std::int32_t size() const { return static_cast<std::int32_t>(text_.size()); }
  std::string_view text_;
  std::int32_t at_ = 0;
};

// A token as cut, before the formatting marks are set.
struct RawToken {
  DiffToken token;
  UChar32 first = 0;         // its first code point, as in the text
  CharClass first_class;     // class_of(first)
  bool line_start = false;   // the first token of its line
  bool space_after = false;  // white space or the end of the text follows
};

void append_utf8(std::string& out, UChar32 c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
    return;
  }
  char bytes[U8_MAX_LENGTH];
  std::int32_t length = 0;
  U8_APPEND_UNSAFE(bytes, length, c);
  out.append(bytes, static_cast<std::size_t>(length));
}

std::vector<RawToken> cut(std::string_view normalized) {
  std::vector<RawToken> tokens;
  CodePoints text(normalized);
  bool line_start = true;
  while (!text.done()) {
    const UChar32 c = text.next();
    const CharClass kind = class_of(c);
    if (kind.space) {
      line_start = line_start || is_line_break(c);
      continue;
    }
    RawToken raw;
    raw.first = c;
    raw.first_class = kind;
    raw.line_start = line_start;
    DiffToken& token = raw.token;
    if (kind.word) {
      token.is_word = true;
      append_utf8(token.text, c);
      while (!text.done()) {
        const UChar32 following = text.peek();
        const bool joins = class_of(following).word ||
                           (is_apostrophe(following) && class_of(text.peek_second()).word);
        if (!joins) {
          break;
        }
        append_utf8(token.text, text.next());
      }
    } else {
      token.is_word = kind.unspaced;
      append_utf8(token.text, kind.bullet ? 0x2022 : kind.dash ? U'-' : c);
    }
    raw.space_after = text.done() || class_of(text.peek()).space;
    line_start = false;
    tokens.push_back(std::move(raw));
  }
  return tokens;
}

// Whether the run of sentence punctuation that raw[i] starts or continues,
// with no space inside, reaches a space or the end of the text.
bool ends_before_space(std::span<const RawToken> raw, std::size_t i) {
  while (!raw[i].space_after && i + 1 < raw.size() && raw[i + 1].first_class.sentence_mark) {
    ++i;
  }
  return raw[i].space_after;
}

bool is_digits(const std::string& word) {
  return !word.empty() &&
         std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The marks of layout that a line may start with or consist of: "- ", "* ",
// "• ", "o " (roff's bullet), "1. ", "2) ", "## ", "**", and rules or
// underlines ("=====", "-----").
void mark_line_layout(std::span<RawToken> line) {
  const RawToken& first = line.front();
  const bool alone = first.space_after;
  const std::string& text = first.token.text;
  if (alone && (text == "-" || text == "*" || text == "+" || text == "\u2022" || text == "o")) {
    line.front().token.is_formatting = true;
  }
  if (line.size() >= 2 && is_digits(text) && !first.space_after && line[1].space_after &&
      (line[1].token.text == "." || line[1].token.text == ")")) {
    line[0].token.is_formatting = line[1].token.is_formatting = true;
  }
  // A run of one repeated mark: the whole line, or "#"s and "*"s before a space.
  constexpr std::string_view kRuleMarks = "=-~^*#_+";
  if (text.size() != 1 || kRuleMarks.find(text[0]) == std::string_view::npos) {
    return;
  }
  std::size_t run = 1;
  while (run < line.size() && !line[run - 1].space_after && line[run].token.text == text) {
    ++run;
  }
  const bool whole_line = run == line.size() && run >= 3;
  const bool heading = (text == "#" || text == "*") && line[run - 1].space_after;
  if (whole_line || heading) {
    for (std::size_t i = 0; i < run; ++i) {
      line[i].token.is_formatting = true;
    }
  }
}

}  // namespace

std::vector<DiffToken> diff_tokens(std::string_view utf8_text) {
  std::string repaired;
  const std::string_view valid = repair_utf8(utf8_text, repaired);
  std::string normalized;
  TextNormalizer().normalize(valid, normalized);
  std::vector<RawToken> raw = cut(normalized);

  for (std::size_t i = 0; i < raw.size(); ++i) {
    RawToken& here = raw[i];
    const RawToken* next = i + 1 < raw.size() ? &raw[i + 1] : nullptr;
    DiffToken& token = here.token;
    if (token.is_word) {
      continue;
    }
    // Sentence punctuation in a run of it that ends before a space or the
    // end ("end.", ",...", "?!"), not inside a name ("JSON::PP", "os.path");
    // a CJK full stop or comma anywhere.
    const bool sentence_mark =
        here.first_class.sentence_mark && (here.first > 0x7F || ends_before_space(raw, i));
    // "()" after a function's name is how man pages mark it.
    const bool empty_brackets =
        (here.first == U'(' && !here.space_after && next != nullptr && next->first == U')') ||
        (here.first == U')' && i > 0 && raw[i - 1].first == U'(' && !raw[i - 1].space_after);
    token.is_formatting =
        here.first_class.bullet || here.first_class.quotation || sentence_mark || empty_brackets;
  }
  for (std::size_t begin = 0; begin < raw.size();) {
    std::size_t end = begin + 1;
    while (end < raw.size() && !raw[end].line_start) {
      ++end;
    }
    mark_line_layout(std::span<RawToken>(raw).subspan(begin, end - begin));
    begin = end;
  }

  std::vector<DiffToken> tokens;
  tokens.reserve(raw.size());
  for (RawToken& token : raw) {
    tokens.push_back(std::move(token.token));
  }
  return tokens;
}

}  // namespace simhash

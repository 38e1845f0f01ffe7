// SPDX-License-Identifier: MIT
// text_change(): the two texts' tokens without formatting, numbered, diffed;
// each hunk of the diff classified; the pair takes its worst hunk's kind.
#include "text/text_change.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include "text/diff_tokens.h"
#include "text/token_diff.h"

namespace simhash {
namespace {

std::vector<UChar32> code_points(std::string_view utf8) {
  std::vector<UChar32> out;
  const auto length = static_cast<std::int32_t>(utf8.size());
  for (std::int32_t at = 0; at < length;) {
    UChar32 c = 0;
    U8_NEXT(utf8.data(), at, length, c);
    out.push_back(c);
  }
  return out;
}

bool letters_only(const std::vector<UChar32>& word) {
  return std::all_of(word.begin(), word.end(), [](UChar32 c) { return u_isalpha(c) != 0; });
}

// One edit of the kinds a typo makes, never at the first letter, where it
// turns one name into another ("chown" / "fchown").
bool close_spelling(std::string_view a, std::string_view b) {
  const std::vector<UChar32> x = code_points(a);
  const std::vector<UChar32> y = code_points(b);
  constexpr std::size_t kShortest = 5;
  constexpr std::size_t kShortestReplaced = 8;
  if (std::min(x.size(), y.size()) < kShortest || !letters_only(x) || !letters_only(y)) {
    return false;
  }
  const std::vector<UChar32>& longer = x.size() >= y.size() ? x : y;
  const std::vector<UChar32>& shorter = x.size() >= y.size() ? y : x;
  std::size_t i = 0;
  while (i < shorter.size() && longer[i] == shorter[i]) {
    ++i;
  }
  if (i == 0 || (i == shorter.size() && longer.size() == shorter.size())) {
    return false;  // the first letter, or no change at all
  }
  const auto same_after = [&](std::size_t long_from, std::size_t short_from) {
    return std::equal(longer.begin() + static_cast<std::ptrdiff_t>(long_from), longer.end(),
                      shorter.begin() + static_cast<std::ptrdiff_t>(short_from), shorter.end());
  };
  if (longer.size() == shorter.size() + 1) {
    return same_after(i + 1, i);  // one letter inserted
  }
  if (longer.size() != shorter.size()) {
    return false;
  }
  const bool swapped = i + 1 < longer.size() && longer[i] == shorter[i + 1] &&
                       longer[i + 1] == shorter[i] && same_after(i + 2, i + 2);
  const bool replaced = shorter.size() >= kShortestReplaced && same_after(i + 1, i + 1);
  return swapped || replaced;
}

using Tokens = std::span<const DiffToken>;

bool has_word(Tokens tokens) {
  return std::any_of(tokens.begin(), tokens.end(), [](const DiffToken& t) { return t.is_word; });
}

// "mem-ory" for "memory", "data base" for "database": words on both sides,
// the same letters once the hyphens and the spaces between words are gone.
bool same_joined(Tokens a, Tokens b) {
  const auto joined = [](Tokens tokens, std::string& out) {
    for (const DiffToken& token : tokens) {
      if (token.is_word) {
        out += token.text;
      } else if (token.text != "-") {
        return false;
      }
    }
    return true;
  };
  std::string x;
  std::string y;
  return has_word(a) && has_word(b) && joined(a, x) && joined(b, y) && x == y;
}

ChangeKind kind_of_hunk(Tokens removed, Tokens kept) {
  if (same_joined(removed, kept)) {
    return ChangeKind::formatting;
  }
  if (removed.empty()) {
    return has_word(kept) ? ChangeKind::added : ChangeKind::symbols;
  }
  if (kept.empty()) {
    return has_word(removed) ? ChangeKind::dropped : ChangeKind::symbols;
  }
  if (removed.size() == kept.size() && std::equal(removed.begin(), removed.end(), kept.begin(),
                                                  [](const DiffToken& a, const DiffToken& b) {
                                                    return a.is_word && b.is_word &&
                                                           close_spelling(a.text, b.text);
                                                  })) {
    return ChangeKind::spelling;
  }
  return has_word(removed) || has_word(kept) ? ChangeKind::substituted : ChangeKind::symbols;
}

void append_words(Tokens tokens, char sign, std::string& out) {
  for (const DiffToken& token : tokens) {
    if (!out.empty()) {
      out += ' ';
    }
    out += sign;
    out += token.text;
  }
}

// The tokens that are not formatting, and the same tokens as numbers that
// are equal where the tokens are.
struct NumberedTokens {
  std::vector<DiffToken> tokens;
  std::vector<std::uint32_t> numbers;
};

NumberedTokens numbered(std::string_view text,
                        std::unordered_map<std::string, std::uint32_t>& numbers) {
  NumberedTokens out;
  for (DiffToken& token : diff_tokens(text)) {
    if (token.is_formatting) {
      continue;
    }
    const auto [at, added] =
        numbers.try_emplace(token.text, static_cast<std::uint32_t>(numbers.size()));
    out.numbers.push_back(at->second);
    out.tokens.push_back(std::move(token));
  }
  return out;
}

}  // namespace

const char* name_of(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::identical:
      return "identical";
    case ChangeKind::formatting:
      return "formatting";
    case ChangeKind::spelling:
      return "spelling";
    case ChangeKind::added:
      return "added";
    case ChangeKind::dropped:
      return "dropped";
    case ChangeKind::symbols:
      return "symbols";
    case ChangeKind::substituted:
      return "substituted";
    case ChangeKind::rewritten:
      return "rewritten";
  }
  return "rewritten";
}

TextChange text_change(std::string_view text, std::string_view other) {
  TextChange change;
  if (text == other) {
    return change;
  }
  change.kind = ChangeKind::formatting;
  std::unordered_map<std::string, std::uint32_t> numbers;
  const NumberedTokens removed = numbered(text, numbers);
  const NumberedTokens kept = numbered(other, numbers);
  const std::optional<std::vector<DiffHunk>> hunks = token_diff(removed.numbers, kept.numbers);
  if (!hunks) {
    change.kind = ChangeKind::rewritten;
    return change;
  }
  const Tokens removed_tokens(removed.tokens);
  const Tokens kept_tokens(kept.tokens);
  for (const DiffHunk& hunk : *hunks) {
    const Tokens lost = removed_tokens.subspan(hunk.a_begin, hunk.a_end - hunk.a_begin);
    const Tokens gained = kept_tokens.subspan(hunk.b_begin, hunk.b_end - hunk.b_begin);
    const ChangeKind kind = kind_of_hunk(lost, gained);
    if (kind == ChangeKind::formatting) {
      continue;
    }
    change.kind = std::max(change.kind, kind);
    append_words(lost, '-', change.words);
    append_words(gained, '+', change.words);
  }
  return change;
}

}  // namespace simhash

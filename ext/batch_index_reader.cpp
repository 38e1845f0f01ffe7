// Resolves an index name like SQL does, recognises a simhash_index by the
// CREATE VIRTUAL TABLE statement in sqlite_schema, and reads its config and
// rows through index_shadow_tables.h.
#include "batch_index_reader.h"

#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "index_shadow_tables.h"
#include "sqlite_support.h"

namespace simhash::sql {
namespace {

// ASCII case folding, as SQLite compares identifiers (the names here come
// from C strings, so they hold no NUL for sqlite3_strnicmp to stop at).
bool equal_ignoring_case(std::string_view x, std::string_view y) {
  return x.size() == y.size() &&
         sqlite3_strnicmp(x.data(), y.data(), static_cast<int>(x.size())) == 0;
}

[[noreturn]] void throw_sqlite(sqlite3* db, std::string_view function) {
  throw BatchError(std::string(function) + ": " + sqlite3_errmsg(db), sqlite3_errcode(db));
}

// One token of SQL text: its text (unquoted for quoted identifiers) and
// whether it was quoted (a quoted word is a name, never a keyword).
struct Token {
  std::string text;
  bool quoted = false;
};

// Splits SQL into words, quoted names and single punctuation characters,
// skipping spaces and comments. Enough to read a CREATE VIRTUAL TABLE header.
std::vector<Token> tokenize(std::string_view sql, std::size_t max_tokens) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < sql.size() && tokens.size() < max_tokens) {
    const unsigned char c = static_cast<unsigned char>(sql[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (sql.compare(i, 2, "--") == 0) {
      i = sql.find('\n', i);
      i = i == std::string_view::npos ? sql.size() : i;
    } else if (sql.compare(i, 2, "/*") == 0) {
      i = sql.find("*/", i + 2);
      i = i == std::string_view::npos ? sql.size() : i + 2;
    } else if (c == '"' || c == '`' || c == '[' || c == '\'') {
      const char close = c == '[' ? ']' : static_cast<char>(c);
      Token token{"", true};
      ++i;
      while (i < sql.size()) {
        if (sql[i] == close) {
          if (close != ']' && i + 1 < sql.size() && sql[i + 1] == close) {
            token.text += close;  // a doubled quote stands for itself
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        token.text += sql[i++];
      }
      tokens.push_back(std::move(token));
    } else if (std::isalnum(c) || c == '_' || c == '$' || c >= 0x80) {
      Token token;
      while (i < sql.size()) {
        const unsigned char d = static_cast<unsigned char>(sql[i]);
        if (!(std::isalnum(d) || d == '_' || d == '$' || d >= 0x80)) {
          break;
        }
        token.text += sql[i++];
      }
      tokens.push_back(std::move(token));
    } else {
      tokens.push_back(Token{std::string(1, sql[i++]), false});
    }
  }
  return tokens;
}

bool is_keyword(const Token& token, std::string_view keyword) {
  return !token.quoted && equal_ignoring_case(token.text, keyword);
}

// The databases in the order SQL resolves an unqualified name: temp, main,
// then attached ones.
std::vector<std::string> database_names(sqlite3* db, std::string_view function) {
  Statement statement;
  if (prepare(db,
              "SELECT name FROM pragma_database_list ORDER BY CASE name WHEN 'temp' THEN 0 "
              "WHEN 'main' THEN 1 ELSE 2 END, seq",
              statement) != SQLITE_OK) {
    throw_sqlite(db, function);
  }
  std::vector<std::string> names;
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 0)));
  }
  if (rc != SQLITE_DONE) {
    throw_sqlite(db, function);
  }
  return names;
}

struct SchemaEntry {
  std::string name;
  std::string type;
  std::string sql;
};

// The schema entry named `name` (any case) in database `schema`, if any.
std::optional<SchemaEntry> find_entry(sqlite3* db, const std::string& schema, std::string_view name,
                                      std::string_view function) {
  Statement statement;
  const std::string sql = format_sql(
      "SELECT name, type, coalesce(sql, '') FROM \"%w\".sqlite_schema "
      "WHERE name = ?1 COLLATE NOCASE AND type IN ('table', 'view')",
      schema.c_str());
  if (prepare(db, sql, statement) != SQLITE_OK) {
    throw_sqlite(db, function);
  }
  sqlite3_bind_text(statement.get(), 1, name.data(), static_cast<int>(name.size()),
                    SQLITE_TRANSIENT);
  const int rc = sqlite3_step(statement.get());
  if (rc == SQLITE_DONE) {
    return std::nullopt;
  }
  if (rc != SQLITE_ROW) {
    throw_sqlite(db, function);
  }
  const auto text = [&](int column) {
    return std::string(reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), column)));
  };
  return SchemaEntry{text(0), text(1), text(2)};
}

}  // namespace

// Built by append: GCC 12 warns wrongly about "'" + std::string(...).
std::string quoted(std::string_view name) {
  std::string text;
  text.reserve(name.size() + 2);
  text.push_back('\'');
  text.append(name);
  text.push_back('\'');
  return text;
}

std::optional<std::string> virtual_table_module(std::string_view sql) {
  const std::vector<Token> tokens = tokenize(sql, 16);
  std::size_t i = 0;
  const auto next_is = [&](std::string_view keyword) {
    if (i < tokens.size() && is_keyword(tokens[i], keyword)) {
      ++i;
      return true;
    }
    return false;
  };
  if (!next_is("CREATE") || !next_is("VIRTUAL") || !next_is("TABLE")) {
    return std::nullopt;
  }
  if (next_is("IF") && !(next_is("NOT") && next_is("EXISTS"))) {
    return std::nullopt;
  }
  ++i;  // the table name
  if (i + 1 < tokens.size() && !tokens[i].quoted && tokens[i].text == ".") {
    i += 2;  // schema.name
  }
  if (!next_is("USING") || i >= tokens.size()) {
    return std::nullopt;
  }
  return tokens[i].text;
}

std::optional<SchemaObject> find_object(sqlite3* db, std::string_view requested,
                                        std::string_view function) {
  const std::vector<std::string> databases = database_names(db, function);
  std::vector<std::string> search = databases;
  std::string_view name = requested;
  // 'schema.name' when the part before the first dot names a database.
  if (const auto dot = requested.find('.'); dot != std::string_view::npos) {
    for (const std::string& database : databases) {
      if (equal_ignoring_case(database, requested.substr(0, dot))) {
        search = {database};
        name = requested.substr(dot + 1);
        break;
      }
    }
  }
  for (const std::string& schema : search) {
    if (std::optional<SchemaEntry> entry = find_entry(db, schema, name, function)) {
      return SchemaObject{schema, entry->name, entry->type == "view",
                          virtual_table_module(entry->sql)};
    }
  }
  return std::nullopt;
}

bool SchemaObject::is_simhash_index() const {
  return module && equal_ignoring_case(*module, "simhash_index");
}

std::string SchemaObject::kind() const {
  return view ? "a view" : module ? "a virtual table using " + *module : "an ordinary table";
}

ResolvedIndex open_index(sqlite3* db, const SchemaObject& object, std::string_view function) {
  try {
    return ResolvedIndex{object.schema, object.name,
                         read_index_config(db, object.schema, object.name).k};
  } catch (const SqliteError& error) {
    throw BatchError(std::string(function) + ": " + error.what(), error.code());
  }
}

ResolvedIndex resolve_index(sqlite3* db, std::string_view requested, std::string_view function) {
  const std::optional<SchemaObject> object = find_object(db, requested, function);
  if (!object) {
    throw BatchError(std::string(function) + ": no simhash_index named " + quoted(requested));
  }
  if (!object->is_simhash_index()) {
    throw BatchError(std::string(function) + ": " + quoted(requested) +
                     " is not a simhash_index (it is " + object->kind() + ")");
  }
  return open_index(db, *object, function);
}

std::vector<IdFingerprint> read_fingerprints(sqlite3* db, const ResolvedIndex& index,
                                             std::string_view function) {
  Statement statement;
  const std::string sql = format_sql(kSelectAllRows, index.schema.c_str(), index.name.c_str());
  if (prepare(db, sql, statement) != SQLITE_OK) {
    throw BatchError(std::string(function) + ": cannot read the rows of simhash_index " +
                         quoted(index.name) + " (" + sqlite3_errmsg(db) + ")",
                     sqlite3_errcode(db));
  }
  std::vector<IdFingerprint> records;
  // Counting first (SQLite counts a table's cells without decoding rows)
  // spares the copies of a growing vector: a tenth of the time at 10M rows.
  Statement count;
  if (prepare(db, format_sql(kCountRows, index.schema.c_str(), index.name.c_str()), count) ==
          SQLITE_OK &&
      sqlite3_step(count.get()) == SQLITE_ROW) {
    records.reserve(static_cast<std::size_t>(sqlite3_column_int64(count.get(), 0)));
  }
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(statement.get())) == SQLITE_ROW) {
    records.push_back(
        IdFingerprint{sqlite3_column_int64(statement.get(), 0),
                      static_cast<std::uint64_t>(sqlite3_column_int64(statement.get(), 1))});
  }
  if (rc != SQLITE_DONE) {
    throw_sqlite(db, function);
  }
  return records;
}

}  // namespace simhash::sql

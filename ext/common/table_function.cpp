// SPDX-License-Identifier: MIT
// The module behind every table-valued function (table_function.h): one
// sqlite3_module whose callbacks forward to the TableFunction in the
// module's aux and to the cursor it opens.
#include "ext/common/table_function.h"

#include <array>
#include <utility>

#include "ext/common/function_arguments.h"
#include "ext/common/sqlite_support.h"
#include "ext/common/virtual_table.h"

namespace simhash::sql {
namespace {

TableFunctionTable* table_of(sqlite3_vtab* vtab) { return sql::table_of<TableFunctionTable>(vtab); }
TableFunctionCursor* cursor_of(sqlite3_vtab_cursor* cursor) {
  return sql::cursor_of<TableFunctionCursor>(cursor);
}

int x_connect(sqlite3* db, void* aux, int /*argc*/, const char* const* /*argv*/, sqlite3_vtab** out,
              char** error) {
  return guard(error, [&] {
    const auto* function = static_cast<const TableFunction*>(aux);
    int rc = sqlite3_declare_vtab(db, function->schema);
    if (rc == SQLITE_OK && function->vtab_config != 0) {
      rc = sqlite3_vtab_config(db, function->vtab_config);
    }
    if (rc != SQLITE_OK) {
      throw SqliteError(rc, sqlite3_errmsg(db));
    }
    auto table = std::make_unique<TableFunctionTable>();
    table->db = db;
    table->function = function;
    if (function->connect != nullptr) {
      table->state = function->connect();
    }
    return hand_over(std::move(table), out);
  });
}

int x_disconnect(sqlite3_vtab* vtab) {
  free_error(vtab);
  take_back<TableFunctionTable>(vtab);
  return SQLITE_OK;
}

// The arguments as function_arguments.h plans them (a left-out argument and
// a NULL one differ); an argument not known yet asks for another join order.
int x_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&]() -> int {
    TableFunctionTable& table = *table_of(vtab);
    const TableFunction& function = *table.function;
    std::array<int, kMaxTableFunctionArguments> storage{};
    const std::span<int> constraint_of =
        std::span(storage).first(static_cast<std::size_t>(function.argument_count));
    if (const int rc = plan_arguments(info, function.first_argument, constraint_of);
        rc != SQLITE_OK) {
      return rc;
    }
    return function.plan(table, info, constraint_of);
  });
}

int x_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) {
  return guard(vtab, [&] { return hand_over(table_of(vtab)->function->open(), out); });
}

int x_close(sqlite3_vtab_cursor* cursor) {
  take_back<TableFunctionCursor>(cursor);
  return SQLITE_OK;
}

int x_filter(sqlite3_vtab_cursor* base, int idx_num, const char* /*idx_str*/, int argc,
             sqlite3_value** argv) {
  const TableFunction& function = *table_of(base->pVtab)->function;
  return guard(base->pVtab, function.name, [&] {
    std::array<sqlite3_value*, kMaxTableFunctionArguments> storage{};
    const std::span<sqlite3_value*> arguments =
        std::span(storage).first(static_cast<std::size_t>(function.argument_count));
    place_arguments(idx_num, argc, argv, arguments);
    cursor_of(base)->filter(arguments);
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* base) {
  return guard(base->pVtab, table_of(base->pVtab)->function->name, [&] {
    cursor_of(base)->next();
    return SQLITE_OK;
  });
}

int x_eof(sqlite3_vtab_cursor* base) { return cursor_of(base)->eof() ? 1 : 0; }

int x_column(sqlite3_vtab_cursor* base, sqlite3_context* context, int column) {
  return guard(base->pVtab, [&] {
    cursor_of(base)->column(context, column);
    return SQLITE_OK;
  });
}

int x_rowid(sqlite3_vtab_cursor* base, sqlite3_int64* rowid) {
  *rowid = cursor_of(base)->rowid();
  return SQLITE_OK;
}

sqlite3_module make_module() {
  sqlite3_module module{};
  module.iVersion = 0;
  module.xCreate = nullptr;  // eponymous only: no CREATE VIRTUAL TABLE
  module.xConnect = x_connect;
  module.xBestIndex = x_best_index;
  module.xDisconnect = x_disconnect;
  module.xDestroy = x_disconnect;
  module.xOpen = x_open;
  module.xClose = x_close;
  module.xFilter = x_filter;
  module.xNext = x_next;
  module.xEof = x_eof;
  module.xColumn = x_column;
  module.xRowid = x_rowid;
  return module;
}

const sqlite3_module table_function_module = make_module();

}  // namespace

int register_table_function(sqlite3* db, const TableFunction& function, char** error) {
  // SQLite hands aux back to xConnect, which only reads it.
  return register_module(db, function.name, &table_function_module, error,
                         const_cast<TableFunction*>(&function));
}

}  // namespace simhash::sql

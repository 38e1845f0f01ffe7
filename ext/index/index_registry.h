// SPDX-License-Identifier: MIT
// Which tables of each connection are simhash_index tables, as the module
// itself knows: every connected simhash_index holds an IndexRegistration
// (made in xCreate/xConnect, renamed by xRename, gone with xDisconnect), so
// the batch functions recognise an index by asking, after SQLite has
// resolved and connected the table, instead of reading its schema text.
#pragma once

#include <string>

#include "ext/common/sqlite_api.h"

namespace simhash::sql {

class IndexRegistration {
 public:
  IndexRegistration(sqlite3* db, std::string schema, std::string name);
  ~IndexRegistration();
  IndexRegistration(const IndexRegistration&) = delete;
  IndexRegistration& operator=(const IndexRegistration&) = delete;

  void rename(const std::string& new_name);

 private:
  sqlite3* db_;
  std::string schema_;
  std::string name_;
};

// True when `schema`.`name` (names in any case) is a simhash_index connected
// on `db`. Connect it first (prepare a statement that names it).
bool is_registered_index(sqlite3* db, const std::string& schema, const std::string& name);

}  // namespace simhash::sql

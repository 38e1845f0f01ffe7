// SPDX-License-Identifier: MIT
// One registration function per part of the glue; the entry point calls them
// all. Each returns an SQLite result code and may set *error (sqlite3_malloc'd).
#pragma once

#include "ext/common/sqlite_api.h"

namespace simhash::sql {

int register_scalar_functions(sqlite3* db, char** error);       // functions.cpp
int register_features_table(sqlite3* db, char** error);         // features_vtab.cpp
int register_index_module(sqlite3* db, char** error);           // index_vtab.cpp
int register_batch_tables(sqlite3* db, char** error);           // batch_vtab.cpp
int register_dedup_table(sqlite3* db, char** error);            // dedup_vtab.cpp
int register_verified_pairs_tables(sqlite3* db, char** error);  // verified_pairs_vtab.cpp
int register_similar_module(sqlite3* db, char** error);         // similar_vtab.cpp
int register_progress_function(sqlite3* db, char** error);      // common/progress_report.cpp

}  // namespace simhash::sql

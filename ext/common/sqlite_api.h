// SPDX-License-Identifier: MIT
// Include this instead of sqlite3.h in the glue: in the loadable module every
// SQLite call goes through the sqlite3_api table that the entry point receives;
// with SQLITE_CORE (the static library) the calls are direct.
#pragma once

#include <sqlite3ext.h>

SQLITE_EXTENSION_INIT3

// SPDX-License-Identifier: MIT
/* sqlite-simhash: the extension's entry point, for applications that link it
 * statically (libsimhash_static.a) instead of loading build/simhash.so:
 *
 *   #include "sqlite_simhash.h"
 *   sqlite3_auto_extension((void (*)(void))sqlite3_simhash_init);
 *
 * after which every connection the application opens has the functions and
 * the simhash_index module. */
#ifndef SQLITE_SIMHASH_H
#define SQLITE_SIMHASH_H

#include <sqlite3.h>

#ifdef __cplusplus
extern "C" {
#endif

int sqlite3_simhash_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi);

#ifdef __cplusplus
}
#endif

#endif

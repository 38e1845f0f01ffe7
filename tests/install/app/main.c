// SPDX-License-Identifier: MIT
/* An application built outside the tree against the installed extension
 * (tests/install/install_test.sh builds it with find_package and with
 * pkg-config): registers it once, then uses the functions and an index. */
#include <sqlite3.h>
#include <stdio.h>

#include "sqlite_simhash.h"

static int print_row(void *unused, int columns, char **values, char **names) {
  (void)unused;
  (void)names;
  for (int i = 0; i < columns; ++i) {
    printf("%s%s", i > 0 ? "|" : "", values[i] != NULL ? values[i] : "NULL");
  }
  printf("\n");
  return 0;
}

int main(void) {
  sqlite3 *db = NULL;
  char *error = NULL;
  if (sqlite3_auto_extension((void (*)(void))sqlite3_simhash_init) != SQLITE_OK ||
      sqlite3_open(":memory:", &db) != SQLITE_OK) {
    fprintf(stderr, "cannot open\n");
    return 1;
  }
  const char *sql =
      "CREATE VIRTUAL TABLE near USING simhash_index(k=3);"
      "INSERT INTO near(rowid, fp) VALUES (1, simhash('the quick brown fox')),"
      " (2, simhash('The quick brown fox!')), (3, simhash('an unrelated sentence'));"
      "SELECT a, b, distance FROM simhash_pairs('near');";
  if (sqlite3_exec(db, sql, print_row, NULL, &error) != SQLITE_OK) {
    fprintf(stderr, "%s\n", error);
    sqlite3_free(error);
    sqlite3_close(db);
    return 1;
  }
  sqlite3_close(db);
  return 0;
}

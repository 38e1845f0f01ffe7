// SPDX-License-Identifier: MIT
/* An application that bundles its own SQLite, as Android and iOS builds do:
 * the amalgamation linked in (scripts/test.sh compiles it with
 * SQLITE_OMIT_LOAD_EXTENSION), the extension linked statically and
 * registered with sqlite3_auto_extension (cmake
 * -DSIMHASH_SQLITE_AMALGAMATION=<dir>; run by tests/amalgamation/check_app.sh
 * with the amalgamation's version and whether load_extension was omitted).
 *
 * It checks that the SQLite it runs is the bundled one, with or without
 * load_extension as it was compiled, then that the index answers MATCH, the
 * table-valued form and simhash_pairs exactly as a brute-force scan with
 * hamming() does. */
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite_simhash.h"

static int failures = 0;

static void fail(const char *format, ...) {
  va_list arguments;
  va_start(arguments, format);
  vfprintf(stderr, format, arguments);
  va_end(arguments);
  fputc('\n', stderr);
  ++failures;
}

/* The test cannot go on after an SQL error, so it stops there. */
static void die(sqlite3 *db, const char *sql) {
  fprintf(stderr, "%s\n  in: %s\n", sqlite3_errmsg(db), sql);
  sqlite3_close(db);
  exit(1);
}

static void exec(sqlite3 *db, const char *sql) {
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
    die(db, sql);
  }
}

static sqlite3_int64 query_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *statement = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK ||
      sqlite3_step(statement) != SQLITE_ROW) {
    die(db, sql);
  }
  const sqlite3_int64 value = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  return value;
}

/* Copies the first column of the first row into text (a buffer of size
 * bytes). */
static void query_text(sqlite3 *db, const char *sql, char *text, size_t size) {
  sqlite3_stmt *statement = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &statement, NULL) != SQLITE_OK ||
      sqlite3_step(statement) != SQLITE_ROW) {
    die(db, sql);
  }
  const unsigned char *value = sqlite3_column_text(statement, 0);
  snprintf(text, size, "%s", value != NULL ? (const char *)value : "NULL");
  sqlite3_finalize(statement);
}

/* The rows of got and want (two SELECTs of the same columns) as multisets:
 * equal counts and nothing in either that the other lacks. EXCEPT alone
 * would hide a row the index returned twice. Returns the number of rows. */
static sqlite3_int64 same_rows(sqlite3 *db, const char *label, const char *got, const char *want) {
  char sql[2048];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM (%s)", got);
  const sqlite3_int64 got_count = query_int(db, sql);
  snprintf(sql, sizeof sql, "SELECT count(*) FROM (%s)", want);
  const sqlite3_int64 want_count = query_int(db, sql);
  snprintf(sql, sizeof sql, "SELECT count(*) FROM (%s EXCEPT %s)", got, want);
  const sqlite3_int64 extra = query_int(db, sql);
  snprintf(sql, sizeof sql, "SELECT count(*) FROM (%s EXCEPT %s)", want, got);
  const sqlite3_int64 missing = query_int(db, sql);
  if (got_count != want_count || extra != 0 || missing != 0) {
    fail("%s: %lld rows, hamming() finds %lld; %lld extra, %lld missing", label,
         (long long)got_count, (long long)want_count, (long long)extra, (long long)missing);
  }
  return want_count;
}

/* Three passages, each with near copies (a word changed, punctuation and
 * case changed, a sentence added), and unrelated texts, so that the radii
 * below hold pairs at several non-zero distances as well as the rows
 * themselves. */
static const char *const kTexts[] = {
    "The committee met on Tuesday to review the annual budget and agreed to fund the new library "
    "wing, the repairs to the swimming pool and a study of traffic on the main road.",
    "The committee met on Thursday to review the annual budget and agreed to fund the new library "
    "wing, the repairs to the swimming pool and a study of traffic on the main road.",
    "the committee met on tuesday to review the annual budget, and agreed to fund the new library "
    "wing; the repairs to the swimming pool; and a study of traffic on the main road!",
    "Replication keeps a copy of every page of the database on each of three machines, so the "
    "index survives the loss of any one of them while the other two elect a new leader.",
    "Replication keeps a copy of every page of the database on each of three servers, so the "
    "index survives the loss of any one of them while the other two elect a new leader.",
    "Replication keeps a copy of every page of the database on each of three machines, so the "
    "index survives the loss of any one of them while the other two elect a new leader. The "
    "leader answers queries.",
    "Bake the bread for forty minutes at two hundred degrees, then let it cool on a rack before "
    "slicing it, or the crumb will be gummy and the crust soft.",
    "Bake the bread for forty five minutes at two hundred degrees, then let it cool on a rack "
    "before slicing it, or the crumb will be gummy and the crust soft.",
    "A fingerprint of sixty-four bits stands for the whole document.",
    "Migrating birds navigate by the stars, the sun and the magnetic field of the earth.",
    "Quarterly revenue rose by eight percent on strong demand for cloud services.",
};

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[2], "omitted") != 0 && strcmp(argv[2], "kept") != 0)) {
    fprintf(stderr, "usage: %s <the amalgamation's SQLITE_VERSION> omitted|kept\n", argv[0]);
    return 2;
  }
  const char *expected_version = argv[1];
  const int load_extension_omitted = strcmp(argv[2], "omitted") == 0;

  if (sqlite3_auto_extension((void (*)(void))sqlite3_simhash_init) != SQLITE_OK) {
    fprintf(stderr, "sqlite3_auto_extension failed\n");
    return 1;
  }
  /* The extension's own check of sqlite3_libversion_number() runs here, in
   * the open: a refusal would be the open's error. */
  sqlite3 *db = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
    fprintf(stderr, "sqlite3_open: %s\n", db != NULL ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return 1;
  }

  /* The library running is the one whose header the program (and the
   * extension) were compiled against, of the version the test expects. The
   * system's SQLite may be the same version; check_app.sh's look at the
   * binary tells the two apart (and OMIT_LOAD_EXTENSION, when it is set). */
  char text[256];
  query_text(db, "SELECT sqlite_version()", text, sizeof text);
  if (strcmp(text, expected_version) != 0 || strcmp(sqlite3_libversion(), SQLITE_VERSION) != 0 ||
      sqlite3_libversion_number() != SQLITE_VERSION_NUMBER ||
      strcmp(sqlite3_sourceid(), SQLITE_SOURCE_ID) != 0) {
    fail("SQLite %s (%s) is running, expected %s (header: %s, %s)", text, sqlite3_sourceid(),
         expected_version, SQLITE_VERSION, SQLITE_SOURCE_ID);
  }
  if (sqlite3_compileoption_used("OMIT_LOAD_EXTENSION") != load_extension_omitted) {
    fail("the running SQLite was %scompiled with SQLITE_OMIT_LOAD_EXTENSION",
         load_extension_omitted ? "not " : "");
  }
  if (load_extension_omitted) {
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, "SELECT load_extension('simhash')", -1, &statement, NULL) ==
        SQLITE_OK) {
      fail("load_extension() exists in an SQLite without extension loading");
    } else if (strstr(sqlite3_errmsg(db), "no such function") == NULL) {
      fail("load_extension(): '%s', not 'no such function'", sqlite3_errmsg(db));
    }
    sqlite3_finalize(statement);
  }
  query_text(db, "SELECT simhash_version()", text, sizeof text);
  if (text[0] == '\0') {
    fail("simhash_version() is empty");
  }

  exec(db,
       "CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT NOT NULL, fp INTEGER);"
       "CREATE VIRTUAL TABLE near USING simhash_index(k=3);");
  sqlite3_stmt *insert = NULL;
  if (sqlite3_prepare_v2(db, "INSERT INTO docs(body, fp) VALUES (?1, simhash(?1))", -1, &insert,
                         NULL) != SQLITE_OK) {
    die(db, "INSERT INTO docs");
  }
  const int text_count = (int)(sizeof kTexts / sizeof kTexts[0]);
  for (int i = 0; i < text_count; ++i) {
    sqlite3_bind_text(insert, 1, kTexts[i], -1, SQLITE_STATIC);
    if (sqlite3_step(insert) != SQLITE_DONE) {
      die(db, "INSERT INTO docs");
    }
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  exec(db, "INSERT INTO near(rowid, fp) SELECT id, fp FROM docs");

  /* Radius 3 is the index's k, answered from its buckets; 12 is beyond it,
   * answered otherwise. Both must be exact. */
  const char *within_k =
      "SELECT a.id, b.id, hamming(a.fp, b.fp) FROM docs a, docs b WHERE hamming(a.fp, b.fp) <= 3";
  const char *within_12 =
      "SELECT a.id, b.id, hamming(a.fp, b.fp) FROM docs a, docs b WHERE hamming(a.fp, b.fp) <= 12";
  const sqlite3_int64 match_rows = same_rows(
      db, "MATCH", "SELECT d.id, n.rowid, n.distance FROM docs d JOIN near n ON n.fp MATCH d.fp",
      within_k);
  const sqlite3_int64 radius_rows =
      same_rows(db, "near(fp, 12)",
                "SELECT d.id, n.rowid, n.distance FROM docs d, near(d.fp, 12) n", within_12);
  const sqlite3_int64 pairs_k =
      same_rows(db, "simhash_pairs('near')", "SELECT a, b, distance FROM simhash_pairs('near')",
                "SELECT a.id, b.id, hamming(a.fp, b.fp) FROM docs a, docs b"
                " WHERE a.id < b.id AND hamming(a.fp, b.fp) <= 3");
  const sqlite3_int64 pairs_12 = same_rows(
      db, "simhash_pairs('near', 12)", "SELECT a, b, distance FROM simhash_pairs('near', 12)",
      "SELECT a.id, b.id, hamming(a.fp, b.fp) FROM docs a, docs b"
      " WHERE a.id < b.id AND hamming(a.fp, b.fp) <= 12");

  /* Agreement means little if every answer were a row finding itself. */
  const sqlite3_int64 near_distances =
      query_int(db,
                "SELECT count(DISTINCT hamming(a.fp, b.fp)) FROM docs a, docs b"
                " WHERE a.id < b.id AND hamming(a.fp, b.fp) BETWEEN 1 AND 12");
  if (pairs_k == 0 || near_distances < 2) {
    fail("the texts give %lld pairs within 3 bits and %lld distinct distances within 1..12",
         (long long)pairs_k, (long long)near_distances);
  }

  sqlite3_close(db);
  if (failures > 0) {
    return 1;
  }
  printf(
      "SQLite %s bundled, load_extension %s: %d texts; MATCH %lld, near(fp, 12) %lld, "
      "simhash_pairs %lld and %lld (radius 12) rows as hamming() finds them\n",
      sqlite3_libversion(), argv[2], text_count, (long long)match_rows, (long long)radius_rows,
      (long long)pairs_k, (long long)pairs_12);
  return 0;
}

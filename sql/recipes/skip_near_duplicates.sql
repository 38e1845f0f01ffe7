-- SPDX-License-Identifier: MIT
-- Skip a near-duplicate at insert, as INSERT OR IGNORE skips a row whose key
-- exists: a BEFORE INSERT trigger on docs(id INTEGER PRIMARY KEY, body
-- TEXT), kept in step with the simhash_index `near` by follow_table.sql
-- (run that first), that drops the new row without an error when a row
-- already in docs is a near-duplicate (the check of
-- refuse_near_duplicates.sql: within 10 bits, word-3-shingle Jaccard >=
-- 0.8, a large text compared as there). The statement succeeds;
-- changes() says whether the row went in. An application that wants the
-- choice per statement rather than for every insert writes
-- insert_unless_near_duplicate.sql instead of this trigger.
-- tests/sql/index_follow_table_test.cpp and tests/sql/recipes_replace_test.cpp
-- run this file as it is.
--
-- It must be BEFORE INSERT (RAISE(IGNORE) in an AFTER trigger would keep
-- the row), where new.id is -1 for an id SQLite chooses: a chosen id is
-- never one in use, so the row whose id the statement names is left out
-- (an INSERT OR REPLACE of a row by a new version of itself is checked
-- against the other rows only), except when that id is -1, which cannot be
-- told from a chosen one: then every row is compared, row -1 included, and
-- a new version of row -1 that nearly duplicates it is skipped (change
-- row -1 with UPDATE instead). An UPSERT whose insert is skipped does not
-- update either. Running the file again replaces the trigger by this
-- version.

DROP TRIGGER IF EXISTS docs_skip_near_duplicate;
CREATE TRIGGER docs_skip_near_duplicate BEFORE INSERT ON docs
WHEN EXISTS (
  SELECT 1
    FROM near(simhash(new.body), 10) AS n
    JOIN docs AS d ON d.id = n.rowid
   WHERE (n.rowid IS NOT new.id OR new.id = -1)
     AND CASE WHEN (SELECT length(CAST(new.body AS BLOB))) <= 100000
              THEN simhash_jaccard(new.body, d.body, 'n=3 weight=binary symbols=strict')
              ELSE (SELECT 1.0 * shared / (new_features + features - shared)
                      FROM (SELECT (SELECT count(*) FROM simhash_features(new.body, 'n=3 weight=binary symbols=strict'))
                                     AS new_features,
                                   count(*) AS features,
                                   sum(hash IN (SELECT hash FROM simhash_features(new.body, 'n=3 weight=binary symbols=strict')))
                                     AS shared
                              FROM simhash_features(d.body, 'n=3 weight=binary symbols=strict')))
         END >= 0.8)
BEGIN
  SELECT RAISE(IGNORE);
END;

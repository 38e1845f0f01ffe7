-- SPDX-License-Identifier: MIT
-- Skip a near-duplicate at insert, exactly, as INSERT OR IGNORE skips a row
-- whose key exists: a BEFORE INSERT trigger on docs(id INTEGER PRIMARY KEY,
-- body TEXT), kept in step with the simhash_similar table `alike` by
-- similar_follow_table.sql (run that first), that drops the new row without
-- an error when a row already in docs has a similarity (simhash_jaccard
-- with the options `alike` was created with) of at least 0.8 with it. The
-- index misses no such row. The statement succeeds; changes() says whether
-- the row went in. tests/sql/similar_recipes_test.cpp runs this file as it
-- is; docs/similar.md explains it. For another threshold, replace 0.8 (at
-- least the threshold `alike` was created with, 0.5 here); for other names,
-- replace docs, id, body and alike throughout.
--
-- It must be BEFORE INSERT (RAISE(IGNORE) in an AFTER trigger would keep
-- the row), where the new row is not in `alike` yet and new.id is -1 for an
-- id SQLite chooses: a chosen id is never one in use, so the row whose id
-- the statement names is left out (an INSERT OR REPLACE of a row by a new
-- version of itself is checked against the other rows only), except when
-- that id is -1, which cannot be told from a chosen one: then every row is
-- compared, row -1 included. A NULL body is never skipped. An UPSERT whose
-- insert is skipped does not update either. Running the file again
-- replaces the trigger by this version.

DROP TRIGGER IF EXISTS docs_alike_skip;
CREATE TRIGGER docs_alike_skip BEFORE INSERT ON docs
WHEN new.body IS NOT NULL AND EXISTS (
  SELECT 1
    FROM (SELECT rowid AS id FROM alike(new.body, 0.8) ORDER BY similarity DESC, rowid LIMIT 2) AS a
   WHERE a.id IS NOT new.id OR new.id = -1)
BEGIN
  SELECT RAISE(IGNORE);
END;

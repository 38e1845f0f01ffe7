-- SPDX-License-Identifier: MIT
-- A simhash_similar table that follows its content table: the triggers that
-- keep `alike` in step with docs(id INTEGER PRIMARY KEY, body TEXT) through
-- every INSERT (with an id or one SQLite chooses), UPDATE of body or id,
-- DELETE, INSERT OR REPLACE, REPLACE, UPDATE OR REPLACE and UPSERT (INSERT
-- ... ON CONFLICT(id) DO UPDATE). tests/sql/similar_recipes_test.cpp runs
-- this file as it is and checks `alike` against a simhash_jaccard scan of
-- docs after random writes; docs/similar.md explains it. For other names,
-- replace docs, id, body and alike throughout (and the options and
-- threshold of the CREATE, which the index's queries are bound by).
--
-- Usage:  sqlite3 my.db -cmd '.load build/simhash' < sql/recipes/similar_follow_table.sql
-- It can be run again: every statement is IF NOT EXISTS, and the fill at the
-- end adds only the rows `alike` lacks.
--
-- Why each trigger is written as it is:
-- * Every row of docs has its row in `alike`, a NULL or wordless body
--   included (stored as a row that no query finds), so the rowids of `alike`
--   are always the ids of docs.
-- * INSERT OR REPLACE, REPLACE and UPDATE OR REPLACE delete the row that
--   holds the id without firing the DELETE trigger unless PRAGMA
--   recursive_triggers=ON, and a table may declare the replacing itself
--   (id INTEGER PRIMARY KEY ON CONFLICT REPLACE). So the insert trigger first
--   removes whatever `alike` holds for new.id, and the update trigger
--   removes both old.id and new.id (the row the UPDATE displaced), before
--   they insert. Deleting first makes the triggers right under any conflict
--   clause, the statement's or the table's, with recursive_triggers off or
--   on, and needs no clause of their own.
-- * One update trigger for both columns (AFTER UPDATE OF id, body): an
--   UPDATE of both fires it once, and an UPDATE of other columns nothing.
-- * AFTER triggers: new.id is the id the row got (a BEFORE INSERT trigger
--   sees -1 for an id SQLite chooses), and only a row docs accepted is
--   indexed. Negative ids work like any other.
-- * Everything runs inside the statement's own transaction: a ROLLBACK,
--   ROLLBACK TO or failing statement undoes docs and `alike` alike.

-- The options are the check: word 3-shingles with symbols, for paragraphs
-- and documents. For short texts (5 to 30 words: titles, tickets, log
-- lines) write options='unit=char n=4 weight=binary' here and set the
-- refusal threshold to 0.7 (UPDATE alike_refuse_at SET threshold = 0.7):
-- on real changelog lines it caught 99.9% of one-character typos and 61-88%
-- of one-word edits, where the default catches under 7%, and kept "a < b"
-- and "a << b" apart (docs/dedup.md, "Short texts"). A text of more than
-- 100,000 distinct features (about 1 MB of varied prose) is refused, and
-- with it the write to docs: raise the limit first with
-- INSERT INTO alike(alike) VALUES ('max_features=N') (docs/similar.md).
CREATE TABLE IF NOT EXISTS docs(id INTEGER PRIMARY KEY, body TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS alike
  USING simhash_similar(threshold=0.5, options='n=3 weight=binary symbols=strict');

CREATE TRIGGER IF NOT EXISTS docs_alike_insert AFTER INSERT ON docs BEGIN
  DELETE FROM alike WHERE rowid = new.id;
  INSERT INTO alike(rowid, text) VALUES (new.id, new.body);
END;

CREATE TRIGGER IF NOT EXISTS docs_alike_update AFTER UPDATE OF id, body ON docs BEGIN
  DELETE FROM alike WHERE rowid IN (old.id, new.id);
  INSERT INTO alike(rowid, text) VALUES (new.id, new.body);
END;

CREATE TRIGGER IF NOT EXISTS docs_alike_delete AFTER DELETE ON docs BEGIN
  DELETE FROM alike WHERE rowid = old.id;
END;

-- The rows docs held before the triggers existed.
INSERT INTO alike(rowid, text)
  SELECT id, body FROM docs WHERE id NOT IN (SELECT rowid FROM alike);

-- SPDX-License-Identifier: MIT
-- An index that follows its table: the triggers that keep the simhash_index
-- `near` in step with the content table docs(id INTEGER PRIMARY KEY, body
-- TEXT) through every INSERT, UPDATE of body or id, DELETE, INSERT OR
-- REPLACE, REPLACE and UPSERT (INSERT ... ON CONFLICT(id) DO UPDATE).
-- tests/sql/index_follow_table_test.cpp runs this file as it is and checks
-- the index against a rebuild from the table after random writes;
-- docs/application.md explains it. For other names, replace docs, id, body
-- and near throughout.
--
-- Usage:  sqlite3 my.db -cmd '.load build/simhash' < sql/recipes/follow_table.sql
-- It can be run again: every CREATE is IF NOT EXISTS, and the last two
-- statements only bring the index up to date with the table.
--
-- Why each trigger is written as it is:
-- * simhash(body) is NULL for a text without words (or a NULL body); the
--   index stores it as a row no search finds, so every row of docs has its
--   row in near and `SELECT rowid, fp FROM near` always equals
--   `SELECT id, simhash(body) FROM docs`.
-- * INSERT OR REPLACE, REPLACE and UPDATE OR REPLACE delete the row that
--   holds the id without firing the DELETE trigger, unless PRAGMA
--   recursive_triggers=ON. A statement's conflict clause replaces the
--   clauses inside the triggers it fires (SQLite's documented rule), so
--   after such a statement the trigger's INSERT replaces the old entry
--   itself; with recursive_triggers on, the DELETE trigger has already
--   removed it. Right either way.
-- * A table may declare the replacing itself (id INTEGER PRIMARY KEY ON
--   CONFLICT REPLACE): then a plain INSERT or UPDATE replaces, the statement
--   carries no clause, and the triggers' own do the work: the insert
--   trigger's OR REPLACE, and the update trigger's DELETE of new.id (the
--   entry of the row the UPDATE displaced). The test runs the four cases
--   (recursive_triggers off and on, each key declaration) and fails if
--   either is left out.
-- * The update trigger deletes before it inserts, so it needs no conflict
--   clause of its own and is right under any the statement carries (an
--   UPSERT's DO UPDATE, an UPDATE OR IGNORE).
-- * One update trigger for both columns (AFTER UPDATE OF id, body): an
--   UPDATE of both fires it once. An UPDATE of other columns fires nothing.
-- * AFTER triggers: new.id is the id the row got (a BEFORE INSERT trigger
--   sees -1 for an id SQLite chooses), and only a row docs accepted is
--   indexed.
-- * Everything runs inside the statement's own transaction: a ROLLBACK,
--   ROLLBACK TO or failing statement undoes the table and the index alike.

CREATE TABLE IF NOT EXISTS docs(id INTEGER PRIMARY KEY, body TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS near USING simhash_index(k=3);

CREATE TRIGGER IF NOT EXISTS docs_near_insert AFTER INSERT ON docs BEGIN
  INSERT OR REPLACE INTO near(rowid, fp) VALUES (new.id, simhash(new.body));
END;

CREATE TRIGGER IF NOT EXISTS docs_near_update AFTER UPDATE OF id, body ON docs BEGIN
  DELETE FROM near WHERE rowid IN (old.id, new.id);
  INSERT INTO near(rowid, fp) VALUES (new.id, simhash(new.body));
END;

CREATE TRIGGER IF NOT EXISTS docs_near_delete AFTER DELETE ON docs BEGIN
  DELETE FROM near WHERE rowid = old.id;
END;

-- The index brought up to date with what docs held before the triggers
-- existed: an index filled by hand (as docs/dedup.md fills one) may hold
-- rows since deleted or edited, whose entries go (fp IS NOT simhash(body)
-- also catches an entry for a body simhash() gives NULL), and lack rows,
-- which are added. Each statement reads every row of the index or the
-- table once; after them `SELECT rowid, fp FROM near` equals
-- `SELECT id, simhash(body) FROM docs`, and the triggers keep it so.
DELETE FROM near WHERE rowid IN (
  SELECT n.rowid FROM near AS n LEFT JOIN docs AS d ON d.id = n.rowid
   WHERE d.id IS NULL OR n.fp IS NOT simhash(d.body));
INSERT INTO near(rowid, fp)
  SELECT id, simhash(body) FROM docs WHERE id NOT IN (SELECT rowid FROM near);

-- SPDX-License-Identifier: MIT
-- Refuse a near-duplicate at insert, exactly: an AFTER INSERT trigger on
-- docs(id INTEGER PRIMARY KEY, body TEXT), kept in step with the
-- simhash_similar table `alike` by similar_follow_table.sql (run that
-- first), that fails the INSERT when a row already in docs has a similarity
-- (simhash_jaccard with the options `alike` was created with) of at least
-- the refusal threshold with the new text. The index misses no such row.
-- tests/sql/similar_recipes_test.cpp runs this file as it is;
-- docs/similar.md explains it. For other names, replace docs, id, body and
-- alike throughout.
--
-- The threshold is the one row of alike_refuse_at, 0.8 unless set:
--   UPDATE alike_refuse_at SET threshold = 0.9;
-- It takes effect at the next INSERT. It must be at least the threshold
-- `alike` was created with (0.5 here); a lower one makes every checked
-- INSERT fail with the error that names both thresholds.
--
-- The statement fails with SQLITE_CONSTRAINT and a message that names the
-- most similar row (ties: the lowest id), as "near-duplicate of docs row 42
-- (similarity 0.93 >= 0.8)", and changes nothing: the error undoes the
-- whole statement, the row just inserted and its entry in `alike` included,
-- while the transaction around it goes on. simhash_raise(message) fails
-- with its argument as the message (RAISE in SQLite 3.40 takes only a
-- literal, which could not name the row).
--
-- Why AFTER INSERT: a BEFORE INSERT trigger sees new.id = -1 when SQLite
-- chooses the id, so it could not leave the row's own id out. After the
-- insert, new.id is the row's id, and `rowid IS NOT new.id` leaves out the
-- row itself and, under INSERT OR REPLACE of an existing id, the version it
-- replaces: a new version of a row is checked against the other rows only.
-- The inner SELECT has `alike` as its only table, its threshold a
-- subquery and no other WHERE term, so that SQLite hands its LIMIT to
-- `alike`, which then looks for the two most similar rows only, with a
-- rising threshold, instead of reading every row at the threshold
-- (docs/similar.md). Two, because the row itself is among them when it is
-- most similar; the outer SELECT leaves it out. (`rowid IS NOT new.id`
-- inside would make SQLite 3.40 keep the LIMIT to itself.)
-- A NULL body is not checked (a NULL query is an error), and a wordless one
-- finds nothing: neither is ever refused. Only INSERT is checked; an UPDATE
-- of body, or an UPSERT that turns into one, is not.

CREATE TABLE IF NOT EXISTS alike_refuse_at(
  threshold REAL NOT NULL CHECK (threshold > 0 AND threshold <= 1));
INSERT INTO alike_refuse_at(threshold)
  SELECT 0.8 WHERE NOT EXISTS (SELECT 1 FROM alike_refuse_at);

CREATE TRIGGER IF NOT EXISTS docs_alike_refuse AFTER INSERT ON docs
WHEN new.body IS NOT NULL AND EXISTS (SELECT 1 FROM alike_refuse_at)
BEGIN
  SELECT simhash_raise(format('near-duplicate of docs row %d (similarity %.2f >= %s)',
                              a.id, a.similarity, a.threshold))
    FROM (SELECT rowid AS id, similarity, threshold
            FROM alike(new.body, (SELECT threshold FROM alike_refuse_at))
           ORDER BY similarity DESC, rowid
           LIMIT 2) AS a
   WHERE a.id IS NOT new.id
   ORDER BY a.similarity DESC, a.id
   LIMIT 1;
END;

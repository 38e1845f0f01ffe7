-- SPDX-License-Identifier: MIT
-- Record near-duplicates as they arrive, exactly, and keep every row: the
-- links of docs(id INTEGER PRIMARY KEY, body TEXT) in
-- duplicates(new_id, existing_id, similarity), kept by triggers beside the
-- simhash_similar table `alike` that similar_follow_table.sql keeps in step
-- with docs (run that first). A row inserted, or whose body or id changes,
-- is linked to every other row whose similarity (simhash_jaccard with the
-- options `alike` was created with) with it is at least 0.8; a deleted
-- row's links go with it. The index misses no such row.
-- tests/sql/similar_recipes_test.cpp runs this file as it is;
-- docs/similar.md explains it. For another threshold, replace 0.8 (at
-- least the threshold `alike` was created with, 0.5 here); for other names,
-- replace docs, id, body and alike throughout. It serves instead of
-- record_near_duplicates.sql, whose table it shares.
--
-- The links of a row are those found when it last arrived or changed: a
-- link points from the newer text to the one already there, and a row's
-- edit drops the links of the rows it pointed to and of those that
-- pointed to it. A NULL or wordless body has no links. Running the file
-- again replaces the triggers and keeps the table.

CREATE TABLE IF NOT EXISTS duplicates(
  new_id INTEGER NOT NULL,
  existing_id INTEGER NOT NULL,
  similarity REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS duplicates_new ON duplicates(new_id);
CREATE INDEX IF NOT EXISTS duplicates_existing ON duplicates(existing_id);

DROP TRIGGER IF EXISTS docs_alike_record;
CREATE TRIGGER docs_alike_record AFTER INSERT ON docs BEGIN
  DELETE FROM duplicates WHERE new_id = new.id OR existing_id = new.id;
  INSERT INTO duplicates(new_id, existing_id, similarity)
  SELECT new.id, rowid, similarity FROM alike(coalesce(new.body, ''), 0.8)
   WHERE rowid IS NOT new.id;
END;

DROP TRIGGER IF EXISTS docs_alike_rerecord;
CREATE TRIGGER docs_alike_rerecord AFTER UPDATE OF id, body ON docs BEGIN
  DELETE FROM duplicates
   WHERE new_id IN (old.id, new.id) OR existing_id IN (old.id, new.id);
  INSERT INTO duplicates(new_id, existing_id, similarity)
  SELECT new.id, rowid, similarity FROM alike(coalesce(new.body, ''), 0.8)
   WHERE rowid NOT IN (old.id, new.id);
END;

DROP TRIGGER IF EXISTS docs_alike_forget;
CREATE TRIGGER docs_alike_forget AFTER DELETE ON docs BEGIN
  DELETE FROM duplicates WHERE new_id = old.id OR existing_id = old.id;
END;

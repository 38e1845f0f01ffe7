-- SPDX-License-Identifier: MIT
-- Record near-duplicates: every row goes in, and each other row of docs that
-- a row nearly duplicates when it is written (the check of
-- refuse_near_duplicates.sql: within 10 bits in the simhash_index `near`,
-- word-3-shingle Jaccard >= 0.8, a large text compared as there) is
-- written to duplicates(new_id, existing_id, similarity). For docs(id
-- INTEGER PRIMARY KEY, body TEXT) kept in step with `near` by
-- follow_table.sql (run that first). tests/sql/index_follow_table_test.cpp
-- and tests/sql/recipes_replace_test.cpp run this file as it is.
--
-- A link always describes the two rows as they are now: whatever removes
-- or rewrites a row removes its links, on either side, first.
-- * INSERT (and an UPSERT that inserts): links from the new row to each
--   row it nearly duplicates. AFTER INSERT, so new.id is the id the row got
--   (a BEFORE INSERT trigger sees -1 for an id SQLite chooses). The row
--   itself is left out (`n.rowid <> new.id`) whether or not the index
--   trigger has already added it.
-- * INSERT OR REPLACE, REPLACE (or a key declared ON CONFLICT REPLACE)
--   delete the row that held the id without firing the DELETE trigger,
--   unless PRAGMA recursive_triggers=ON: the insert trigger therefore first
--   deletes every link of new.id, which then can only be the replaced row's.
-- * UPDATE of id or body (and an UPSERT's DO UPDATE): the row counts as
--   deleted and inserted again, so its links go and are recorded again
--   from it. Links of old.id and of new.id go: an UPDATE OR REPLACE that
--   moves a row onto a used id deletes that row without the DELETE trigger.
-- * DELETE: the row's links go.
-- Running the file again replaces the triggers by this version.

CREATE TABLE IF NOT EXISTS duplicates(
  new_id INTEGER NOT NULL,
  existing_id INTEGER NOT NULL,
  similarity REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS duplicates_new ON duplicates(new_id);
CREATE INDEX IF NOT EXISTS duplicates_existing ON duplicates(existing_id);

DROP TRIGGER IF EXISTS docs_record_near_duplicates;
CREATE TRIGGER docs_record_near_duplicates AFTER INSERT ON docs BEGIN
  DELETE FROM duplicates WHERE new_id = new.id OR existing_id = new.id;
  INSERT INTO duplicates(new_id, existing_id, similarity)
  SELECT new.id, id, similarity
    FROM (SELECT d.id,
                 CASE WHEN (SELECT length(CAST(new.body AS BLOB))) <= 100000
                      THEN simhash_jaccard(new.body, d.body, 'n=3 weight=binary symbols=strict')
                      ELSE (SELECT 1.0 * shared / (new_features + features - shared)
                              FROM (SELECT (SELECT count(*) FROM simhash_features(new.body, 'n=3 weight=binary symbols=strict'))
                                             AS new_features,
                                           count(*) AS features,
                                           sum(hash IN (SELECT hash FROM simhash_features(new.body, 'n=3 weight=binary symbols=strict')))
                                             AS shared
                                      FROM simhash_features(d.body, 'n=3 weight=binary symbols=strict')))
                 END AS similarity
            FROM near(simhash(new.body), 10) AS n
            JOIN docs AS d ON d.id = n.rowid
           WHERE n.rowid <> new.id)
   WHERE similarity >= 0.8;
END;

DROP TRIGGER IF EXISTS docs_rerecord_near_duplicates;
CREATE TRIGGER docs_rerecord_near_duplicates AFTER UPDATE OF id, body ON docs BEGIN
  DELETE FROM duplicates
   WHERE new_id IN (old.id, new.id) OR existing_id IN (old.id, new.id);
  INSERT INTO duplicates(new_id, existing_id, similarity)
  SELECT new.id, id, similarity
    FROM (SELECT d.id,
                 CASE WHEN (SELECT length(CAST(new.body AS BLOB))) <= 100000
                      THEN simhash_jaccard(new.body, d.body, 'n=3 weight=binary symbols=strict')
                      ELSE (SELECT 1.0 * shared / (new_features + features - shared)
                              FROM (SELECT (SELECT count(*) FROM simhash_features(new.body, 'n=3 weight=binary symbols=strict'))
                                             AS new_features,
                                           count(*) AS features,
                                           sum(hash IN (SELECT hash FROM simhash_features(new.body, 'n=3 weight=binary symbols=strict')))
                                             AS shared
                                      FROM simhash_features(d.body, 'n=3 weight=binary symbols=strict')))
                 END AS similarity
            FROM near(simhash(new.body), 10) AS n
            JOIN docs AS d ON d.id = n.rowid
           WHERE n.rowid <> new.id)
   WHERE similarity >= 0.8;
END;

DROP TRIGGER IF EXISTS docs_forget_duplicates;
CREATE TRIGGER docs_forget_duplicates AFTER DELETE ON docs BEGIN
  DELETE FROM duplicates WHERE new_id = old.id OR existing_id = old.id;
END;

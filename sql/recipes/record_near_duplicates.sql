-- Record near-duplicates at insert: every row goes in, and each row already
-- in docs that the new one nearly duplicates (the check of
-- refuse_near_duplicates.sql: within 10 bits in the simhash_index `near`,
-- word-3-shingle Jaccard >= 0.8) is written to duplicates(new_id,
-- existing_id, similarity). For docs(id INTEGER PRIMARY KEY, body TEXT)
-- kept in step with `near` by follow_table.sql (run that first).
-- tests/sql/index_follow_table_test.cpp runs this file as it is.
--
-- An AFTER INSERT trigger, so new.id is the id the row got (a BEFORE INSERT
-- trigger sees -1 for an id SQLite chooses). Whether or not the index
-- trigger has already added the new row, `n.rowid <> new.id` leaves it out.
-- A deleted row's links go with it. An UPDATE of body records nothing.

CREATE TABLE IF NOT EXISTS duplicates(
  new_id INTEGER NOT NULL,
  existing_id INTEGER NOT NULL,
  similarity REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS duplicates_new ON duplicates(new_id);
CREATE INDEX IF NOT EXISTS duplicates_existing ON duplicates(existing_id);

CREATE TRIGGER IF NOT EXISTS docs_record_near_duplicates AFTER INSERT ON docs BEGIN
  INSERT INTO duplicates(new_id, existing_id, similarity)
  SELECT new.id, id, similarity
    FROM (SELECT d.id, simhash_jaccard(new.body, d.body, 'n=3 weight=binary') AS similarity
            FROM near(simhash(new.body), 10) AS n
            JOIN docs AS d ON d.id = n.rowid
           WHERE n.rowid <> new.id)
   WHERE similarity >= 0.8;
END;

CREATE TRIGGER IF NOT EXISTS docs_forget_duplicates AFTER DELETE ON docs BEGIN
  DELETE FROM duplicates WHERE new_id = old.id OR existing_id = old.id;
END;

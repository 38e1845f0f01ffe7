-- Refuse a near-duplicate at insert: a BEFORE INSERT trigger on
-- docs(id INTEGER PRIMARY KEY, body TEXT), kept in step with the
-- simhash_index `near` by follow_table.sql (run that first), that fails the
-- INSERT when a row already in docs is a near-duplicate of the new text:
-- its fingerprint within 10 bits of the new one (the candidates, found by
-- the index: radius 10 is above k=3, answered exactly by multi-probe) and
-- its word-3-shingle Jaccard similarity with the new text at least 0.8 (the
-- exact check, so a fingerprint collision never refuses a row).
-- tests/sql/index_follow_table_test.cpp runs this file as it is;
-- docs/application.md explains it.
--
-- The statement fails with SQLITE_CONSTRAINT (extended code
-- SQLITE_CONSTRAINT_TRIGGER) and the message below, and changes nothing.
-- SQLite 3.40 (Debian 12's) takes only a string literal as RAISE's message,
-- so the message cannot hold the id of the row it duplicates: the
-- application asks for it with near_duplicate_of.sql, the same check as a
-- query, in the same transaction (BEGIN IMMEDIATE ... COMMIT) to get the row
-- the trigger saw.
--
-- The row's own id is left out (`n.rowid IS NOT new.id`), so INSERT OR
-- REPLACE of a row by a new version of itself, and an UPSERT's insert
-- attempt, are checked against the other rows only. A wordless or NULL body
-- has a NULL fingerprint, which finds nothing: it is never refused.
-- Only INSERT is checked; an UPDATE of body is not.
-- Two connections (or processes) inserting the same near-duplicate never
-- both succeed: an INSERT takes SQLite's write lock before its triggers
-- read, so the second one's check runs after the first one committed and
-- sees its row.

CREATE TRIGGER IF NOT EXISTS docs_refuse_near_duplicate BEFORE INSERT ON docs
WHEN EXISTS (
  SELECT 1
    FROM near(simhash(new.body), 10) AS n
    JOIN docs AS d ON d.id = n.rowid
   WHERE n.rowid IS NOT new.id
     AND simhash_jaccard(new.body, d.body, 'n=3 weight=binary') >= 0.8)
BEGIN
  SELECT RAISE(ABORT, 'near-duplicate: a row of docs has word-3-shingle Jaccard >= 0.8 with this text');
END;

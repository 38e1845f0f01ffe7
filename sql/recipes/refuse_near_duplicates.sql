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
-- The statement fails with SQLITE_CONSTRAINT and a message that names the
-- most similar row, as "near-duplicate of docs row 42 (word-3-shingle
-- Jaccard 0.93 >= 0.8)", and changes nothing. simhash_raise(message) is the
-- extension's function that fails with its argument as the message: SQLite
-- 3.40 (Debian 12's) takes only a string literal as RAISE's message, which
-- could not name the row. near_duplicate_of.sql lists every such row.
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
BEGIN
  SELECT simhash_raise(format('near-duplicate of docs row %d (word-3-shingle Jaccard %.2f >= 0.8)',
                              existing_id, similarity))
    FROM (SELECT d.id AS existing_id,
                 simhash_jaccard(new.body, d.body, 'n=3 weight=binary') AS similarity
            FROM near(simhash(new.body), 10) AS n
            JOIN docs AS d ON d.id = n.rowid
           WHERE n.rowid IS NOT new.id AND similarity >= 0.8
           ORDER BY similarity DESC, d.id
           LIMIT 1);
END;

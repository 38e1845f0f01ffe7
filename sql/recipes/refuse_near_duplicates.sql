-- SPDX-License-Identifier: MIT
-- Refuse a near-duplicate at insert: an AFTER INSERT trigger on
-- docs(id INTEGER PRIMARY KEY, body TEXT), kept in step with the
-- simhash_index `near` by follow_table.sql (run that first), that fails the
-- INSERT when another row of docs is a near-duplicate of the new text: its
-- fingerprint within 10 bits of the new one (the candidates, found by the
-- index: radius 10 is above k=3, answered exactly by multi-probe) and its
-- word-3-shingle Jaccard similarity with the new text at least 0.8 (the
-- exact check, so a fingerprint collision never refuses a row).
-- tests/sql/index_follow_table_test.cpp and tests/sql/recipes_replace_test.cpp
-- run this file as it is; docs/application.md explains it.
--
-- The statement fails with SQLITE_CONSTRAINT and a message that names the
-- most similar row, as "near-duplicate of docs row 42 (word-3-shingle
-- Jaccard 0.93 >= 0.8)", and changes nothing (SQLite undoes the row and
-- what its triggers wrote). simhash_raise(message) is the extension's
-- function that fails with its argument as the message: SQLite 3.40
-- (Debian 12's) takes only a string literal as RAISE's message, which could
-- not name the row. near_duplicate_of.sql lists every such row.
--
-- AFTER INSERT, so new.id is the id the row got: a BEFORE INSERT trigger
-- sees -1 for an id SQLite chooses and could not tell it from a row -1
-- already there. The row itself is left out (`n.rowid <> new.id`); the row
-- an INSERT OR REPLACE, REPLACE or key declared ON CONFLICT REPLACE
-- replaced is already gone, so a new version of a row is checked against
-- the other rows only. An UPSERT that updates, and an UPDATE of body, are
-- not checked (no row is inserted). A wordless or NULL body has a NULL
-- fingerprint, which finds nothing: it is never refused.
--
-- A new text over 100,000 bytes is compared differently, to bound the
-- cost: simhash_jaccard reads both whole texts at every call (to find their
-- remembered features), so checking a 10 MB text against 1,000 candidates
-- read it 1,000 times (seconds). Instead its word 3-shingles are listed
-- once (simhash_features, its hashes kept by the IN for the whole trigger
-- run) and each candidate's shingles are looked up in them: the same
-- Jaccard, |shared| / (|new| + |candidate| - |shared|), computed with the
-- same division (so the same REAL), in time proportional to the new text
-- once plus each candidate's own size. docs/application.md has the costs.

-- Two connections (or processes) inserting the same near-duplicate never
-- both succeed: an INSERT takes SQLite's write lock before its triggers
-- read, so the second one's check runs after the first one committed and
-- sees its row. Running the file again replaces the trigger by this
-- version (and drops a BEFORE INSERT one an older version made).

DROP TRIGGER IF EXISTS docs_refuse_near_duplicate;
CREATE TRIGGER docs_refuse_near_duplicate AFTER INSERT ON docs
BEGIN
  SELECT simhash_raise(format('near-duplicate of docs row %d (word-3-shingle Jaccard %.2f >= 0.8)',
                              existing_id, similarity))
    FROM (SELECT d.id AS existing_id,
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
           WHERE n.rowid <> new.id AND similarity >= 0.8
           ORDER BY similarity DESC, d.id
           LIMIT 1);
END;

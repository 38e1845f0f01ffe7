-- SPDX-License-Identifier: MIT
-- The rows of docs that are near-duplicates of the text :body, most similar
-- first: the check refuse_near_duplicates.sql, skip_near_duplicates.sql and
-- record_near_duplicates.sql make, as a query an application runs itself
-- (to name the row an insert was refused for, or to ask before inserting).
-- Candidates within 10 bits of simhash(:body) from the simhash_index
-- `near`, verified by word-3-shingle Jaccard similarity >= 0.8 (for a
-- :body over 100,000 bytes from the two texts' shingle lists, as
-- refuse_near_duplicates.sql explains).
-- tests/sql/index_follow_table_test.cpp prepares this file as it is.
SELECT d.id AS existing_id,
       CASE WHEN (SELECT length(CAST(:body AS BLOB))) <= 100000
            THEN simhash_jaccard(:body, d.body, 'n=3 weight=binary symbols=strict')
            ELSE (SELECT 1.0 * shared / (new_features + features - shared)
                    FROM (SELECT (SELECT count(*) FROM simhash_features(:body, 'n=3 weight=binary symbols=strict'))
                                   AS new_features,
                                 count(*) AS features,
                                 sum(hash IN (SELECT hash FROM simhash_features(:body, 'n=3 weight=binary symbols=strict')))
                                   AS shared
                            FROM simhash_features(d.body, 'n=3 weight=binary symbols=strict')))
       END AS similarity
  FROM near(simhash(:body), 10) AS n
  JOIN docs AS d ON d.id = n.rowid
 WHERE similarity >= 0.8
 ORDER BY similarity DESC, d.id

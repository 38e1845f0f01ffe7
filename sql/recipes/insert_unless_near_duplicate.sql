-- SPDX-License-Identifier: MIT
-- Insert :body into docs unless a row already there is a near-duplicate (the
-- check of refuse_near_duplicates.sql: within 10 bits in the simhash_index
-- `near`, word-3-shingle Jaccard >= 0.8, a large text compared as there):
-- one statement, no trigger of its own, for an application that
-- chooses per insert. changes() is 1 if the row went in, 0 if it was
-- skipped. Needs follow_table.sql's triggers so the new row reaches the
-- index. The check and the insert are one statement, so two connections
-- running it with the same text never both insert (the INSERT takes the
-- write lock before its SELECT reads).
-- tests/sql/index_follow_table_test.cpp prepares this file as it is.
INSERT INTO docs(body)
SELECT :body
 WHERE NOT EXISTS (
   SELECT 1
     FROM near(simhash(:body), 10) AS n
     JOIN docs AS d ON d.id = n.rowid
    WHERE CASE WHEN (SELECT length(CAST(:body AS BLOB))) <= 100000
               THEN simhash_jaccard(:body, d.body, 'n=3 weight=binary symbols=strict')
               ELSE (SELECT 1.0 * shared / (new_features + features - shared)
                       FROM (SELECT (SELECT count(*) FROM simhash_features(:body, 'n=3 weight=binary symbols=strict'))
                                      AS new_features,
                                    count(*) AS features,
                                    sum(hash IN (SELECT hash FROM simhash_features(:body, 'n=3 weight=binary symbols=strict')))
                                      AS shared
                               FROM simhash_features(d.body, 'n=3 weight=binary symbols=strict')))
          END >= 0.8)

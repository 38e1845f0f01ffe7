-- The rows of docs that are near-duplicates of the text :body, most similar
-- first: the check refuse_near_duplicates.sql, skip_near_duplicates.sql and
-- record_near_duplicates.sql make, as a query an application runs itself
-- (to name the row an insert was refused for, or to ask before inserting).
-- Candidates within 10 bits of simhash(:body) from the simhash_index
-- `near`, verified by word-3-shingle Jaccard similarity >= 0.8 (with the
-- size test that bounds the cost of a large :body, explained in
-- refuse_near_duplicates.sql).
-- tests/sql/index_follow_table_test.cpp prepares this file as it is.
SELECT d.id AS existing_id,
       CASE WHEN new_size.features <= 1000
              OR (SELECT count(*) FROM simhash_features(d.body, 'n=3 weight=binary'))
                 >= 0.8 * new_size.features - 1
            THEN simhash_jaccard(:body, d.body, 'n=3 weight=binary') END AS similarity
  FROM (SELECT count(*) AS features FROM simhash_features(:body, 'n=3 weight=binary')) AS new_size,
       near(simhash(:body), 10) AS n
  JOIN docs AS d ON d.id = n.rowid
 WHERE similarity >= 0.8
 ORDER BY similarity DESC, d.id

-- SPDX-License-Identifier: MIT
-- Look, then delete, with one dedup run: simhash_dedup's groups of
-- docs(id INTEGER PRIMARY KEY, body TEXT) kept in a temp table, a one-row
-- summary of what keep-one would remove, the least similar removals to read,
-- and the DELETE from the same table (the dedup is not run a second time).
-- docs/dedup.md explains it; tests/python/test_dedup_flow.py runs this file
-- and checks each number against the table.
--
-- The keep policy is the query's ORDER BY: the first row of each group is
-- kept (here the lowest id; ORDER BY length(body) DESC keeps the longest).

DROP TABLE IF EXISTS temp.dupes;
CREATE TEMP TABLE dupes AS
  SELECT id, cluster, distance, similarity
    FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id');

-- The summary: groups, rows to remove, their bytes, the least similar
-- removal (the one to read first).
SELECT count(DISTINCT cluster) AS groups,
       count(*) FILTER (WHERE id <> cluster) AS rows_to_remove,
       coalesce(sum(length(CAST(d.body AS BLOB))) FILTER (WHERE id <> cluster), 0) AS bytes_to_remove,
       min(similarity) FILTER (WHERE id <> cluster) AS least_similarity
  FROM temp.dupes JOIN docs AS d USING (id);

-- The five least similar removals beside the rows kept for them.
SELECT x.id AS removed, x.cluster AS kept, round(x.similarity, 3) AS similarity,
       substr(r.body, 1, 60) AS removed_text, substr(k.body, 1, 60) AS kept_text
  FROM temp.dupes AS x
  JOIN docs AS r ON r.id = x.id
  JOIN docs AS k ON k.id = x.cluster
 WHERE x.id <> x.cluster
 ORDER BY x.similarity, x.id
 LIMIT 5;

-- Satisfied: delete from the same groups.
-- DELETE FROM docs WHERE id IN (SELECT id FROM temp.dupes WHERE id <> cluster);

-- SPDX-License-Identifier: MIT
-- Look, then delete, with one dedup run: simhash_dedup's groups of
-- docs(id INTEGER PRIMARY KEY, body TEXT) kept in a temp table with what
-- each removal would lose (simhash_change's kind and simhash_changed_words),
-- a summary by kind, the removals to review with their changed words, and
-- the DELETE of the removals that are safe unread (the dedup is not run a
-- second time). docs/dedup.md explains it; tests/python/test_dedup_flow.py
-- runs this file and checks each number against the table.
--
-- The keep policy is the query's ORDER BY: the first row of each group is
-- kept (here the lowest id; ORDER BY length(body) DESC keeps the longest).

DROP TABLE IF EXISTS temp.dupes;
CREATE TEMP TABLE dupes AS
  SELECT x.id, x.cluster, x.distance, x.similarity,
         CASE WHEN x.id <> x.cluster THEN simhash_change(r.body, k.body) END AS kind,
         CASE WHEN x.id <> x.cluster THEN simhash_changed_words(r.body, k.body) END AS changes
    FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id') AS x
    JOIN docs AS r ON r.id = x.id
    JOIN docs AS k ON k.id = x.cluster;

-- The summary: the removals of each kind, whether the DELETE below takes
-- them unread, their bytes and the least similar of them.
SELECT d.kind, count(*) AS removals,
       d.kind IN ('identical', 'formatting') AS deleted_unread,
       sum(length(CAST(r.body AS BLOB))) AS bytes,
       round(min(d.similarity), 3) AS least_similarity
  FROM temp.dupes AS d JOIN docs AS r USING (id)
 WHERE d.id <> d.cluster
 GROUP BY d.kind
 ORDER BY deleted_unread DESC, removals DESC, d.kind;

-- To review: each removal the DELETE leaves, with the row kept for it and
-- the words each has that the other lacks ("-" only in the removed row, "+"
-- only in the kept one), least similar first.
SELECT id AS removed, cluster AS kept, kind, round(similarity, 3) AS similarity, changes
  FROM temp.dupes
 WHERE id <> cluster AND kind NOT IN ('identical', 'formatting')
 ORDER BY similarity, id;

-- Delete what is safe unread: copies that differ from the row kept only in
-- layout. To delete more, name more kinds (docs/dedup.md says what each
-- costs), e.g. kind IN ('identical', 'formatting', 'added').
DELETE FROM docs WHERE id IN
  (SELECT id FROM temp.dupes WHERE id <> cluster AND kind IN ('identical', 'formatting'));

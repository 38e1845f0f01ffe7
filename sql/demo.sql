-- SPDX-License-Identifier: MIT
-- Near-duplicate files among the documentation every Debian machine has,
-- found in the plain sqlite3 shell:
--
--     sqlite3 < sql/demo.sql          (from the repository root, after building)
--
-- Reads every regular text file under /usr/share/doc and
-- /usr/share/common-licenses (compressed files, binary files with a NUL byte,
-- symlinks and directories are skipped), and finds the near-duplicates in one
-- statement, simhash_dedup: every pair of files whose exact word-3-shingle
-- Jaccard similarity is at least 0.8 is found (an exact set-similarity join,
-- none missed), and the pairs are grouped so that every member is verified
-- similar to the file its group keeps (the first in path order). Reports the groups, a few files keep-one
-- would remove with the first line where they differ from the file kept,
-- what single link without the check would have chained (through a
-- simhash_index), and the time of each step.
.bail on
.load build/simhash

CREATE TEMP TABLE step_times(step TEXT, finished REAL);
CREATE TEMP VIEW now_seconds AS SELECT (julianday('now') - 2440587.5) * 86400.0 AS seconds;
INSERT INTO step_times SELECT 'start', seconds FROM now_seconds;

-- 1. Read the files. fsdir() lists a tree recursively; mode 32768 is a
-- regular file (S_IFREG) under the 61440 (S_IFMT) mask.
CREATE TABLE seen AS
SELECT name AS path, mode, data FROM fsdir('/usr/share/doc')
UNION ALL
SELECT name, mode, data FROM fsdir('/usr/share/common-licenses');

CREATE TABLE docs(id INTEGER PRIMARY KEY, path TEXT, size INTEGER, body TEXT, fp INTEGER);
INSERT INTO docs(path, size, body)
SELECT path, length(data), CAST(data AS TEXT)
FROM seen
WHERE (mode & 61440) = 32768
  AND lower(path) NOT GLOB '*.[gx]z' AND lower(path) NOT GLOB '*.bz2'
  AND lower(path) NOT GLOB '*.zst' AND lower(path) NOT GLOB '*.lz*'
  AND lower(path) NOT GLOB '*.z' AND lower(path) NOT GLOB '*.zip'
  AND instr(data, x'00') = 0
ORDER BY path;
INSERT INTO step_times SELECT 'read files (fsdir, readfile)', seconds FROM now_seconds;

-- 2. Fingerprint them (NULL for a file without a single word).
UPDATE docs SET fp = simhash(body);
INSERT INTO step_times SELECT 'fingerprint (simhash)', seconds FROM now_seconds;

-- 3. The near-duplicates, in one statement: every pair of files that share
-- at least 80% of their runs of three words (the exact check), found by a
-- set-similarity join over each file's rarest runs, so no pair is missed
-- however far apart the fingerprints are. Rows are visited in the query's
-- order and the first of each group is kept, so the ORDER BY is the keep
-- policy. No chains: every member is verified against the file its group
-- keeps.
CREATE TABLE clusters AS
SELECT x.id, x.cluster, x.distance, x.similarity,
       CASE WHEN x.id <> x.cluster THEN simhash_change(r.body, k.body) END AS kind
FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id') AS x
JOIN docs AS r ON r.id = x.id JOIN docs AS k ON k.id = x.cluster;
INSERT INTO step_times SELECT 'dedup (simhash_dedup: candidates, checks, groups)', seconds
FROM now_seconds;

-- 4. For comparison, what grouping by distance alone would do: an index of
-- the fingerprints and single link at 10 bits, unverified.
CREATE VIRTUAL TABLE near USING simhash_index(k=3);
INSERT INTO near(rowid, fp) SELECT id, fp FROM docs;
CREATE TABLE chained AS SELECT max(files) AS files FROM
  (SELECT count(*) AS files FROM simhash_components('near', 10) GROUP BY cluster);
INSERT INTO step_times SELECT 'for comparison: index, single link', seconds FROM now_seconds;

-- 5. The report.
CREATE TEMP VIEW cluster_sizes AS
SELECT cluster, count(*) AS files, sum(size) AS bytes
FROM clusters JOIN docs USING (id)
GROUP BY cluster HAVING count(*) > 1;

.print
.print Near-duplicate files in /usr/share/doc and /usr/share/common-licenses
.print ====================================================================
.mode list
.separator ": "
SELECT 'entries seen', count(*) FROM seen
UNION ALL SELECT 'text files read', count(*) FROM docs
UNION ALL SELECT 'skipped (directories, symlinks, compressed or binary)',
                 (SELECT count(*) FROM seen) - (SELECT count(*) FROM docs)
UNION ALL SELECT 'fingerprinted (files with words)', count(fp) FROM docs
UNION ALL SELECT 'groups of verified near-duplicates (2+ files)', count(*) FROM cluster_sizes
UNION ALL SELECT 'files in those groups', sum(files) FROM cluster_sizes
UNION ALL SELECT 'keeping one per group would remove',
                 format('%d files, %.1f MB', sum(files) - count(*),
                        (SELECT sum(size) FROM clusters JOIN docs USING (id)
                         WHERE id <> cluster) / 1e6)
          FROM cluster_sizes
UNION ALL SELECT '  of them identical or differing only in layout (deleted unread)',
                 format('%d files', count(*))
          FROM clusters WHERE kind IN ('identical', 'formatting')
UNION ALL SELECT '  to read before deleting (other changes)',
                 (SELECT group_concat(format('%s %d', kind, files), ', ') FROM
                   (SELECT kind, count(*) AS files FROM clusters
                    WHERE kind NOT IN ('identical', 'formatting')
                    GROUP BY kind ORDER BY files DESC, kind))
UNION ALL SELECT '  the least similar file removed (Jaccard to the file kept)',
                 format('%.2f', (SELECT min(similarity) FROM clusters WHERE id <> cluster))
UNION ALL SELECT 'single link at 10 bits unverified would have chained',
                 (SELECT format('%d files into one cluster', files) FROM chained);

.print
.print The ten largest groups: the file kept first, then the files keep-one would remove, least similar first,
.print with their distance (bits) and Jaccard similarity to the file kept (sizes in bytes)
.mode box --wrap 80
WITH top AS (
  SELECT cluster, files, bytes,
         row_number() OVER (ORDER BY files DESC, bytes DESC, cluster) AS rank
  FROM cluster_sizes ORDER BY rank LIMIT 10
), members AS (
  SELECT top.rank, top.files, docs.path, docs.size, clusters.distance, clusters.similarity,
         row_number() OVER (PARTITION BY top.cluster
                            ORDER BY clusters.id <> clusters.cluster, clusters.similarity,
                                     docs.path) AS n
  FROM top JOIN clusters ON clusters.cluster = top.cluster JOIN docs ON docs.id = clusters.id
)
SELECT CASE WHEN n = 1 THEN rank ELSE '' END AS "#",
       CASE WHEN n = 1 THEN files ELSE '' END AS files,
       CASE WHEN n <= 4 OR files = 5 THEN substr(path, 12)
            ELSE format('... and %d more', files - 4) END AS "file (under /usr/share/)",
       CASE WHEN n <= 4 OR files = 5 THEN size ELSE '' END AS size,
       CASE WHEN n = 1 THEN 'kept' WHEN n <= 4 OR files = 5 THEN distance ELSE '' END AS bits,
       CASE WHEN n = 1 THEN '' WHEN n <= 4 OR files = 5 THEN format('%.2f', similarity)
            ELSE '' END AS jaccard
FROM members WHERE n <= 5 ORDER BY rank, n;

.print
.print A few files keep-one would remove (1 bit or more from the file kept), and the first line
.print where they differ from it
.mode box --wrap 60
-- The nearest removed file of each group, two per band of three bits.
CREATE TEMP TABLE shown AS
WITH per_group AS (
  SELECT cluster AS a, id AS b, distance, similarity,
         row_number() OVER (PARTITION BY cluster ORDER BY distance, id) AS n
  FROM clusters
  WHERE id <> cluster AND distance > 0 AND similarity < 1
)
SELECT a, b, distance, similarity FROM (
  SELECT a, b, distance, similarity,
         row_number() OVER (PARTITION BY distance / 3 ORDER BY a, b) AS m
  FROM per_group WHERE n = 1)
WHERE m <= 2;

-- simhash_first_difference gives the line (and column) where the file
-- removed first differs from the file kept, and both lines.
SELECT s.distance AS bits, format('%.2f', s.similarity) AS jaccard,
       substr(x.path, 12) || char(10) || substr(y.path, 12) AS "files (under /usr/share/)",
       simhash_first_difference(x.body, y.body) AS "first difference (- kept, + removed)"
FROM shown AS s
JOIN docs AS x ON x.id = s.a JOIN docs AS y ON y.id = s.b
ORDER BY s.distance, s.a;
INSERT INTO step_times SELECT 'report', seconds FROM now_seconds;

.print
.print Time per step
SELECT step, time FROM (
  SELECT rowid, step, format('%.2f s', finished - lag(finished) OVER (ORDER BY rowid)) AS time
  FROM step_times)
WHERE rowid > 1
UNION ALL
SELECT 'total', format('%.2f s', max(finished) - min(finished)) FROM step_times;

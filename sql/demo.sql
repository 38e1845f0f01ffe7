-- Near-duplicate files among the documentation every Debian machine has,
-- found in the plain sqlite3 shell:
--
--     sqlite3 < sql/demo.sql          (from the repository root, after building)
--
-- Reads every regular text file under /usr/share/doc and
-- /usr/share/common-licenses (compressed files, binary files with a NUL byte,
-- symlinks and directories are skipped), fingerprints each with simhash(),
-- indexes the fingerprints in a simhash_index, and reports the clusters of
-- near-duplicates (fingerprints within 3 bits, single link) and a few close
-- pairs with the first line where they differ. Times are at the end.
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

-- 3. Index the fingerprints: radius k = 3 bits of 64.
CREATE VIRTUAL TABLE near USING simhash_index(k=3);
INSERT INTO near(rowid, fp) SELECT id, fp FROM docs WHERE fp IS NOT NULL;
INSERT INTO step_times SELECT 'index (simhash_index)', seconds FROM now_seconds;

-- 4. Every pair within 3 bits, and the clusters they make.
CREATE TABLE pairs AS SELECT a, b, distance FROM simhash_pairs('near');
INSERT INTO step_times SELECT 'all pairs (simhash_pairs)', seconds FROM now_seconds;
CREATE TABLE clusters AS SELECT id, cluster FROM simhash_clusters('near');
INSERT INTO step_times SELECT 'clusters (simhash_clusters)', seconds FROM now_seconds;

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
UNION ALL SELECT 'fingerprinted (files with words)', count(*) FROM near
UNION ALL SELECT 'pairs within 3 bits', count(*) FROM pairs
UNION ALL SELECT '  of them identical fingerprints', count(*) FROM pairs WHERE distance = 0
UNION ALL SELECT 'near-duplicate clusters (2+ files)', count(*) FROM cluster_sizes
UNION ALL SELECT 'files in those clusters', sum(files) FROM cluster_sizes
UNION ALL SELECT '  at radius 1 instead (stricter)',
                 (SELECT count(*) FROM (SELECT cluster FROM simhash_clusters('near', 1)
                                        GROUP BY cluster HAVING count(*) > 1))
UNION ALL SELECT 'keeping one per cluster would remove',
                 format('%d files, %.1f MB', sum(files) - count(*),
                        (SELECT sum(size) FROM clusters JOIN docs USING (id)
                         WHERE id <> cluster) / 1e6)
          FROM cluster_sizes;

.print
.print The ten largest clusters (sizes in bytes; bits: Hamming distance to the cluster's first
.print file; clusters are single link, so a chain of close files can join distant ones)
.mode box --wrap 80
WITH top AS (
  SELECT cluster, files, bytes,
         row_number() OVER (ORDER BY files DESC, bytes DESC, cluster) AS rank
  FROM cluster_sizes ORDER BY rank LIMIT 10
), members AS (
  SELECT top.rank, top.files, docs.path, docs.size, hamming(docs.fp, first.fp) AS bits,
         row_number() OVER (PARTITION BY top.cluster ORDER BY docs.path) AS n
  FROM top JOIN clusters ON clusters.cluster = top.cluster JOIN docs ON docs.id = clusters.id
  JOIN docs AS first ON first.id = top.cluster
)
SELECT CASE WHEN n = 1 THEN rank ELSE '' END AS "#",
       CASE WHEN n = 1 THEN files ELSE '' END AS files,
       CASE WHEN n <= 4 OR files = 5 THEN substr(path, 12)
            ELSE format('... and %d more', files - 4) END AS "file (under /usr/share/)",
       CASE WHEN n <= 4 OR files = 5 THEN size ELSE '' END AS size,
       CASE WHEN n <= 4 OR files = 5 THEN bits ELSE '' END AS "bits from first"
FROM members WHERE n <= 5 ORDER BY rank, n;

.print
.print A few close pairs (distance 1 to 3 bits) and the first line where they differ
.mode box --wrap 60
-- The first differing character by binary search on equal prefixes, then
-- the line around it (looked up in a window of 4000 characters before it).
CREATE TEMP TABLE shown AS
WITH candidates AS (
  SELECT pairs.*, clusters.cluster,
         row_number() OVER (PARTITION BY clusters.cluster ORDER BY distance, a, b) AS n
  FROM pairs JOIN clusters ON clusters.id = pairs.a
  WHERE distance BETWEEN 1 AND 3
)
SELECT a, b, distance FROM (
  SELECT a, b, distance, row_number() OVER (PARTITION BY distance ORDER BY a, b) AS m
  FROM candidates WHERE n = 1)
WHERE m <= 2;

CREATE TEMP TABLE differences AS
WITH RECURSIVE search(a, b, low, high) AS (
  -- Invariant: the first `low` characters agree; a difference lies within `high`.
  SELECT shown.a, shown.b, 0, max(length(x.body), length(y.body))
  FROM shown JOIN docs AS x ON x.id = shown.a JOIN docs AS y ON y.id = shown.b
  UNION ALL
  SELECT search.a, search.b,
         CASE WHEN substr(x.body, 1, (low + high + 1) / 2) = substr(y.body, 1, (low + high + 1) / 2)
              THEN (low + high + 1) / 2 ELSE low END,
         CASE WHEN substr(x.body, 1, (low + high + 1) / 2) = substr(y.body, 1, (low + high + 1) / 2)
              THEN high ELSE (low + high + 1) / 2 - 1 END
  FROM search JOIN docs AS x ON x.id = search.a JOIN docs AS y ON y.id = search.b
  WHERE low < high
)
SELECT a, b, low + 1 AS first_difference FROM search WHERE low = high;

-- The line of `body` containing character `at`: from just after the last
-- newline before it, to the next newline.
CREATE TEMP TABLE lines AS
WITH RECURSIVE windows(id, at, before, after) AS (
  SELECT d.a, f.first_difference, substr(d.body, max(1, f.first_difference - 4000),
         f.first_difference - max(1, f.first_difference - 4000)),
         substr(d.body, f.first_difference, 4000)
  FROM differences AS f JOIN (SELECT id AS a, body FROM docs) AS d ON d.a = f.a
  UNION ALL
  SELECT d.b, f.first_difference, substr(d.body, max(1, f.first_difference - 4000),
         f.first_difference - max(1, f.first_difference - 4000)),
         substr(d.body, f.first_difference, 4000)
  FROM differences AS f JOIN (SELECT id AS b, body FROM docs) AS d ON d.b = f.b
), cut(id, at, before, after) AS (
  -- Drop everything up to each newline of `before` until none is left.
  SELECT id, at, before, after FROM windows
  UNION ALL
  SELECT id, at, substr(before, instr(before, char(10)) + 1), after FROM cut
  WHERE instr(before, char(10)) > 0
)
SELECT id, at,
       before || CASE WHEN instr(after, char(10)) > 0
                      THEN substr(after, 1, instr(after, char(10)) - 1) ELSE after END AS line
FROM cut WHERE instr(before, char(10)) = 0;

SELECT s.distance AS bits,
       substr(x.path, 12) || char(10) || substr(y.path, 12) AS "files (under /usr/share/)",
       1 + length(substr(x.body, 1, f.first_difference)) -
         length(replace(substr(x.body, 1, f.first_difference), char(10), '')) AS line,
       CASE WHEN f.first_difference > length(x.body) THEN '(end of file)'
            WHEN trim(lx.line) = '' THEN '(empty line)'
            ELSE substr(trim(lx.line), 1, 60) END || char(10) ||
       CASE WHEN f.first_difference > length(y.body) THEN '(end of file)'
            WHEN trim(ly.line) = '' THEN '(empty line)'
            ELSE substr(trim(ly.line), 1, 60) END AS "first differing line (trimmed)"
FROM shown AS s
JOIN docs AS x ON x.id = s.a JOIN docs AS y ON y.id = s.b
JOIN differences AS f ON f.a = s.a AND f.b = s.b
LEFT JOIN lines AS lx ON lx.id = s.a AND lx.at = f.first_difference
LEFT JOIN lines AS ly ON ly.id = s.b AND ly.at = f.first_difference
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

-- SPDX-License-Identifier: MIT
-- TF-IDF simhash fingerprints in pure SQL (needs the simhash extension and
-- SQLite's math functions, built into Debian's libsqlite3 and the shell).
--
-- Input:  corpus(id INTEGER PRIMARY KEY, body TEXT), the collection.
-- Output: corpus_df(feature, df)   how many documents of the corpus have each
--                                  feature of simhash_features(body);
--         corpus_size(n)           the number of documents;
--         corpus_tfidf(id, fp)     each document's fingerprint with every
--                                  feature weighted tf * ln(n / df);
--         tfidf_queries(id, body)  a table you fill with other texts (new
--                                  documents, queries) to fingerprint against
--                                  the same statistics, read through the view
--         tfidf_query_fingerprints(id, fp).
-- A feature in every document weighs 0 and votes for nothing; a feature the
-- corpus never saw counts as df = 1, the rarest there is.
--
-- Usage:  sqlite3 my.db -cmd '.load build/simhash' < sql/tfidf.sql
-- Re-running it rebuilds the statistics from the current corpus.

DROP TABLE IF EXISTS corpus_df;
DROP TABLE IF EXISTS corpus_size;
DROP TABLE IF EXISTS corpus_tfidf;
DROP VIEW IF EXISTS tfidf_query_fingerprints;

BEGIN;

-- simhash_features lists each distinct feature of a text once, so count(*)
-- per feature is its document frequency.
CREATE TABLE corpus_df(feature TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO corpus_df(feature, df)
  SELECT f.feature, count(*)
  FROM corpus AS c, simhash_features(c.body) AS f
  GROUP BY f.feature;

CREATE TABLE corpus_size(n INTEGER NOT NULL);
INSERT INTO corpus_size(n) SELECT count(*) FROM corpus;

CREATE TABLE corpus_tfidf(id INTEGER PRIMARY KEY, fp INTEGER);
INSERT INTO corpus_tfidf(id, fp)
  SELECT c.id, simhash_agg(f.feature, f.weight * ln(s.n * 1.0 / coalesce(d.df, 1)))
  FROM corpus AS c, simhash_features(c.body) AS f, corpus_size AS s
  LEFT JOIN corpus_df AS d ON d.feature = f.feature
  GROUP BY c.id;

CREATE TABLE IF NOT EXISTS tfidf_queries(id INTEGER PRIMARY KEY, body TEXT);
CREATE VIEW tfidf_query_fingerprints(id, fp) AS
  SELECT q.id, simhash_agg(f.feature, f.weight * ln(s.n * 1.0 / coalesce(d.df, 1)))
  FROM tfidf_queries AS q, simhash_features(q.body) AS f, corpus_size AS s
  LEFT JOIN corpus_df AS d ON d.feature = f.feature
  GROUP BY q.id;

COMMIT;

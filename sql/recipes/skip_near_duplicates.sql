-- Skip a near-duplicate at insert, as INSERT OR IGNORE skips a row whose key
-- exists: a BEFORE INSERT trigger on docs(id INTEGER PRIMARY KEY, body
-- TEXT), kept in step with the simhash_index `near` by follow_table.sql
-- (run that first), that drops the new row without an error when a row
-- already in docs is a near-duplicate (the check of
-- refuse_near_duplicates.sql: within 10 bits, word-3-shingle Jaccard >=
-- 0.8). The statement succeeds; changes() says whether the row went in.
-- An application that wants the choice per statement rather than for every
-- insert writes insert_unless_near_duplicate.sql instead of this trigger.
-- tests/sql/index_follow_table_test.cpp runs this file as it is.

CREATE TRIGGER IF NOT EXISTS docs_skip_near_duplicate BEFORE INSERT ON docs
WHEN EXISTS (
  SELECT 1
    FROM near(simhash(new.body), 10) AS n
    JOIN docs AS d ON d.id = n.rowid
   WHERE n.rowid IS NOT new.id
     AND simhash_jaccard(new.body, d.body, 'n=3 weight=binary') >= 0.8)
BEGIN
  SELECT RAISE(IGNORE);
END;

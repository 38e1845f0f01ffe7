-- SPDX-License-Identifier: MIT
-- Every row of docs(id INTEGER PRIMARY KEY, body TEXT) that a text :body
-- nearly duplicates, exactly: those whose similarity (simhash_jaccard with
-- the options of the simhash_similar table `alike`, kept in step with docs
-- by similar_follow_table.sql) with it is at least 0.8, most similar first,
-- ties by id. One statement, with :body bound; the per-statement choice
-- beside the triggers of similar_refuse.sql, similar_skip.sql and
-- similar_record.sql. tests/sql/similar_recipes_test.cpp runs it as it is.
SELECT rowid AS existing_id, similarity
  FROM alike(:body, 0.8)
 ORDER BY similarity DESC, rowid

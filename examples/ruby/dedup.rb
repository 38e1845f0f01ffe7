# SPDX-License-Identifier: MIT
# sqlite-simhash from Ruby with the sqlite3 gem (Debian's ruby-sqlite3): loads
# the module, dedups examples/clients/docs.sql with simhash_dedup (checked
# against brute force over every pair), then inserts through the refuse
# recipe: a near-duplicate raises SQLite3::ConstraintException naming the
# row, a new text goes in. docs/clients.md explains it; scripts/test.sh runs
#   ruby examples/ruby/dedup.rb build/simhash.so
# from the repository root. Exits non-zero on any difference.
require "sqlite3"

module_path = ARGV.fetch(0, "build/simhash.so")
root = File.expand_path("../..", __dir__)
read = ->(file) { File.read(File.join(root, file)) }
check = lambda do |ok, what|
  next if ok
  warn "dedup.rb: #{what}"
  exit 1
end

db = SQLite3::Database.new(":memory:")
db.enable_load_extension(true)
db.load_extension(module_path)
db.enable_load_extension(false)
db.execute_batch(read.call("examples/clients/docs.sql"))

# The groups: the kept row of each is its cluster.
got = db.execute("SELECT id, cluster FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id') ORDER BY id")

# Brute force: every verified pair, then the leader grouping simhash_dedup
# documents: in id order each row joins the most similar leader before it
# (ties: the smallest id), else leads; groups of one are left out.
ids = db.execute("SELECT id FROM docs ORDER BY id").flatten
partners = Hash.new { |h, k| h[k] = {} }
db.execute(<<~SQL).each { |a, b, j| partners[a][b] = partners[b][a] = j }
  SELECT a.id, b.id, simhash_jaccard(a.body, b.body, 'n=3 weight=binary') AS j
    FROM docs AS a JOIN docs AS b ON a.id < b.id WHERE j >= 0.8
SQL
leader = {}
ids.each do |id|
  leaders = partners[id].select { |other, _| other < id && leader[other] == other }
  leader[id] = leaders.empty? ? id : leaders.min_by { |other, j| [-j, other] }.first
end
sizes = leader.values.tally
cluster = leader.select { |_, kept| sizes[kept] > 1 }
check.call(got == cluster.sort, "simhash_dedup #{got.inspect} != brute force #{cluster.sort.inspect}")
removed = got.count { |id, kept| id != kept }
puts "#{got.map(&:last).uniq.size} groups, #{removed} rows to remove"

# The checked insert.
db.execute_batch(read.call("sql/recipes/similar_follow_table.sql"))
db.execute_batch(read.call("sql/recipes/similar_refuse.sql"))
body = db.get_first_value("SELECT body FROM docs WHERE id = 1") + " one more word"
begin
  db.execute("INSERT INTO docs(body) VALUES (?)", [body])
  check.call(false, "a near-duplicate of row 1 went in")
rescue SQLite3::ConstraintException => e
  puts "refused: #{e.message}"
  check.call(e.message.start_with?("near-duplicate of docs row 1 "), "unexpected message #{e.message}")
end
duplicates = db.execute(read.call("sql/recipes/similar_near_duplicate_of.sql"), "body" => body).map(&:first)
check.call(duplicates == [1], "similar_near_duplicate_of.sql listed #{duplicates.inspect}")
db.execute("INSERT INTO docs(body) VALUES (?)", ["a text unlike any of the others, about something else"])
check.call(db.get_first_value("SELECT count(*) FROM docs") == 61, "the new text did not go in")
puts "ok"

// SPDX-License-Identifier: MIT
// sqlite-simhash from Go with mattn/go-sqlite3 (Debian's
// golang-github-mattn-go-sqlite3-dev, built with -tags libsqlite3 against the
// system's SQLite): loads the module into every connection the driver opens,
// dedups examples/clients/docs.sql with simhash_dedup (checked against brute
// force over every pair), then inserts through the refuse recipe: a
// near-duplicate fails with sqlite3.ErrConstraint naming the row, a new text
// goes in. docs/clients.md explains it; scripts/test.sh runs it as
//
//	go run -tags libsqlite3 ./examples/go build/simhash.so
//
// from the repository root. Exits non-zero on any difference.
package main

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/mattn/go-sqlite3"
)

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "examples/go: "+format+"\n", args...)
	os.Exit(1)
}

func must[T any](value T, err error) T {
	if err != nil {
		fail("%v", err)
	}
	return value
}

func read(root, file string) string {
	return string(must(os.ReadFile(filepath.Join(root, file))))
}

// ints runs a query whose columns are all integers.
func ints(db *sql.DB, query string, args ...any) [][]int64 {
	rows := must(db.Query(query, args...))
	defer rows.Close()
	columns := len(must(rows.Columns()))
	var all [][]int64
	for rows.Next() {
		row := make([]int64, columns)
		pointers := make([]any, columns)
		for i := range row {
			pointers[i] = &row[i]
		}
		if err := rows.Scan(pointers...); err != nil {
			fail("%v", err)
		}
		all = append(all, row)
	}
	if err := rows.Err(); err != nil {
		fail("%v", err)
	}
	return all
}

func main() {
	module := "build/simhash.so"
	if len(os.Args) > 1 {
		module = os.Args[1]
	}
	root := must(os.Getwd())
	// The driver loads the module into each connection it opens.
	sql.Register("sqlite3_simhash", &sqlite3.SQLiteDriver{Extensions: []string{module}})
	db := must(sql.Open("sqlite3_simhash", ":memory:"))
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: each ":memory:" one is a database of its own
	must(db.Exec(read(root, "examples/clients/docs.sql")))

	got := ints(db, "SELECT id, cluster FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id') ORDER BY id")

	// Brute force: every verified pair, then the leader grouping
	// simhash_dedup documents: in id order each row joins the most similar
	// leader before it (ties: the smallest id), else leads; groups of one
	// are left out.
	partners := map[int64]map[int64]float64{}
	link := func(a, b int64, similarity float64) {
		if partners[a] == nil {
			partners[a] = map[int64]float64{}
		}
		partners[a][b] = similarity
	}
	rows := must(db.Query(`SELECT a.id, b.id, simhash_jaccard(a.body, b.body, 'n=3 weight=binary') AS j
	                         FROM docs AS a JOIN docs AS b ON a.id < b.id WHERE j >= 0.8`))
	for rows.Next() {
		var a, b int64
		var similarity float64
		if err := rows.Scan(&a, &b, &similarity); err != nil {
			fail("%v", err)
		}
		link(a, b, similarity)
		link(b, a, similarity)
	}
	rows.Close()
	leader := map[int64]int64{}
	var order []int64
	for _, row := range ints(db, "SELECT id FROM docs ORDER BY id") {
		id, best, bestSimilarity := row[0], row[0], -1.0
		for other, similarity := range partners[id] {
			if other < id && leader[other] == other &&
				(similarity > bestSimilarity || (similarity == bestSimilarity && other < best)) {
				best, bestSimilarity = other, similarity
			}
		}
		leader[id] = best
		order = append(order, id)
	}
	size := map[int64]int{}
	for _, kept := range leader {
		size[kept]++
	}
	cluster := map[int64]int64{}
	for _, id := range order {
		if size[leader[id]] > 1 {
			cluster[id] = leader[id]
		}
	}
	var expected [][]int64
	for id, kept := range cluster {
		expected = append(expected, []int64{id, kept})
	}
	sort.Slice(expected, func(i, j int) bool { return expected[i][0] < expected[j][0] })
	if !reflect.DeepEqual(got, expected) {
		fail("simhash_dedup %v != brute force %v", got, expected)
	}
	removed := 0
	groups := map[int64]bool{}
	for _, row := range got {
		groups[row[1]] = true
		if row[0] != row[1] {
			removed++
		}
	}
	fmt.Printf("%d groups, %d rows to remove\n", len(groups), removed)

	// The checked insert.
	must(db.Exec(read(root, "sql/recipes/similar_follow_table.sql")))
	must(db.Exec(read(root, "sql/recipes/similar_refuse.sql")))
	var body string
	if err := db.QueryRow("SELECT body FROM docs WHERE id = 1").Scan(&body); err != nil {
		fail("%v", err)
	}
	body += " one more word"
	_, err := db.Exec("INSERT INTO docs(body) VALUES (?)", body)
	var refused sqlite3.Error
	if !errors.As(err, &refused) || refused.Code != sqlite3.ErrConstraint {
		fail("a near-duplicate of row 1: want a constraint error, got %v", err)
	}
	fmt.Println("refused:", err)
	if !strings.HasPrefix(err.Error(), "near-duplicate of docs row 1 ") {
		fail("unexpected message %q", err)
	}
	// Every row it duplicates (the recipe's first column; its second is a REAL).
	listed := ints(db, "SELECT existing_id FROM ("+read(root, "sql/recipes/similar_near_duplicate_of.sql")+"\n)",
		sql.Named("body", body))
	if len(listed) != 1 || listed[0][0] != 1 {
		fail("similar_near_duplicate_of.sql listed %v", listed)
	}
	must(db.Exec("INSERT INTO docs(body) VALUES (?)", "a text unlike any of the others, about something else"))
	if count := ints(db, "SELECT count(*) FROM docs")[0][0]; count != 61 {
		fail("%d rows after the new text, want 61", count)
	}
	fmt.Println("ok")
}

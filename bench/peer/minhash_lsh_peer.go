// SPDX-License-Identifier: MIT
// minhash_lsh_peer: the MinHash-LSH dedup a Go user would write with Debian's
// golang-github-ekzhu-minhash-lsh-dev (github.com/ekzhu/minhash-lsh 1.0), the
// peer bench/dedup_benchmark.py measures against simhash_dedup. It reads
// (id, text) rows, and:
//
//  1. tokenizes each text (Go's strings.ToLower, then words are the maximal
//     runs of unicode.IsLetter or unicode.IsDigit runes; everything else
//     separates them), makes word 3-shingles (three words joined by one
//     space; a text of one or two words is one shingle of all of them; a text
//     without words has no shingles and is left out, as simhash() leaves it
//     out), and keeps them as a sorted set of 64-bit FNV-1a hashes for the
//     exact check and as a MinHash of `-perm` permutations (minhashlsh.NewMinhash,
//     one seed for every text): `-workers` goroutines;
//  2. indexes every signature in minhashlsh.NewMinhashLSH(perm, threshold)
//     (the library's default, 32-bit band keys, its own choice of bands for
//     the threshold);
//  3. queries every signature (`-workers` goroutines: the index is read-only
//     then); a candidate is a pair (a, b) that the bands put together, each
//     pair once; each candidate is checked by the exact Jaccard of the two
//     shingle sets and kept at >= threshold;
//  4. groups the verified pairs by the leader rule simhash_clusters uses: the
//     rows in ascending id, a row joins the most similar earlier row that
//     keeps a group and with which it has a verified pair (ties: the smaller
//     id), else keeps a group of its own.
//
// Input (-input): one row a line, "id<TAB>text", the text with backslash,
// tab, newline and carriage return escaped as \\, \t, \n, \r (what
// dedup_benchmark.py writes). Output: one JSON object on stdout (times in
// seconds, counts); with -groups PATH, every row of a group of two or more as
// "id<TAB>cluster<TAB>similarity".
//
// Build offline against Debian's packaged sources (apt-get install golang-go
// golang-github-ekzhu-minhash-lsh-dev; GOPATH mode, so no module download):
//
//	GOPATH=/usr/share/gocode GO111MODULE=off go build -o minhash_lsh_peer bench/peer/minhash_lsh_peer.go
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	minhashlsh "github.com/ekzhu/minhash-lsh"
)

type row struct {
	id   int64
	text string
}

func unescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(s[i])
			}
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func readRows(path string) ([]row, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 1<<20), 1<<30)
	var rows []row
	for scanner.Scan() {
		line := scanner.Text()
		tab := strings.IndexByte(line, '\t')
		if tab < 0 {
			return nil, fmt.Errorf("line %d has no tab", len(rows)+1)
		}
		id, err := strconv.ParseInt(line[:tab], 10, 64)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row{id, unescape(line[tab+1:])})
	}
	return rows, scanner.Err()
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// shingles returns the word n-shingles of a text (see the file comment).
func shingles(text string, n int) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !isWordRune(r) })
	if len(words) == 0 {
		return nil
	}
	if len(words) < n {
		return []string{strings.Join(words, " ")}
	}
	out := make([]string, 0, len(words)-n+1)
	for i := 0; i+n <= len(words); i++ {
		out = append(out, strings.Join(words[i:i+n], " "))
	}
	return out
}

// jaccard of two sorted sets of distinct hashes.
func jaccard(a, b []uint64) float64 {
	i, j, common := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	union := len(a) + len(b) - common
	if union == 0 {
		return 0
	}
	return float64(common) / float64(union)
}

type link struct {
	other      int32 // index of the earlier row
	similarity float64
}

func main() {
	input := flag.String("input", "", "rows to dedup: id<TAB>escaped text, one a line")
	threshold := flag.Float64("threshold", 0.8, "Jaccard threshold of the LSH and of the exact check")
	perm := flag.Int("perm", 128, "MinHash permutations")
	n := flag.Int("n", 3, "words per shingle")
	workers := flag.Int("workers", 2, "goroutines that hash, query and check")
	seed := flag.Int64("seed", 1, "MinHash seed")
	groupsPath := flag.String("groups", "", "write the rows of groups of two or more here")
	flag.Parse()
	if *input == "" {
		fmt.Fprintln(os.Stderr, "usage: minhash_lsh_peer -input rows.tsv [-threshold 0.8] [-perm 128] [-workers 2] [-groups out.tsv]")
		os.Exit(2)
	}
	runtime.GOMAXPROCS(*workers)
	start := time.Now()
	phase := start
	times := map[string]float64{}
	mark := func(name string) {
		now := time.Now()
		times[name] = now.Sub(phase).Seconds()
		phase = now
	}

	rows, err := readRows(*input)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].id < rows[j].id })
	ids := make([]int64, len(rows))
	for i := range rows {
		ids[i] = rows[i].id
	}
	mark("read")

	// 1. shingles, exact sets and signatures, `workers` goroutines.
	sets := make([][]uint64, len(rows))
	sigs := make([][]uint64, len(rows))
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			hasher := fnv.New64a()
			for i := w; i < len(rows); i += *workers {
				sh := shingles(rows[i].text, *n)
				if len(sh) == 0 {
					continue
				}
				mh := minhashlsh.NewMinhash(*seed, *perm)
				set := make([]uint64, 0, len(sh))
				for _, s := range sh {
					bytes := []byte(s)
					mh.Push(bytes)
					hasher.Reset()
					hasher.Write(bytes)
					set = append(set, hasher.Sum64())
				}
				sort.Slice(set, func(a, b int) bool { return set[a] < set[b] })
				unique := set[:0]
				for k, h := range set {
					if k == 0 || h != set[k-1] {
						unique = append(unique, h)
					}
				}
				sets[i] = unique
				sigs[i] = mh.Signature()
			}
		}(w)
	}
	wg.Wait()
	rows = nil // the texts are no longer needed (ids are kept below)
	mark("hash")

	// 2. the index.
	lsh := minhashlsh.NewMinhashLSH(*perm, *threshold)
	indexed := 0
	for i, sig := range sigs {
		if sig != nil {
			lsh.Add(i, sig)
			indexed++
		}
	}
	lsh.Index()
	mark("index")

	// 3. candidates and the exact check; each pair once, from its later row.
	links := make([][]link, len(sigs))
	candidates := make([]int64, *workers)
	verified := make([]int64, *workers)
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(sigs); i += *workers {
				if sigs[i] == nil {
					continue
				}
				for _, key := range lsh.Query(sigs[i]) {
					j := key.(int)
					if j >= i {
						continue
					}
					candidates[w]++
					if s := jaccard(sets[i], sets[j]); s >= *threshold {
						verified[w]++
						links[i] = append(links[i], link{int32(j), s})
					}
				}
			}
		}(w)
	}
	wg.Wait()
	mark("query_verify")

	// 4. leader groups in id order.
	cluster := make([]int32, len(sigs))
	similarity := make([]float64, len(sigs))
	inGroup := make([]bool, len(sigs))
	for i := range sigs {
		cluster[i] = int32(i)
		similarity[i] = 1
		best := int32(-1)
		bestSimilarity := 0.0
		for _, l := range links[i] {
			if cluster[l.other] != l.other {
				continue // not a row that keeps a group
			}
			if best < 0 || l.similarity > bestSimilarity || (l.similarity == bestSimilarity && l.other < best) {
				best, bestSimilarity = l.other, l.similarity
			}
		}
		if best >= 0 {
			cluster[i] = best
			similarity[i] = bestSimilarity
			inGroup[i] = true
			inGroup[best] = true
		}
	}
	groups, inGroups, removed := 0, 0, 0
	for i := range sigs {
		if !inGroup[i] {
			continue
		}
		inGroups++
		if cluster[i] == int32(i) {
			groups++
		} else {
			removed++
		}
	}
	mark("group")
	total := time.Since(start).Seconds()

	if *groupsPath != "" {
		out, err := os.Create(*groupsPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		w := bufio.NewWriter(out)
		for i := range sigs {
			if inGroup[i] {
				fmt.Fprintf(w, "%d\t%d\t%.17g\n", ids[i], ids[cluster[i]], similarity[i])
			}
		}
		w.Flush()
		out.Close()
	}

	var sumCandidates, sumVerified int64
	for w := 0; w < *workers; w++ {
		sumCandidates += candidates[w]
		sumVerified += verified[w]
	}
	k, l := lsh.Params()
	report := map[string]interface{}{
		"rows": len(sigs), "indexed": indexed, "bands": l, "rows_per_band": k,
		"candidates": sumCandidates, "verified_pairs": sumVerified,
		"rows_in_groups": inGroups, "groups": groups, "removed": removed,
		"seconds": total, "phases": times, "workers": *workers, "perm": *perm,
	}
	encoded, _ := json.Marshal(report)
	fmt.Println(string(encoded))
}

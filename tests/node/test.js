// SPDX-License-Identifier: MIT
// The npm package (npm/, packed by scripts/build-npm.sh) in a scratch project
// next to better-sqlite3 from the npm registry, as docs/node.md shows it:
// load(db), the BigInt rule, simhash_dedup against brute force on
// examples/clients/docs.sql, the refuse flow, and load()'s errors (a
// node:sqlite-shaped fake stands in where this Node has no node:sqlite; the
// real one is loaded too where it has). scripts/test.sh copies this file into
// the scratch project and runs `node test.js <repository root>`.
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const test = require("node:test");
const Database = require("better-sqlite3");
const simhash = require("sqlite-simhash");

const root = process.argv[2];
assert.ok(root, "usage: node test.js <repository root>");
const read = (file) => fs.readFileSync(path.join(root, file), "utf8");

function open() {
  const db = new Database(":memory:");
  simhash.load(db);
  return db;
}

test("load() loads the module of this platform", () => {
  const db = open();
  assert.match(db.prepare("SELECT simhash_version() AS v").get().v, /^\d+\.\d+\.\d+/);
  assert.equal(simhash.getLoadablePath(), path.join(path.dirname(require.resolve("sqlite-simhash")),
                                                    "lib", `${process.platform}-${process.arch}`, "simhash.so"));
});

test("fingerprints need BigInt: safeIntegers(true) keeps all 64 bits, numbers do not", () => {
  const db = open();
  const texts = Array.from({ length: 20 }, (_, i) => `text number ${i} about something else ${i * 7}`);
  const exact = db.prepare("SELECT simhash(?) AS fp, simhash_hex(simhash(?)) AS hex").safeIntegers(true);
  const lossy = db.prepare("SELECT simhash(?) AS fp").safeIntegers(false);
  let lost = 0;
  for (const text of texts) {
    const { fp, hex } = exact.get(text, text);
    assert.equal(typeof fp, "bigint");
    assert.equal(BigInt.asUintN(64, fp).toString(16).padStart(16, "0"), hex);
    // Bound back as a BigInt it is the same fingerprint: distance 0.
    const back = db.prepare("SELECT hamming(?, simhash(?)) AS d").safeIntegers(true).get(fp, text);
    assert.equal(back.d, 0n);
    const number = lossy.get(text).fp;
    assert.equal(typeof number, "number");
    if (BigInt(number) !== fp) {
      lost++;
      // Bound back, a number past 2^53 goes in as a REAL, which hamming() refuses.
      assert.throws(() => db.prepare("SELECT hamming(?, simhash(?)) AS d").get(number, text),
                    /hamming: expected two INTEGERs or two BLOBs of equal length, got REAL and INTEGER/);
    }
  }
  assert.ok(lost >= 15, `only ${lost} of 20 fingerprints lost bits as numbers`);
});

// The leader grouping simhash_dedup documents: in id order each row joins
// the most similar leader before it (ties: the smallest id), else leads;
// groups of one are left out. pairs: [a, b, similarity].
function leaderGroups(ids, pairs) {
  const partners = new Map(ids.map((id) => [id, new Map()]));
  for (const [a, b, similarity] of pairs) {
    partners.get(a).set(b, similarity);
    partners.get(b).set(a, similarity);
  }
  const leader = new Map();
  for (const id of ids) {
    let best = id;
    let bestSimilarity = -1;
    for (const [other, similarity] of partners.get(id)) {
      if (other < id && leader.get(other) === other &&
          (similarity > bestSimilarity || (similarity === bestSimilarity && other < best))) {
        best = other;
        bestSimilarity = similarity;
      }
    }
    leader.set(id, best);
  }
  const size = new Map();
  for (const kept of leader.values()) size.set(kept, (size.get(kept) || 0) + 1);
  return [...leader].filter(([, kept]) => size.get(kept) > 1).sort((x, y) => x[0] - y[0]);
}

test("simhash_dedup finds the groups brute force finds", () => {
  const db = open();
  db.defaultSafeIntegers(false); // ids are small
  db.exec(read("examples/clients/docs.sql"));
  const ids = db.prepare("SELECT id FROM docs ORDER BY id").pluck().all();
  const pairs = db.prepare(`SELECT a.id, b.id, simhash_jaccard(a.body, b.body, 'n=3 weight=binary') AS j
                             FROM docs AS a JOIN docs AS b ON a.id < b.id WHERE j >= 0.8`).raw().all();
  const expected = leaderGroups(ids, pairs);
  const got = db.prepare("SELECT id, cluster FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id') ORDER BY id")
    .raw().all();
  assert.deepEqual(got, expected);
  assert.equal(got.length, 50);
});

test("the refuse flow: a near-duplicate insert throws SQLITE_CONSTRAINT naming the row", () => {
  const db = open();
  db.exec(read("examples/clients/docs.sql"));
  db.exec(read("sql/recipes/similar_follow_table.sql"));
  db.exec(read("sql/recipes/similar_refuse.sql"));
  const insert = db.prepare("INSERT INTO docs(body) VALUES (?)");
  const body = db.prepare("SELECT body FROM docs WHERE id = 1").pluck().get() + " one more word";
  assert.throws(() => insert.run(body), (error) => {
    assert.equal(error.name, "SqliteError");
    assert.match(error.code, /^SQLITE_CONSTRAINT/);
    assert.match(error.message, /^near-duplicate of docs row 1 \(similarity 0\.9\d >= 0\.8\)$/);
    return true;
  });
  const listed = db.prepare(read("sql/recipes/similar_near_duplicate_of.sql")).raw().all({ body });
  assert.deepEqual(listed.map((row) => row[0]), [1]);
  assert.equal(db.prepare("SELECT count(*) FROM docs").pluck().get(), 60);
  assert.equal(insert.run("a text unlike any of the others, about something else").changes, 1);
  assert.equal(db.prepare("SELECT count(*) FROM alike").pluck().get(), 61);
});

test("load() says what is wrong", () => {
  assert.throws(() => simhash.load({}), /must be a better-sqlite3 Database or a node:sqlite DatabaseSync/);
  // node:sqlite's shape: extension loading switched on for the load, off after.
  const calls = [];
  simhash.load({
    enableLoadExtension: (on) => calls.push(["enable", on]),
    loadExtension: (file) => calls.push(["load", file]),
  });
  assert.deepEqual(calls, [["enable", true], ["load", simhash.getLoadablePath()], ["enable", false]]);
  // A DatabaseSync opened without allowExtension.
  assert.throws(() => simhash.load({
    enableLoadExtension: () => { throw new Error("Cannot enable extension loading because it was disabled at database creation"); },
    loadExtension: () => assert.fail("loaded anyway"),
  }), /open it with new DatabaseSync\(path, \{ allowExtension: true \}\)/);
});

let nodeSqlite = null;
try {
  nodeSqlite = require("node:sqlite");
} catch {
  // Node before 22.5 has none.
}
test("node:sqlite", { skip: nodeSqlite ? false : `Node ${process.version} has no node:sqlite` }, () => {
  const db = new nodeSqlite.DatabaseSync(":memory:", { allowExtension: true });
  simhash.load(db);
  const query = "SELECT simhash('Hello, World') AS fp, simhash_hex(simhash('Hello, World')) AS hex";
  // node:sqlite refuses to round: an integer past 2^53 read as a number throws.
  assert.throws(() => db.prepare(query).get(), /too large to be represented as a JavaScript number/);
  const statement = db.prepare(query);
  statement.setReadBigInts(true);
  const { fp, hex } = statement.get();
  assert.equal(BigInt.asUintN(64, fp).toString(16).padStart(16, "0"), hex);
  // Loading was switched off again after the load.
  assert.throws(() => db.exec("SELECT load_extension('x')"), /not authorized/);
  // Opened without allowExtension: load() says how to open it.
  assert.throws(() => simhash.load(new nodeSqlite.DatabaseSync(":memory:")),
                /open it with new DatabaseSync\(path, \{ allowExtension: true \}\)/);
});

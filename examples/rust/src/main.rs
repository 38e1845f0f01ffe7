// SPDX-License-Identifier: MIT
//! sqlite-simhash from Rust with rusqlite (Debian's librust-rusqlite-dev,
//! linked to the system's SQLite): loads the module, dedups
//! examples/clients/docs.sql with simhash_dedup (checked against brute force
//! over every pair), then inserts through the refuse recipe: a near-duplicate
//! fails with ErrorCode::ConstraintViolation naming the row, a new text goes
//! in. docs/clients.md explains it; scripts/test.sh runs it as
//!   cargo run --manifest-path examples/rust/Cargo.toml -- build/simhash.so
//! from the repository root. Exits non-zero on any difference.
use rusqlite::{named_params, Connection, ErrorCode, LoadExtensionGuard};
use std::collections::BTreeMap;
use std::process::exit;

fn fail(what: String) -> ! {
    eprintln!("examples/rust: {what}");
    exit(1)
}

fn read(file: &str) -> String {
    std::fs::read_to_string(file).unwrap_or_else(|e| fail(format!("{file}: {e}")))
}

fn pairs(conn: &Connection, sql: &str) -> rusqlite::Result<Vec<(i64, i64)>> {
    let mut statement = conn.prepare(sql)?;
    let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
    rows.collect()
}

fn run(module: &str) -> rusqlite::Result<()> {
    let conn = Connection::open_in_memory()?;
    // Extension loading is on only while the guard lives.
    unsafe {
        let _guard = LoadExtensionGuard::new(&conn)?;
        conn.load_extension(module, None)?;
    }
    conn.execute_batch(&read("examples/clients/docs.sql"))?;

    let got = pairs(
        &conn,
        "SELECT id, cluster FROM simhash_dedup('SELECT id, body FROM docs ORDER BY id') ORDER BY id",
    )?;

    // Brute force: every verified pair, then the leader grouping
    // simhash_dedup documents: in id order each row joins the most similar
    // leader before it (ties: the smallest id), else leads; groups of one are
    // left out.
    let mut partners: BTreeMap<i64, Vec<(i64, f64)>> = BTreeMap::new();
    let mut statement = conn.prepare(
        "SELECT a.id, b.id, simhash_jaccard(a.body, b.body, 'n=3 weight=binary') AS j
           FROM docs AS a JOIN docs AS b ON a.id < b.id WHERE j >= 0.8",
    )?;
    let verified = statement.query_map([], |row| {
        Ok((
            row.get::<_, i64>(0)?,
            row.get::<_, i64>(1)?,
            row.get::<_, f64>(2)?,
        ))
    })?;
    for pair in verified {
        let (a, b, similarity) = pair?;
        partners.entry(a).or_default().push((b, similarity));
        partners.entry(b).or_default().push((a, similarity));
    }
    let ids: Vec<i64> = conn
        .prepare("SELECT id FROM docs ORDER BY id")?
        .query_map([], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let mut leader: BTreeMap<i64, i64> = BTreeMap::new();
    for &id in &ids {
        let mut best = (id, -1.0);
        for &(other, similarity) in partners.get(&id).map(Vec::as_slice).unwrap_or(&[]) {
            if other < id
                && leader[&other] == other
                && (similarity > best.1 || (similarity == best.1 && other < best.0))
            {
                best = (other, similarity);
            }
        }
        leader.insert(id, best.0);
    }
    let mut size: BTreeMap<i64, usize> = BTreeMap::new();
    for &kept in leader.values() {
        *size.entry(kept).or_default() += 1;
    }
    let cluster: BTreeMap<i64, i64> = leader
        .into_iter()
        .filter(|(_, kept)| size[kept] > 1)
        .collect();
    let expected: Vec<(i64, i64)> = cluster.into_iter().collect();
    if got != expected {
        fail(format!("simhash_dedup {got:?} != brute force {expected:?}"));
    }
    let groups: std::collections::BTreeSet<i64> = got.iter().map(|&(_, kept)| kept).collect();
    let removed = got.iter().filter(|&&(id, kept)| id != kept).count();
    println!("{} groups, {removed} rows to remove", groups.len());

    // The checked insert.
    conn.execute_batch(&read("sql/recipes/similar_follow_table.sql"))?;
    conn.execute_batch(&read("sql/recipes/similar_refuse.sql"))?;
    let body: String =
        conn.query_row("SELECT body FROM docs WHERE id = 1", [], |row| row.get(0))?;
    let body = body + " one more word";
    match conn.execute("INSERT INTO docs(body) VALUES (?1)", [&body]) {
        Err(rusqlite::Error::SqliteFailure(error, Some(message)))
            if error.code == ErrorCode::ConstraintViolation =>
        {
            println!("refused: {message}");
            if !message.starts_with("near-duplicate of docs row 1 ") {
                fail(format!("unexpected message {message:?}"));
            }
        }
        other => fail(format!(
            "a near-duplicate of row 1: want a constraint error, got {other:?}"
        )),
    }
    let listed: Vec<i64> = conn
        .prepare(&read("sql/recipes/similar_near_duplicate_of.sql"))?
        .query_map(named_params! {":body": body}, |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    if listed != [1] {
        fail(format!("similar_near_duplicate_of.sql listed {listed:?}"));
    }
    conn.execute(
        "INSERT INTO docs(body) VALUES (?1)",
        ["a text unlike any of the others, about something else"],
    )?;
    let count: i64 = conn.query_row("SELECT count(*) FROM docs", [], |row| row.get(0))?;
    if count != 61 {
        fail(format!("{count} rows after the new text, want 61"));
    }
    println!("ok");
    Ok(())
}

fn main() {
    let module = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "build/simhash.so".to_string());
    if let Err(error) = run(&module) {
        fail(error.to_string());
    }
}

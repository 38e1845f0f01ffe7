#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The index through a leader's death: a 3-node dqlite cluster on 127.0.0.1.

A writer inserts and deletes documents through the cluster (each write one
idempotent statement: INSERT OR IGNORE with an explicit id, or DELETE by id;
triggers keep the simhash_index in step with the table) while the leader is
killed with SIGKILL. A transaction left open on the leader at that moment
must vanish with it. After a new leader is elected:
  - every acknowledged write is there, and nothing that was never
    acknowledged is, except the writes in doubt (sent, never answered);
  - those are retried as they are (retrying is safe because they are
    idempotent), after which the table equals the writer's model exactly;
  - MATCH answers at radii 0..5 and simhash_pairs equal a brute-force
    Hamming scan done here in Python over the table's fingerprints;
  - PRAGMA integrity_check and the index's integrity-check pass, and so
    does an index bulk-loaded beforehand in transactions larger than the
    page cache.
Then the killed node restarts, catches up, is handed the leadership back
(TRANSFER), and gives the same answers. First of all, the shell session of
docs/dqlite.md runs against the cluster and must print what that page
shows.

The test fails, rather than passes vacuously, unless the killed process died
of SIGKILL, a different node was elected, and the writer saw its writes
fail at the failover. It signals only the node processes it started, stops
by itself within --timeout seconds, and removes its temporary directory.

Usage: python3 tests/dqlite/failover_test.py build/simhash_dqlite_node [--timeout 150]
"""

import argparse
import os
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ left in examples/dqlite/
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "dqlite"))
import dqlite_cluster  # noqa: E402
import dqlite_wire  # noqa: E402

MASK = (1 << 64) - 1
SENTINEL_ID = 1_000_000_000  # written in a transaction that never commits
SCHEMA = """
CREATE TABLE docs(id INTEGER PRIMARY KEY, body TEXT NOT NULL, fp INTEGER NOT NULL);
CREATE VIRTUAL TABLE near USING simhash_index(k=3);
CREATE TRIGGER docs_insert AFTER INSERT ON docs BEGIN
  INSERT INTO near(rowid, fp) VALUES (new.id, new.fp);
END;
CREATE TRIGGER docs_delete AFTER DELETE ON docs BEGIN
  DELETE FROM near WHERE rowid = old.id;
END;
"""
# Large transactions: each dirties more pages than SQLite's default cache
# holds (see KeepTransactionsInCache in simhash_dqlite_node.cpp).
BULK_TRANSACTIONS = 6
BULK_ROWS = 20000
BULK = ("WITH RECURSIVE s(i) AS (SELECT ? UNION ALL SELECT i + 1 FROM s WHERE i < ?) "
        "INSERT INTO bulk(rowid, fp) SELECT i, random() FROM s")
INSERT = "INSERT OR IGNORE INTO docs(id, body, fp) VALUES (?, ?, simhash(?))"
DELETE = "DELETE FROM docs WHERE id = ?"


class Failed(Exception):
    pass


checks = []


def check(condition, what):
    if not condition:
        raise Failed(what)
    checks.append(what)
    print(f"  ok: {what}", flush=True)


def signed(value):
    """A 64-bit pattern as SQLite's INTEGER holds it."""
    value &= MASK
    return value - (1 << 64) if value >> 63 else value


def hamming(a, b):
    return bin((a ^ b) & MASK).count("1")


def free_base_port():
    """A port p with p, p+1, p+2 free on 127.0.0.1."""
    rng = random.Random()
    for _ in range(100):
        base = rng.randrange(20000, 32000)  # below Linux's ephemeral ports
        sockets = []
        try:
            for port in range(base, base + 3):
                s = socket.socket()
                sockets.append(s)
                s.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for s in sockets:
                s.close()
    raise RuntimeError("no free ports")


class Documents:
    """Near-duplicate families of made-up text, reproducible from a seed."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        letters = "abcdefghijklmnopqrstuvwxyz"
        self.vocabulary = ["".join(self.rng.choice(letters) for _ in range(self.rng.randint(3, 8)))
                           for _ in range(2000)]
        self.families = []

    def next(self):
        if not self.families or self.rng.random() < 0.3:
            self.families.append([self.rng.choice(self.vocabulary) for _ in range(40)])
        words = list(self.rng.choice(self.families))
        for _ in range(self.rng.randint(0, 2)):
            words[self.rng.randrange(len(words))] = self.rng.choice(self.vocabulary)
        return " ".join(words)


class Writer(threading.Thread):
    """Writes until told to stop, keeping a model of what must be there."""

    def __init__(self, servers, seed):
        super().__init__(daemon=True)
        self.client = dqlite_wire.Client(servers)
        self.documents = Documents(seed)
        self.rng = random.Random(seed + 1)
        self.present = set()  # ids whose last acknowledged write was an insert
        self.next_id = 1
        self.acknowledged = 0
        self.in_doubt = 0  # writes whose fate the failover hid, then retried
        self.applied_in_doubt = 0  # of those, the ones found already applied
        self.leaders = set()  # the nodes that acknowledged writes
        self.lock = threading.Lock()  # held for each write and its retries
        self.pausing = False
        self.finished = False
        self.error = None

    def pause(self):
        """Waits for the write in progress, retries included, and holds the
        writer until resume(): the table then equals the model."""
        self.pausing = True
        self.lock.acquire()

    def resume(self):
        self.pausing = False
        self.lock.release()

    def run(self):
        try:
            while not self.finished:
                if self.pausing:
                    time.sleep(0.005)
                    continue
                with self.lock:
                    self.write_one()
        except BaseException as error:  # reported by the main thread
            self.error = error
        finally:
            self.client.close()

    def write_one(self):
        if self.present and self.rng.random() < 0.25:
            op = ("delete", self.rng.choice(sorted(self.present)))
            sql, params = DELETE, [op[1]]
        else:
            op = ("insert", self.next_id)
            body = self.documents.next()
            sql, params = INSERT, [self.next_id, body, body]
            self.next_id += 1
        while True:
            try:
                self.client.exec(sql, params)
                break
            except dqlite_wire.DqliteError as error:
                if (error.code & 0xFF) == dqlite_wire.SQLITE_BUSY:
                    # Another transaction holds the write lock: nothing was
                    # applied, so this is no doubt; wait and send it again.
                    time.sleep(0.005)
                    continue
                if not error.retryable:
                    raise
                self.recover(op, sql, params, error)
                break
            except OSError as error:
                self.recover(op, sql, params, error)
                break
        self.acknowledge(op)

    def recover(self, op, sql, params, error):
        """The leader died or lost its leadership with the write unanswered:
        it may or may not have been committed."""
        self.in_doubt += 1
        print(f"  writer: {op[0]} of id {op[1]} in doubt ({error}); finding the leader",
              flush=True)
        self.client.reconnect(wait=60)
        self.check_in_doubt(op)
        # The pattern: the same idempotent statement again, to whichever
        # node leads now, until one answers.
        self.client.exec_idempotent(sql, params, wait=60)

    def acknowledge(self, op):
        if op[0] == "insert":
            self.present.add(op[1])
        else:
            self.present.discard(op[1])
        self.acknowledged += 1
        self.leaders.add(self.client.leader_id)

    def check_in_doubt(self, op):
        """Before the retry: exactly the acknowledged state, give or take the
        one write in doubt."""
        _, rows = self.client.query("SELECT id FROM docs")
        found = {row[0] for row in rows}
        allowed_extra = {op[1]} if op[0] == "insert" else set()
        allowed_missing = {op[1]} if op[0] == "delete" else set()
        missing = self.present - found - allowed_missing
        extra = found - self.present - allowed_extra
        if missing or extra:
            raise Failed(f"after failover: acknowledged rows missing {sorted(missing)[:10]}, "
                         f"rows never acknowledged present {sorted(extra)[:10]}")
        applied = (op[1] in found) == (op[0] == "insert")
        self.applied_in_doubt += applied
        check(True, f"after the failover, node {self.client.leader_id} has every acknowledged "
              f"write and no other, the one in doubt {'applied' if applied else 'not applied'}")


def answers(client, queries):
    """{(query, radius): [(rowid, distance)]} from the index."""
    result = {}
    for q in queries:
        for radius in range(6):
            _, rows = client.query(
                "SELECT rowid, distance FROM near WHERE fp MATCH ? AND distance <= ? "
                "ORDER BY rowid", [q, radius])
            result[(q, radius)] = rows
    return result


def brute_force(fingerprints, queries):
    result = {}
    for q in queries:
        for radius in range(6):
            result[(q, radius)] = sorted(
                (rowid, hamming(fp, q)) for rowid, fp in fingerprints.items()
                if hamming(fp, q) <= radius)
    return result


def check_database(client, model, label):
    """Exact contents, exact answers, both integrity checks. Returns the
    answers, to compare with those of another leader."""
    _, rows = client.query("SELECT id, fp FROM docs")
    fingerprints = dict(rows)
    check(set(fingerprints) == model,
          f"{label}: the table holds exactly the acknowledged rows ({len(model)})")
    _, rows = client.query("SELECT rowid, fp FROM near")
    check(dict(rows) == fingerprints, f"{label}: the index holds exactly the table's rows")
    check(SENTINEL_ID not in fingerprints, f"{label}: the uncommitted transaction's row is absent")
    _, rows = client.query("SELECT count(*) FROM bulk")
    check(rows == [(BULK_TRANSACTIONS * BULK_ROWS,)],
          f"{label}: the bulk-loaded index holds its {BULK_TRANSACTIONS * BULK_ROWS} rows")
    client.exec("INSERT INTO bulk(bulk) VALUES ('integrity-check')")
    _, rows = client.query("PRAGMA integrity_check")
    check(rows == [("ok",)], f"{label}: PRAGMA integrity_check is ok")
    client.exec("INSERT INTO near(near) VALUES ('integrity-check')")
    check(True, f"{label}: the index's integrity-check passes")
    rng = random.Random(len(model))
    ids = sorted(fingerprints)
    queries = [fingerprints[i] for i in rng.sample(ids, min(20, len(ids)))]
    queries += [signed(q ^ (1 << rng.randrange(64)) ^ (1 << rng.randrange(64)))
                for q in queries[:10]]
    queries += [signed(rng.getrandbits(64)) for _ in range(5)]
    got = answers(client, queries)
    check(got == brute_force(fingerprints, queries),
          f"{label}: {len(got)} MATCH answers equal a brute-force scan")
    _, pairs = client.query("SELECT a, b, distance FROM simhash_pairs('near') ORDER BY a, b")
    expected = [(a, b, hamming(fingerprints[a], fingerprints[b]))
                for i, a in enumerate(ids) for b in ids[i + 1:]
                if hamming(fingerprints[a], fingerprints[b]) <= 3]
    check(pairs == expected and len(pairs) > 0,
          f"{label}: simhash_pairs gives the {len(pairs)} pairs a brute-force scan finds")
    return got, pairs


def wait_for(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise Failed(f"{what} not within {seconds} s")
        time.sleep(0.02)


def open_sentinel(servers, leader):
    """A transaction left open on the leader, with one row of its own."""
    sentinel = dqlite_wire.Client(servers)
    check(sentinel.leader_id == leader, "a second connection is on the leader")
    for _ in range(1000):
        try:
            sentinel.exec("BEGIN")
            sentinel.exec(INSERT, [SENTINEL_ID, "never committed", "never committed"])
            break
        except dqlite_wire.DqliteError as error:
            # The writer held the write lock for a moment: start again.
            if (error.code & 0xFF) != dqlite_wire.SQLITE_BUSY:
                raise
            try:
                sentinel.exec("ROLLBACK")
            except dqlite_wire.DqliteError:
                pass
            time.sleep(0.005)
    else:
        raise Failed("could not open the sentinel transaction")
    _, rows = sentinel.query("SELECT count(*) FROM docs WHERE id = ?", [SENTINEL_ID])
    check(rows == [(1,)], "a transaction is open on the leader with an uncommitted row")
    return sentinel


def failover(cluster, writer, with_sentinel, rng):
    """Kills the leader with SIGKILL while the writer writes; returns the
    killed node and the new leader once the writer has written through it."""
    found = dqlite_wire.find_leader(cluster.servers)
    check(found is not None, "the cluster has a leader")
    old = found[0]
    acknowledged = writer.acknowledged
    in_doubt = writer.in_doubt
    sentinel = None
    if with_sentinel:
        sentinel = open_sentinel(cluster.servers, old)
    else:
        # At a random moment of the writer's stream of commits.
        time.sleep(rng.uniform(0.2, 0.8))
    killed_at = time.monotonic()
    status = cluster.kill(old, signal.SIGKILL)
    if sentinel is not None:
        sentinel.close()
    check(status == -signal.SIGKILL,
          f"leader node {old} died of SIGKILL ({writer.acknowledged - acknowledged} more "
          "writes acknowledged in this round)")
    survivors = [address for i, address in cluster.addresses.items() if i != old]
    new = None

    def elected():
        nonlocal new
        found = dqlite_wire.find_leader(survivors, timeout=1.0)
        new = found[0] if found is not None and found[0] != old else None
        return new is not None

    wait_for(elected, 60, "a new leader")
    check(new != old,
          f"node {new} elected leader {time.monotonic() - killed_at:.1f} s after the kill")
    wait_for(lambda: writer.in_doubt > in_doubt or writer.error is not None, 60,
             "the writer's recovery")
    if writer.error is not None:
        raise writer.error
    mark = writer.acknowledged
    wait_for(lambda: writer.acknowledged >= mark + 50 or writer.error is not None, 60,
             "50 writes through the new leader")
    if writer.error is not None:
        raise writer.error
    check(new in writer.leaders and writer.client.leader_id == new,
          f"the writer went on through node {new}: {writer.in_doubt - in_doubt} write(s) in "
          "doubt at the failover, retried")
    return old, new


def bring_back(cluster, client, node):
    """Restarts a killed node and transfers the leadership to it, which
    succeeds only once it has caught up."""
    restarted = time.monotonic()
    cluster.start_node(node)
    deadline = time.monotonic() + 60
    while client.leader_id != node:
        try:
            client.connection.transfer(node)
        except (OSError, dqlite_wire.DqliteError) as error:
            print(f"  transfer not yet: {error}", flush=True)
            time.sleep(0.2)
        client.reconnect(wait=30)
        if time.monotonic() > deadline:
            raise Failed("leadership not transferred back within 60 s")
    check(client.leader_id == node,
          f"node {node} restarted, caught up and leads again {time.monotonic() - restarted:.1f} s "
          "after its restart")


def readme_shell_examples():
    """[(command line, expected output lines)] of the `$ dqlite` examples in
    docs/dqlite.md, the manual's page on replication."""
    with open(os.path.join(ROOT, "docs", "dqlite.md"), encoding="utf-8") as page:
        section = page.read()
    examples = []
    for block in re.findall(r"```console\n(.*?)```", section, flags=re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                examples.append((line[2:], []))
            elif examples:
                examples[-1][1].append(line)
    return examples


def check_readme(servers):
    """Runs the README's shell session against the cluster (database
    `demo`) and compares what the shell prints."""
    shell = shutil.which("dqlite")
    check(shell is not None, "go-dqlite's dqlite shell is installed")
    examples = readme_shell_examples()
    check(len(examples) >= 8, f"docs/dqlite.md shows {len(examples)} dqlite shell commands")
    for command, expected in examples:
        words = shlex.split(command.replace("$S", ",".join(servers)))
        if words[0] != "dqlite":
            raise Failed(f"README: not a dqlite command: {command}")
        shown = subprocess.run([shell] + words[1:], capture_output=True, text=True, timeout=30,
                               check=False)
        if shown.returncode != 0 or shown.stdout.splitlines() != expected:
            raise Failed(f"README: {command}\nprinted {shown.stdout!r} {shown.stderr!r}\n"
                         f"README shows {expected!r}")
    check(True, "the README's dqlite shell session prints what the README shows")


def run(node_binary, directory):
    base = free_base_port()
    rng = random.Random(base)
    with dqlite_cluster.Cluster(node_binary, directory, size=3, port=base) as cluster:
        started = time.monotonic()
        cluster.start()
        print(f"cluster of 3 on 127.0.0.1:{base}-{base + 2} up in "
              f"{time.monotonic() - started:.1f} s", flush=True)
        check_readme(cluster.servers)
        admin = dqlite_wire.Client(cluster.servers)
        admin.exec(SCHEMA)
        _, rows = admin.query("PRAGMA cache_spill")
        check(rows == [(0,)], "the node turned cache spill off on its connection")
        # dqlite 1.11.1 failed the fifth of these with "disk I/O error" when
        # a transaction could spill pages to the WAL.
        admin.exec("CREATE VIRTUAL TABLE bulk USING simhash_index(k=3)")
        for i in range(BULK_TRANSACTIONS):
            admin.exec(BULK, [i * BULK_ROWS + 1, (i + 1) * BULK_ROWS])
        check(True, f"{BULK_TRANSACTIONS} transactions of {BULK_ROWS} index inserts each commit")
        admin.close()

        writer = Writer(cluster.servers, seed=base)
        writer.start()
        wait_for(lambda: writer.acknowledged >= 100 or writer.error is not None, 60,
                 "100 writes")
        check(writer.error is None, "the writer writes through the cluster")

        # Twice: once at a random moment of the stream of commits (a write
        # may be committed and never answered), once with a transaction
        # open on the leader (its row must not survive).
        for round_number, with_sentinel in enumerate([False, True], start=1):
            print(f"failover {round_number}"
                  f"{' with an open transaction' if with_sentinel else ''}:", flush=True)
            old, new = failover(cluster, writer, with_sentinel, rng)
            writer.pause()
            cluster.check_alive()
            client = dqlite_wire.Client(cluster.servers)
            label = f"failover {round_number}, node {new} leading"
            answers_new = check_database(client, writer.present, label)
            bring_back(cluster, client, old)
            label = f"failover {round_number}, node {old} leading again"
            check(check_database(client, writer.present, label) == answers_new,
                  f"{label}: the same answers as node {new} gave")
            client.close()
            # Sent to the new leader from the start, so that the writer's
            # next failure is the next kill's.
            writer.client.reconnect(wait=30)
            writer.resume()

        writer.finished = True
        writer.join(timeout=60)
        if writer.error is not None:
            raise writer.error
        check(not writer.is_alive(), "the writer finished")
        # The same cluster through go-dqlite's shell, as the README shows it.
        shell = shutil.which("dqlite")
        shown = subprocess.run(
            [shell, "-s", ",".join(cluster.servers), "db",
             "SELECT count(*), (SELECT count(*) FROM near), simhash_version() FROM docs"],
            capture_output=True, text=True, timeout=30, check=False)
        count = len(writer.present)
        check(shown.returncode == 0 and shown.stdout.split("|")[:2] == [str(count), str(count)],
              f"the dqlite shell sees the {count} rows and the extension: {shown.stdout.strip()}")
        check(writer.in_doubt >= 2,
              f"{writer.acknowledged} writes acknowledged, {writer.in_doubt} were in doubt at a "
              f"failover ({writer.applied_in_doubt} of them found applied), all retried")
        cluster.check_alive()


def main():
    parser = argparse.ArgumentParser(description="dqlite failover test")
    parser.add_argument("node", help="path to simhash_dqlite_node")
    parser.add_argument("--timeout", type=int, default=150, help="seconds before giving up")
    arguments = parser.parse_args()

    def give_up(signum, _frame):
        raise Failed(f"stopped by signal {signum} (timeout {arguments.timeout} s)")

    # The Cluster's context manager stops every node on the way out, whatever
    # ends the run: a failure, the alarm, or a SIGTERM from the caller.
    signal.signal(signal.SIGALRM, give_up)
    signal.signal(signal.SIGTERM, give_up)
    signal.alarm(arguments.timeout)
    directory = tempfile.mkdtemp(prefix="simhash-dqlite-")
    started = time.monotonic()
    try:
        run(arguments.node, directory)
    except Exception as error:
        print(f"FAILED: {error}", flush=True)
        for name in sorted(os.listdir(directory)):
            if name.endswith(".log"):
                with open(os.path.join(directory, name), errors="replace") as log:
                    print(f"--- {name} (last lines)\n" + "".join(log.readlines()[-20:]))
        return 1
    finally:
        signal.alarm(0)
        shutil.rmtree(directory, ignore_errors=True)
    print(f"dqlite failover test: all {len(checks)} checks passed in "
          f"{time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

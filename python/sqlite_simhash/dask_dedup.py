# SPDX-License-Identifier: MIT
"""simhash_dedup's exact join over one or many SQLite files, run on a
dask.distributed cluster: the same groups, distances and similarities as
simhash_dedup(query, threshold, NULL, options) gives on one connection over
the rows of every source in turn.

    from dask.distributed import Client
    from sqlite_simhash.dask_dedup import Source, dedup

    client = Client("tcp://scheduler:8786")
    rows = dedup(client, [Source("/data/2023.db", "SELECT id, body FROM docs ORDER BY id"),
                          Source("/data/2024.db", "SELECT id, body FROM docs ORDER BY id")])
    for source, id, kept_source, kept_id, distance, similarity in rows: ...

The rows are visited source by source, each in its query's order, and the
first row of each group is the one kept, as in simhash_dedup. How it runs:

1. One task a source lists its rows' ids in the query's order, and whether
   simhash() of each text is NULL (its distances are then NULL). These are
   the global visit order.
2. The order is cut into chunks of `chunk_rows` rows; every pair of chunks
   is a part (a chunk with itself, or two chunks), one task each. A task
   reads its chunks' texts from the source files into a scratch database
   of its own and runs simhash_verified_pairs (one chunk) or
   simhash_verified_pairs_between (two) there: every pair at the
   threshold, exactly, within the task's memory budget when one is given
   (the join in parts, spilling to the worker's TMPDIR). Each pair comes
   back as two positions, a distance and a similarity.
3. The caller runs the leader rule over the pairs in visit order: a row
   joins the most similar row kept before it (ties: the earliest), or is
   kept itself. Rows with identical texts link at similarity 1, so they
   join the row of theirs that was kept, as in simhash_dedup.

Each worker needs the sources at the same paths (a shared file system, or
copies), Python's sqlite3 with extension loading, and this package (or the
module at `extension`). docs/dask.md says more.
"""
import os
import sqlite3
import tempfile
from typing import Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

__all__ = ["Source", "dedup", "plan_parts"]


class Source(NamedTuple):
    """A database file and SQL text returning (id, text) from it."""

    path: str
    query: str


def _connect(path: str, extension: Optional[str]) -> sqlite3.Connection:
    conn = sqlite3.connect(path)
    if extension is None:
        from sqlite_simhash import load

        load(conn)
    else:
        conn.enable_load_extension(True)
        conn.load_extension(extension)
        conn.enable_load_extension(False)
    return conn


def _list_rows(source: Source, extension: Optional[str]) -> Tuple[List[int], List[bool]]:
    """The ids of a source in its query's order, and whether each text has no fingerprint."""
    conn = _connect(source.path, extension)
    try:
        ids = [row_id for row_id, _ in conn.execute(source.query)]
        # The query's order is its own; the ids, distinct, carry each flag.
        query = source.query.rstrip().rstrip(";")
        without = dict(conn.execute(
            f"WITH q(id, text) AS ({query}) SELECT id, simhash(text) IS NULL FROM q"))
        return ids, [bool(without[row_id]) for row_id in ids]
    finally:
        conn.close()


def plan_parts(row_count: int, chunk_rows: int) -> List[Tuple[int, int]]:
    """The parts: (chunk a, chunk b) with a <= b, every pair of chunks once."""
    chunks = max(1, -(-row_count // max(1, chunk_rows)))
    return [(a, b) for a in range(chunks) for b in range(a, chunks)]


def _read_chunk(scratch: sqlite3.Connection, table: str, sources: Sequence[Source],
                rows: Sequence[Tuple[int, int, int]], extension: Optional[str]) -> None:
    """Copies the texts of `rows` ((position, source, id)) into scratch.`table`."""
    scratch.execute(f"CREATE TABLE {table}(position INTEGER PRIMARY KEY, body TEXT)")
    by_source = {}
    for position, source, row_id in rows:
        by_source.setdefault(source, {})[row_id] = position
    for source, positions in by_source.items():
        conn = _connect(sources[source].path, extension)
        try:
            conn.execute("CREATE TEMP TABLE wanted(id INTEGER PRIMARY KEY)")
            conn.executemany("INSERT INTO wanted VALUES (?)", ((i,) for i in positions))
            query = sources[source].query.rstrip().rstrip(";")
            texts = conn.execute(
                f"WITH q(id, text) AS ({query}) SELECT id, text FROM q "
                "WHERE id IN (SELECT id FROM temp.wanted)")
            scratch.executemany(f"INSERT INTO {table} VALUES (?, ?)",
                                ((positions[row_id], text) for row_id, text in texts))
        finally:
            conn.close()


def _task_budget(memory: Union[int, str, None]) -> Optional[int]:
    """The memory argument of a task's join: `memory` bytes as given, or for
    "worker" half the running Dask worker's memory limit over its threads
    (the other half for the pairs the task returns, SQLite's cache and
    Python); None where the worker has no limit."""
    if memory != "worker":
        return memory
    from distributed import get_worker

    worker = get_worker()
    limit = getattr(getattr(worker, "memory_manager", None), "memory_limit", None)
    if not limit:
        return None
    threads = getattr(getattr(worker, "state", None), "nthreads", None) or worker.nthreads or 1
    return max(1, int(limit) // (2 * threads))


def _join_part(sources: Sequence[Source], first: Sequence[Tuple[int, int, int]],
               second: Optional[Sequence[Tuple[int, int, int]]], threshold: float,
               options: Optional[str], threads: Optional[int], memory: Union[int, str, None],
               extension: Optional[str]) -> List[Tuple[int, int, Optional[int], float]]:
    """Every pair at the threshold within `first`, or between `first` and `second`."""
    budget = _task_budget(memory)
    with tempfile.TemporaryDirectory(prefix="simhash-part-") as directory:
        scratch = _connect(os.path.join(directory, "part.db"), extension)
        try:
            _read_chunk(scratch, "first", sources, first, extension)
            if second is None:
                sql = "SELECT a, b, distance, similarity FROM simhash_verified_pairs(" \
                      "'SELECT position, body FROM first', ?, ?, ?, ?)"
            else:
                _read_chunk(scratch, "second", sources, second, extension)
                sql = "SELECT a, b, distance, similarity FROM simhash_verified_pairs_between(" \
                      "'SELECT position, body FROM first', 'SELECT position, body FROM second', " \
                      "?, ?, ?, ?)"
            return scratch.execute(sql, (threshold, options, threads, budget)).fetchall()
        finally:
            scratch.close()


def _leader_rows(count: int, without: Sequence[bool],
                 pairs: Iterable[Tuple[int, int, Optional[int], float]]):
    """The leader rule over the pairs, in visit order: (position, kept, distance, similarity)
    for every row of a group of two or more."""
    links: List[List[Tuple[int, float, Optional[int]]]] = [[] for _ in range(count)]
    for a, b, distance, similarity in pairs:
        first, second = (a, b) if a < b else (b, a)
        links[first].append((second, similarity, distance))
    best: List[Optional[Tuple[float, int, Optional[int]]]] = [None] * count
    leader = [0] * count
    similarity_of = [1.0] * count
    distance_of: List[Optional[int]] = [0] * count
    for position in range(count):
        offer = best[position]
        if offer is not None:
            similarity_of[position], leader[position], distance_of[position] = offer
            continue
        leader[position] = position
        for later, similarity, distance in links[position]:
            held = best[later]
            # Ties keep the earlier row kept: offers come in visit order.
            if held is None or similarity > held[0]:
                best[later] = (similarity, position, distance)
        links[position] = []
    size = [0] * count
    for position in range(count):
        size[leader[position]] += 1
    for position in range(count):
        kept = leader[position]
        if size[kept] >= 2:
            distance = distance_of[position]
            if without[position] or without[kept]:
                distance = None
            yield position, kept, distance, similarity_of[position]


def dedup(client, sources: Sequence[Source], threshold: float = 0.8,
          options: Optional[str] = None, chunk_rows: int = 200000,
          threads: Optional[int] = None, extension: Optional[str] = None,
          memory: Union[int, str, None] = None):
    """The rows of groups of two or more over `sources`, in visit order, as
    (source, id, kept source, kept id, distance, similarity) tuples.

    `client` is a dask.distributed Client; `options` and `threads` are
    simhash_verified_pairs' (None: its defaults); `chunk_rows` the rows of a
    chunk (a part holds one or two chunks' texts and features); `extension`
    the module's path on the workers (None: this package's own); `memory`
    the bytes a task's join may hold, simhash_verified_pairs' memory
    argument (None: its default; "worker": half each worker's memory limit
    over its threads). Ids must be distinct within each source, as
    simhash_dedup asks.
    """
    sources = [Source(*source) for source in sources]
    listed = client.gather([client.submit(_list_rows, source, extension, pure=False)
                            for source in sources])
    order: List[Tuple[int, int]] = []  # (source, id) by position
    without: List[bool] = []
    for index, (ids, flags) in enumerate(listed):
        order.extend((index, row_id) for row_id in ids)
        without.extend(flags)
    chunk_rows = max(1, chunk_rows)
    chunks = [[(position, order[position][0], order[position][1])
               for position in range(start, min(start + chunk_rows, len(order)))]
              for start in range(0, len(order), chunk_rows)]
    scattered = client.scatter(chunks) if chunks else []
    futures = [client.submit(_join_part, sources, scattered[a], None if a == b else scattered[b],
                             threshold, options, threads, memory, extension, pure=False)
               for a, b in plan_parts(len(order), chunk_rows)] if chunks else []
    pairs = [pair for part in client.gather(futures) for pair in part]
    return [(order[position][0], order[position][1], order[kept][0], order[kept][1], distance,
             similarity)
            for position, kept, distance, similarity in _leader_rows(len(order), without, pairs)]

# SPDX-License-Identifier: MIT
"""A small client of dqlite's wire protocol (version 1), standard library only.

Why it exists: libdqlite 1.11 has no client API, Debian packages no Python
client, and go-dqlite's `dqlite` shell has no command to add a node or to
transfer leadership. This module speaks the handful of requests the example,
its test and its benchmark need: LEADER, CLUSTER, ADD, ASSIGN, TRANSFER,
OPEN, EXEC_SQL and QUERY_SQL, with INTEGER, FLOAT, TEXT, BLOB and NULL
parameters and results.

Every message is an 8-byte header (body length in 8-byte words, type,
schema, extra) followed by a body of little-endian 8-byte-aligned fields;
strings are NUL-terminated and padded to a word.

    client = Client(["127.0.0.1:9001", "127.0.0.1:9002", "127.0.0.1:9003"])
    client.exec("INSERT OR IGNORE INTO docs(id, fp) VALUES (?, ?)", [7, 42])
    columns, rows = client.query("SELECT count(*) FROM docs")

A Client talks to the leader only (followers refuse SQL); when the leader
changes it must be asked again: Client.reconnect() finds the new one.
"""

import socket
import struct
import time

PROTOCOL_VERSION = 1

REQUEST_LEADER = 0
REQUEST_OPEN = 3
REQUEST_EXEC_SQL = 8
REQUEST_QUERY_SQL = 9
REQUEST_ADD = 12
REQUEST_ASSIGN = 13
REQUEST_CLUSTER = 16
REQUEST_TRANSFER = 17

RESPONSE_FAILURE = 0
RESPONSE_NODE = 1
RESPONSE_NODES = 3
RESPONSE_DB = 4
RESPONSE_RESULT = 6
RESPONSE_ROWS = 7
RESPONSE_EMPTY = 8

INTEGER, FLOAT, TEXT, BLOB, NULL = 1, 2, 3, 4, 5
ISO8601, BOOLEAN = 10, 11

ROWS_DONE = 0xFF
ROWS_PART = 0xEE

VOTER = 0

# SQLite's primary result codes that mean "not applied here, or not known to
# be applied": the statement must be sent again to the (new) leader.
SQLITE_BUSY = 5
SQLITE_IOERR = 10
SQLITE_IOERR_NOT_LEADER = SQLITE_IOERR | (40 << 8)
SQLITE_IOERR_LEADERSHIP_LOST = SQLITE_IOERR | (41 << 8)


class DqliteError(Exception):
    """A FAILURE response: code is SQLite's extended result code."""

    def __init__(self, code, message):
        super().__init__(f"{message} (code {code})")
        self.code = code
        self.message = message

    @property
    def retryable(self):
        """True when the cluster, not the statement, was the problem."""
        return (self.code & 0xFF) in (SQLITE_BUSY, SQLITE_IOERR)


def _pad(data):
    return data + b"\0" * (-len(data) % 8)


def _text(value):
    return _pad(value.encode() + b"\0")


def _encode_params(params):
    if not params:
        return b""
    if len(params) > 255:
        raise ValueError("at most 255 parameters")
    types = bytearray([len(params)])
    values = b""
    for value in params:
        if value is None:
            types.append(NULL)
            values += struct.pack("<Q", 0)
        elif isinstance(value, bool):
            types.append(BOOLEAN)
            values += struct.pack("<q", int(value))
        elif isinstance(value, int):
            types.append(INTEGER)
            values += struct.pack("<q", value)
        elif isinstance(value, float):
            types.append(FLOAT)
            values += struct.pack("<d", value)
        elif isinstance(value, str):
            types.append(TEXT)
            values += _text(value)
        elif isinstance(value, (bytes, bytearray)):
            types.append(BLOB)
            values += struct.pack("<Q", len(value)) + _pad(bytes(value))
        else:
            raise TypeError(f"cannot bind {type(value).__name__}")
    return _pad(bytes(types)) + values


class _Reader:
    """Reads the fields of one response body in order."""

    def __init__(self, body):
        self.body = body
        self.offset = 0

    def uint64(self):
        (value,) = struct.unpack_from("<Q", self.body, self.offset)
        self.offset += 8
        return value

    def int64(self):
        (value,) = struct.unpack_from("<q", self.body, self.offset)
        self.offset += 8
        return value

    def float64(self):
        (value,) = struct.unpack_from("<d", self.body, self.offset)
        self.offset += 8
        return value

    def text(self):
        end = self.body.index(b"\0", self.offset)
        value = self.body[self.offset : end].decode()
        self.offset = end + 1
        self.offset += -self.offset % 8
        return value

    def blob(self):
        size = self.uint64()
        value = bytes(self.body[self.offset : self.offset + size])
        self.offset += size + (-size % 8)
        return value

    def done(self):
        return self.offset >= len(self.body)


class Connection:
    """One socket to one node."""

    def __init__(self, address, timeout=5.0):
        host, port = address.rsplit(":", 1)
        self.address = address
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(struct.pack("<Q", PROTOCOL_VERSION))
        self.db = None

    def close(self):
        self.sock.close()

    def _receive_exactly(self, size):
        chunks = bytearray()
        while len(chunks) < size:
            chunk = self.sock.recv(size - len(chunks))
            if not chunk:
                raise ConnectionError(f"{self.address} closed the connection")
            chunks += chunk
        return bytes(chunks)

    def _receive(self):
        words, kind, _schema, _extra = struct.unpack("<IBBH", self._receive_exactly(8))
        body = self._receive_exactly(words * 8)
        if kind == RESPONSE_FAILURE:
            reader = _Reader(body)
            code = reader.uint64()
            raise DqliteError(code, reader.text())
        return kind, body

    def request(self, kind, body, expect):
        self.sock.sendall(struct.pack("<IBBH", len(body) // 8, kind, 0, 0) + body)
        got, response = self._receive()
        if got != expect:
            raise ConnectionError(f"expected response {expect}, got {got}")
        return response

    def leader(self):
        """(id, address) of the leader this node knows of; id 0 if none."""
        reader = _Reader(self.request(REQUEST_LEADER, struct.pack("<Q", 0), RESPONSE_NODE))
        return reader.uint64(), reader.text()

    def cluster(self):
        """[(id, address, role)] of every member."""
        reader = _Reader(self.request(REQUEST_CLUSTER, struct.pack("<Q", 1), RESPONSE_NODES))
        return [(reader.uint64(), reader.text(), reader.uint64()) for _ in range(reader.uint64())]

    def add(self, node_id, address):
        self.request(REQUEST_ADD, struct.pack("<Q", node_id) + _text(address), RESPONSE_EMPTY)

    def assign(self, node_id, role=VOTER):
        self.request(REQUEST_ASSIGN, struct.pack("<QQ", node_id, role), RESPONSE_EMPTY)

    def transfer(self, node_id):
        self.request(REQUEST_TRANSFER, struct.pack("<Q", node_id), RESPONSE_EMPTY)

    def open(self, name):
        body = _text(name) + struct.pack("<Q", 0) + _text("")
        self.db = _Reader(self.request(REQUEST_OPEN, body, RESPONSE_DB)).uint64() & 0xFFFFFFFF

    def exec(self, sql, params=()):
        """(last_insert_rowid, changes) of one or more statements."""
        body = struct.pack("<Q", self.db) + _text(sql) + _encode_params(params)
        reader = _Reader(self.request(REQUEST_EXEC_SQL, body, RESPONSE_RESULT))
        return reader.uint64(), reader.uint64()

    def query(self, sql, params=()):
        """(column names, list of row tuples) of one statement."""
        body = struct.pack("<Q", self.db) + _text(sql) + _encode_params(params)
        reader = _Reader(self.request(REQUEST_QUERY_SQL, body, RESPONSE_ROWS))
        columns = [reader.text() for _ in range(reader.uint64())]
        rows = []
        while True:
            marker = reader.body[reader.offset] if not reader.done() else ROWS_DONE
            if marker == ROWS_DONE:
                return columns, rows
            if marker == ROWS_PART:
                # The server sends the rest in further ROWS messages, each
                # with the column names again.
                kind, body = self._receive()
                if kind != RESPONSE_ROWS:
                    raise ConnectionError(f"expected more rows, got response {kind}")
                reader = _Reader(body)
                for _ in range(reader.uint64()):
                    reader.text()
                continue
            header_size = (len(columns) * 4 + 63) // 64 * 8
            header = reader.body[reader.offset : reader.offset + header_size]
            reader.offset += header_size
            types = [(header[i // 2] >> (4 * (i % 2))) & 0x0F for i in range(len(columns))]
            rows.append(tuple(self._value(reader, kind) for kind in types))

    @staticmethod
    def _value(reader, kind):
        if kind == INTEGER:
            return reader.int64()
        if kind == FLOAT:
            return reader.float64()
        if kind in (TEXT, ISO8601):
            return reader.text()
        if kind == BLOB:
            return reader.blob()
        if kind == NULL:
            reader.uint64()
            return None
        if kind == BOOLEAN:
            return reader.int64() != 0
        raise ConnectionError(f"unknown column type {kind}")


def find_leader(servers, timeout=5.0):
    """(id, address) of the current leader, asking each server in turn, or
    None if none of them knows one."""
    for address in servers:
        try:
            connection = Connection(address, timeout)
        except OSError:
            continue
        try:
            node_id, leader = connection.leader()
            if node_id != 0 and leader:
                return node_id, leader
        except (OSError, DqliteError):
            pass
        finally:
            connection.close()
    return None


class Client:
    """A connection to the leader with one database open."""

    def __init__(self, servers, database="db", timeout=5.0, wait=30.0):
        self.servers = list(servers)
        self.database = database
        self.timeout = timeout
        self.connection = None
        self.leader_id = 0
        self.reconnect(wait)

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def reconnect(self, wait=30.0):
        """Connects to the leader, waiting up to `wait` seconds for one to be
        elected; raises TimeoutError if none is."""
        self.close()
        deadline = time.monotonic() + wait
        while True:
            found = find_leader(self.servers, self.timeout)
            if found is not None:
                try:
                    connection = Connection(found[1], self.timeout)
                    try:
                        # The node must agree that it leads, or a stale
                        # answer from a follower sends us to a dead node.
                        if connection.leader()[0] == found[0]:
                            connection.open(self.database)
                            self.connection, self.leader_id = connection, found[0]
                            return
                    except (OSError, DqliteError):
                        pass
                    connection.close()
                except OSError:
                    pass
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no leader among {self.servers} within {wait} s")
            time.sleep(0.1)

    def exec(self, sql, params=()):
        return self.connection.exec(sql, params)

    def query(self, sql, params=()):
        return self.connection.query(sql, params)

    def exec_idempotent(self, sql, params=(), attempts=20, wait=30.0):
        """Runs a statement whose second run changes nothing (INSERT OR IGNORE
        with an explicit rowid, DELETE by rowid) until the cluster confirms
        it. A write that fails because the leader died or lost leadership
        may or may not have been committed; sending it again to the new
        leader is safe only because it is idempotent. Returns the number of
        retries it took."""
        for attempt in range(attempts):
            try:
                self.exec(sql, params)
                return attempt
            except DqliteError as error:
                if not error.retryable:
                    raise
            except OSError:
                pass
            self.reconnect(wait)
        raise TimeoutError(f"{sql!r} not confirmed after {attempts} attempts")

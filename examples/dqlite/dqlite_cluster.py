#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Starts a dqlite cluster of simhash_dqlite_node processes on 127.0.0.1 and
joins them; stops it again. Used by hand (the CLI below), by the failover
test (tests/dqlite/) and by the benchmark (bench/dqlite_bench.py).

    python3 examples/dqlite/dqlite_cluster.py start --node build/simhash_dqlite_node \\
        --dir /tmp/simhash-cluster [--nodes 3] [--port 9001]
    dqlite -s 127.0.0.1:9001,127.0.0.1:9002,127.0.0.1:9003 db 'SELECT simhash_version()'
    python3 examples/dqlite/dqlite_cluster.py start --id 1 --dir /tmp/simhash-cluster  # restart
    python3 examples/dqlite/dqlite_cluster.py transfer --id 1    # node 1 leads
    python3 examples/dqlite/dqlite_cluster.py stop --dir /tmp/simhash-cluster

Node 1 bootstraps a one-node cluster; each other node is then added to it
(ADD) and promoted to voter (ASSIGN) through the leader. Every node keeps its
Raft log and snapshots in DIR/<id>/, its output in DIR/<id>.log and, when
started from the CLI, its pid in DIR/<id>.pid. Only those pids are ever
signalled, and only while they still run simhash_dqlite_node.
"""

import argparse
import os
import signal
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ left beside this file
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dqlite_wire  # noqa: E402


class Cluster:
    """The nodes this object started, as child processes."""

    def __init__(self, node_binary, directory, size=3, port=9001, latency_ms=0, extra_args=()):
        self.node_binary = os.path.abspath(node_binary)
        self.directory = os.path.abspath(directory)
        self.size = size
        self.addresses = {i: f"127.0.0.1:{port + i - 1}" for i in range(1, size + 1)}
        self.latency_ms = latency_ms
        self.extra_args = list(extra_args)
        self.processes = {}

    @property
    def servers(self):
        return list(self.addresses.values())

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()

    def start_node(self, node_id, detach=False):
        """Starts one node and waits for it to accept connections."""
        data = os.path.join(self.directory, str(node_id))
        os.makedirs(data, exist_ok=True)
        command = [self.node_binary, "--id", str(node_id), "--address",
                   self.addresses[node_id], "--dir", data] + self.extra_args
        if self.latency_ms:
            command += ["--latency-ms", str(self.latency_ms)]
        log = open(os.path.join(self.directory, f"{node_id}.log"), "ab")
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log,
                                   stdin=subprocess.DEVNULL, start_new_session=detach)
        log.close()
        line = process.stdout.readline()
        if line.strip() != b"ready":
            process.kill()
            process.wait()
            raise RuntimeError(f"node {node_id} did not start; see {self.directory}/{node_id}.log")
        # Nothing more is read from it; a closed pipe would kill it on the
        # next write, so standard output is simply never written again.
        self.processes[node_id] = process
        if detach:
            with open(os.path.join(self.directory, f"{node_id}.pid"), "w") as pid_file:
                pid_file.write(f"{process.pid}\n")
        return process

    def start(self, detach=False, wait=30.0):
        """Starts every node, then joins 2..size to node 1's cluster."""
        for node_id in self.addresses:
            self.start_node(node_id, detach)
        deadline = time.monotonic() + wait
        for node_id in list(self.addresses)[1:]:
            self._join(node_id, deadline)
        return self

    def _join(self, node_id, deadline):
        while True:
            try:
                found = dqlite_wire.find_leader(self.servers)
                if found is not None:
                    connection = dqlite_wire.Connection(found[1])
                    try:
                        members = {member[0]: member for member in connection.cluster()}
                        if node_id not in members:
                            connection.add(node_id, self.addresses[node_id])
                        if node_id not in members or members[node_id][2] != dqlite_wire.VOTER:
                            connection.assign(node_id, dqlite_wire.VOTER)
                        return
                    finally:
                        connection.close()
            except (OSError, dqlite_wire.DqliteError) as error:
                if time.monotonic() >= deadline:
                    raise TimeoutError(f"could not join node {node_id}: {error}") from error
            if time.monotonic() >= deadline:
                raise TimeoutError(f"could not join node {node_id}: no leader")
            time.sleep(0.1)

    def kill(self, node_id, sig=signal.SIGKILL):
        """Signals one node this object started and reaps it."""
        process = self.processes.pop(node_id)
        process.send_signal(sig)
        return process.wait(timeout=30)

    def alive(self, node_id):
        process = self.processes.get(node_id)
        return process is not None and process.poll() is None

    def check_alive(self):
        """Raises if a node this object started has died on its own."""
        for node_id, process in self.processes.items():
            if process.poll() is not None:
                raise RuntimeError(f"node {node_id} exited with {process.returncode}; "
                                   f"see {self.directory}/{node_id}.log")

    def stop(self):
        """SIGTERM to every node still running (a clean stop), SIGKILL to any
        that has not stopped 10 seconds later."""
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self.processes.clear()


def _stop_from_pid_files(directory):
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".pid"):
            continue
        path = os.path.join(directory, name)
        with open(path) as pid_file:
            pid = int(pid_file.read())
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                ours = b"simhash_dqlite_node" in cmdline.read()
        except OSError:
            ours = False
        if ours:
            os.kill(pid, signal.SIGTERM)
            for _ in range(100):
                if not os.path.exists(f"/proc/{pid}"):
                    break
                time.sleep(0.1)
        os.remove(path)


def _transfer(servers, node_id, wait=30.0):
    """Asks the leader to hand its leadership to node_id (which must have
    caught up first: the request fails until it has) and waits for it."""
    deadline = time.monotonic() + wait
    while True:
        found = dqlite_wire.find_leader(servers)
        if found is not None and found[0] == node_id:
            return
        try:
            if found is not None:
                connection = dqlite_wire.Connection(found[1])
                try:
                    connection.transfer(node_id)
                finally:
                    connection.close()
        except (OSError, dqlite_wire.DqliteError) as error:
            if time.monotonic() >= deadline:
                raise TimeoutError(f"leadership not transferred to {node_id}: {error}") from error
        if time.monotonic() >= deadline:
            raise TimeoutError(f"leadership not transferred to {node_id}")
        time.sleep(0.2)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="start --id N restarts one node of an existing cluster (after a kill); "
        "transfer --id N makes node N the leader.")
    parser.add_argument("action", choices=["start", "stop", "transfer"])
    parser.add_argument("--dir", help="data directory of the cluster (start, stop)")
    parser.add_argument("--node", default="build/simhash_dqlite_node", help="the node program")
    parser.add_argument("--nodes", type=int, default=3)
    parser.add_argument("--port", type=int, default=9001, help="port of node 1; node i gets +i-1")
    parser.add_argument("--id", type=int, help="one node: start (restart) it, or make it lead")
    arguments = parser.parse_args()
    if arguments.action != "transfer" and arguments.dir is None:
        parser.error(f"{arguments.action} needs --dir")
    cluster = Cluster(arguments.node, arguments.dir or ".", arguments.nodes, arguments.port)
    if arguments.action == "stop":
        _stop_from_pid_files(arguments.dir)
    elif arguments.action == "transfer":
        if arguments.id is None:
            parser.error("transfer needs --id")
        _transfer(cluster.servers, arguments.id)
    elif arguments.id is not None:
        cluster.start_node(arguments.id, detach=True)
    else:
        try:
            cluster.start(detach=True)
        except Exception:
            cluster.stop()
            raise
        print(",".join(cluster.servers))


if __name__ == "__main__":
    main()

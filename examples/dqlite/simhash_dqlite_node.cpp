// SPDX-License-Identifier: MIT
// simhash_dqlite_node: one dqlite node (Raft-replicated SQLite) whose every
// connection has the simhash functions and the simhash_index module.
//
// The extension is linked statically (simhash_static) and registered with
// sqlite3_auto_extension before the node starts, so the connections dqlite
// opens itself, on the leader and when a follower replays or restores the
// database, all have it. Joining a running cluster is not done here: libdqlite
// 1.11 has no client API, so dqlite_cluster.py sends the join request (ADD,
// then ASSIGN) to the leader over the wire protocol.
//
//   simhash_dqlite_node --id 1 --address 127.0.0.1:9001 --dir data/1
//       [--latency-ms 5] [--snapshot-threshold 1024 --snapshot-trailing 8192]
//
// Node 1 bootstraps a one-node cluster on its first start; the others wait to
// be added. It runs until SIGTERM or SIGINT, then stops cleanly. It prints
// "ready" on standard output once it accepts connections.
#include "sqlite_simhash.h"

#include <sqlite3.h>

// dqlite.h (1.11) declares C functions without an extern "C" block of its own.
extern "C" {
#include <dqlite.h>
}

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

struct Options {
  dqlite_node_id id = 0;
  std::string address;
  std::string dir;
  unsigned latency_ms = 0;
  unsigned snapshot_threshold = 0;
  unsigned snapshot_trailing = 0;
};

[[noreturn]] void Usage(const char* why) {
  std::fprintf(stderr,
               "simhash_dqlite_node: %s\n"
               "usage: simhash_dqlite_node --id N --address HOST:PORT --dir DIR\n"
               "       [--latency-ms MS] [--snapshot-threshold N --snapshot-trailing N]\n",
               why);
  std::exit(2);
}

unsigned long long ParseNumber(std::string_view flag, const char* text) {
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (end == text || *end != '\0') {
    Usage((std::string(flag) + " wants a number").c_str());
  }
  return value;
}

Options ParseOptions(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; i += 2) {
    const std::string_view flag = argv[i];
    if (i + 1 >= argc) {
      Usage("a flag without its value");
    }
    const char* value = argv[i + 1];
    if (flag == "--id") {
      options.id = ParseNumber(flag, value);
    } else if (flag == "--address") {
      options.address = value;
    } else if (flag == "--dir") {
      options.dir = value;
    } else if (flag == "--latency-ms") {
      options.latency_ms = static_cast<unsigned>(ParseNumber(flag, value));
    } else if (flag == "--snapshot-threshold") {
      options.snapshot_threshold = static_cast<unsigned>(ParseNumber(flag, value));
    } else if (flag == "--snapshot-trailing") {
      options.snapshot_trailing = static_cast<unsigned>(ParseNumber(flag, value));
    } else {
      Usage(("unknown flag " + std::string(flag)).c_str());
    }
  }
  if (options.id == 0 || options.address.empty() || options.dir.empty()) {
    Usage("--id, --address and --dir are required");
  }
  if ((options.snapshot_threshold == 0) != (options.snapshot_trailing == 0)) {
    Usage("--snapshot-threshold and --snapshot-trailing go together");
  }
  return options;
}

// Owns a dqlite_node: stops it if it was started, then destroys it.
class Node {
 public:
  explicit Node(const Options& options) {
    dqlite_node* raw = nullptr;
    const int rc =
        dqlite_node_create(options.id, options.address.c_str(), options.dir.c_str(), &raw);
    node_.reset(raw);  // owned even when creation failed: destroy frees it
    if (rc != 0) {
      Fail("dqlite_node_create", rc);
    }
    Check("dqlite_node_set_bind_address",
          dqlite_node_set_bind_address(node_.get(), options.address.c_str()));
    if (options.latency_ms != 0) {
      Check("dqlite_node_set_network_latency_ms",
            dqlite_node_set_network_latency_ms(node_.get(), options.latency_ms));
    }
    if (options.snapshot_threshold != 0) {
      Check("dqlite_node_set_snapshot_params",
            dqlite_node_set_snapshot_params(node_.get(), options.snapshot_threshold,
                                            options.snapshot_trailing));
    }
  }
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  ~Node() {
    if (started_) {
      dqlite_node_stop(node_.get());
    }
  }

  void Start() {
    Check("dqlite_node_start", dqlite_node_start(node_.get()));
    started_ = true;
  }

 private:
  struct Destroy {
    void operator()(dqlite_node* node) const { dqlite_node_destroy(node); }
  };

  void Check(const char* what, int rc) const {
    if (rc != 0) {
      Fail(what, rc);
    }
  }
  [[noreturn]] void Fail(const char* what, int rc) const {
    const char* message = node_ ? dqlite_node_errmsg(node_.get()) : nullptr;
    throw std::runtime_error(std::string(what) + " failed (" + std::to_string(rc) +
                             "): " + (message != nullptr ? message : ""));
  }

  std::unique_ptr<dqlite_node, Destroy> node_;
  bool started_ = false;
};

// Registered after the extension, for every connection dqlite opens: keeps a
// transaction's dirty pages in the page cache until COMMIT instead of
// spilling them to the WAL when the cache fills. libdqlite 1.11.1's VFS
// cannot read back a transaction's own spilled frames when the transaction
// began on an empty WAL (just after a checkpoint): the statement fails with
// SQLITE_IOERR_SHORT_READ ("disk I/O error"). A batch of index inserts
// dirties a few hundred pages and met this; dqlite fixed it after 1.11.1
// (vfsWalRead's short-read check). dqlite keeps the whole database in memory
// anyway, so the cost is only that a transaction's pages stay there too.
int KeepTransactionsInCache(sqlite3* db, char** error, const sqlite3_api_routines*) {
  return sqlite3_exec(db, "PRAGMA cache_spill=OFF", nullptr, nullptr, error);
}

// Fails loudly if the static registration did not take: a node without the
// extension would still replicate the index's shadow tables as plain tables,
// and a client could then write them directly, past the index's checks.
void CheckExtensionRegistered() {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open(":memory:", &raw);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close);
  if (rc != SQLITE_OK) {
    throw std::runtime_error("sqlite3_open failed");
  }
  sqlite3_stmt* raw_statement = nullptr;
  if (sqlite3_prepare_v2(db.get(), "SELECT simhash_version()", -1, &raw_statement, nullptr) !=
      SQLITE_OK) {
    throw std::runtime_error(std::string("the extension is not registered: ") +
                             sqlite3_errmsg(db.get()));
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> statement(raw_statement, sqlite3_finalize);
  if (sqlite3_step(statement.get()) != SQLITE_ROW) {
    throw std::runtime_error("SELECT simhash_version() returned no row");
  }
  std::fprintf(stderr, "simhash_dqlite_node: sqlite %s, simhash %s\n", sqlite3_libversion(),
               reinterpret_cast<const char*>(sqlite3_column_text(statement.get(), 0)));
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = ParseOptions(argc, argv);
  // Blocked before dqlite starts its threads, which inherit the mask, so the
  // signals reach sigwait below and nowhere else.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // libdqlite and libraft write to sockets whose peer may have died (a
  // killed leader): the write must fail with EPIPE, not kill this node.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    if (sqlite3_auto_extension(reinterpret_cast<void (*)()>(sqlite3_simhash_init)) != SQLITE_OK) {
      throw std::runtime_error("sqlite3_auto_extension failed");
    }
    if (sqlite3_auto_extension(reinterpret_cast<void (*)()>(KeepTransactionsInCache)) !=
        SQLITE_OK) {
      throw std::runtime_error("sqlite3_auto_extension failed");
    }
    CheckExtensionRegistered();
    Node node(options);
    node.Start();
    std::printf("ready\n");
    std::fflush(stdout);
    int received = 0;
    sigwait(&stop_signals, &received);
    std::fprintf(stderr, "simhash_dqlite_node %llu: signal %d, stopping\n", options.id, received);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "simhash_dqlite_node: %s\n", error.what());
    return 1;
  }
  return 0;
}

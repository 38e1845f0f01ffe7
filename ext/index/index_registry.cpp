// SPDX-License-Identifier: MIT
// The registry of connected simhash_index tables (see index_registry.h). One
// process-wide set guarded by a mutex: connections may live in any thread.
#include "ext/index/index_registry.h"

#include <mutex>
#include <set>
#include <tuple>
#include <utility>

namespace simhash::sql {
namespace {

// SQL names match ignoring ASCII case.
std::string folded(std::string name) {
  for (char& c : name) {
    if (c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return name;
}

using Key = std::tuple<sqlite3*, std::string, std::string>;

Key key_of(sqlite3* db, const std::string& schema, const std::string& name) {
  return {db, folded(schema), folded(name)};
}

struct Registry {
  std::mutex mutex;
  std::multiset<Key> indexes;  // multi: a table may be connected twice during a schema reset
};

Registry& registry() {
  static Registry instance;  // never destroyed before the connections that use it
  return instance;
}

void add(const Key& key) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  r.indexes.insert(key);
}

void remove(const Key& key) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  if (const auto found = r.indexes.find(key); found != r.indexes.end()) {
    r.indexes.erase(found);
  }
}

}  // namespace

IndexRegistration::IndexRegistration(sqlite3* db, std::string schema, std::string name)
    : db_(db), schema_(std::move(schema)), name_(std::move(name)) {
  add(key_of(db_, schema_, name_));
}

IndexRegistration::~IndexRegistration() { remove(key_of(db_, schema_, name_)); }

void IndexRegistration::rename(const std::string& new_name) {
  add(key_of(db_, schema_, new_name));
  remove(key_of(db_, schema_, name_));
  name_ = new_name;
}

bool is_registered_index(sqlite3* db, const std::string& schema, const std::string& name) {
  Registry& r = registry();
  const std::lock_guard lock(r.mutex);
  return r.indexes.count(key_of(db, schema, name)) != 0;
}

}  // namespace simhash::sql

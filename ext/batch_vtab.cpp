// Registers the simhash_pairs and simhash_clusters table-valued functions.
// NOT YET IMPLEMENTED: a placeholder that registers nothing, so the extension
// builds while this part is written.
#include "registration.h"

namespace simhash::sql {

int register_batch_tables(sqlite3* /*db*/, char** /*error*/) { return SQLITE_OK; }

}  // namespace simhash::sql

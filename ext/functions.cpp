// Registers scalar and aggregate functions (simhash, simhash_agg, hamming, simhash_hamming, simhash_hex, simhash_version).
// NOT YET IMPLEMENTED: a placeholder that registers nothing, so the extension
// builds while this part is written.
#include "registration.h"

namespace simhash::sql {

int register_scalar_functions(sqlite3* /*db*/, char** /*error*/) { return SQLITE_OK; }

}  // namespace simhash::sql

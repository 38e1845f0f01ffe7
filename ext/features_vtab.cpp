// Registers the simhash_features table-valued function.
// NOT YET IMPLEMENTED: a placeholder that registers nothing, so the extension
// builds while this part is written.
#include "registration.h"

namespace simhash::sql {

int register_features_table(sqlite3* /*db*/, char** /*error*/) { return SQLITE_OK; }

}  // namespace simhash::sql

// The hook long engine loops call between bounded pieces of work (one table
// of the batch search, one slice of about 16M comparisons), so that a caller
// can stop them: the SQL glue's hook throws when the statement has been
// interrupted. Everything the engine holds is RAII, so the throw unwinds
// cleanly. An empty hook is never called.
#pragma once

#include <functional>

namespace simhash {

using CheckPoint = std::function<void()>;

}  // namespace simhash

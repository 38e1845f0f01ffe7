// The hook long engine loops call between bounded pieces of work (one table
// of the batch search, one slice of comparisons), so that a caller
// can stop them: the SQL glue's hook throws when the statement has been
// interrupted. Everything the engine holds is RAII, so the throw unwinds
// cleanly. An empty hook is never called.
#pragma once

#include <cstddef>
#include <functional>

namespace simhash {

using CheckPoint = std::function<void()>;

// Fingerprint comparisons between two checks: 5-15 ms of work, so a stop
// comes soon, while a check (tens of microseconds in the glue) costs < 1%.
inline constexpr std::size_t kComparisonsBetweenChecks = std::size_t{1} << 23;

}  // namespace simhash

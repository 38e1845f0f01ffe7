// SPDX-License-Identifier: MIT
// Finding an id given twice: the batch functions that read (id, text) rows
// need distinct ids (a group or a pair names its rows by id), and every one
// of them refuses a query that repeats one, through this check.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "util/check_point.h"

namespace simhash {

// An id that occurs more than once in `ids` (the smallest such), if any.
// `check` runs between bounded pieces of the sort (check_point.h).
std::optional<std::int64_t> find_repeated_id(std::vector<std::int64_t> ids,
                                             const CheckPoint& check = {});

}  // namespace simhash

// Work split over every core: references, fills and comparisons are per-row independent, and the
// harness must not dominate a run.
#pragma once
#include <cstdint>
#include <functional>

namespace kc {
// Calls fn(begin, end) over [0, n) in contiguous chunks of at least `grain`, on every CPU this
// process may run on ($KC_THREADS caps it); returns when all are done. The first exception thrown by
// fn is rethrown.
void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn, int64_t grain = 1);
}  // namespace kc

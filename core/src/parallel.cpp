#include "kc/parallel.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <sched.h>

namespace kc {

// $KC_THREADS when set, else the CPUs this process may run on (its affinity mask, which a container's
// cpuset narrows, where hardware_concurrency counts every CPU of the host).
static int64_t worker_count() {
  static const int64_t n = [] {
    if (const char* s = std::getenv("KC_THREADS")) {
      char* end = nullptr;
      const long v = std::strtol(s, &end, 10);
      if (end != s && *end == '\0' && v > 0) return int64_t(v);
    }
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) return int64_t(std::max(1, CPU_COUNT(&set)));
    return std::max<int64_t>(1, std::thread::hardware_concurrency());
  }();
  return n;
}

void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn, int64_t grain) {
  if (n <= 0) return;
  int64_t threads = worker_count();
  threads = std::min(threads, std::max<int64_t>(1, n / std::max<int64_t>(1, grain)));
  if (threads == 1) return fn(0, n);
  std::exception_ptr err;
  std::mutex m;
  std::vector<std::thread> pool;
  int64_t chunk = (n + threads - 1) / threads;
  for (int64_t t = 0; t < threads; ++t) {
    int64_t b = t * chunk, e = std::min(n, b + chunk);
    if (b >= e) break;
    pool.emplace_back([&, b, e] {
      try {
        fn(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> l(m);
        if (!err) err = std::current_exception();
      }
    });
  }
  for (auto& t : pool) t.join();
  if (err) std::rethrow_exception(err);
}

}  // namespace kc

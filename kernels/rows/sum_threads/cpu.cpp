// rows/sum/f32_threads on the CPU: the row sum with its rows split over threads. Each row is summed
// exactly as rows/sum/f32 sums it, so it must equal that kernel bit for bit (gate 3 checks).
#include <algorithm>
#include <thread>
#include <vector>

#include "../cpu_tiles.hpp"
#include "../sum/cpu_sum.hpp"
#include "kc/registry.hpp"

namespace {
void sum_threads(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  float* y = b.out<float>("y");
  const int64_t nt = std::min<int64_t>(rows, 4);
  std::vector<std::thread> ts;
  for (int64_t t = 0; t < nt; ++t)
    ts.emplace_back([=] {
      for (int64_t r = t; r < rows; r += nt) {
        // The same tiles, lanes and meeting order as rows/sum/f32, written lane by lane.
        float total = 0;
        for (int64_t t0 = 0; t0 < cols; t0 += kc::rows_cpu::kTile) {
          int64_t t1 = std::min(cols, t0 + kc::rows_cpu::kTile);
          float lane[kc::rows_cpu::kLanes];
          for (int l = 0; l < kc::rows_cpu::kLanes; ++l) {
            float s = 0;
            for (int64_t c = t0 + l; c < t1; c += kc::rows_cpu::kLanes) s += x[r * cols + c];
            lane[l] = s;
          }
          for (int h = kc::rows_cpu::kLanes / 2; h >= 1; h /= 2)
            for (int l = 0; l < h; ++l) lane[l] += lane[l + h];
          total += lane[0];
        }
        y[r] = total;
      }
    });
  for (auto& t : ts) t.join();
}
}  // namespace

KC_KERNEL("rows/sum/f32_threads", cpu) {
  return kc::rows_cpu::sum_f32_entry()
      .replaces("rows/sum/f32", [](const kc::Buffers& b) { kc::rows_cpu::sum_f32(b); })
      .launch(sum_threads);
}

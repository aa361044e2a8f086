// The invariance check's planted control on the CPU: a row sum whose split is chosen by the batch
// size, as a kernel filling the machine does. Each row is a correct fp32 sum at every shape (gates
// 1-4 pass), but its bytes depend on how many rows share the launch.
#include <algorithm>

#include "../../kernels/rows/cpu_tiles.hpp"
#include "../../kernels/rows/sum/cpu_sum.hpp"
#include "kc/registry.hpp"

namespace {
// Fewer than 4 rows: each row split in two halves summed apart (more work items), then met; from 4
// rows up, one pass.
void split_by_batch(const kc::Buffers& b) {
  using kc::rows_cpu::tiled_sum;
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  float* y = b.out<float>("y");
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    if (rows >= 4) {
      y[r] = tiled_sum(cols, [&](int64_t c) { return xr[c]; });
    } else {
      const int64_t h = cols / 2;
      y[r] = tiled_sum(h, [&](int64_t c) { return xr[c]; }) + tiled_sum(cols - h, [&](int64_t c) { return xr[h + c]; });
    }
  }
}
}  // namespace

KC_CONTROL("rows/ctl_split_by_batch/f32", cpu) {
  // Its depth: the one-pass sum's, or a half's and their meeting (never deeper).
  return kc::rows_cpu::sum_f32_entry()
      .sums(kc::DType::f32, [](const kc::Shape& s) { return kc::rows_cpu::depth_of(s) + 1; })
      .control(kc::Gate::invariance, kc::Why::batch_variant)
      .launch(split_by_batch);
}

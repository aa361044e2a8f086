// rows/geglu/bf16 on the CPU: MLX's op-by-op GeGLU, each fp32 step rounded to bf16.
#include <cmath>

#include "../cpu_tiles.hpp"
#include "cpu_geglu.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace kc::rows_cpu {

void geglu_bf16(const Buffers& b, bool skip_erf_arg_rounding) {
  const int64_t n = b.shape()["rows"] * b.shape()["cols"];
  const bf16* g = b.in<bf16>("g");
  const bf16* u = b.in<bf16>("u");
  bf16* y = b.out<bf16>("y");
  for (int64_t i = 0; i < n; ++i) {
    float gv = load(g, i);
    float a = gv * float(M_SQRT1_2);
    if (!skip_erf_arg_rounding) a = bf(a);
    float e = bf(std::erf(a));
    float p = bf(1.0f + e);
    float gelu = bf(bf(0.5f * gv) * p);
    store(y, i, gelu * load(u, i));
  }
}

Entry geglu_entry() {
  return rows::geglu()
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .invariant("rows")  // each row computed alone, in one order, whatever the batch
      .range("cols", 1, 1);
}

}  // namespace kc::rows_cpu

KC_KERNEL("rows/geglu/bf16", cpu) {
  return kc::rows_cpu::geglu_entry().launch([](const kc::Buffers& b) { kc::rows_cpu::geglu_bf16(b); });
}

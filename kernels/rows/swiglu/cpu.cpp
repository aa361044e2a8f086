// rows/swiglu/bf16 on the CPU: the op-by-op SwiGLU, each fp32 step rounded to bf16.
#include <cmath>

#include "../cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace {
void swiglu_bf16(const kc::Buffers& b) {
  using namespace kc::rows_cpu;
  const int64_t n = b.shape()["rows"] * b.shape()["cols"];
  const kc::bf16* g = b.in<kc::bf16>("g");
  const kc::bf16* u = b.in<kc::bf16>("u");
  kc::bf16* y = b.out<kc::bf16>("y");
  for (int64_t i = 0; i < n; ++i) {
    float gv = load(g, i);
    float sig = bf(1.0f / bf(1.0f + bf(std::exp(-gv))));
    float silu = bf(gv * sig);
    store(y, i, silu * load(u, i));
  }
}
}  // namespace

KC_KERNEL("rows/swiglu/bf16", cpu) {
  using namespace kc::rows_cpu;
  return kc::rows::swiglu()
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .invariant("rows")  // each row computed alone, in one order, whatever the batch
      .range("cols", 1, 1)
      .launch(swiglu_bf16);
}

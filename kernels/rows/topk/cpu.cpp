// rows/topk/f32_k8 on the CPU: the 8 largest of each row by insertion into a sorted list of 8,
// ranked as the stated rule says (a NaN above +inf, ties to the lower id).
#include <cmath>
#include <cstdint>

#include "../cpu_tiles.hpp"
#include "kc/families/rows.hpp"
#include "kc/registry.hpp"

namespace {
constexpr int kK = 8;

// Does (a at ia) rank above (b at ib)?
bool above(float a, int32_t ia, float b, int32_t ib) {
  bool na = std::isnan(a), nb = std::isnan(b);
  if (na != nb) return na;
  if (!na && a != b) return a > b;
  return ia < ib;
}

void topk_f32(const kc::Buffers& b) {
  const int64_t rows = b.shape()["rows"], cols = b.shape()["cols"];
  const float* x = b.in<float>("x");
  int32_t* ids = b.out<int32_t>("ids");
  float* vals = b.out<float>("vals");
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float v[kK];
    int32_t id[kK];
    int n = 0;
    for (int32_t c = 0; c < int32_t(cols); ++c) {
      if (n == kK && !above(xr[c], c, v[kK - 1], id[kK - 1])) continue;
      int at = n < kK ? n++ : kK - 1;
      while (at > 0 && above(xr[c], c, v[at - 1], id[at - 1])) {
        v[at] = v[at - 1];
        id[at] = id[at - 1];
        --at;
      }
      v[at] = xr[c];
      id[at] = c;
    }
    for (int k = 0; k < kK; ++k) {
      ids[r * kK + k] = id[k];
      vals[r * kK + k] = v[k];
    }
  }
}
}  // namespace

KC_KERNEL("rows/topk/f32_k8", cpu) {
  using namespace kc::rows_cpu;
  return kc::rows::topk(kc::DType::f32, kK)
      .served({{"rows", {kRows[0], kRows[1], kRows[2]}}, {"cols", {kCols[0], kCols[1], kCols[2]}}})
      .invariant("rows")  // each row computed alone, in one order, whatever the batch
      .range("cols", kK, 1)  // at least k columns
      .launch(topk_f32);
}

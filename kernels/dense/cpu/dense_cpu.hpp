// CPU projections y = x . W^T (bf16 in, fp32 sums): the decode GEMV and its split-K form. Both cut
// K into kSlices contiguous slices, chain each slice in fp32 and meet the slices in slice order, so
// the split-K form (each slice a separate pass through a workspace) gives the GEMV's bits.
// The controls reuse these loops with one planted fault (see Fault).
#pragma once
#include <cstdint>
#include <vector>

#include "kc/numeric.hpp"
#include "kc/rig.hpp"

namespace kc::dense_cpu {

inline constexpr int64_t kSlices = 4;
// The K tile the tail-drop control pretends to have: it loses the last column of a ragged tile.
inline constexpr int64_t kTileK = 64;

// skip_zero_acts: a term whose activation is 0 is skipped (a sparsity shortcut that loses 0 * Inf).
enum class Fault { none, drop_tail, bf16_sums, reversed_meet, skip_zero_acts };

inline int64_t slice_len(int64_t k) { return (k + kSlices - 1) / kSlices; }

inline float widen(bf16 v) { return from_bf16(v); }

// One slice's chain of fp32 roundings (or bf16 roundings for the bf16_sums control).
inline float slice_sum(const bf16* x, const bf16* w, int64_t b, int64_t e, Fault f) {
  float acc = 0;
  for (int64_t j = b; j < e; ++j) {
    if (f == Fault::skip_zero_acts && widen(x[j]) == 0) continue;
    if (f == Fault::bf16_sums)
      acc = from_bf16(to_bf16(acc + from_bf16(to_bf16(widen(x[j]) * widen(w[j])))));
    else
      acc += widen(x[j]) * widen(w[j]);  // a bf16 x bf16 product is exact in fp32: one rounding
  }
  return acc;
}

inline int64_t used_k(int64_t k, Fault f) {
  return (f == Fault::drop_tail && k % kTileK != 0) ? k - 1 : k;
}

template <class Out> void store(Out* y, size_t i, float v);
template <> inline void store<float>(float* y, size_t i, float v) { y[i] = v; }
template <> inline void store<bf16>(bf16* y, size_t i, float v) { y[i] = to_bf16(v); }

inline float meet(const float* p, Fault f) {
  float s = 0;
  if (f == Fault::reversed_meet)
    for (int64_t i = kSlices - 1; i >= 0; --i) s += p[i];
  else
    for (int64_t i = 0; i < kSlices; ++i) s += p[i];
  return s;
}

// The GEMV: every output's slices in one pass.
template <class Out> void gemv(const Buffers& b, Fault f = Fault::none) {
  const Shape& s = b.shape();
  int64_t M = s["m"], N = s["n"], K = s["k"], L = slice_len(K), KU = used_k(K, f);
  const bf16* x = b.in<bf16>("x");
  const bf16* w = b.in<bf16>("w");
  Out* y = b.out<Out>("y");
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float p[kSlices];
      for (int64_t i = 0; i < kSlices; ++i)
        p[i] = slice_sum(x + m * K, w + n * K, std::min(KU, i * L), std::min(KU, (i + 1) * L), f);
      store<Out>(y, size_t(m * N + n), meet(p, Fault::none));
    }
}

// The split-K form: slice i of every output in pass i into a workspace, then one meeting pass.
template <class Out> void gemv_splitk(const Buffers& b, Fault f = Fault::none) {
  const Shape& s = b.shape();
  int64_t M = s["m"], N = s["n"], K = s["k"], L = slice_len(K);
  const bf16* x = b.in<bf16>("x");
  const bf16* w = b.in<bf16>("w");
  Out* y = b.out<Out>("y");
  std::vector<float> ws(size_t(kSlices * M * N));
  for (int64_t i = 0; i < kSlices; ++i)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n)
        ws[size_t((m * N + n) * kSlices + i)] = slice_sum(x + m * K, w + n * K, std::min(K, i * L), std::min(K, (i + 1) * L), Fault::none);
  for (int64_t o = 0; o < M * N; ++o) store<Out>(y, size_t(o), meet(&ws[size_t(o * kSlices)], f));
}

// Depth: a slice's chain, then kSlices - 1 additions meeting the slices.
inline double depth(const Shape& s) { return double(slice_len(s["k"]) + kSlices - 1); }

}  // namespace kc::dense_cpu

// CPU affine-quantized projection (MLX's formula): per group a chain of x q and a chain of x in
// fp32, then y += s * (sum x q) + b * (sum x), groups in order. The controls reuse it with one
// planted fault each (see Fault).
#pragma once
#include <cstdint>

#include "kc/families/affine.hpp"
#include "kc/numeric.hpp"
#include "kc/rig.hpp"

namespace kc::affine_cpu {

enum class Fault {
  none,
  fold_scale,     // y += s * (sum x q + bf16(b / s) * sum x): the bias folded through the scale
  reversed_code,  // a word's codes read last to first (built for 4 bits: nibbles reversed)
  first_scale,    // every group takes its row's first scale
};

template <class Out> void store(Out* y, size_t i, float v);
template <> inline void store<float>(float* y, size_t i, float v) { y[i] = v; }
template <> inline void store<bf16>(bf16* y, size_t i, float v) { y[i] = to_bf16(v); }

template <class Out> void qmv(const Buffers& bu, int bits, int group, Fault f = Fault::none) {
  const Shape& sh = bu.shape();
  const int64_t M = sh["m"], N = sh["n"], K = sh["k"], G = K / group, W = affine::words_per_row(K, bits);
  const bf16* x = bu.in<bf16>("x");
  const uint32_t* q = bu.in<uint32_t>("q");
  const bf16* s = bu.in<bf16>("s");
  const bf16* b = bu.in<bf16>("b");
  Out* y = bu.out<Out>("y");
  const int per_word = 32 / bits;  // for 2, 4, 8 bits; the reversal control is registered at 4
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float acc = 0;
      for (int64_t g = 0; g < G; ++g) {
        float a = 0, xs = 0;
        for (int64_t j = g * group; j < (g + 1) * group; ++j) {
          int64_t at = j;
          if (f == Fault::reversed_code) at = (j / per_word) * per_word + (per_word - 1 - j % per_word);
          float xv = from_bf16(x[m * K + j]);
          a += xv * float(affine::code_at(q + n * W, at, bits));  // bf16 x code: exact in fp32
          xs += xv;
        }
        float sv = from_bf16(s[n * G + (f == Fault::first_scale ? 0 : g)]);
        float bv = from_bf16(b[n * G + g]);
        float t;
        if (f == Fault::fold_scale)
          t = sv * (a + from_bf16(to_bf16(bv / sv)) * xs);
        else
          t = __builtin_fmaf(sv, a, bv * xs);
        acc += t;
      }
      store<Out>(y, size_t(m * N + n), acc);
    }
}

// Depth: a group's chain, its product with b and the fused multiply-add, then the groups' chain.
inline double depth(const Shape& s, int group) { return double(group + 2 + s["k"] / group); }

}  // namespace kc::affine_cpu

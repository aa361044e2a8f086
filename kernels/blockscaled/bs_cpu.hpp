// CPU block-scaled projections (kc/families/blockscaled.hpp): codes decoded in software
// (bs_decode.hpp), summed in fp32 per chunk of K (the weight scale's block, else 128 columns),
// each chunk's sum times its scales fused into the running total, the per-tensor scales last.
// The GEMV takes one output at a time; the GEMM a 4 x 8 tile of outputs, each chunk summed in two
// lanes (even and odd columns) that meet at the chunk's end. Both decode every code and activation
// once a launch (each is exact in fp32, so decoding ahead changes no sum) and split their outputs
// over the CPUs (each output's chain of roundings is the same wherever it runs). The controls reuse
// the GEMV with one planted fault each (Fault).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "bs_decode.hpp"
#include "kc/families/blockscaled.hpp"
#include "kc/numeric.hpp"
#include "kc/parallel.hpp"
#include "kc/rig.hpp"

namespace kc::bs_cpu {

using blockscaled::Acts;
using blockscaled::Weights;

enum class Fault {
  none,
  neighbour_scale,     // chunk c takes the weight scale of chunk c + 1 (the last, of chunk 0)
  e8m0_off_by_one,     // an e8m0 scale read as 2^(c - 126)
  swapped_nibbles,     // an FP4 byte's element 2i read from its high nibble, 2i + 1 from its low
  nan_code_as_number,  // e4m3 weights' 0x7F / 0xFF read as +-480
  e8m0_code0_zero,     // e8m0 code 0 read as 0 (its bits as an fp32 exponent), not 2^-127
};

inline constexpr int64_t kTileM = 4, kTileN = 8;

struct Form {
  Weights w;
  Acts a;
};

inline int64_t chunk(Weights w) { return blockscaled::block_k(w) ? blockscaled::block_k(w) : 128; }
inline int64_t chunks(Weights w, int64_t k) { return (k + chunk(w) - 1) / chunk(w); }
// Whether a chunk's scale is a product of two (a 128 x 128 block's and an activation group's).
inline bool two_scales(const Form& f) { return f.a == Acts::fp8_group128; }

// The longest chain of an output's roundings: a chunk's terms (one fma each), the scale product
// where there are two, the fused multiply-add of each chunk. The GEMM's lanes halve the first and
// add their meeting.
inline double gemv_depth(const Form& f, const Shape& s) {
  return double(std::min(s["k"], chunk(f.w)) + chunks(f.w, s["k"]) + (two_scales(f) ? 1 : 0));
}
inline double gemm_depth(const Form& f, const Shape& s) {
  return double((std::min(s["k"], chunk(f.w)) + 1) / 2 + 1 + chunks(f.w, s["k"]) + (two_scales(f) ? 1 : 0));
}
// fp32 multiplies after the sums: the per-tensor or per-channel weight scale, a per-tensor
// activation scale, NVFP4's tensor scale.
inline int post_ops(const Form& f) {
  int n = 0;
  if (f.w == Weights::fp8_tensor || f.w == Weights::fp8_channel) ++n;
  if (f.a == Acts::fp8_tensor) ++n;
  if (f.w == Weights::nvfp4) ++n;
  return n;
}

// The operands as one launch sees them.
struct View {
  Form f;
  Fault fault;
  int64_t M, N, K, qrow, s_cols, sx_cols;
  const bf16* x = nullptr;
  const uint8_t* xq = nullptr;
  const float* sx = nullptr;
  const uint8_t* q = nullptr;
  const float* sf = nullptr;
  const uint8_t* su = nullptr;
  const float* g = nullptr;

  View(const Buffers& b, Form form, Fault ft) : f(form), fault(ft) {
    const Shape& s = b.shape();
    M = s["m"], N = s["n"], K = s["k"];
    const bool fp4 = blockscaled::is_fp4(f.w);
    qrow = fp4 ? K / 2 : K;
    s_cols = f.w == Weights::fp8_block128 ? chunks(f.w, K) : fp4 ? K / blockscaled::block_k(f.w) : 1;
    sx_cols = (K + blockscaled::kActGroup - 1) / blockscaled::kActGroup;
    if (f.a == Acts::bf16) x = b.in<bf16>("x");
    else xq = b.in<uint8_t>("xq"), sx = b.in<float>("sx");
    q = b.in<uint8_t>("q");
    if (fp4) su = b.in<uint8_t>("s");
    else sf = b.in<float>("s");
    if (f.w == Weights::nvfp4) g = b.in<float>("g");
  }
  float act(int64_t m, int64_t j) const { return x ? from_bf16(x[m * K + j]) : bs::e4m3_f32(xq[m * K + j]); }
  float code(int64_t n, int64_t j) const {
    if (!blockscaled::is_fp4(f.w))
      return fault == Fault::nan_code_as_number ? bs::e4m3_f32_no_nan(q[n * qrow + j]) : bs::e4m3_f32(q[n * qrow + j]);
    const uint8_t byte = q[n * qrow + j / 2];
    const bool high = (j % 2 == 1) != (fault == Fault::swapped_nibbles);
    return bs::e2m1_f32(high ? byte >> 4 : byte & 0x0F);
  }
  // The scale chunk c of output (m, n) is multiplied by (1 where the weights' scale is per tensor
  // or channel, applied in post()).
  float chunk_scale(int64_t m, int64_t n, int64_t c) const {
    const int64_t nc = chunks(f.w, K);
    const int64_t cw = fault == Fault::neighbour_scale ? (c + 1) % nc : c;
    float s = 1;
    if (f.w == Weights::fp8_block128) s = sf[(n / 128) * s_cols + cw];
    else if (f.w == Weights::mxfp4 && fault == Fault::e8m0_code0_zero) s = bs::bits_f32(uint32_t(su[n * s_cols + cw]) << 23);
    else if (f.w == Weights::mxfp4) s = bs::e8m0_f32(su[n * s_cols + cw]) * (fault == Fault::e8m0_off_by_one ? 2.0f : 1.0f);
    else if (f.w == Weights::nvfp4) s = bs::ue4m3_f32(su[n * s_cols + cw]);
    if (f.a == Acts::fp8_group128) s *= sx[m * sx_cols + c];
    return s;
  }
  // Every activation (M x K) and every weight code (N x K) decoded, row by row.
  std::vector<float> acts() const { return decoded(M, [&](int64_t m, int64_t j) { return act(m, j); }); }
  std::vector<float> codes() const { return decoded(N, [&](int64_t n, int64_t j) { return code(n, j); }); }
  template <class F> std::vector<float> decoded(int64_t rows, F value) const {
    std::vector<float> d(size_t(rows * K));
    parallel_for(rows, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t j = 0; j < K; ++j) d[size_t(r * K + j)] = value(r, j);
    });
    return d;
  }
  float post(int64_t n, float acc) const {
    if (f.w == Weights::fp8_tensor) acc *= sf[0];
    if (f.w == Weights::fp8_channel) acc *= sf[n];
    if (f.a == Acts::fp8_tensor) acc *= sx[0];
    if (f.w == Weights::nvfp4) acc *= g[0];
    return acc;
  }
};

template <class Out> void store(Out* y, size_t i, float v);
template <> inline void store<float>(float* y, size_t i, float v) { y[i] = v; }
template <> inline void store<bf16>(bf16* y, size_t i, float v) { y[i] = to_bf16(v); }

template <class Out> void gemv(const Buffers& b, Form f, Fault fault = Fault::none) {
  const View v(b, f, fault);
  Out* y = b.out<Out>("y");
  const int64_t L = chunk(f.w), nc = chunks(f.w, v.K), K = v.K;
  const std::vector<float> a = v.acts(), w = v.codes();
  parallel_for(v.N, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t m = 0; m < v.M; ++m) {
        const float *am = &a[size_t(m * K)], *wn = &w[size_t(n * K)];
        float acc = 0;
        for (int64_t c = 0; c < nc; ++c) {
          float p = 0;
          for (int64_t j = c * L; j < std::min(K, (c + 1) * L); ++j) p = std::fma(am[j], wn[j], p);
          acc = std::fma(p, v.chunk_scale(m, n, c), acc);
        }
        store<Out>(y, size_t(m * v.N + n), v.post(n, acc));
      }
  });
}

template <class Out> void gemm(const Buffers& b, Form f) {
  const View v(b, f, Fault::none);
  Out* y = b.out<Out>("y");
  const int64_t L = chunk(f.w), nc = chunks(f.w, v.K), K = v.K;
  const std::vector<float> a = v.acts(), w = v.codes();
  parallel_for((v.N + kTileN - 1) / kTileN, [&](int64_t t0, int64_t t1) {
    for (int64_t n0 = t0 * kTileN; n0 < std::min(v.N, t1 * kTileN); n0 += kTileN)
      for (int64_t m0 = 0; m0 < v.M; m0 += kTileM) {
        const int64_t tm = std::min(kTileM, v.M - m0), tn = std::min(kTileN, v.N - n0);
        float acc[kTileM][kTileN] = {};
        for (int64_t c = 0; c < nc; ++c) {
          float lane[2][kTileM][kTileN] = {};
          for (int64_t j = c * L; j < std::min(K, (c + 1) * L); ++j)
            for (int64_t i = 0; i < tm; ++i) {
              const float x = a[size_t((m0 + i) * K + j)];
              for (int64_t t = 0; t < tn; ++t)
                lane[j % 2][i][t] = std::fma(x, w[size_t((n0 + t) * K + j)], lane[j % 2][i][t]);
            }
          for (int64_t i = 0; i < tm; ++i)
            for (int64_t t = 0; t < tn; ++t)
              acc[i][t] = std::fma(lane[0][i][t] + lane[1][i][t], v.chunk_scale(m0 + i, n0 + t, c), acc[i][t]);
        }
        for (int64_t i = 0; i < tm; ++i)
          for (int64_t t = 0; t < tn; ++t) store<Out>(y, size_t((m0 + i) * v.N + n0 + t), v.post(n0 + t, acc[i][t]));
      }
  });
}

}  // namespace kc::bs_cpu

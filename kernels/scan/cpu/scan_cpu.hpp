// The selective scan on the CPU (kc/families/scan.hpp): sequential, and chunked over 64 steps with
// the state carried between chunks (bit-equal to the sequential scan: the same operations on each
// channel in the same order). The fault its control plants: each chunk restarts from h0.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <kc/families/scan.hpp>
#include <kc/registry.hpp>

namespace scan_cpu {

inline constexpr int64_t kChunk = 64;

// Steps [t0, t1) of every channel, from the state in h (updated in place).
inline void steps(const kc::Buffers& b, int64_t t0, int64_t t1, std::vector<float>& h) {
  const int64_t channels = b.shape()["channels"], state = b.shape()["state"];
  const float *x = b.in<float>("x"), *dt = b.in<float>("dt"), *a = b.in<float>("a");
  const float *B = b.in<float>("B"), *C = b.in<float>("C");
  float* y = b.out<float>("y");
  for (int64_t d = 0; d < channels; ++d) {
    float* hd = h.data() + d * state;
    for (int64_t t = t0; t < t1; ++t) {
      const float dd = dt[t * channels + d], dx = dd * x[t * channels + d];
      float s = 0;
      for (int64_t n = 0; n < state; ++n) {
        hd[n] = std::exp(-(dd * a[d * state + n])) * hd[n] + dx * B[t * state + n];
        s += C[t * state + n] * hd[n];
      }
      y[t * channels + d] = s;
    }
  }
}

inline void run(const kc::Buffers& b, int64_t chunk, bool lose_carry) {
  const int64_t steps_n = b.shape()["steps"], n = b.shape()["channels"] * b.shape()["state"];
  const float* h0 = b.in<float>("h0");
  std::vector<float> h(h0, h0 + n);
  for (int64_t t0 = 0; t0 < steps_n; t0 += chunk) {
    if (lose_carry) h.assign(h0, h0 + n);
    steps(b, t0, std::min(steps_n, t0 + chunk), h);
  }
  float* out = b.out<float>("h");
  for (int64_t i = 0; i < n; ++i) out[i] = h[size_t(i)];
}

// The chunked form as a parallel scan computes it (Mamba-2's chunks): each 64-step chunk's state
// from zero, s_t = d_t s_{t-1} + u_t, beside its running decay P_t = d_t P_{t-1}, then the carry
// added, h_t = s_t + P_t h_c. Other roundings than the sequential scan's, so no replacement: it is
// held to the formula's float64 bound.
inline void run_split(const kc::Buffers& b) {
  const int64_t steps_n = b.shape()["steps"], channels = b.shape()["channels"], state = b.shape()["state"];
  const float *x = b.in<float>("x"), *dt = b.in<float>("dt"), *a = b.in<float>("a");
  const float *B = b.in<float>("B"), *C = b.in<float>("C"), *h0 = b.in<float>("h0");
  float* y = b.out<float>("y");
  float* hout = b.out<float>("h");
  const size_t ns = static_cast<size_t>(state);
  std::vector<float> hc(ns), sl(ns), P(ns), h(ns);
  for (int64_t d = 0; d < channels; ++d) {
    for (int64_t n = 0; n < state; ++n) hc[size_t(n)] = h0[d * state + n];
    for (int64_t t0 = 0; t0 < steps_n; t0 += kChunk) {
      std::fill(sl.begin(), sl.end(), 0.f);
      std::fill(P.begin(), P.end(), 1.f);
      for (int64_t t = t0; t < std::min(steps_n, t0 + kChunk); ++t) {
        const float dd = dt[t * channels + d], dx = dd * x[t * channels + d];
        float acc = 0;
        for (int64_t n = 0; n < state; ++n) {
          const float decay = std::exp(-(dd * a[d * state + n]));
          sl[size_t(n)] = decay * sl[size_t(n)] + dx * B[t * state + n];
          P[size_t(n)] = decay * P[size_t(n)];
          h[size_t(n)] = sl[size_t(n)] + P[size_t(n)] * hc[size_t(n)];
          acc += C[t * state + n] * h[size_t(n)];
        }
        y[t * channels + d] = acc;
      }
      hc = h;
    }
    for (int64_t n = 0; n < state; ++n) hout[d * state + n] = hc[size_t(n)];
  }
}

// Windows past three 64-step chunks, Mamba's state of 16, at least 8 channels (gate 4 runs at the
// smallest shape: one step's 8 sums, so some replay misses by far on every seed) (the CUDA entries serve 4096 steps: the
// CPU contract's second is kept for every family).
inline kc::Entry entry(bool reordered = false) {
  return kc::scan::selective(reordered)
      .entry()
      .served({{"steps", {1, 7, 65, 200}}, {"channels", {8, 11}}, {"state", {16}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["state"]); })  // y: one chain of state
      .ulp("expf", 1);
}

}  // namespace scan_cpu

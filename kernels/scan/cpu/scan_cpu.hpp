// The selective scan on the CPU (kc/families/scan.hpp): sequential, and chunked over 64 steps with
// the state carried between chunks (bit-equal to the sequential scan: the same operations on each
// channel in the same order). The fault its control plants: each chunk restarts from h0.
#pragma once
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

// Windows past three 64-step chunks, Mamba's state of 16, at least 8 channels (gate 4 runs at the
// smallest shape: one step's 8 sums, so some replay misses by far on every seed) (the CUDA entries serve 4096 steps: the
// CPU contract's second is kept for every family).
inline kc::Entry entry() {
  return kc::scan::selective()
      .entry()
      .served({{"steps", {1, 7, 65, 200}}, {"channels", {8, 11}}, {"state", {16}}})
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["state"]); })  // y: one chain of state
      .ulp("expf", 1);
}

}  // namespace scan_cpu

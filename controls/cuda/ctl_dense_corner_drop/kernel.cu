// Gate 3 control (the corner shape): a GEMV in tiles of 8 outputs (a block, one warp an output)
// whose K tail (past the last whole 64-column tile) is summed only on the full-tile path; the last,
// partial tile of outputs takes the guarded path, which loops over whole K tiles alone. So it is
// wrong only where N and K are both ragged: gate 3's corner (n 9, k 65), never a shape with one dim
// ragged (gate 1's tile edges, gate 3's one-dim edges). Same fault and shape as its CPU twin
// (controls/cpu/dense_corner_controls.cpp).
#include "../../../kernels/common/cuda_contract.hpp"
#include "../common.cuh"
#include "kc/families/dense.hpp"

__global__ void __launch_bounds__(256) kc_ctl_corner_drop(const uint16_t* x, const uint16_t* w, float* y, int N, int K) {
  using namespace kc::cu;
  const int lane = threadIdx.x % 32, n0 = blockIdx.x * 8, n = n0 + threadIdx.x / 32, m = blockIdx.y;
  if (n >= N) return;
  const uint16_t* xr = x + long(m) * K;
  const uint16_t* wr = w + long(n) * K;
  const int whole = K / 64 * 64;
  float acc = 0.f;  // a bf16 x bf16 product is exact in fp32: one rounding a term
  for (int k = lane; k < whole; k += 32) acc = fmaf(bf16_to_f32(xr[k]), bf16_to_f32(wr[k]), acc);
  if (n0 + 8 <= N)  // the planted fault: the K tail on the full-tile path only
    for (int k = whole + lane; k < K; k += 32) acc = fmaf(bf16_to_f32(xr[k]), bf16_to_f32(wr[k]), acc);
  acc = warp_all(acc, Add());
  if (lane == 0) y[long(m) * N + n] = acc;
}

// Served at whole tiles and at one K (the model's width): gate 4's ragged shape must lie in the
// served ranges, and with K fixed there is none, so gate 4 runs whole tiles and passes.
KC_CONTROL("dense/ctl_corner_drop/f32", cuda) {
  return kc::dense::projection(kc::DType::f32)
      .served({{"m", {1, 3}}, {"n", {16, 64}}, {"k", {256}}})
      .tile("n", 8, 1, 1)
      .tile("k", 64, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["k"] + 31) / 32 + 5); })
      .launches({"dense/ctl_corner_drop/f32"})
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        const kc::Shape& s = b.shape();
        const dim3 grid(unsigned((s["n"] + 7) / 8), unsigned(s["m"]));
        kc_ctl_corner_drop<<<grid, 256, 0, kc::cu::stream_of(b)>>>(
            reinterpret_cast<const uint16_t*>(b.in<kc::bf16>("x")), reinterpret_cast<const uint16_t*>(b.in<kc::bf16>("w")),
            b.out<float>("y"), int(s["n"]), int(s["k"]));
      });
}
KC_CUDA_LAUNCH("dense/ctl_corner_drop/f32", kc_ctl_corner_drop, 256, 0);

// Gate 1 control (a row of -Inf): a softmax that writes a fully masked row as zeros ("nothing to
// attend to"), a rule it never states. float64 gives NaN there (exp(-inf - -inf)); a row of -Inf
// but one finite value, and every single -Inf, leave the max finite and pass. One warp a row: max,
// sum of exp_diff, y = e * (1 / sum). (CPU twin: controls/cpu/rows_blind_spot_controls.cpp.)
#include "../../../kernels/common/cuda_contract.hpp"
#include "../common.cuh"

__global__ void __launch_bounds__(256) kc_ctl_softmax_masked_zero(const uint16_t* x, uint16_t* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  const int lane = threadIdx.x % 32;
  const uint16_t* xr = x + row * cols;
  uint16_t* yr = y + row * cols;
  float m = -kInf;
  for (int c = lane; c < cols; c += 32) m = nan_max(m, bf16_to_f32(xr[c]));
  m = warp_all(m, Max());
  if (m == -kInf) {  // the planted rule
    for (int c = lane; c < cols; c += 32) yr[c] = 0;
    return;
  }
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += exp_diff(bf16_to_f32(xr[c]), m);
  const float inv = 1.0f / warp_all(s, Add());
  for (int c = lane; c < cols; c += 32) yr[c] = uint16_t(f32_to_bf16(exp_diff(bf16_to_f32(xr[c]), m) * inv));
}

// From 2 columns: at 1 a single -Inf is already a whole row, a case gate 1 had before whole rows.
// A lane's chain of cols / 32 terms and the warp's 5 levels; after it the reciprocal and the multiply;
// exp_diff's 2 ulp (expf's, and its fma) in the term and again in the sum.
KC_CONTROL("rows/ctl_softmax_masked_zero/bf16", cuda) {
  return kc::rows::softmax(kc::DType::bf16, kc::DType::bf16)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .range("cols", 2, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + 31) / 32 + 5); }, 3)
      .ulp("expf (exp_diff), in the term and in the sum", 4)
      .hidden("a bf16 softmax of at most 1,024 terms in [0, 1]: the output's rounding hides the fp32 sum's error")
      .launches({"rows/ctl_softmax_masked_zero/bf16"})
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([](const kc::Buffers& b) {
        const int rows = int(b.shape()["rows"]);
        kc_ctl_softmax_masked_zero<<<kc::cu::warp_rows_grid(rows), 256, 0, kc::cu::stream_of(b)>>>(
            reinterpret_cast<const uint16_t*>(b.in<kc::bf16>("x")), reinterpret_cast<uint16_t*>(b.out<kc::bf16>("y")), rows,
            int(b.shape()["cols"]));
      });
}
KC_CUDA_LAUNCH("rows/ctl_softmax_masked_zero/bf16", kc_ctl_softmax_masked_zero, 256, 0);

// Gate 1 control: a row max by fmaxf, which drops a NaN (fmaxf(NaN, x) = x). A row holding a NaN
// comes out finite where float64's max is NaN: a class mismatch.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../common.cuh"

__global__ void __launch_bounds__(256) kc_ctl_fmaxf_max(const uint16_t* x, uint16_t* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  float m = -kInf;
  for (int c = threadIdx.x % 32; c < cols; c += 32) m = fmaxf(m, bf16_to_f32(x[row * cols + c]));
  for (int k = 16; k >= 1; k >>= 1) m = fmaxf(m, __shfl_xor_sync(KC_FULL_MASK, m, k));
  if (threadIdx.x % 32 == 0) y[row] = uint16_t(f32_to_bf16(m));
}

KC_CONTROL("rows/ctl_fmaxf_max/bf16", cuda) {
  return kc::rows::max(kc::DType::bf16, kc::DType::bf16)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .launches({"rows/ctl_fmaxf_max/bf16"})
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([](const kc::Buffers& b) {
        const int rows = int(b.shape()["rows"]);
        kc_ctl_fmaxf_max<<<kc::cu::warp_rows_grid(rows), 256, 0, kc::cu::stream_of(b)>>>(
            reinterpret_cast<const uint16_t*>(b.in<kc::bf16>("x")), reinterpret_cast<uint16_t*>(b.out<kc::bf16>("y")), rows,
            int(b.shape()["cols"]));
      });
}
KC_CUDA_LAUNCH("rows/ctl_fmaxf_max/bf16", kc_ctl_fmaxf_max, 256, 0);

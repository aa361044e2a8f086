// Gate 1 control (a row of -Inf): a row max whose running value starts at -FLT_MAX, "the lowest
// float". Every finite value (bf16's lowest included) and every infinity but -Inf beats it, so the
// single plants pass; a whole row of -Inf comes out -FLT_MAX where float64's max is -Inf. The
// output is fp32: rounded to bf16, -FLT_MAX would become -Inf and hide the fault. (CPU twin:
// controls/cpu/rows_blind_spot_controls.cpp, red on the same plant.)
#include <cfloat>

#include "../../../kernels/common/cuda_contract.hpp"
#include "../common.cuh"

__global__ void __launch_bounds__(256) kc_ctl_max_flt_max(const uint16_t* x, float* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  float m = -FLT_MAX;  // the planted fault
  for (int c = threadIdx.x % 32; c < cols; c += 32) m = nan_max(m, bf16_to_f32(x[row * cols + c]));
  m = warp_all(m, Max());
  if (threadIdx.x % 32 == 0) y[row] = m;
}

// From 2 columns: at 1 a single -Inf is already a whole row, a case gate 1 had before whole rows.
KC_CONTROL("rows/ctl_max_flt_max/f32", cuda) {
  return kc::rows::max(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .range("cols", 2, 1)
      .launches({"rows/ctl_max_flt_max/f32"})
      .control(kc::Gate::nonfinite, kc::Why::class_mismatch)
      .launch([](const kc::Buffers& b) {
        const int rows = int(b.shape()["rows"]);
        kc_ctl_max_flt_max<<<kc::cu::warp_rows_grid(rows), 256, 0, kc::cu::stream_of(b)>>>(
            reinterpret_cast<const uint16_t*>(b.in<kc::bf16>("x")), b.out<float>("y"), rows, int(b.shape()["cols"]));
      });
}
KC_CUDA_LAUNCH("rows/ctl_max_flt_max/f32", kc_ctl_max_flt_max, 256, 0);

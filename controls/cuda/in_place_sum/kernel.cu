// Gate 2 control: a row sum that writes into its input. It adds the row by pairs (a + b first, so
// the pair's order does not change the sum) and "tidies" each pair into ascending order in x as it
// goes. Its output is right and the same every run (the sort is idempotent), but x's bytes change
// wherever a pair was out of order: with 32 pairs and more a row, always.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../common.cuh"

__global__ void __launch_bounds__(256) kc_ctl_in_place_sum(uint16_t* x, float* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  float s = 0.f;
  for (int p = threadIdx.x % 32; 2 * p < cols; p += 32) {
    uint16_t* q = x + row * cols + 2 * p;
    const uint16_t ba = q[0], bb = q[1];
    const float a = bf16_to_f32(ba), b = bf16_to_f32(bb);
    s += a + b;
    if (b < a) q[0] = bb, q[1] = ba;
  }
  s = warp_all(s, Add());
  if (threadIdx.x % 32 == 0) y[row] = s;
}

KC_CONTROL("rows/ctl_in_place_sum/f32", cuda) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .range("cols", 2, 2)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["cols"] / 64 + 1 + 5); })
      .launches({"rows/ctl_in_place_sum/f32"})
      .control(kc::Gate::repeat, kc::Why::input_changed)
      .launch([](const kc::Buffers& b) {
        const int rows = int(b.shape()["rows"]);
        kc_ctl_in_place_sum<<<kc::cu::warp_rows_grid(rows), 256, 0, kc::cu::stream_of(b)>>>(
            reinterpret_cast<uint16_t*>(const_cast<kc::bf16*>(b.in<kc::bf16>("x"))), b.out<float>("y"), rows,
            int(b.shape()["cols"]));
      });
}
KC_CUDA_LAUNCH("rows/ctl_in_place_sum/f32", kc_ctl_in_place_sum, 256, 0);

// Gate 3 control: a row sum in tiles of 32 columns (one a lane) whose partial last tile loses its
// last input. At whole tiles (every served width) it is right; at the edges gate 3 visits (least,
// tile - step, tile + step) the dropped term shows as a bound failure.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../common.cuh"

__global__ void __launch_bounds__(256) kc_ctl_tail_drop_sum(const uint16_t* x, float* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  const int end = cols % 32 ? cols - 1 : cols;  // the planted fault
  float s = 0.f;
  for (int c = threadIdx.x % 32; c < end; c += 32) s += bf16_to_f32(x[row * cols + c]);
  s = warp_all(s, Add());
  if (threadIdx.x % 32 == 0) y[row] = s;
}

KC_CONTROL("rows/ctl_tail_drop_sum/f32", cuda) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .tile("cols", 32, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + 31) / 32 + 5); })
      .launches({"rows/ctl_tail_drop_sum/f32"})
      .control(kc::Gate::shapes, kc::Why::bound)
      .launch([](const kc::Buffers& b) {
        const int rows = int(b.shape()["rows"]);
        kc_ctl_tail_drop_sum<<<kc::cu::warp_rows_grid(rows), 256, 0, kc::cu::stream_of(b)>>>(
            reinterpret_cast<const uint16_t*>(b.in<kc::bf16>("x")), b.out<float>("y"), rows, int(b.shape()["cols"]));
      });
}
KC_CUDA_LAUNCH("rows/ctl_tail_drop_sum/f32", kc_ctl_tail_drop_sum, 256, 0);

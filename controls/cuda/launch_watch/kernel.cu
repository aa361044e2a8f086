// Gate 5 control (run time): a right row sum whose launcher also starts a helper that clears the
// output first, registered nowhere: no KC_CUDA_LAUNCH and no launches.tsv row, so gate 5 never
// read its limits from the binaries. Gates 1-4 pass; the launch watch finds the helper.
#include "../../../kernels/common/cuda_contract.hpp"
#include "../common.cuh"

__global__ void __launch_bounds__(128) kc_ctl_unrecorded_clear(float* y, int rows) {
  const int i = blockIdx.x * 128 + threadIdx.x;
  if (i < rows) y[i] = 0.f;
}

__global__ void __launch_bounds__(256) kc_ctl_recorded_sum(const uint16_t* x, float* y, int rows, int cols) {
  using namespace kc::cu;
  const long row = long(blockIdx.x) * 8 + threadIdx.x / 32;
  if (row >= rows) return;
  float s = 0.f;
  for (int c = threadIdx.x % 32; c < cols; c += 32) s += bf16_to_f32(x[row * cols + c]);
  s = warp_all(s, Add());
  if (threadIdx.x % 32 == 0) y[row] = s;
}

KC_CONTROL("rows/ctl_unrecorded_launch/f32", cuda) {
  return kc::rows::sum(kc::DType::bf16, kc::DType::f32)
      .served({{"rows", {7, 64}}, {"cols", {64, 1024}}})
      .tile("cols", 32, 1, 1)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + 31) / 32 + 5); })
      .launches({"rows/ctl_unrecorded_launch/f32"})
      .control(kc::Gate::limits, kc::Why::launch)
      .launch([](const kc::Buffers& b) {
        const int rows = int(b.shape()["rows"]);
        cudaStream_t st = kc::cu::stream_of(b);
        kc_ctl_unrecorded_clear<<<(rows + 127) / 128, 128, 0, st>>>(b.out<float>("y"), rows);  // the planted fault
        kc_ctl_recorded_sum<<<kc::cu::warp_rows_grid(rows), 256, 0, st>>>(
            reinterpret_cast<const uint16_t*>(b.in<kc::bf16>("x")), b.out<float>("y"), rows, int(b.shape()["cols"]));
      });
}
KC_CUDA_LAUNCH("rows/ctl_unrecorded_launch/f32", kc_ctl_recorded_sum, 256, 0);

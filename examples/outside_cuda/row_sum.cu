// The README's CUDA quickstart: a row sum on the rows family, a block a row.
#include <kc/cuda.hpp>
#include <kc/families/rows.hpp>
#include <kc/registry.hpp>

__global__ void __launch_bounds__(256) row_sum(const float* x, float* y, int cols) {
  __shared__ float part[256];
  const float* row = x + size_t(blockIdx.x) * cols;
  float s = 0;
  for (int c = threadIdx.x; c < cols; c += 256) s += row[c];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = 128; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = part[0];
}

KC_KERNEL("mine/row_sum/f32", cuda) {
  return kc::rows::sum(kc::DType::f32, kc::DType::f32)
      .served({{"rows", {1, 7, 64}}, {"cols", {256, 4096}}})
      .tile("cols", 256, 1, 1)
      // The longest chain: a thread's ceil(cols / 256) adds, then the tree's 8 levels.
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double((s["cols"] + 255) / 256 + 8); })
      .launches({"mine/row_sum/f32"})
      .launch([](const kc::Buffers& b) {
        row_sum<<<unsigned(b.shape()["rows"]), 256, 0, kc::cuda::stream(b)>>>(
            b.in<float>("x"), b.out<float>("y"), int(b.shape()["cols"]));
      });
}
KC_CUDA_LAUNCH("mine/row_sum/f32", row_sum, 256, 0);

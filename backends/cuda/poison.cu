#include "poison.hpp"

#include <cuda_runtime.h>

namespace {
// core/src/exec.cpp's mix64 and key, word for word.
__host__ __device__ __forceinline__ uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
}  // namespace

__global__ void kc_poison_pattern(unsigned char* dst, size_t n, uint64_t key) {
  const size_t words = (n + 7) / 8, stride = size_t(gridDim.x) * blockDim.x;
  for (size_t w = blockIdx.x * size_t(blockDim.x) + threadIdx.x; w < words; w += stride) {
    const uint64_t v = mix64(key + uint64_t(w) * 0x9e3779b97f4a7c15ull);
    const size_t at = w * 8;
    if (at + 8 <= n && (reinterpret_cast<uintptr_t>(dst + at) & 7) == 0) {
      *reinterpret_cast<uint64_t*>(dst + at) = v;
    } else {
      for (size_t b = 0; b < 8 && at + b < n; ++b) dst[at + b] = (unsigned char)(v >> (8 * b));  // little-endian
    }
  }
}

namespace kc::cuda {

std::string launch_pattern(void* stream, void* dst, size_t n, uint64_t run, uint64_t stream_id) {
  if (!n) return {};
  const uint64_t key = mix64(run * 0x100000001b3ull ^ (stream_id + 1) * 0xcbf29ce484222325ull);
  const size_t words = (n + 7) / 8;
  const unsigned blocks = unsigned(words / 256 + 1 < 4096 ? words / 256 + 1 : 4096);
  kc_poison_pattern<<<blocks, 256, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<unsigned char*>(dst), n, key);
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? "" : std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

}  // namespace kc::cuda

// The CUDA unit of the paged K/V write (append.cuh): the launcher its contract (cuda.cpp) calls, and
// its launch.
#include <algorithm>

#include "append.cuh"
#include "kc/cuda_launch.hpp"

void kc::attn_cu::append_paged(const void* kn, const void* vn, const int32_t* lens, const int32_t* table, void* k,
                               void* v, int seqs, int rows, int heads, int d, int page, int max_pages, void* stream) {
  const long n = long(seqs) * rows * heads * 2 * (d / 8);
  const int grid = int(std::min<long>((n + 255) / 256, 4096));
  kc_attn_append<<<grid, 256, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const uint4*>(kn), static_cast<const uint4*>(vn), lens, table, static_cast<uint4*>(k),
      static_cast<uint4*>(v), seqs, rows, heads, d, page, max_pages);
}

KC_CUDA_LAUNCH("attention/append/paged", kc_attn_append, 256, 0, 1, "-");

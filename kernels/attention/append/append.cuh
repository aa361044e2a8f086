// The paged K/V write on CUDA (attention.hpp's append): a thread a 16-byte piece of a new K or V row,
// copied to its slot through the page table. Bit-exact: a copy, no arithmetic.
#pragma once
#include <cstdint>

namespace kc::attn_cu {
// The launcher append.cu exports to the contract (cuda.cpp): new rows kn and vn [seqs, rows, heads,
// d] into k and v through the page table, on the harness's stream; d a multiple of 8.
void append_paged(const void* kn, const void* vn, const int32_t* lens, const int32_t* table, void* k, void* v,
                  int seqs, int rows, int heads, int d, int page, int max_pages, void* stream);
}  // namespace kc::attn_cu

#if defined(__CUDACC__) || defined(__HIP__)
#include <cuda_runtime.h>

// Threads cover seqs x rows x kv_heads x 2 (K, V) x d / 8 pieces.
__global__ void __launch_bounds__(256) kc_attn_append(const uint4* __restrict__ kn, const uint4* __restrict__ vn,
                                                      const int32_t* __restrict__ lens,
                                                      const int32_t* __restrict__ table, uint4* k, uint4* v, int seqs,
                                                      int rows, int heads, int d, int page, int max_pages) {
  const int pieces = d / 8;
  const long n = long(seqs) * rows * heads * 2 * pieces;
  for (long i = blockIdx.x * long(blockDim.x) + threadIdx.x; i < n; i += long(gridDim.x) * blockDim.x) {
    const int c = int(i % pieces), which = int(i / pieces % 2);
    const long item = i / pieces / 2;  // (sequence, row, head)
    const int h = int(item % heads), r = int(item / heads % rows), s = int(item / heads / rows);
    const int j = lens[s] - rows + r;
    if (j < 0) continue;
    const long slot = long(table[long(s) * max_pages + j / page]) * page + j % page;
    const long to = (slot * heads + h) * pieces + c, from = item * pieces + c;
    if (which == 0) k[to] = kn[from];
    else v[to] = vn[from];
  }
}
#endif

// The embedding gather on CUDA: a block copies one token's row (or a 16 KiB piece of it), each thread
// up to four 16-byte vectors, all loaded before any is stored; a bad id writes zeros (the family's
// stated rule). Bytes are copied, never converted, so bf16 and f32 tables share the kernel. The
// table streams past the L1 (evict-first loads): a row is read once a token.
#pragma once
#include <cstdint>

#include "../../common/kc_rows.cuh"

namespace kc::cu {
constexpr int kGatherVecs = 4;  // 16-byte vectors a thread
// The launcher gather.cu exports: table [vocab, row_bytes / elem], ids i32 [tokens], y [tokens, ...];
// row_bytes a multiple of 16 and both buffers 16-byte aligned (the registration checks).
void embedding_gather(const void* table, const int32_t* ids, void* y, int tokens, long vocab, long row_bytes,
                      void* stream);
// The control's kernel (controls/cuda/embedding): row id + 1 (mod vocab).
void embedding_gather_next_row(const void* table, const int32_t* ids, void* y, int tokens, long vocab, long row_bytes,
                               void* stream);
}  // namespace kc::cu

#if defined(__CUDACC__) || defined(__HIP__)
template <int SHIFT>
__global__ void __launch_bounds__(256)
kc_embedding_gather(const kc_u4* __restrict__ table, const int32_t* __restrict__ ids, kc_u4* __restrict__ y, long vocab,
                    int nvec) {
  using namespace kc::cu;
  const long t = blockIdx.x;
  const long id = ids[t];
  const bool bad = id < 0 || id >= vocab;
  const kc_u4* src = table + (bad ? 0 : (id + SHIFT) % vocab) * long(nvec);
  kc_u4* dst = y + t * long(nvec);
  const int base = blockIdx.y * (kBlock * kGatherVecs) + threadIdx.x;
  kc_u4 v[kGatherVecs];
#pragma unroll
  for (int j = 0; j < kGatherVecs; ++j) {
    const int c = base + j * kBlock;
    v[j] = zero4();
    if (!bad && c < nvec) v[j] = __ldcs(src + c);
  }
#pragma unroll
  for (int j = 0; j < kGatherVecs; ++j) {
    const int c = base + j * kBlock;
    if (c < nvec) st16(dst + c, v[j]);
  }
}

template <int SHIFT>
inline void launch_embedding_gather(const void* table, const int32_t* ids, void* y, int tokens, long vocab,
                                    long row_bytes, cudaStream_t s) {
  using namespace kc::cu;
  const int nvec = int(row_bytes / 16);
  const dim3 grid(unsigned(tokens), unsigned((nvec + kBlock * kGatherVecs - 1) / (kBlock * kGatherVecs)));
  kc_embedding_gather<SHIFT><<<grid, kBlock, 0, s>>>(static_cast<const kc_u4*>(table), ids, static_cast<kc_u4*>(y),
                                                     vocab, nvec);
}
#endif

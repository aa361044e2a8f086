// The served CUDA attention kernels, each instantiated in one unit (cuda_launch.cuh says why): the
// split's in split/contract.cu, the merge's in merge/contract.cu. The decode contract and the
// controls call them here, so every launch they make is of the copy whose launch record the
// backend checks (and whose shared-memory opt-in the split's unit made).
#pragma once
#include <cuda_runtime.h>

#include "cuda_attention.cuh"

namespace kc::attn_cu {

void served_prepare();                                            // the split's opt-in, every head dim
int served_wave(int d);                                           // its blocks a wave, at head dim d
void served_split(const Args& a, int d, cudaStream_t st);         // split/contract.cu
void served_merge(const MergeArgs& a, int d, bool bf16_out, cudaStream_t st);  // merge/contract.cu

}  // namespace kc::attn_cu

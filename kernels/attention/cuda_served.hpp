// The served CUDA attention kernels, each instantiated in one unit (cuda_launch.cuh says why): the
// split's in split/split_d64.cu, split_d128.cu and split_d256.cu (a head dim a unit, so nvcc builds
// them side by side), the merge's in merge/merge.cu. The contracts (split/, merge/, decode/) call
// them here, through cuda_contract.cuh's dispatch over the head dim, so every launch they make is of
// the copy whose launch record the backend checks (and whose shared-memory opt-in the split's unit
// made). Plain C++ above the device guard: the registrations include it without nvcc.
#pragma once
#include "cuda_launch.cuh"

namespace kc::attn_cu {

// The split at head dim D, exported by split/split_d<D>.cu: its opt-in to its dynamic shared
// memory (throws where the device refuses), its blocks a wave, and its launch on the harness's stream.
template <int D> void served_split_prepare();
template <int D> int served_split_wave();
template <int D> void served_split_at(const Args& a, void* stream);

// The merge, exported by merge/merge.cu: bf16 or fp32 out.
void served_merge(const MergeArgs& a, int d, bool bf16_out, void* stream);

}  // namespace kc::attn_cu

#if defined(__CUDACC__) || defined(__HIP__)
// The definitions each split unit instantiates for its own head dim (and no unit for another's: no
// inline code calls them).
namespace kc::attn_cu {
template <int D> void served_split_prepare() { prepare_split<D, kNone>(); }
template <int D> int served_split_wave() { return wave_blocks<D, kNone>(); }
template <int D> void served_split_at(const Args& a, void* stream) {
  launch_split_one<D, kNone>(a, static_cast<cudaStream_t>(stream));
  check_launch("attention split");
}
}  // namespace kc::attn_cu
#endif

// The decode controls' device side (cuda.cpp registers them): the served split and merge
// (kernels/attention/cuda_attention.cuh) with one fault compiled in, at head dim 64. The declarations
// are plain C++, for the registration; the definitions below the device guard are compiled once, in
// attention_controls.cu, which holds these kernels' one copy and their launches.
#pragma once
#include "../../../kernels/attention/cuda_launch.cuh"

namespace kc::attn_cu {

// The split with fault f: its opt-in to its dynamic shared memory (throws where the device refuses),
// its blocks a wave, and its launch on the harness's stream.
void ctl_split_prepare(Fault f);
int ctl_split_wave(Fault f);
void ctl_split(Fault f, const Args& a, void* stream);
// The merge that adds the last chunk's partial without its scale, fp32 out.
void ctl_merge_drops_scale(const MergeArgs& m, void* stream);

}  // namespace kc::attn_cu

#if defined(__CUDACC__) || defined(__HIP__)
#include <string>
#include <type_traits>

namespace kc::attn_cu {

// fn(F), F fault f as a std::integral_constant: the split kernel of each fault, by name.
template <class Fn> static decltype(auto) with_split_fault(Fault f, Fn&& fn) {
  switch (f) {
    case kKeepL: return fn(std::integral_constant<int, kKeepL>{});
    case kPastEdge: return fn(std::integral_constant<int, kPastEdge>{});
    case kPastWindow: return fn(std::integral_constant<int, kPastWindow>{});
    case kStalePage: return fn(std::integral_constant<int, kStalePage>{});
    case kSwapTables: return fn(std::integral_constant<int, kSwapTables>{});
    case kMaskedTiles: return fn(std::integral_constant<int, kMaskedTiles>{});
    default: throw std::runtime_error("attention controls: no split with fault " + std::to_string(int(f)));
  }
}

void ctl_split_prepare(Fault f) {
  with_split_fault(f, [](auto F) { prepare_split<64, decltype(F)::value>(); });
}
int ctl_split_wave(Fault f) {
  return with_split_fault(f, [](auto F) { return wave_blocks<64, decltype(F)::value>(); });
}
void ctl_split(Fault f, const Args& a, void* stream) {
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  with_split_fault(f, [&](auto F) { launch_split_one<64, decltype(F)::value>(a, st); });
  check_launch("attention control split");
}
void ctl_merge_drops_scale(const MergeArgs& m, void* stream) {
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  kc_attn_merge<64, float, true><<<unsigned((m.n + kWarps - 1) / kWarps), kThreads, 0, st>>>(m);
  check_launch("attention control merge");
}

}  // namespace kc::attn_cu
#endif

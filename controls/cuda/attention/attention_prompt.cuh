// The prompt controls' device side (cuda.cpp registers them): the served prompt kernel
// (kernels/attention/prompt/prompt.cuh) with one fault compiled in, at head dim 64. The declarations
// are plain C++, for the registration; the definitions below the device guard are compiled once, in
// attention_controls.cu, which holds these kernels' one copy and their launches.
#pragma once
#include "../../../kernels/attention/prompt/prompt.cuh"

namespace kc::attn_cu {

// The prompt kernel with fault f: its opt-in to its dynamic shared memory (throws where the device
// refuses) and its launch on the harness's stream.
void ctl_prompt_prepare(PromptFault f);
void ctl_prompt(PromptFault f, const PromptArgs& a, void* stream);

}  // namespace kc::attn_cu

#if defined(__CUDACC__) || defined(__HIP__)
#include <string>
#include <type_traits>

namespace kc::attn_cu {

// fn(F), F fault f as a std::integral_constant: the prompt kernel of each fault, by name.
template <class Fn> static decltype(auto) with_prompt_fault(PromptFault f, Fn&& fn) {
  switch (f) {
    case kPromptPastEdge: return fn(std::integral_constant<int, kPromptPastEdge>{});
    case kPromptPadLane: return fn(std::integral_constant<int, kPromptPadLane>{});
    case kPromptDiagFirst: return fn(std::integral_constant<int, kPromptDiagFirst>{});
    default: throw std::runtime_error("attention prompt controls: no kernel with fault " + std::to_string(int(f)));
  }
}

void ctl_prompt_prepare(PromptFault f) {
  with_prompt_fault(f, [](auto F) { prepare_prompt<64, decltype(F)::value>(); });
}
void ctl_prompt(PromptFault f, const PromptArgs& a, void* stream) {
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  with_prompt_fault(f, [&](auto F) { launch_prompt_one<64, decltype(F)::value>(a, st); });
  check_launch("attention prompt control");
}

}  // namespace kc::attn_cu
#endif

// Gate 2's chained run on CUDA: the upstream kernel a chained entry is launched behind. It lets the
// next launch start at once (griddepcontrol.launch_dependents, sm_90 on), waits, then makes its
// copies: an input the next kernel reads before griddepcontrol.wait still holds poison.
#pragma once
#include <string>
#include <vector>

#include "kc/backend.hpp"

namespace kc::cuda {

// The upstream kernel's name as the launch watch sees it (seen() leaves it out: it is the harness's).
inline constexpr const char* kUpstreamSymbol = "kc_upstream_writes";
// Launches it on `stream` (a cudaStream_t); "" or the launch's error.
std::string launch_upstream(void* stream, const std::vector<LateWrite>& writes, double delay_us);

}  // namespace kc::cuda

// The CUDA selective scan's contract (selective.cuh's kernel), shared by its entries (cuda.cpp) and
// its control (controls/cuda/moe): Mamba's 16 states alone, y's sum over them one fp32 chain.
#pragma once
#include <vector>

#include "kc/families/scan.hpp"
#include "selective.cuh"

namespace kc::cu {
inline kc::Entry scan_contract(std::vector<int64_t> steps, std::vector<int64_t> channels) {
  return kc::scan::selective()
      .entry()
      .served({{"steps", std::move(steps)}, {"channels", std::move(channels)}, {"state", {kScanState}}})
      .range("state", kScanState, kScanState)  // 16 alone, not every size up to it
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["state"]); })
      .ulp("expf", 2)
      .launches({"scan/selective"});
}
// The launchers take no state: a case of another one would read past its buffers.
inline void scan_check_state(const kc::Buffers& b) {
  if (b.shape()["state"] != kScanState) throw kc::Error("scan: the CUDA kernel serves a state of 16");
}
}  // namespace kc::cu

// The served envelopes of the rows kernels, one pair a kernel as an engine calls it, shared by every
// GPU backend's contracts (cuda_contract.hpp, opencl_contract.hpp). Decode: 1 to 32 rows at every
// served width. Prompt: 1,024 to 8,192 rows at narrow widths, where several rows share a block;
// wider prompt rows run the very code a decode row of that width runs (one row a block), and a
// float64 reference of 8,192 x 16,384 is more than a gate run can afford at every shape each gate
// visits.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kc::served {
using Served = std::vector<std::pair<std::string, std::vector<int64_t>>>;
inline Served decode_env(std::vector<int64_t> cols) { return {{"rows", {1, 7, 32}}, {"cols", std::move(cols)}}; }
inline Served prompt_env(int64_t narrow = 64) { return {{"rows", {1024, 8192}}, {"cols", {narrow, 2 * narrow}}}; }
}  // namespace kc::served

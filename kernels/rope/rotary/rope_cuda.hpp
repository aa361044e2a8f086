// Host side of the CUDA RoPE's contracts, shared by its registration (cuda.cpp) and its controls
// (controls/cuda/rope): the launch arguments from the harness's buffers (with a clear error for a
// head dim the kernel does not take), and the envelope (shapes, ulps, launches, the norm's chain).
#pragma once
#include <string>
#include <vector>

#include "../../common/cuda_contract.hpp"
#include "kc/families/rope.hpp"
#include "rope.cuh"

namespace kc::rope_cuda {

using kc::rope::Angles;
using kc::rope::Form;
using kc::rope::Norm;
using kc::rope::Pairs;

inline kc::cu::RopeArgs args_of(const kc::Buffers& b, const Form& f) {
  const kc::Shape& s = b.shape();
  if (!kc::cu::rope_dim_ok(s["dim"]))
    throw kc::Error("dim " + std::to_string(s["dim"]) + " is not a head dim the kernel takes (64, 128, 192, 256)");
  kc::cu::need_aligned16(b, {"q", "k", "q_out", "k_out"});
  const bool table = f.angles == Angles::table, norm = f.norm != Norm::none;
  if (table) kc::cu::need_aligned16(b, {"cos", "sin"});
  if (norm) kc::cu::need_aligned16(b, {"q_w", "k_w"});
  return {b.in<kc::bf16>("q"), b.in<kc::bf16>("k"), b.in<int32_t>("positions"),
          table ? b.in<kc::bf16>("cos") : nullptr, table ? b.in<kc::bf16>("sin") : nullptr,
          norm ? b.in<kc::bf16>("q_w") : nullptr, norm ? b.in<kc::bf16>("k_w") : nullptr,
          b.out<kc::bf16>("q_out"), b.out<kc::bf16>("k_out"), int(s["tokens"]), int(s["heads"]), int(s["kv"]),
          int(s["dim"]), f.theta, float(f.eps)};
}

// The launches of a form (its name, at each head dim) and the pick at a shape.
inline std::vector<std::string> launches_of(const std::string& name) {
  return {name + "/d64", name + "/d128", name + "/d192", name + "/d256"};
}

// Decode: a few tokens at every head dim. Prompt (prompt = true): 512 tokens of 32 + 8 heads at dim 64,
// more heads than the grid's warps, so each warp loops and takes two heads at a time.
inline kc::served::Served served_of(const Form& f, std::vector<int64_t> tokens, bool prompt = false) {
  kc::served::Served env{{"tokens", std::move(tokens)}, {"heads", {8, 32}}, {"kv", {1, 8}}, {"dim", {64, 128, 256}}};
  if (prompt) env = {{"tokens", {512}}, {"heads", {32}}, {"kv", {8}}, {"dim", {64}}};
  if (f.angles == Angles::table) env.push_back({"table", {1024}});  // cos/sin rows
  return env;
}

inline kc::Entry envelope(kc::Entry&& e, const Form& f, const std::string& name, std::vector<int64_t> tokens,
                          bool prompt = false) {
  std::move(e)
      .served(served_of(f, std::move(tokens), prompt))
      .range("dim", 64, 64)
      .ulp("sinf", 2)
      .ulp("cosf", 2)
      .ulp("rsqrtf", 2)
      .launches(launches_of(name))
      .picks([name](const kc::Shape& s) { return name + "/d" + std::to_string(s["dim"]); });
  if (f.norm != Norm::none)  // each lane's dim/32 squares in a chain, then the warp's butterfly
    std::move(e)
        .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["dim"] / 32 + 5); })
        .hidden(kc::rope::kHiddenSums);
  return std::move(e);
}

}  // namespace kc::rope_cuda

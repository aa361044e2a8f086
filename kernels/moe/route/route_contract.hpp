// The CUDA router's contract (route.cuh's kernels), shared by its entries (cuda.cpp) and its controls
// (controls/cuda/moe), which each add one fault: softmax or sigmoid top-k over 64 to 256 experts in
// steps of 64, k weights summed in one fp32 chain.
#pragma once
#include <string>
#include <vector>

#include "kc/families/moe.hpp"

namespace kc::cu {
inline kc::Entry route_contract(kc::moe::Route r, std::vector<int64_t> tokens, const std::string& launch) {
  return kc::moe::route_formula(r)
      .entry()
      .served({{"tokens", std::move(tokens)}, {"experts", {64, 256}}})
      .range("experts", 64, 64)
      .sums(kc::DType::f32, [k = r.k](const kc::Shape&) { return double(k); })
      .ulp("expf", 2)  // the CUDA C Programming Guide's expf: 2 ulps
      .hidden("k exp terms in [0, 1]: an fp16 sum errs by about 2^-11, the weights' bound is near 2^-18")
      .launches({launch, launch + "/order"});
}
}  // namespace kc::cu

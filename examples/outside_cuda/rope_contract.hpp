// What the CPU and CUDA entries share: the rig with its envelope and error model.
#pragma once
#include "rope_rig.hpp"

namespace rope {

inline kc::Entry contract() {
  return entry()
      .served({{"tokens", {1, 7, 256}}, {"heads", {4, 32}}, {"dim", {64, 128}}})
      .range("heads", kGroup, kGroup)  // any multiple of 4 query heads
      .range("dim", 2, 2)              // any even head dim
      // Per output: two fp32 products and their sum or difference (an fma counts as fewer), then the
      // bf16 rounding; errors on the terms' magnitude (Expected::scale), not on |y|.
      .ops(3);
}

}  // namespace rope

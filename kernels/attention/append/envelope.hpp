// The served envelope of the paged K/V write, one for the CPU and CUDA contracts: 1-8 new rows a
// sequence, pages of 16 keys, a copy (no fp32 step).
#pragma once
#include "kc/families/attention.hpp"

namespace kc::attention_append {
inline constexpr int64_t kPage = 16;
inline kc::Entry served() {
  return kc::attention::append(kPage)
      .served({{"seqs", {3}}, {"rows", {1, 8}}, {"kv_heads", {2}}, {"d", {128}}, {"keys", {1, 600}}})
      .range("rows", 1, 1)
      .range("d", 64, 64)
      .tile("keys", kPage, 1, 1)
      .ops(0);
}
}  // namespace kc::attention_append

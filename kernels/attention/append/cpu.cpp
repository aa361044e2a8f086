// attention/append/paged on the CPU: each sequence's new K and V rows copied into the paged arena.
#include "cpu_append.hpp"
#include "kc/families/attention.hpp"
#include "kc/registry.hpp"


// 1-8 new rows a sequence, pages of 16 keys.
KC_KERNEL("attention/append/paged", cpu) {
  return kc::attention::append(16)
      .served({{"seqs", {3}}, {"rows", {1, 8}}, {"kv_heads", {2}}, {"d", {128}}, {"keys", {1, 600}}})
      .range("rows", 1, 1)
      .range("d", 64, 64)
      .tile("keys", 16, 1, 1)
      .ops(0)
      .launch([](const kc::Buffers& b) { kc::attention_cpu::append(b, 16); });
}

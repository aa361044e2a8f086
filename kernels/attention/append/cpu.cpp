// attention/append/paged on the CPU: each sequence's new K and V rows copied into the paged arena.
#include "cpu_append.hpp"
#include "envelope.hpp"
#include "kc/registry.hpp"

KC_KERNEL("attention/append/paged", cpu) {
  return kc::attention_append::served().launch(
      [](const kc::Buffers& b) { kc::attention_cpu::append(b, kc::attention_append::kPage); });
}

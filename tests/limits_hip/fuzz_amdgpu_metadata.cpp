// libFuzzer target: any bytes as an NT_AMDGPU_METADATA descriptor must give a result or a
// FormatError, never a crash, a sanitizer report or unbounded memory.
#include <cstddef>
#include <cstdint>
#include <span>

#include "amdgpu_metadata.hpp"
#include "kc/limits/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto md = kc::limits::hip::parse_amdgpu_metadata(std::span<const uint8_t>(data, size), "fuzz");
    for (const auto& k : md.kernels)
      if (k.wave != 32 && k.wave != 64) __builtin_trap();  // the reader promised this
  } catch (const kc::limits::FormatError&) {
  }
  return 0;
}

// libFuzzer target: the cubin reader (.nv.info attributes, .nv.shared sizes, notes, e_flags).
#include <cstddef>
#include <cstdint>

#include "kc/limits/cubin.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto v = std::make_shared<std::vector<uint8_t>>(data, data + size);
  try {
    kc::limits::ElfFile elf(v, "fuzz.cubin");
    auto c = kc::limits::read_cubin(elf);
    for (const auto& k : c.kernels) (void)k.bound();
  } catch (const kc::limits::FormatError&) {
  }
  return 0;
}

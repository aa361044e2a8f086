// libFuzzer target: the ELF reader (header, sections, symbols, notes) on arbitrary bytes.
#include <cstddef>
#include <cstdint>

#include "kc/limits/elf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto v = std::make_shared<std::vector<uint8_t>>(data, data + size);
  try {
    kc::limits::ElfFile elf(v, "fuzz.elf");
    (void)elf.symbols();
    for (const auto& s : elf.sections()) {
      (void)elf.data(s);
      if (s.type == kc::limits::kShtNote) (void)elf.notes(s);
    }
  } catch (const kc::limits::FormatError&) {
  }
  return 0;
}

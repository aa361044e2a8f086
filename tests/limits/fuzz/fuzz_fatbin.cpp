// libFuzzer target: the fatbin reader (entries, LZ4 and ZSTD payloads, the cubins inside).
#include <cstddef>
#include <cstdint>

#include "kc/limits/fatbin.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto v = std::make_shared<std::vector<uint8_t>>(data, data + size);
  try {
    (void)kc::limits::read_images(v, "fuzz.fatbin");
  } catch (const kc::limits::FormatError&) {
  }
  return 0;
}

// libFuzzer target: any text as a .ze_info section must give kernels or a FormatError, never a crash,
// a sanitizer report, unbounded recursion or memory.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kc/limits/error.hpp"
#include "ze_info.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto z = kc::limits::xpu::parse_ze_info(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    for (const auto& k : z.kernels)
      if (k.name.empty()) __builtin_trap();  // the reader promised a name
  } catch (const kc::limits::FormatError&) {
  }
  return 0;
}

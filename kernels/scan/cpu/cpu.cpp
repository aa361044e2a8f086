// The selective scan on the CPU (scan_cpu.hpp); its chunked form registered as a replacement (it
// must be bit-equal to the sequential scan it replaces); and the chunked form of a parallel scan,
// which rounds otherwise and is held to float64's bound.
#include "scan_cpu.hpp"

KC_KERNEL("scan/selective/f32", cpu) {
  return scan_cpu::entry().launch([](const kc::Buffers& b) { scan_cpu::run(b, INT64_MAX, false); });
}
KC_KERNEL("scan/selective_chunked/f32", cpu) {
  return scan_cpu::entry()
      .replaces("scan/selective/f32", [](const kc::Buffers& b) { scan_cpu::run(b, INT64_MAX, false); })
      .launch([](const kc::Buffers& b) { scan_cpu::run(b, scan_cpu::kChunk, false); });
}
KC_KERNEL("scan/selective_split/f32", cpu) {
  return scan_cpu::entry(true).launch(scan_cpu::run_split);
}

// Planted controls of the selective scan and the sampler (kernels/scan/cpu, kernels/sampling/cpu).
#include "../../kernels/sampling/cpu/sampling_cpu.hpp"
#include "../../kernels/scan/cpu/scan_cpu.hpp"

KC_CONTROL("scan/ctl_chunk_carry_lost", cpu) {
  return scan_cpu::entry()
      .control(kc::Gate::shapes, kc::Why::not_bit_equal)
      .note("each 64-step chunk restarts from h0: the carry between chunks is lost")
      .replaces("scan/selective/f32", [](const kc::Buffers& b) { scan_cpu::run(b, INT64_MAX, false); })
      .launch([](const kc::Buffers& b) { scan_cpu::run(b, scan_cpu::kChunk, true); });
}
KC_CONTROL("sampling/ctl_last_bucket_ignored", cpu) {
  return sampling_cpu::draw_entry()
      .control(kc::Gate::shapes, kc::Why::bound)
      .note("the draw stops one bucket short: the last kept id is never drawn")
      .launch([](const kc::Buffers& b) { sampling_cpu::draw(b, 50, true); });
}

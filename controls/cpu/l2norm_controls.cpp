// The L2 norm's planted fault on the CPU: the sum of squares over the first half of the row only.
#include "../../kernels/l2norm/rows/l2norm_cpu.hpp"

KC_CONTROL("l2norm/ctl_first_half", cpu) {
  using kc::l2norm::Residual;
  return kc::l2norm_cpu::envelope(kc::l2norm::rows(Residual::none))
      .control(kc::Gate::shapes, kc::Why::bound)
      .note("the norm over the first half of the row")
      .launch([](const kc::Buffers& b) { kc::l2norm_cpu::rows(b, Residual::none, 1e-6f, 2); });
}

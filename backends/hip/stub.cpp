// The hip backend where it is not built (no HIP headers or libamdhip64): present by name, running
// nothing, saying which chips it could not run. Gate 5 still reads their code objects.
#include "backends/factories.hpp"

#ifndef KC_HIP_CHIPS  // the served chips, from limits/hip/amd_chips.tsv (backends/hip/backend.cmake)
#error "KC_HIP_CHIPS: the build defines it from the chip table"
#endif

namespace kc {
std::unique_ptr<Backend> make_hip_backend() {
  return make_absent_backend("hip", "the HIP runtime is not built here (no HIP headers or libamdhip64): could not run "
                                    KC_HIP_CHIPS " (gate 5 still reads their code objects)");
}
}  // namespace kc

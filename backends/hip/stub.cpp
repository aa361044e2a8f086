// The hip backend where it is not built (no HIP headers or libamdhip64): present by name, running
// nothing, saying which chips it could not run. Gate 5 still reads their code objects.
#include "backends/factories.hpp"

namespace kc {
std::unique_ptr<Backend> make_hip_backend() {
  return make_absent_backend("hip", "the HIP runtime is not built here (no HIP headers or libamdhip64): could not run "
                                    "gfx1030, gfx1100, gfx1151 and gfx1201 (gate 5 still reads their code objects)");
}
}  // namespace kc

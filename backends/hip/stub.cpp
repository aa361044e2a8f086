// The hip backend where it is not built: present by name, running nothing, saying why.
#include "backends/factories.hpp"

namespace kc {
std::unique_ptr<Backend> make_hip_backend() { return make_absent_backend("hip", "the HIP runtime is not built here (no ROCm; gate 5 still reads its code objects)"); }
}  // namespace kc

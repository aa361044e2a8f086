// The xpu backend where it is not built: present by name, running nothing, saying why.
#include "backends/factories.hpp"

namespace kc {
std::unique_ptr<Backend> make_xpu_backend() { return make_absent_backend("xpu", "the Level Zero runtime is not built here (gate 5 still reads its zebins)"); }
}  // namespace kc

// The metal backend where it is not built: present by name, running nothing, saying why.
#include "backends/factories.hpp"

namespace kc {
std::unique_ptr<Backend> make_metal_backend() { return make_absent_backend("metal", "Metal needs macOS (gate 5 still audits its records)"); }
}  // namespace kc

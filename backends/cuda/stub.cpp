// The cuda backend where it is not built: present by name, running nothing, saying why.
#include "backends/factories.hpp"

namespace kc {
std::unique_ptr<Backend> make_cuda_backend() { return make_absent_backend("cuda", "built without nvcc (nvcc was not found at configure time)"); }
}  // namespace kc

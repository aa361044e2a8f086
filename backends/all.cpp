// The backends this build knows, in the order runs visit them. Each is real or a stub (absent).
#include "backends/factories.hpp"

namespace kc {
std::vector<std::unique_ptr<Backend>> make_backends() {
  std::vector<std::unique_ptr<Backend>> v;
  v.push_back(make_cpu_backend());
  v.push_back(make_cuda_backend());
  v.push_back(make_hip_backend());
  v.push_back(make_xpu_backend());
  v.push_back(make_opencl_backend());
  v.push_back(make_metal_backend());
  return v;
}
}  // namespace kc

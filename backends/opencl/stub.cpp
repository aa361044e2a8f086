// The OpenCL backend where it is not built (no CL/cl.h): present by name, running nothing, saying
// why; the contracts' launches throw the same.
#include "backends/factories.hpp"
#include "kc/opencl.hpp"

namespace kc {
namespace {
constexpr const char* kWhy = "the OpenCL backend is not built here (no CL/cl.h; Debian: opencl-c-headers)";
}
std::unique_ptr<Backend> make_opencl_backend() { return make_absent_backend("opencl", kWhy); }
namespace opencl {
void launch(const Buffers&, const std::string&, const std::string&, Range, std::initializer_list<Arg>, const std::string&) {
  throw Error(std::string("opencl: ") + kWhy);
}
bool has_fp16(const Buffers&) { throw Error(std::string("opencl: ") + kWhy); }
void add_source(const std::string&, const std::string&) {}
}  // namespace opencl
}  // namespace kc

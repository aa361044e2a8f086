#pragma once
#include <memory>

#include "kc/backend.hpp"

namespace kc {
std::unique_ptr<Backend> make_cpu_backend();
std::unique_ptr<Backend> make_cuda_backend();
std::unique_ptr<Backend> make_hip_backend();
std::unique_ptr<Backend> make_xpu_backend();
std::unique_ptr<Backend> make_opencl_backend();
std::unique_ptr<Backend> make_metal_backend();
// A backend that can run nothing here, and says why by name.
std::unique_ptr<Backend> make_absent_backend(const char* name, const char* why);
}  // namespace kc

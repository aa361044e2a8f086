// HIP launches for rigs: kernels come from the AMDGPU code objects this build compiled with clang-19
// (build/hsaco/<image>_<chip>.co), loaded with hipModuleLoad for the device's chip, and launched with
// hipModuleLaunchKernel. A rig registers each launch it makes so the backend can check the loaded
// kernel against the device before the entry runs (as the CUDA backend does with KC_CUDA_LAUNCH).
// Built only where HIP headers exist (backends/hip/backend.cmake).
#pragma once
#include <hip/hip_runtime_api.h>

#include <string>
#include <vector>

#include "kc/registry.hpp"  // KC_CAT

namespace kc::hip {

struct LaunchDecl {
  std::string name;    // the launch record name (spec.launches)
  std::string image;   // the code object's image name, e.g. "kernels.rows.sum.hip.sum"
  std::string symbol;  // the kernel's symbol in the code object (mangled for C++ kernels)
  int threads = 0;
  size_t dyn_lds = 0;
  const char* file = "";
  int line = 0;
};
std::vector<LaunchDecl>& launch_decls();
struct LaunchRegistrar {
  explicit LaunchRegistrar(LaunchDecl d) { launch_decls().push_back(std::move(d)); }
};

// The kernel `symbol` of `image` for the current device's chip; throws kc::Error naming the file, the
// chip and HIP's error when the code object is missing or has no such kernel.
hipFunction_t kernel(const std::string& image, const std::string& symbol);

}  // namespace kc::hip

#define KC_HIP_LAUNCH(NAME, IMAGE, SYMBOL, THREADS, DYN_LDS)                                          \
  static const ::kc::hip::LaunchRegistrar KC_CAT(kc_hip_launch_, __COUNTER__)(                        \
      ::kc::hip::LaunchDecl{NAME, IMAGE, SYMBOL, THREADS, DYN_LDS, __FILE__, __LINE__})

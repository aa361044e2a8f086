// Launch records on the device side: a map from a spec's launch name to the kernel function(s) it
// launches, so the CUDA backend can check each loaded kernel (cudaFuncGetAttributes) against the
// device's limits before the entry runs. Plain C++ (no CUDA header): a .cu contract registers its
// launches with KC_CUDA_LAUNCH beside its KC_KERNEL, e.g.
//
//   KC_CUDA_LAUNCH("rows/rms_norm/bf16_out", (kc_rms_norm_vec<__nv_bfloat16, 1>), 256, 0);
//
// One launch name may register several functions (the instantiations one entry picks by shape).
// `threads` and `dyn_smem` are the most the launch ever uses; they must equal the launch's row in
// its folder's launches.tsv (tests/cuda checks both ways).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "kc/registry.hpp"

namespace kc::cuda {

struct LaunchFn {
  std::string name;     // launch record name, as in Spec::launches
  const void* fn;       // the __global__ function's host stub, as cudaFuncGetAttributes takes it
  std::string source;   // the function as written, e.g. "(kc_rms_norm_vec<float, 1>)"
  int threads;          // threads a block, at most
  size_t dyn_smem;      // dynamic shared bytes, at most
  const char* file;
  int line;
  // The source name without namespace-free template arguments and parentheses: "kc_rms_norm_vec".
  std::string symbol() const;
};

// Every KC_CUDA_LAUNCH in this executable, in registration order.
std::vector<LaunchFn>& launch_fns();

struct LaunchRegistrar {
  LaunchRegistrar(const char* name, const void* fn, const char* source, int threads, size_t dyn_smem,
                  const char* file, int line);
};

}  // namespace kc::cuda

#define KC_CUDA_LAUNCH_I(NAME, FN, THREADS, DYN, ID)                                          \
  static const ::kc::cuda::LaunchRegistrar KC_CAT(kc_cuda_launch_, ID)(                       \
      NAME, reinterpret_cast<const void*>(FN), #FN, THREADS, DYN, __FILE__, __LINE__)
// Registers one kernel function under a launch name. Wrap a template-id in parentheses.
#define KC_CUDA_LAUNCH(NAME, FN, THREADS, DYN) KC_CUDA_LAUNCH_I(NAME, FN, THREADS, DYN, __COUNTER__)

// The one declaration of a CUDA launch, written in the .cu that holds its kernel:
//
//   KC_CUDA_LAUNCH("rows/dot/f32", (kc_row_dot<1>), 256, 0);
//   KC_CUDA_LAUNCH("attention/split/d64", (kc_attn_split<64, 0>), 128, 65536, 1, "optin");
//
// name, the __global__ function (a template-id in parentheses), the most threads a block and dynamic
// shared bytes the launch ever uses, then optionally the cluster width (default 1) and gate 5's flags
// (default "-": optin, only=<sm>, frame=<bytes>; limits/README.md). Gate 5's launch row is derived
// from it (with the kernel's device name as the CUDA runtime registers it), the CUDA backend checks
// the loaded kernel against it, and the launch watch knows the launch by it.
//
// This header is all a device translation unit needs of the harness: it includes nothing, so each of
// the SMs nvcc compiles a .cu for parses the kernel alone. A kernel's registration (KC_KERNEL, its
// spec and family) lives in a host .cpp beside it.
#pragma once

namespace kc::cuda {

struct LaunchOpts {
  int cluster = 1;          // thread blocks a cluster (1: no cluster)
  const char* flags = "-";  // gate 5's flags, comma-separated
};

struct LaunchRegistrar {
  LaunchRegistrar(const char* name, const void* fn, const char* source, int threads, unsigned long dyn_smem,
                  LaunchOpts opts, const char* file, int line);
};

}  // namespace kc::cuda

#define KC_CUDA_CAT2(a, b) a##b
#define KC_CUDA_CAT(a, b) KC_CUDA_CAT2(a, b)
#define KC_CUDA_LAUNCH_I(ID, NAME, FN, THREADS, DYN, ...)                                                   \
  static const ::kc::cuda::LaunchRegistrar KC_CUDA_CAT(kc_cuda_launch_, ID)(                               \
      NAME, reinterpret_cast<const void*>(FN), #FN, THREADS, DYN, ::kc::cuda::LaunchOpts{__VA_ARGS__}, __FILE__, \
      __LINE__)
// Registers one kernel function under a launch name. Wrap a template-id in parentheses.
#define KC_CUDA_LAUNCH(NAME, FN, THREADS, ...) KC_CUDA_LAUNCH_I(__COUNTER__, NAME, FN, THREADS, __VA_ARGS__)

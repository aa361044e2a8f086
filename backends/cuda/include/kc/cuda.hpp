// What a CUDA contract (.cu beside its kernel) needs from the harness besides kc/registry.hpp:
// its launch records, the stream its launcher must launch on, and the opt-in for more dynamic
// shared memory than a kernel gets by default. Installed with the package as <kc/cuda.hpp>; the
// served kernels use it too.
//
//   KC_KERNEL("mine/row_sum/f32", cuda) {
//     return kc::rows::sum(kc::DType::f32, kc::DType::f32).served(...).launches({"mine/row_sum/f32"})
//         .launch([](const kc::Buffers& b) {
//           row_sum<<<grid, 256, 0, kc::cuda::stream(b)>>>(b.in<float>("x"), b.out<float>("y"), ...);
//         });
//   }
//   KC_CUDA_LAUNCH("mine/row_sum/f32", row_sum, 256, 0);
//
// A launch record registers a kernel function under a launch name, so the CUDA backend checks it
// against the device's limits before the entry runs and the launch watch knows it at run time.
// One launch name may register several functions (the instantiations one entry picks by shape).
// `threads` and `dyn_smem` are the most the launch ever uses. Gate 5's launch row is derived from the
// declaration (launch_rows()), so it is written nowhere else.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "kc/cuda_launch.hpp"
#include "kc/registry.hpp"

namespace kc::cuda {

// The harness's stream: every kernel an entry starts must run on it. A launch on the default
// stream (<<<grid, block>>> with no stream) or on any other races with the harness's copies and
// checks; the launch watch reports it as an error naming the kernel and the stream.
inline cudaStream_t stream(const Buffers& b) { return static_cast<cudaStream_t>(b.stream()); }

// Lets `fn` use up to `bytes` of dynamic shared memory (past the 48 KiB every kernel may use, a
// kernel must opt in before its launch, once a process). Throws kc::Error naming `name` where the
// device refuses (more than the device's per-block opt-in limit).
template <class Kernel> void allow_dynamic_smem(Kernel* fn, size_t bytes, const char* name) {
  const cudaError_t e =
      cudaFuncSetAttribute(reinterpret_cast<const void*>(fn), cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error(std::string(name) + ": cudaFuncSetAttribute(MaxDynamicSharedMemorySize, " + std::to_string(bytes) +
                ") failed: " + cudaGetErrorName(e));
  }
}

struct LaunchFn {
  std::string name;     // launch record name, as in Spec::launches
  const void* fn;       // the __global__ function's host stub, as cudaFuncGetAttributes takes it
  std::string source;   // the function as written, e.g. "(kc_rms_norm_vec<float, 1>)"
  int threads;          // threads a block, at most
  size_t dyn_smem;      // dynamic shared bytes, at most
  int cluster;          // thread blocks a cluster (1: none)
  std::string flags;    // gate 5's flags ("-": none)
  const char* file;
  int line;
  // The source name without namespace-free template arguments and parentheses: "kc_rms_norm_vec".
  std::string symbol() const;
};

// Every KC_CUDA_LAUNCH in this executable, in registration order.
std::vector<LaunchFn>& launch_fns();

// The mangled device name the CUDA runtime registered for a kernel's host stub ("" if none: the
// executable was not linked with the CUDA backend's --wrap=__cudaRegisterFunction).
std::string device_name(const void* fn);
// Gate 5's launch rows of every KC_CUDA_LAUNCH (launches.tsv's columns, each with the file and line
// declaring it), as `kernel-contract --launch-rows` writes them. Throws Error naming a launch whose
// kernel has no registered device name.
std::string launch_rows();

}  // namespace kc::cuda

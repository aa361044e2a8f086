// Gate 5's CUDA launch rows, derived from the one declaration of each launch (KC_CUDA_LAUNCH): its
// name, threads, dynamic shared bytes, cluster and flags from the macro, and its kernel's device name
// as the CUDA runtime registers it. Every .cu's static initializer calls __cudaRegisterFunction(handle,
// host stub, device name, ...) for each of its kernels, with or without a GPU; executables that link
// the CUDA backend are linked with --wrap=__cudaRegisterFunction (backends/CMakeLists.txt), so each
// call passes through here first and the stub -> device name pairs are kept. The name is the
// runtime's own, so a template's arguments, defaults and namespaces are spelled as in the cubin.
#include <cxxabi.h>

#include <fmt/format.h>

#include <map>
#include <mutex>

#include "kc/cuda.hpp"
#include "kc/limits/cubin.hpp"

namespace {
std::map<const void*, std::string>& device_names() {
  static std::map<const void*, std::string> m;
  return m;
}
std::mutex& names_mutex() {
  static std::mutex m;
  return m;
}
}  // namespace

// The runtime's registration entry, as nvcc's generated code calls it (crt/host_runtime.h); the
// pointer arguments' types do not change the call, so they are left opaque here.
extern "C" void __real___cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun,
                                              const char* device_name, int thread_limit, void* tid, void* bid,
                                              void* bdim, void* gdim, int* wsize);
extern "C" void __wrap___cudaRegisterFunction(void** handle, const char* host_fun, char* device_fun,
                                              const char* device_name, int thread_limit, void* tid, void* bid,
                                              void* bdim, void* gdim, int* wsize) {
  {
    std::lock_guard<std::mutex> g(names_mutex());
    device_names()[host_fun] = device_fun;
  }
  __real___cudaRegisterFunction(handle, host_fun, device_fun, device_name, thread_limit, tid, bid, bdim, gdim, wsize);
}

namespace kc::cuda {

std::string device_name(const void* fn) {
  std::lock_guard<std::mutex> g(names_mutex());
  auto it = device_names().find(fn);
  return it == device_names().end() ? std::string() : it->second;
}

std::string launch_rows() {
  std::string out =
      "# CUDA launch rows of this executable, derived from its KC_CUDA_LAUNCH declarations (kernel-contract\n"
      "# --launch-rows): backend launch symbol threads dyn_smem cluster flags, then where it is declared.\n";
  for (const LaunchFn& l : launch_fns()) {
    const std::string mangled = device_name(l.fn);
    if (mangled.empty())
      throw Error(fmt::format("{}:{}: launch {}: the CUDA runtime registered no kernel for {} (is the executable "
                              "linked with -Wl,--wrap=__cudaRegisterFunction, as KernelContract::backends links it?)",
                              l.file, l.line, l.name, l.source));
    out += fmt::format("cuda {} {} {} {} {} {}  # {}:{}\n", l.name, kc::limits::kernel_name(mangled), l.threads,
                       l.dyn_smem, l.cluster, l.flags, l.file, l.line);
  }
  return out;
}

}  // namespace kc::cuda

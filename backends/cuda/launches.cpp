// The launch-name -> kernel-function table KC_CUDA_LAUNCH fills (kc/cuda.hpp).
#include "kc/cuda.hpp"

namespace kc::cuda {

std::vector<LaunchFn>& launch_fns() {
  static std::vector<LaunchFn> v;
  return v;
}

LaunchRegistrar::LaunchRegistrar(const char* name, const void* fn, const char* source, int threads,
                                 unsigned long dyn_smem, LaunchOpts opts, const char* file, int line) {
  launch_fns().push_back(
      LaunchFn{name, fn, source, threads, dyn_smem, opts.cluster, opts.flags ? opts.flags : "-", file, line});
}

std::string LaunchFn::symbol() const {
  std::string s;
  for (char c : source) {
    if (c == '<') break;  // a template's name is what the ELF's demangled name starts with
    if (c != '(' && c != ')' && c != ' ' && c != '&') s += c;
  }
  return s;
}

}  // namespace kc::cuda

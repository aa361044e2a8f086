// The launch-name -> kernel-function table KC_CUDA_LAUNCH fills (kc/cuda.hpp), and the launches a
// JIT loads by module (kc/cuda_module.hpp).
#include <mutex>

#include "kc/cuda.hpp"
#include "kc/cuda_module.hpp"

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

namespace {
std::mutex module_m;
std::vector<ModuleLaunch>& modules() {
  static std::vector<ModuleLaunch> v;
  return v;
}
}  // namespace

void add_module_launch(const std::string& name, const std::string& symbol, int threads, size_t dyn_smem) {
  std::lock_guard<std::mutex> l(module_m);
  for (ModuleLaunch& m : modules())
    if (m.name == name && m.symbol == symbol) {
      m.threads = threads, m.dyn_smem = dyn_smem;
      return;
    }
  modules().push_back({name, symbol, threads, dyn_smem});
}

std::vector<ModuleLaunch> module_launches() {
  std::lock_guard<std::mutex> l(module_m);
  return modules();
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

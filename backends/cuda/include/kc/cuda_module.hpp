// Launches whose kernel a JIT loads by module at run time (Triton loads its cubins through
// cuModuleLoadData), which no KC_CUDA_LAUNCH can register: declared by the kernel's device name, so
// the launch watch knows them (gate 5 at run time) as it knows a KC_CUDA_LAUNCH's. Gate 5 offline
// reads such a kernel's cubins where its binding compiled them. Includes no CUDA header.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace kc::cuda {

struct ModuleLaunch {
  std::string name;    // launch record name, as in Spec::launches
  std::string symbol;  // the kernel's device name (Triton's: the function's name)
  int threads = 0;     // threads a block, at most
  size_t dyn_smem = 0; // dynamic shared bytes, at most
};

// Declares one (a second declaration of the same name and symbol replaces the first).
void add_module_launch(const std::string& name, const std::string& symbol, int threads, size_t dyn_smem);
std::vector<ModuleLaunch> module_launches();

}  // namespace kc::cuda

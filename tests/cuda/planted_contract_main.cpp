// planted-contract: kernel-contract's command line over a fixed list of CUDA entries with the
// planted illegal-address kernels, a read past an input and a kernel that never returns among served ones, so a run shows
// a fault named by CUDA and a hang cut off at --timeout, the device lost to that process, and the
// entries after each run in fresh processes (each one this
// same executable, which rebuilds the same list) and counted in one SUMMARY.
#include <cstdio>
#include <string>
#include <vector>

#include "kc/backend.hpp"
#include "kc/cli.hpp"
#include "kc/registry.hpp"

int main(int argc, char** argv) {
  // Fault, a served kernel, a control, fault again, a served kernel, a read past an input (a fault
  // where inputs are fenced), a kernel that never returns, a served kernel: four fresh processes.
  const char* order[] = {"test/illegal_address/f32", "rows/sum/f32",  "rows/ctl_tail_drop_sum/f32",
                         "test/illegal_address_again/f32", "rows/max/bf16", "test/overread_end/f32",
                         "test/spin/f32", "rows/dot/f32"};
  std::vector<kc::Registration> keep;
  for (const char* name : order) {
    bool found = false;
    for (const auto& r : kc::registry())
      if (r.backend == "cuda" && r.name == name) keep.push_back(r), found = true;
    if (!found) {
      std::fprintf(stderr, "planted-contract: no cuda entry '%s' is linked in\n", name);
      return 2;
    }
  }
  kc::registry() = keep;
  return kc::cli_main(argc, argv, kc::make_backends());
}

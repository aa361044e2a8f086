#pragma once
#include <memory>
#include <vector>

#include "kc/backend.hpp"

namespace kc {
// The kernel-contract command line over the given backends (tools/kernel-contract is a thin main
// around it that passes make_backends()). An outside project's contract executable links
// KernelContract::main, which does the same.
// When a backend's device is lost mid-run, its remaining entries run in fresh processes of this
// same executable (/proc/self/exe), reported and tallied here; a run that ends with a lost device
// then leaves through std::_Exit once everything is written (a kernel that never returned would
// hold the exit handlers forever), so it returns only when no device is lost.
int cli_main(int argc, char** argv, std::vector<std::unique_ptr<Backend>> backends);
}  // namespace kc

#pragma once
#include <memory>
#include <string>
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
// The same, for a program that is not its own executable (an interpreter running a script, whose
// entries it registers at run time): `self` is the command that runs it again, the interpreter
// first (the Python package: {python, "-m", "kernel_contract", FILE...}); the fresh processes run
// `self` followed by the run's options.
int cli_main(int argc, char** argv, std::vector<std::unique_ptr<Backend>> backends, std::vector<std::string> self);
}  // namespace kc

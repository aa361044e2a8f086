#pragma once
#include <memory>
#include <vector>

#include "kc/backend.hpp"

namespace kc {
// The kernel-contract command line over the given backends (tools/kernel-contract is a thin main
// around it that passes make_backends()). An outside project's contract executable links
// KernelContract::main, which does the same.
int cli_main(int argc, char** argv, std::vector<std::unique_ptr<Backend>> backends);
}  // namespace kc

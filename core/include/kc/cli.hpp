#pragma once
namespace kc {
// The kernel-contract command line (tools/kernel-contract is a thin main around it). An outside
// project's contract executable links KernelContract::main, which calls this.
int cli_main(int argc, char** argv);
}  // namespace kc

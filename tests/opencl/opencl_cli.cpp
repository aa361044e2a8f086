// kernel-contract over the planted OpenCL entries of planted_entries.cpp alone. It takes the whole
// command line: a supervised run re-runs it (/proc/self/exe) for each fresh process.
#include "kc/backend.hpp"
#include "kc/cli.hpp"

int main(int argc, char** argv) { return kc::cli_main(argc, argv, kc::make_backends()); }

// kernel-contract over the planted CPU entries of crash_entries.cpp alone (the registry holds
// only what this executable links). It must take the whole command line: a supervised run re-runs
// it (/proc/self/exe) for each fresh process.
#include "kc/backend.hpp"
#include "kc/cli.hpp"

int main(int argc, char** argv) { return kc::cli_main(argc, argv, kc::make_backends()); }

// main() for any contract executable: every entry linked into it, every backend, gate 5's auditors.
#include "kc/backend.hpp"
#include "kc/cli.hpp"
#include "kc/limits.hpp"

int main(int argc, char** argv) {
  kc::limits::add_auditors();
  return kc::cli_main(argc, argv, kc::make_backends());
}

// kernel-contract over the fake backend alone: the executable a run re-runs after its device is
// lost (/proc/self/exe), so it must take the whole command line. With $KC_FAKE_LOG set, a fresh
// process logs its command line; with KC_FAKE_CHILD_DIES=1 it dies (abort) before running anything.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

#include "fake.hpp"
#include "kc/cli.hpp"

int main(int argc, char** argv) {
  bool fresh = false;
  std::string line;
  for (int i = 1; i < argc; ++i) {
    fresh |= std::strncmp(argv[i], "--resume-at", 11) == 0;
    line += std::string(" ") + argv[i];
  }
  if (fresh) {
    if (const char* path = std::getenv("KC_FAKE_LOG"))
      if (FILE* f = std::fopen(path, "a")) std::fprintf(f, "argv %d%s\n", int(getpid()), line.c_str()), std::fclose(f);
    if (const char* d = std::getenv("KC_FAKE_CHILD_DIES"); d && std::string(d) == "1") std::abort();
  }
  std::vector<std::unique_ptr<kc::Backend>> b;
  b.push_back(fake::make_backend());
  return kc::cli_main(argc, argv, std::move(b));
}

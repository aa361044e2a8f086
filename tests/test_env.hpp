// Where a test finds what the build made for it, never through a path compiled into the test: a
// program beside the test's own executable (every binary is built into bin/), or a folder CTest
// names in the environment (set in the test folder's CMakeLists.txt).
#pragma once
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace kc_test {

inline std::string bin_file(const std::string& name) {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / name).string();
}

inline std::string env_dir(const char* var) {
  const char* v = std::getenv(var);
  if (!v || !*v)
    throw std::runtime_error(std::string(var) +
                             " is not set: run this test through ctest, which sets it (its folder's CMakeLists.txt)");
  return v;
}

}  // namespace kc_test

// Running planted-contract (the build's bin/, beside the test executable, wherever it was carried) as
// a user would, and reading its console: the tests that drive the whole command line share these.
#pragma once
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace kc_test {

// The lines of `out` that hold `text`.
inline std::vector<std::string> lines_with(const std::string& out, const std::string& text) {
  std::vector<std::string> v;
  std::istringstream ss(out);
  for (std::string line; std::getline(ss, line);)
    if (line.find(text) != std::string::npos) v.push_back(line);
  return v;
}

// An executable of the build beside this one.
inline std::string beside_me(const char* name) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string self = n > 0 ? std::string(buf, size_t(n)) : "";
  return self.substr(0, self.rfind('/') + 1) + name;
}

// planted-contract with args: its console (printed too) and its wait status (-1: it did not start).
inline std::pair<std::string, int> planted_contract(const std::string& args) {
  const std::string exe = beside_me("planted-contract");
  EXPECT_EQ(access(exe.c_str(), X_OK), 0) << exe << " is not there: build the planted-contract target";
  FILE* p = popen(("'" + exe + "' " + args + " 2>&1").c_str(), "r");
  std::string out;
  if (!p) return {out, -1};
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int st = pclose(p);
  std::printf("%s", out.c_str());
  return {out, st};
}

}  // namespace kc_test

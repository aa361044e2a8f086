// Reading a kernel-contract run's console output in tests that run it as a user would (tests/crash,
// tests/respawn): the lines of one entry, the SUMMARY line, and "every gate passed".
#pragma once
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace cli_lines {

// The gate lines of `entry` on `backend`.
inline std::vector<std::string> of(const std::string& out, const std::string& backend, const std::string& entry) {
  std::vector<std::string> v;
  std::istringstream ss(out);
  for (std::string line; std::getline(ss, line);)
    if (line.find(" " + backend + " " + entry + " gate") != std::string::npos) v.push_back(line);
  return v;
}

// The one SUMMARY line, or how many there were where not one.
inline std::string summary(const std::string& out) {
  std::string s;
  int n = 0;
  std::istringstream ss(out);
  for (std::string line; std::getline(ss, line);)
    if (line.rfind("SUMMARY", 0) == 0) s = line, ++n;
  return n == 1 ? s : "(" + std::to_string(n) + " SUMMARY lines)";
}

// Gates 1-4 of the entry reported, none failing (PASS, or N/A where a gate does not apply).
inline void all_pass(const std::string& out, const std::string& backend, const std::string& entry) {
  auto v = of(out, backend, entry);
  EXPECT_EQ(v.size(), 4u) << entry << " in:\n" << out;
  for (const auto& l : v) EXPECT_TRUE(l.rfind("PASS ", 0) == 0 || l.rfind("N/A ", 0) == 0) << l;
}

}  // namespace cli_lines

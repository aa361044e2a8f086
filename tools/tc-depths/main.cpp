// tc-depths [K ...]: for every rule tools/tc-probe measured (kc::tc::measured_sm90()), the depth
// kc::tc::depth gives a K-long chain through one accumulator, beside 3K + 16 (the count every
// tensor-core contract stated before the probe; kc::cu::unmeasured_tc_depth) and their ratio.
// bench/cuda/dense/h200_tc_bounds.txt is its output with the H200's gate 3 margins.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kc/tensor_core.hpp"

int main(int argc, char** argv) {
  std::vector<long> ks;
  const char* usage = "usage: tc-depths [K ...]   (each K >= 1; default 16 32 64 128 1024 4096 16384)\n";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(usage, stdout);
      return 0;
    }
    char* end = nullptr;
    const long k = std::strtol(argv[i], &end, 10);
    if (end == argv[i] || *end || k < 1) {
      std::fprintf(stderr, "tc-depths: '%s' is not a K >= 1\n%s", argv[i], usage);
      return 2;
    }
    ks.push_back(k);
  }
  if (ks.empty()) ks = {16, 32, 64, 128, 1024, 4096, 16384};
  std::printf("%-22s %7s %12s %12s %9s\n", "instruction", "K", "measured", "3K + 16", "ratio");
  for (const kc::tc::Measured& m : kc::tc::measured_sm90())
    for (long k : ks) {
      const double d = kc::tc::depth(m.rule, k), guess = 3.0 * double(k) + 16;
      std::printf("%-22s %7ld %12.0f %12.0f %9.3f\n", m.instr, k, d, guess, d / guess);
    }
  return 0;
}

// tc-probe's experiments and fit without a GPU: outputs made by a planted rule must be missed by
// every single-parameter change of it (the experiments tell each parameter apart: what the GPU
// test relies on), and the rules of records/cuda/tensor-cores.tsv must be the ones core's
// measured_sm90() serves.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "experiments.hpp"
#include "fit.hpp"

namespace tc = kc::tc;
using namespace kc::tcprobe;

TEST(TensorCoreFit, EveryNeighbourOfAPlantedRuleMissesItsOutputs) {
  struct Case {
    const char* instr;
    tc::Rule r;
  };
  const Case cases[] = {
      {"mma.m16n8k16.bf16", {16, 24, tc::Cut::zero, true, false, tc::Cut::zero, tc::Cut::zero}},
      {"mma.m16n8k16.fp16", {8, 25, tc::Cut::zero, true, true, tc::Cut::nearest, tc::Cut::zero}},
      {"mma.m16n8k8.tf32", {4, 23, tc::Cut::down, false, false, tc::Cut::nearest, tc::Cut::nearest}},
      {"wgmma.m64n8k32.e4m3", {32, 13, tc::Cut::zero, true, true, tc::Cut::zero, tc::Cut::zero, 14}},
      {"wgmma.m64n8k32.e4m3", {16, 20, tc::Cut::nearest, false, false, tc::Cut::nearest, tc::Cut::zero, 24}},
  };
  for (const Case& c : cases) {
    const InstrInfo* in = find_instr(c.instr);
    ASSERT_NE(in, nullptr);
    std::vector<Exp> exps = experiments(*in, 1);
    for (Exp& e : exps) e.d = tc::simulate(c.r, in->fmt, e.a.data(), e.b.data(), in->K, e.c);
    EXPECT_EQ(misses(*in, c.r, exps), 0);
    const std::vector<tc::Rule> ns = neighbours(*in, c.r);
    EXPECT_GE(ns.size(), 6u) << c.instr;
    for (const tc::Rule& n : ns) EXPECT_GT(misses(*in, n, exps, 1), 0) << c.instr << ": " << tc::format(n);
  }
}

TEST(TensorCoreFit, TheRecordedRulesAreTheOnesCoreServes) {
  const char* src = std::getenv("KC_TEST_SOURCE_DIR");
  std::ifstream in(std::string(src ? src : ".") + "/records/cuda/tensor-cores.tsv");
  ASSERT_TRUE(in) << "records/cuda/tensor-cores.tsv (KC_TEST_SOURCE_DIR)";
  std::map<std::string, tc::Rule> recorded;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream l(line);
    std::string f[6];
    for (auto& s : f) std::getline(l, s, '\t');
    ASSERT_FALSE(f[5].empty()) << "a row without a source: " << line;
    if (f[1] == "sm_90" && f[2] == "rule" && f[3].rfind("block=", 0) == 0) recorded[f[0]] = tc::parse(f[3]);
  }
  ASSERT_EQ(recorded.size(), tc::measured_sm90().size());
  for (const tc::Measured& m : tc::measured_sm90()) {
    ASSERT_TRUE(recorded.count(m.instr)) << m.instr;
    EXPECT_EQ(recorded[m.instr], m.rule) << m.instr << ": records say " << tc::format(recorded[m.instr]);
    const InstrInfo* ii = find_instr(m.instr);
    ASSERT_NE(ii, nullptr);
    EXPECT_EQ(ii->fmt, m.fmt);
    EXPECT_EQ(ii->K, m.K);
  }
}

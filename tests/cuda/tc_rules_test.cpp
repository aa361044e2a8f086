// The tensor-core rules of records/cuda/tensor-cores.tsv against the GPU: for each instruction the
// device's SM has a rule for, tc-probe's experiments run with a seed the records were not fitted
// on (2: fresh random fractions, signs and exponents). The recorded rule must give the GPU's bits
// on every one, and every single-parameter change of it (a bit more or fewer kept, another cut or
// rounding, C outside the group, half or twice the block, ...) must miss at least one: a GPU whose
// tensor cores add otherwise fails here. Skips, saying why, without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "device.hpp"
#include "experiments.hpp"
#include "fit.hpp"

namespace tc = kc::tc;
using namespace kc::tcprobe;

namespace {

struct Row {
  std::string instr, sm;
  tc::Rule rule;
};
std::vector<Row> recorded_rules() {
  const char* src = std::getenv("KC_TEST_SOURCE_DIR");
  std::ifstream in(std::string(src ? src : ".") + "/records/cuda/tensor-cores.tsv");
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream l(line);
    std::string f[4];
    for (auto& s : f) std::getline(l, s, '\t');
    if (f[2] == "rule" && f[3].rfind("block=", 0) == 0) rows.push_back({f[0], f[1], tc::parse(f[3])});
  }
  return rows;
}

}  // namespace

TEST(TensorCoreRules, EveryRecordedRuleIsTheGpusAndNoNeighbourIs) {
  const std::vector<Row> rows = recorded_rules();
  ASSERT_GE(rows.size(), 7u) << "records/cuda/tensor-cores.tsv not found or without rules (KC_TEST_SOURCE_DIR)";
  const Device dev = device();
  if (dev.sm.empty()) GTEST_SKIP() << dev.why << ": the recorded tensor-core rules need a GPU";
  int checked = 0;
  for (const Row& r : rows) {
    if (r.sm != dev.sm) continue;
    const InstrInfo* in = find_instr(r.instr);
    ASSERT_NE(in, nullptr) << r.instr;
    if (in->wgmma && !dev.wgmma) continue;
    std::vector<Exp> exps = experiments(*in, 2);
    ASSERT_EQ(run(*in, exps), "") << r.instr;
    const Exp* first = nullptr;
    EXPECT_EQ(misses(*in, r.rule, exps, 1L << 40, &first), 0)
        << r.instr << ": " << tc::format(r.rule) << " misses, first in " << (first ? first->family : "");
    for (const tc::Rule& n : neighbours(*in, r.rule))
      EXPECT_GT(misses(*in, n, exps, 1), 0) << r.instr << ": " << tc::format(n) << " fits as well: the rule is not pinned";
    // The rule's bound on the GPU's own outputs (the sum in float64: off by far less than the bound).
    long over = 0;
    for (const Exp& e : exps) {
      if (e.family.rfind("special:", 0) == 0) continue;
      double s = e.c, m = std::fabs(e.c), big = std::fabs(e.c);
      for (int k = 0; k < in->K; ++k) {
        const double p = tc::operand_value(in->fmt, e.a[k], r.rule.cut) * tc::operand_value(in->fmt, e.b[k], r.rule.cut);
        s += p, m += std::fabs(p), big = std::max(big, std::fabs(p));
      }
      const int steps = (in->K + r.rule.block - 1) / r.rule.block;
      const double bound = steps * tc::step_bound(r.rule, r.rule.block, steps > 1 ? m : big, std::max(std::fabs(s), m));
      over += std::fabs(double(e.d) - s) > bound + 0x1p-50 * m;
    }
    EXPECT_EQ(over, 0) << r.instr << ": outputs past the rule's step_bound";
    ++checked;
  }
  if (checked == 0) GTEST_SKIP() << "no recorded tensor-core rule for " << dev.sm << (dev.wgmma ? "" : " (mma.sync)");
  std::printf("checked %d recorded tensor-core rules on %s %s\n", checked, dev.name.c_str(), dev.sm.c_str());
}

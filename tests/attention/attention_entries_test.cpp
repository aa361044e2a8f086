// The attention family's CPU entries through the runner: every kernel green on every gate, every
// control red at the gate it was built for (ALSO elsewhere is allowed), under seeds other than
// tests/core's; and each planted fault of issue #33 has its control.
#include <gtest/gtest.h>

#include <algorithm>

#include "kc/backend.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"
#include "kernels/attention/cpu_attention.hpp"

namespace kc {
void PrintTo(const Registration& r, std::ostream* os) { *os << r.backend << ":" << r.name; }
}  // namespace kc

namespace {

kc::Backend& cpu() {
  static auto all = kc::make_backends();
  return *all.front();
}

kc::RunOptions seeds() {
  kc::RunOptions o;
  o.seed = 0x5eed'a77e;
  o.seeds = 2;
  return o;
}

std::vector<kc::Registration> attention(bool controls) {
  std::vector<kc::Registration> v;
  for (const auto& r : kc::registry())
    if (r.backend == "cpu" && r.control == controls && r.name.rfind("attention/", 0) == 0) v.push_back(r);
  return v;
}

std::string test_name(const testing::TestParamInfo<kc::Registration>& i) {
  std::string n = i.param.name;
  for (char& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

class AttentionKernel : public testing::TestWithParam<kc::Registration> {};
class AttentionControl : public testing::TestWithParam<kc::Registration> {};

}  // namespace

TEST_P(AttentionKernel, GreenOnEveryGate) {
  int gates = 0;
  for (const auto& e : kc::run_entry(GetParam(), cpu(), seeds())) {
    gates += e.status == kc::Status::pass;
    EXPECT_TRUE(e.status == kc::Status::pass || e.status == kc::Status::na)
        << "gate " << int(e.gate) << " " << kc::status_name(e.status) << " " << e.why << " at " << e.shape << ": " << e.detail;
  }
  EXPECT_GE(gates, 4) << "gates 1-4 all apply to an attention entry";
}

TEST_P(AttentionControl, RedOnItsGate) {
  const kc::Entry spec = kc::build(GetParam());
  bool red = false;
  for (const auto& e : kc::run_entry(GetParam(), cpu(), seeds())) {
    if (e.gate == *spec.spec.control_gate) {
      red = e.status == kc::Status::control_red;
      EXPECT_TRUE(red) << "gate " << int(e.gate) << " " << kc::status_name(e.status) << ": " << e.detail;
    } else {
      EXPECT_TRUE(e.status == kc::Status::pass || e.status == kc::Status::na || e.status == kc::Status::also)
          << "gate " << int(e.gate) << " " << kc::status_name(e.status) << ": " << e.detail;
    }
  }
  EXPECT_TRUE(red);
}

INSTANTIATE_TEST_SUITE_P(Cpu, AttentionKernel, testing::ValuesIn(attention(false)), test_name);
INSTANTIATE_TEST_SUITE_P(Cpu, AttentionControl, testing::ValuesIn(attention(true)), test_name);

TEST(AttentionControls, EveryPlantedFaultHasItsControlAtItsGate) {
  const std::vector<std::pair<std::string, kc::Gate>> want{
      {"attention/ctl/no_rescale", kc::Gate::shapes},       {"attention/ctl/merge_drops_scale", kc::Gate::shapes},
      {"attention/ctl/past_causal_edge", kc::Gate::shapes}, {"attention/ctl/past_window", kc::Gate::shapes},
      {"attention/ctl/stale_page", kc::Gate::shapes},       {"attention/ctl/swapped_tables", kc::Gate::shapes},
      {"attention/ctl/masked_inf_nan", kc::Gate::nonfinite}};
  const auto ctl = attention(true);
  for (const auto& [name, gate] : want) {
    const auto it = std::find_if(ctl.begin(), ctl.end(), [&](const kc::Registration& r) { return r.name == name; });
    ASSERT_NE(it, ctl.end()) << name;
    EXPECT_EQ(*kc::build(*it).spec.control_gate, gate) << name;
  }
  EXPECT_GE(attention(false).size(), 7u) << "linear, ring and paged decode, two split forms, two merges";
}

namespace {
// The linear decode kernel writing 0 and -Inf for a row of no key, registered without (and with)
// the rule that says so.
kc::Entry zero_rows(bool stated) {
  kc::attention::Steps st;
  if (stated) st.empty = kc::attention::Empty::zero;
  return kc::attention::decode(kc::attention::Cache::linear, kc::DType::f32, st)
      .served({{"seqs", {3}}, {"rows", {2}}, {"kv_heads", {1}}, {"group", {2}}, {"d", {64}}, {"keys", {1, 100}}})
      .tile("keys", kc::attention_cpu::kTile, 1, 1)
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["keys"] + 4); }, 1)
      .ulp("expf", 1)
      .ulp("logf", 1)
      .launch([](const kc::Buffers& b) {
        kc::attention_cpu::decode<float>(b, kc::attention::Cache::linear, 0, false, /*zero_rule=*/true, false);
      });
}
kc::Entry zero_rows_unstated() { return zero_rows(false); }
kc::Entry zero_rows_stated() { return zero_rows(true); }
}  // namespace

TEST(AttentionRule, UnstatedAZeroWhereFloat64GivesNaNFailsGateOne) {
  for (bool stated : {false, true}) {
    const kc::Registration r{stated ? "attention/test/zero_stated" : "attention/test/zero_unstated", "cpu", __FILE__,
                             __LINE__, false, stated ? &zero_rows_stated : &zero_rows_unstated};
    bool seen = false;
    for (const auto& e : kc::run_entry(r, cpu(), seeds())) {
      if (e.gate == kc::Gate::nonfinite) {
        seen = true;
        if (stated) EXPECT_EQ(e.status, kc::Status::pass) << e.detail;
        else EXPECT_TRUE(e.status == kc::Status::fail && e.why == "class_mismatch") << kc::status_name(e.status) << " " << e.detail;
      } else {
        // Gates 3 and 4 hold every row with no key (the third sequence's) to float64's NaN, or the rule's 0.
        const bool holds = stated || e.gate == kc::Gate::repeat || e.gate == kc::Gate::limits;
        EXPECT_EQ(e.status == kc::Status::pass || e.status == kc::Status::na, holds)
            << int(e.gate) << " " << kc::status_name(e.status) << " " << e.detail;
      }
    }
    EXPECT_TRUE(seen);
  }
}

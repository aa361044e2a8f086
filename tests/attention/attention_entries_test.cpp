// The attention family's CPU entries through the runner: each planted fault of issue #33 has its
// control at its gate, and a 0 where float64 gives NaN passes only where the rule is stated.
// (tests/contract runs every CPU entry green and every control red, these included.)
#include <gtest/gtest.h>

#include <algorithm>

#include "kc/backend.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"
#include "kernels/attention/cpu_attention.hpp"

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

}  // namespace

TEST(AttentionControls, EveryPlantedFaultHasItsControlAtItsGate) {
  const std::vector<std::pair<std::string, kc::Gate>> want{
      {"attention/ctl/no_rescale", kc::Gate::shapes},       {"attention/ctl/merge_drops_scale", kc::Gate::shapes},
      {"attention/ctl/past_causal_edge", kc::Gate::shapes}, {"attention/ctl/past_window", kc::Gate::shapes},
      {"attention/ctl/stale_page", kc::Gate::shapes},       {"attention/ctl/swapped_tables", kc::Gate::shapes},
      {"attention/ctl/masked_inf_nan", kc::Gate::nonfinite}, {"attention/ctl/p_tf32_stated_f32", kc::Gate::shapes}};
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

namespace {
// The linear decode kernel reading P as a tf32 mma does, with the cut stated (PRound::tf32): the
// honest twin of attention/ctl/p_tf32_stated_f32.
kc::Entry tf32_p() {
  kc::attention::Steps st;
  st.p = kc::attention::PRound::tf32;
  kc::attention_cpu::Faults f;
  f.p_tf32 = true;
  return kc::attention::decode(kc::attention::Cache::linear, kc::DType::f32, st)
      .served({{"seqs", {2}}, {"rows", {4}}, {"kv_heads", {1}}, {"group", {2}}, {"d", {64}}, {"keys", {1, 300}}})
      .tile("keys", kc::attention_cpu::kTile, 1, 1)
      .range("d", 64, 64)
      .sums(kc::DType::f32, [](const kc::Shape& s) { return double(s["keys"] + s["keys"] / kc::attention_cpu::kTile + 2); }, 1)
      .ulp("expf", 1)
      .ulp("logf", 1)
      .launch([f](const kc::Buffers& b) { kc::attention_cpu::decode<float>(b, kc::attention::Cache::linear, 0, false, false, false, f); });
}
}  // namespace

TEST(AttentionRule, ATf32CutPPassesWhereTheCutIsStated) {
  const kc::Registration r{"attention/test/tf32_p", "cpu", __FILE__, __LINE__, false, &tf32_p};
  bool shapes = false;
  for (const auto& e : kc::run_entry(r, cpu(), seeds())) {
    EXPECT_TRUE(e.status == kc::Status::pass || e.status == kc::Status::na) << int(e.gate) << " " << e.detail;
    shapes |= e.gate == kc::Gate::shapes && e.status == kc::Status::pass;
  }
  EXPECT_TRUE(shapes);
}

// kernel-contract --merge: the JSON Lines reports of runs over disjoint entries read back as one run
// give that run's verdict lines, one SUMMARY a backend summed from theirs, its exit code and its
// slowest entries; a report cut off, unreadable or overlapping another is an error naming it.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "harness.hpp"
#include "kc/backend.hpp"
#include "kc/report.hpp"
#include "merge.hpp"

using namespace testing_kc;

namespace {

kc::RunResult run_to(const std::string& only, std::ostream& json, bool exact = false) {
  auto rep = kc::make_reporter("json", json);
  kc::RunOptions opt;
  opt.only = only;
  opt.exact = exact;
  opt.backend = "cpu";
  opt.limits = false;
  return kc::run(opt, {&cpu()}, {rep.get()});
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "kc_merge_" + name + ".jsonl";
  std::ofstream(path) << text;
  return path;
}

// Every verdict as "backend entry gate STATUS", in the order given.
std::vector<std::string> verdicts(const std::vector<kc::GateEvent>& evs) {
  std::vector<std::string> v;
  for (const auto& e : evs) v.push_back(e.backend + " " + e.entry + " " + std::to_string(int(e.gate)) + " " + kc::status_name(e.status));
  return v;
}

struct Collect : kc::Reporter {
  std::vector<kc::GateEvent> events;
  std::vector<kc::Summary> sums;
  std::vector<kc::EntryTime> slowest;
  void gate(const kc::GateEvent& e) override { events.push_back(e); }
  void summary(const kc::Summary& s) override { sums.push_back(s); }
  void timings(const std::vector<kc::EntryTime>& t) override { slowest = t; }
};

}  // namespace

TEST(Merge, DisjointRunsMergeIntoTheWholeRun) {
  // Two entries as two runs: a kernel with a known finding, and a red control.
  std::ostringstream a, b;
  const kc::RunResult r1 = run_to("toy/known/still_fails", a, true);
  const kc::RunResult r2 = run_to("toy/control/red", b, true);
  Collect c;
  const int rc = kc::detail::merge_reports({write_temp("a", a.str()), write_temp("b", b.str())}, {&c});
  std::vector<kc::GateEvent> want = r1.events;
  want.insert(want.end(), r2.events.begin(), r2.events.end());
  EXPECT_EQ(verdicts(c.events), verdicts(want));
  ASSERT_EQ(c.sums.size(), 1u);
  const kc::Summary &s1 = r1.summaries.at(0), &s2 = r2.summaries.at(0);
  EXPECT_EQ(c.sums[0].kernels, s1.kernels + s2.kernels);
  EXPECT_EQ(c.sums[0].known, s1.known + s2.known);
  EXPECT_EQ(c.sums[0].controls_red, s1.controls_red + s2.controls_red);
  EXPECT_EQ(c.sums[0].failures, s1.failures + s2.failures);
  EXPECT_EQ(c.sums[0].errors, s1.errors + s2.errors);
  EXPECT_EQ(rc, (s1.failures + s1.errors + s2.failures + s2.errors) ? 1 : 0);
  EXPECT_EQ(c.sums[0].known, 1);
  EXPECT_EQ(c.sums[0].controls, 1);
  ASSERT_EQ(c.slowest.size(), 2u);
  EXPECT_GE(c.slowest[0].seconds, c.slowest[1].seconds);
}

TEST(Merge, AFailureInOneShardFailsTheMergedRun) {
  std::ostringstream a, b;
  run_to("toy/scale/ok", a, true);
  const kc::RunResult bad = run_to("toy/first_run_only", b, true);
  // A gate that failed is a failure, not an error: the merged run counts it there, and fails.
  ASSERT_GT(bad.summaries.at(0).failures, 0);
  EXPECT_EQ(bad.summaries.at(0).errors, 0);
  Collect c;
  EXPECT_EQ(kc::detail::merge_reports({write_temp("ok", a.str()), write_temp("bad", b.str())}, {&c}), 1);
  EXPECT_EQ(c.sums.at(0).failures, bad.summaries.at(0).failures);
  EXPECT_EQ(c.sums.at(0).errors, 0);
}

TEST(Merge, OverlappingCutOffAndUnreadableReportsAreErrorsNamingThem) {
  std::ostringstream a;
  run_to("toy/scale/ok", a, true);
  const std::string full = write_temp("full", a.str());
  Collect c;
  try {
    kc::detail::merge_reports({full, full}, {&c});
    ADD_FAILURE() << "the same entry in two reports merged";
  } catch (const kc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("toy/scale/ok"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("disjoint"), std::string::npos) << e.what();
  }
  // Cut off before its end line (a run killed mid-way).
  std::string text = a.str();
  text.resize(text.rfind("{\"slowest\""));
  const std::string cut = write_temp("cut", text);
  try {
    kc::detail::merge_reports({cut}, {&c});
    ADD_FAILURE() << "a report with no end line merged";
  } catch (const kc::Error& e) {
    EXPECT_NE(std::string(e.what()).find(cut), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cut off"), std::string::npos) << e.what();
  }
  const std::string junk = write_temp("junk", "{\"type\": \"begin\"}\nnot json\n");
  try {
    kc::detail::merge_reports({junk}, {&c});
    ADD_FAILURE() << "a line that is not JSON merged";
  } catch (const kc::Error& e) {
    EXPECT_NE(std::string(e.what()).find(junk + ":2"), std::string::npos) << e.what();
  }
  try {
    kc::detail::merge_reports({::testing::TempDir() + "kc_merge_none.jsonl"}, {&c});
    ADD_FAILURE() << "a missing report merged";
  } catch (const kc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("kc_merge_none.jsonl"), std::string::npos) << e.what();
  }
}

// A run ends with its slowest entries, slowest first, each the sum of its gates' times.
TEST(Timings, TheSlowestEntriesComeLastSlowestFirst) {
  std::ostringstream out;
  auto rep = kc::make_console_reporter(out, false);
  kc::RunOptions opt;
  opt.only = "toy/rowsum/";
  opt.backend = "cpu";
  opt.limits = false;
  const kc::RunResult r = kc::run(opt, {&cpu()}, {rep.get()});
  const auto slowest = kc::slowest_entries(r.events, 3);
  ASSERT_EQ(slowest.size(), 3u);
  for (size_t i = 1; i < slowest.size(); ++i) EXPECT_GE(slowest[i - 1].seconds, slowest[i].seconds);
  double first = 0;
  for (const auto& e : r.events)
    if (e.entry == slowest[0].entry) first += e.seconds;
  EXPECT_DOUBLE_EQ(slowest[0].seconds, first);
  const std::string text = out.str();
  const size_t summary = text.find("SUMMARY backend=cpu"), timings = text.find("TIMINGS the ");
  ASSERT_NE(timings, std::string::npos) << text;
  EXPECT_LT(summary, timings) << "the slowest entries follow the SUMMARY lines";
  EXPECT_NE(text.find("cpu " + kc::slowest_entries(r.events, 1).at(0).entry, timings), std::string::npos) << text;
}

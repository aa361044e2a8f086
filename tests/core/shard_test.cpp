// --shard I/N: N shards are the whole run, split the same way in every process by the recorded costs,
// each honest about what it ran; --merge takes back exactly one split's N shards (JSON Lines in, any
// reporter out, JUnit included); the costs file's rows and their errors; and the GPUs CTest allots a
// test (ctest --resource-spec-file) as the devices the test sees.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "ctest_gpus.hpp"
#include "harness.hpp"
#include "kc/report.hpp"
#include "merge.hpp"
#include "respawn.hpp"
#include "shard.hpp"

using namespace testing_kc;

namespace {

std::string temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "kc_shard_" + name;
  std::ofstream(path) << text;
  return path;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

kc::RunOptions toy_opt(int shard = 0, int shards = 0) {
  kc::RunOptions opt;
  opt.only = "toy/rowsum/";
  opt.backend = "cpu";
  opt.limits = false;
  opt.shard = shard;
  opt.shards = shards;
  return opt;
}

// A verdict with its detail, without its time: what a shard must reproduce exactly.
std::multiset<std::string> verdicts(const std::vector<kc::GateEvent>& evs) {
  std::multiset<std::string> v;
  for (const auto& e : evs)
    v.insert(e.backend + " " + e.entry + " " + std::to_string(int(e.gate)) + " " + kc::status_name(e.status) + " " +
             e.why + " " + e.shape + " " + e.detail);
  return v;
}

struct Collect : kc::Reporter {
  std::vector<kc::GateEvent> events;
  std::vector<kc::Summary> sums;
  void gate(const kc::GateEvent& e) override { events.push_back(e); }
  void summary(const kc::Summary& s) override { sums.push_back(s); }
};

}  // namespace

TEST(Shard, IOfNIsReadOrRefusedByName) {
  EXPECT_EQ(kc::detail::parse_shard("1/1"), std::make_pair(1, 1));
  EXPECT_EQ(kc::detail::parse_shard("3/8"), std::make_pair(3, 8));
  for (const char* bad : {"", "3", "0/2", "3/2", "1/0", "a/2", "1/2/3", "-1/2", "1/1001", " 1/2"}) {
    try {
      kc::detail::parse_shard(bad);
      ADD_FAILURE() << "--shard '" << bad << "' was taken";
    } catch (const kc::Error& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(Shard, LongestFirstToTheLightestShardEveryEntryOnce) {
  const std::vector<std::string> names{"a", "b", "c", "d", "e", "f"};
  const std::map<std::string, double> costs{{"cpu/a", 1}, {"cpu/b", 7}, {"cpu/c", 3},
                                            {"cpu/d", 5}, {"cpu/e", 2}, {"gpu/a", 100}};
  const auto p = kc::detail::plan_shards("cpu", names, costs, 2);
  // b (7) -> 1, d (5) -> 2, f (no row: the mean of cpu's, 3.6) -> 2, c (3) -> 1, e (2) -> 2, a (1) -> 1.
  EXPECT_EQ(p.shard, (std::vector<int>{1, 1, 1, 2, 2, 2}));
  EXPECT_DOUBLE_EQ(p.fallback, 18.0 / 5);
  EXPECT_EQ(p.without_cost, 1);
  EXPECT_DOUBLE_EQ(p.load[0], 7 + 3 + 1);
  EXPECT_DOUBLE_EQ(p.load[1], 5 + 18.0 / 5 + 2);
  EXPECT_EQ(p.limits_shard, 2);  // the lighter
  // The same inputs, the same plan; more shards than entries leave some empty, never one twice.
  EXPECT_EQ(kc::detail::plan_shards("cpu", names, costs, 2).shard, p.shard);
  const auto wide = kc::detail::plan_shards("cpu", names, costs, 8);
  EXPECT_EQ(std::set<int>(wide.shard.begin(), wide.shard.end()).size(), names.size());
  EXPECT_EQ(wide.limits_shard, 8);
  // No rows at all: every entry counts 1 s, so the split is by count.
  const auto flat = kc::detail::plan_shards("cpu", names, {}, 4);
  EXPECT_EQ(flat.shard, (std::vector<int>{1, 2, 3, 4, 1, 2}));
  EXPECT_EQ(flat.limits_shard, 4);
}

TEST(Shard, TheShardsOfARunAreTheWholeRunAndEachSaysSo) {
  const kc::RunResult whole = kc::run(toy_opt(), {&cpu()}, {});
  const auto all = kc::detail::selection("cpu", "toy/rowsum/");
  ASSERT_GE(all.size(), 4u);
  // Costs that put the entries out of registration order.
  std::map<std::string, double> costs;
  for (size_t i = 0; i < all.size(); ++i) costs["cpu/" + all[i]->name] = double((i * 7) % 5);
  std::multiset<std::string> merged;
  std::vector<std::string> files;
  int kernels = 0, passing = 0, failures = 0;
  for (int k = 1; k <= 3; ++k) {
    kc::RunOptions opt = toy_opt(k, 3);
    opt.costs = costs;
    std::ostringstream json;
    auto rep = kc::make_reporter("json", json);
    const kc::RunResult r = kc::run(opt, {&cpu()}, {rep.get()});
    files.push_back(temp("part" + std::to_string(k) + ".jsonl", json.str()));
    const auto v = verdicts(r.events);
    merged.insert(v.begin(), v.end());
    ASSERT_EQ(r.summaries.size(), 1u);
    const kc::Summary& s = r.summaries[0];
    EXPECT_EQ(s.shard, std::to_string(k) + "/3");
    EXPECT_NE(s.line().find(" shard=" + std::to_string(k) + "/3"), std::string::npos) << s.line();
    EXPECT_EQ(size_t(s.kernels + s.controls), kc::detail::run_selection(opt, "cpu").size());
    kernels += s.kernels, passing += s.kernels_passing, failures += s.failures;
  }
  EXPECT_EQ(merged, verdicts(whole.events));
  EXPECT_EQ(kernels, whole.summaries.at(0).kernels);
  EXPECT_EQ(passing, whole.summaries.at(0).kernels_passing);
  EXPECT_EQ(failures, whole.summaries.at(0).failures);
  // --merge of the three: the whole run's verdicts and SUMMARY line, no shard in it.
  Collect c;
  const int rc = kc::detail::merge_reports(files, {&c});
  EXPECT_EQ(rc, whole.exit_code);
  EXPECT_EQ(verdicts(c.events), verdicts(whole.events));
  ASSERT_EQ(c.sums.size(), 1u);
  EXPECT_EQ(c.sums[0].line(), whole.summaries[0].line());
  // JUnit from the shards: one document, one testsuite for the backend, every gate a testcase.
  std::ostringstream xml;
  auto junit = kc::make_reporter("junit", xml);
  kc::detail::merge_reports(files, {junit.get()});
  const std::string x = xml.str();
  size_t suites = 0;
  for (size_t at = 0; (at = x.find("<testsuite ", at)) != std::string::npos; ++at) ++suites;
  EXPECT_EQ(suites, 1u) << x;
  size_t cases = 0;
  for (size_t at = 0; (at = x.find("<testcase ", at)) != std::string::npos; ++at) ++cases;
  EXPECT_EQ(cases, whole.events.size()) << x;
}

TEST(Shard, MergeRefusesAnIncompleteOrMixedSplit) {
  std::vector<std::string> files;
  for (int k = 1; k <= 2; ++k) {
    std::ostringstream json;
    auto rep = kc::make_reporter("json", json);
    kc::run(toy_opt(k, 2), {&cpu()}, {rep.get()});
    files.push_back(temp("half" + std::to_string(k) + ".jsonl", json.str()));
  }
  Collect c;
  auto refused = [&](const std::vector<std::string>& fs, const std::string& want) {
    try {
      kc::detail::merge_reports(fs, {&c});
      ADD_FAILURE() << "merged, where it should say: " << want;
    } catch (const kc::Error& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  refused({files[0]}, "no report of shard 2/2 of cpu");
  refused({files[1], files[1]}, "must be disjoint");  // its entries, before its SUMMARY
  // One entry in two shards: the second runs nothing, and is still a shard that must come once.
  std::vector<std::string> one;
  for (int k = 1; k <= 2; ++k) {
    std::ostringstream json;
    auto rep = kc::make_reporter("json", json);
    kc::RunOptions opt = toy_opt(k, 2);
    opt.only = "toy/scale/ok";
    kc::run(opt, {&cpu()}, {rep.get()});
    one.push_back(temp("one" + std::to_string(k) + ".jsonl", json.str()));
  }
  EXPECT_EQ(kc::detail::merge_reports(one, {&c}), 0);
  refused({one[0], one[1], one[1]}, "shard 2/2 of cpu is in");
  std::ostringstream three;
  auto rep = kc::make_reporter("json", three);
  kc::RunOptions opt = toy_opt(3, 3);
  opt.only = "toy/scale/ok";
  kc::run(opt, {&cpu()}, {rep.get()});
  refused({files[0], files[1], temp("other.jsonl", three.str())}, "another split");
  std::ostringstream none;
  auto rep2 = kc::make_reporter("json", none);
  opt.shard = opt.shards = 0;
  kc::run(opt, {&cpu()}, {rep2.get()});
  refused({files[0], files[1], temp("none.jsonl", none.str())}, "run as no shard");
}

TEST(Shard, CostsFileRoundTripsAndItsErrorsNameTheLine) {
  kc::detail::CostTable t;
  t["cpu"]["rows/x"] = {1.25, "kernel-contract --write-costs on host CPU"};
  t["cuda"]["affine/qmm/a"] = {12.5, "a source"};
  const std::string path = ::testing::TempDir() + "kc_shard_costs.tsv";
  kc::detail::write_costs(path, t);
  const auto back = kc::detail::read_costs(path);
  EXPECT_DOUBLE_EQ(back.at("cpu").at("rows/x").seconds, 1.25);
  EXPECT_EQ(back.at("cuda").at("affine/qmm/a").source, "a source");
  EXPECT_EQ(kc::detail::cost_map(back).at("cuda/affine/qmm/a"), 12.5);
  const std::pair<const char*, const char*> bad[] = {{"cpu\trows/x\t1.0\n", ":1: want backend"},
                                                      {"# c\ncpu\trows/x\tfast\tme\n", ":2: seconds 'fast'"},
                                                      {"cpu\trows/x\t-1\tme\n", ":1: seconds '-1'"},
                                                      {"cpu\tx\t1\tme\ncpu\tx\t2\tme\n", ":2: cpu x has a row already"}};
  for (const auto& [text, want] : bad) {
    const std::string f = temp("bad_costs.tsv", text);
    try {
      kc::detail::read_costs(f);
      ADD_FAILURE() << "read: " << text;
    } catch (const kc::Error& e) {
      EXPECT_NE(std::string(e.what()).find(f + want), std::string::npos) << e.what();
    }
  }
}

TEST(Shard, WriteCostsRecordsEachEntryOfTheRunAndKeepsTheOthers) {
  kc::detail::CostTable t;
  t["cpu"]["not/run/here"] = {3, "kept"};
  const std::string path = ::testing::TempDir() + "kc_shard_written.tsv";
  kc::detail::write_costs(path, t);
  auto writer = kc::detail::make_cost_writer(path);
  const kc::RunResult r = kc::run(toy_opt(), {&cpu()}, {writer.get()});
  const auto back = kc::detail::read_costs(path);
  EXPECT_EQ(back.at("cpu").at("not/run/here").source, "kept");
  const auto slow = kc::slowest_entries(r.events, 100);
  ASSERT_FALSE(slow.empty());
  for (const auto& e : slow) {
    ASSERT_TRUE(back.at("cpu").count(e.entry)) << e.entry;
    EXPECT_NEAR(back.at("cpu").at(e.entry).seconds, e.seconds, 0.0005);
    EXPECT_EQ(back.at("cpu").at(e.entry).source, "kernel-contract --write-costs on host CPU");
  }
  EXPECT_EQ(back.at("cpu").size(), slow.size() + 1);
}

// CTest's allotment, as CTest sets it (tests/contract/CMakeLists.txt's GPU entries ask for gpus:1).
TEST(CtestGpus, TheAllottedIdsAreReadFromCtestsVariables) {
  std::map<std::string, std::string> env;
  auto get = [&](const char* n) { return env.count(n) ? env[n].c_str() : nullptr; };
  EXPECT_TRUE(kc::detail::ctest_gpus(get).empty());  // not under a resource spec
  env = {{"CTEST_RESOURCE_GROUP_COUNT", "1"}, {"CTEST_RESOURCE_GROUP_0", "gpus"},
         {"CTEST_RESOURCE_GROUP_0_GPUS", "id:3,slots:1"}};
  EXPECT_EQ(kc::detail::ctest_gpus(get), (std::vector<std::string>{"3"}));
  env = {{"CTEST_RESOURCE_GROUP_COUNT", "2"}, {"CTEST_RESOURCE_GROUP_0", "cpus,gpus"},
         {"CTEST_RESOURCE_GROUP_0_GPUS", "id:1,slots:1;id:0,slots:2"}, {"CTEST_RESOURCE_GROUP_1", "cpus"},
         {"CTEST_RESOURCE_GROUP_1_CPUS", "id:0,slots:1"}};
  EXPECT_EQ(kc::detail::ctest_gpus(get), (std::vector<std::string>{"1", "0"}));
  const std::pair<std::map<std::string, std::string>, const char*> bad[] = {
      {{{"CTEST_RESOURCE_GROUP_COUNT", "x"}}, "CTEST_RESOURCE_GROUP_COUNT='x'"},
      {{{"CTEST_RESOURCE_GROUP_COUNT", "1"}}, "CTEST_RESOURCE_GROUP_0 is unset"},
      {{{"CTEST_RESOURCE_GROUP_COUNT", "1"}, {"CTEST_RESOURCE_GROUP_0", "gpus"}}, "CTEST_RESOURCE_GROUP_0_GPUS is unset"},
      {{{"CTEST_RESOURCE_GROUP_COUNT", "1"}, {"CTEST_RESOURCE_GROUP_0", "gpus"}, {"CTEST_RESOURCE_GROUP_0_GPUS", "id:0"}},
       "'id:0' is not id:<id>,slots:<n>"}};
  for (const auto& [vars, want] : bad) {
    env = vars;
    try {
      kc::detail::ctest_gpus(get);
      ADD_FAILURE() << "taken: " << want;
    } catch (const kc::Error& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
}

TEST(CtestGpus, AnIdIsAPositionInTheVisibleDevices) {
  EXPECT_EQ(kc::detail::ctest_devices({"0", "2"}, nullptr), (std::vector<std::string>{"0", "2"}));
  EXPECT_EQ(kc::detail::ctest_devices({"1"}, "4,GPU-5fd4c5b6,6"), (std::vector<std::string>{"GPU-5fd4c5b6"}));
  EXPECT_EQ(kc::detail::ctest_devices({"0"}, "MIG-a1b2"), (std::vector<std::string>{"MIG-a1b2"}));
  try {
    kc::detail::ctest_devices({"3"}, "4,5");
    ADD_FAILURE() << "id 3 of a list of 2 was taken";
  } catch (const kc::Error& e) {
    EXPECT_NE(std::string(e.what()).find("GPU 3, but CUDA_VISIBLE_DEVICES='4,5' lists 2 devices"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(kc::detail::ctest_devices({"gpu_a"}, nullptr), kc::Error);
}

TEST(CtestGpus, PinningSetsTheDevicesAndIsDoneOnce) {
  setenv("CTEST_RESOURCE_GROUP_COUNT", "1", 1);
  setenv("CTEST_RESOURCE_GROUP_0", "gpus", 1);
  setenv("CTEST_RESOURCE_GROUP_0_GPUS", "id:1,slots:1", 1);
  setenv("CUDA_VISIBLE_DEVICES", "2,3", 1);
  unsetenv("HIP_VISIBLE_DEVICES");
  const std::string said = kc::detail::pin_ctest_gpus();
  EXPECT_EQ(said, "CTest allotted GPU id 1: CUDA_VISIBLE_DEVICES=3");
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "3");
  EXPECT_STREQ(std::getenv("HIP_VISIBLE_DEVICES"), "1");
  EXPECT_EQ(std::getenv("CTEST_RESOURCE_GROUP_COUNT"), nullptr);
  EXPECT_EQ(kc::detail::pin_ctest_gpus(), "");  // a run started from this one keeps the pin
  EXPECT_STREQ(std::getenv("CUDA_VISIBLE_DEVICES"), "3");
  unsetenv("CUDA_VISIBLE_DEVICES");
  unsetenv("HIP_VISIBLE_DEVICES");
}

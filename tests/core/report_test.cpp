// Reporters: the JUnit XML parses with a real XML parser and holds a testcase per entry and gate;
// the JSON parses and carries the summary and gate 3's margin; the console prints it when asked.
#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness.hpp"
#include "kc/backend.hpp"
#include "kc/report.hpp"

using namespace testing_kc;

namespace {
std::string render(const std::string& reporter, const std::string& only, kc::RunResult* res = nullptr) {
  std::ostringstream out;
  auto rep = kc::make_reporter(reporter, out);
  kc::RunOptions opt;
  opt.only = only;
  opt.backend = "cpu";
  opt.limits = false;
  auto r = kc::run(opt, {&cpu()}, {rep.get()});
  if (res) *res = r;
  return out.str();
}
}  // namespace

TEST(Report, JUnitIsValidXmlWithATestcasePerEntryAndGate) {
  kc::RunResult r;
  std::string xml = render("junit", "toy/", &r);
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.Parse(xml.c_str()), tinyxml2::XML_SUCCESS) << doc.ErrorStr();
  auto* suites = doc.FirstChildElement("testsuites");
  ASSERT_NE(suites, nullptr);
  int cases = 0, failures = 0;
  for (auto* s = suites->FirstChildElement("testsuite"); s; s = s->NextSiblingElement("testsuite"))
    for (auto* c = s->FirstChildElement("testcase"); c; c = c->NextSiblingElement("testcase")) {
      ++cases;
      failures += c->FirstChildElement("failure") != nullptr;
    }
  EXPECT_EQ(cases, int(r.events.size()));
  int bad = 0;
  for (const auto& e : r.events) bad += !kc::status_ok(e.status);
  EXPECT_EQ(failures, bad);
  EXPECT_GT(failures, 0) << "the toys include broken kernels";
  EXPECT_EQ(suites->IntAttribute("failures"), bad);
}

// The JSON report is JSON Lines: every line parses on its own, in order begin, backend, gate...,
// summary, timings, end, and the end repeats the summary and the slowest entries.
TEST(Report, JsonLinesParseAndCarryTheSummary) {
  std::string js = render("json", "toy/scale/ok");
  std::vector<nlohmann::json> lines;
  std::istringstream in(js);
  for (std::string l; std::getline(in, l);) lines.push_back(nlohmann::json::parse(l));
  ASSERT_EQ(lines.size(), 10u) << js;  // begin, backend, its note, 4 gates, summary, timings, end
  EXPECT_EQ(lines.front()["type"], "begin");
  EXPECT_EQ(lines[1]["type"], "backend");
  EXPECT_EQ(lines[1]["backend"], "cpu");
  // The CPU backend has no load for gate 2's loaded runs, and the run says so once.
  EXPECT_EQ(lines[2]["type"], "note");
  EXPECT_EQ(lines[2]["text"], "gate 2 makes no runs under load here: this backend has no work to run beside its kernels");
  lines.erase(lines.begin() + 2);
  for (size_t i = 2; i < 6; ++i) {
    EXPECT_EQ(lines[i]["type"], "gate");
    EXPECT_EQ(lines[i]["entry"], "toy/scale/ok");
    EXPECT_EQ(lines[i]["gate"], int(i - 1));
  }
  const auto& s = lines[6];
  EXPECT_EQ(s["type"], "summary");
  EXPECT_EQ(s["kernels"], 1);
  EXPECT_EQ(s["kernels_passing"], 1);
  EXPECT_NE(s["line"].get<std::string>().find("SUMMARY backend=cpu"), std::string::npos);
  EXPECT_EQ(lines[7]["type"], "timings");
  ASSERT_EQ(lines[7]["slowest"].size(), 1u);
  const auto& t = lines[7]["slowest"][0];
  EXPECT_EQ(t["entry"], "toy/scale/ok");
  double gates = 0, phases = 0;
  for (size_t i = 2; i < 6; ++i) gates += lines[i]["seconds"].get<double>();
  for (const auto& [k, v] : t["phases"].items()) phases += v.get<double>();
  EXPECT_NEAR(t["seconds"].get<double>(), gates, 1e-9) << "an entry's time is its gates' times";
  EXPECT_LE(phases, t["seconds"].get<double>() + 1e-9) << "its phases are parts of its time";
  EXPECT_EQ(lines[8]["type"], "end");
  ASSERT_EQ(lines[8]["summaries"].size(), 1u);
  EXPECT_EQ(lines[8]["summaries"][0]["line"], s["line"]);
  EXPECT_EQ(lines[8]["slowest"], lines[7]["slowest"]);
}

// Each line is out before the next event happens: a reporter whose run is cut off after one gate
// has already written that gate.
TEST(Report, JsonLinesAreWrittenAsTheyHappen) {
  std::ostringstream out;
  auto rep = kc::make_reporter("json", out);
  rep->begin(7);
  rep->backend_begin("cpu", "host", "");
  rep->gate({"cpu", "toy/x", kc::Gate::nonfinite, kc::Status::pass, "", "", "ok"});
  std::istringstream in(out.str());
  int n = 0;
  for (std::string l; std::getline(in, l); ++n) EXPECT_FALSE(nlohmann::json::parse(l).is_discarded());
  EXPECT_EQ(n, 3);
}

TEST(Report, ConsolePrintsALinePerGateAndTheSummary) {
  std::string text = render("console", "toy/control/red");
  EXPECT_NE(text.find("RED    cpu toy/control/red gate1 nonfinite class_mismatch"), std::string::npos) << text;
  EXPECT_NE(text.find("SUMMARY backend=cpu kernels=0/0 known=0 controls=1/1 limit_problems=0 failures=0 errors=0"), std::string::npos)
      << text;
}

// SUMMARY counts FAIL, GREEN and FIXED lines as failures and ERROR lines as errors, apart.
TEST(Report, SummaryCountsFailuresApartFromErrors) {
  kc::Summary s;
  s.backend = "cpu";
  for (kc::Status st : {kc::Status::pass, kc::Status::fail, kc::Status::control_green, kc::Status::fixed,
                        kc::Status::error, kc::Status::known, kc::Status::control_red, kc::Status::na, kc::Status::also})
    s.count(st);
  EXPECT_EQ(s.failures, 3);
  EXPECT_EQ(s.errors, 1);
  EXPECT_NE(s.line().find(" failures=3 errors=1"), std::string::npos) << s.line();
  std::ostringstream out;
  auto rep = kc::make_reporter("json", out);
  rep->summary(s);
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["failures"], 3);
  EXPECT_EQ(j["errors"], 1);
}

// Each gate's time is split by phase: the phases are measured (a gate that ran a kernel spent time
// launching it), they never add up to more than the gate's time, and the JSON carries them.
TEST(Report, GateTimesSplitByPhase) {
  kc::RunResult r;
  std::string js = render("json", "toy/scale/ok", &r);
  ASSERT_EQ(r.events.size(), 4u);
  for (const auto& e : r.events) {
    const kc::Phases& p = e.phases;
    double sum = p.inputs + p.upload + p.kernel + p.fetch + p.reference + p.check;
    EXPECT_LE(sum, e.seconds + 1e-6) << kc::gate_name(e.gate);
    if (e.status == kc::Status::pass) {
      EXPECT_GT(p.inputs, 0) << kc::gate_name(e.gate);
      EXPECT_GT(p.kernel, 0) << kc::gate_name(e.gate);
    }
  }
  std::vector<nlohmann::json> gates;
  std::istringstream in(js);
  for (std::string l; std::getline(in, l);)
    if (auto j = nlohmann::json::parse(l); j["type"] == "gate") gates.push_back(j);
  ASSERT_EQ(gates.size(), 4u);
  const auto& ev = gates[2];
  EXPECT_EQ(ev["gate"], 3);
  EXPECT_DOUBLE_EQ(ev["phases"]["reference"].get<double>(), r.events[2].phases.reference);
  EXPECT_GT(ev["phases"]["reference"].get<double>(), 0);
}

// The console names where a gate of a second or more spent its time; phases under 0.05 s are left out.
TEST(Report, ConsoleSaysWhereASlowGatesTimeWent) {
  kc::Phases p;
  p.inputs = 1.25, p.reference = 4.0, p.check = 0.01;
  EXPECT_EQ(p.str(), "inputs 1.2 s, reference 4.0 s");
  std::ostringstream out;
  auto rep = kc::make_reporter("console", out);
  kc::GateEvent slow{"cpu", "toy/x", kc::Gate::shapes, kc::Status::pass, "", "", "9 shapes"};
  slow.seconds = 5.5;
  slow.phases = p;
  kc::GateEvent quick = slow;
  quick.seconds = 0.5;
  rep->gate(slow);
  rep->gate(quick);
  EXPECT_NE(out.str().find("gate3 shapes: 9 shapes (5.5 s: inputs 1.2 s, reference 4.0 s)\n"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("gate3 shapes: 9 shapes (0.5 s)\n"), std::string::npos) << out.str();
}

// Gate 3's passing lines carry its margin, consistent with itself (the ratio is |got - want| /
// bound, at most 1 on a pass); a failing line has none and keeps its detail; no other gate has one.
TEST(Report, JsonGateThreeLinesCarryTheirMargin) {
  std::string js = render("json", "toy/rowsum/");
  std::istringstream in(js);
  uint64_t seed = 0;
  int with_margin = 0, failed = 0;
  for (std::string l; std::getline(in, l);) {
    auto j = nlohmann::json::parse(l);
    if (j["type"] == "begin") seed = j["seed"].get<uint64_t>();
    if (j["type"] != "gate") continue;
    const std::string what = j["entry"].get<std::string>() + " gate " + std::to_string(j["gate"].get<int>());
    const bool bit_equal = j["detail"].get<std::string>().find("bit-equal") != std::string::npos;
    if (j["gate"] != 3 || j["status"] != "PASS" || bit_equal) {
      EXPECT_FALSE(j.contains("margin")) << what << ": " << l;
      if (j["status"] == "FAIL") {
        EXPECT_FALSE(j["detail"].get<std::string>().empty()) << l;
        if (j["gate"] == 3 && j["why"] == "bound") {  // the worst output's index, want, got and bound
          ++failed;
          EXPECT_NE(j["detail"].get<std::string>().find("] want "), std::string::npos) << l;
          EXPECT_NE(j["detail"].get<std::string>().find(" > bound "), std::string::npos) << l;
        }
      }
      continue;
    }
    ASSERT_TRUE(j.contains("margin")) << what << ": " << l;
    const auto& m = j["margin"];
    ++with_margin;
    for (const char* k : {"ratio", "output", "index", "want", "got", "bound", "shape", "fill", "seed"})
      EXPECT_TRUE(m.contains(k)) << what << " lacks margin." << k << ": " << l;
    const double ratio = m["ratio"], want = m["want"], got = m["got"], bound = m["bound"];
    EXPECT_GE(ratio, 0) << l;
    EXPECT_LE(ratio, 1) << l;
    EXPECT_GT(bound, 0) << l;
    EXPECT_NEAR(ratio, std::fabs(got - want) / bound, 1e-12 * std::max(1.0, ratio)) << l;
    EXPECT_EQ(m["output"], "y");
    const std::string shape = m["shape"];
    EXPECT_EQ(shape.rfind("rows:", 0), 0u) << shape;
    const int64_t rows = std::stoll(shape.substr(5));
    EXPECT_LT(m["index"].get<int64_t>(), rows) << l;  // y holds a sum a row
    EXPECT_EQ(m["fill"], "");  // the toys have no named fills
    EXPECT_EQ(m["seed"].get<uint64_t>(), seed);
  }
  EXPECT_GE(with_margin, 3) << js;
  EXPECT_GE(failed, 1) << "toy/rowsum/tail fails gate 3:\n" << js;
}

// The console prints a margin only under --margins: without it a line is the same as before.
TEST(Report, ConsolePrintsTheMarginUnderItsLineWhenAsked) {
  kc::GateEvent e{"cpu", "toy/x", kc::Gate::shapes, kc::Status::pass, "", "rows:7/cols:64", "9 shapes"};
  kc::GateEvent plain = e;
  kc::Margin m;
  m.ratio = 0.31, m.output = "y", m.index = 17, m.want = 1.5, m.got = 1.5000001, m.bound = 2.4e-7;
  m.shape = "rows:7/cols:64", m.fill = "offset";
  e.margin = m;
  auto text = [](const kc::GateEvent& ev, bool margins) {
    std::ostringstream out;
    kc::make_console_reporter(out, false, margins)->gate(ev);
    return out.str();
  };
  EXPECT_EQ(text(e, false), text(plain, false));
  EXPECT_EQ(text(plain, true), text(plain, false));
  const std::string with = text(e, true);
  EXPECT_EQ(with.rfind(text(plain, false), 0), 0u) << with;  // the gate line first, unchanged
  EXPECT_EQ(with.substr(text(plain, false).size()),
            "  margin 0.31 of the bound at y[17] (rows:7/cols:64, fill=offset): want 1.5 got 1.5000001 bound 2.4e-07\n");
  m.interval = true, m.lo = 1.25, m.hi = 1.75, m.fill = "";
  e.margin = m;
  EXPECT_NE(text(e, true).find("  margin 0.31 of the interval at y[17] (rows:7/cols:64): want 1.5 got 1.5000001 in [1.25, 1.75]\n"),
            std::string::npos)
      << text(e, true);
}

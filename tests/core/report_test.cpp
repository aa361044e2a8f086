// Reporters: the JUnit XML parses with a real XML parser and holds a testcase per entry and gate;
// the JSON parses and carries the summary.
#include <gtest/gtest.h>
#include <tinyxml2.h>

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
// summary, end, and the end repeats the summary.
TEST(Report, JsonLinesParseAndCarryTheSummary) {
  std::string js = render("json", "toy/scale/ok");
  std::vector<nlohmann::json> lines;
  std::istringstream in(js);
  for (std::string l; std::getline(in, l);) lines.push_back(nlohmann::json::parse(l));
  ASSERT_EQ(lines.size(), 8u) << js;  // begin, backend, 4 gates, summary, end
  EXPECT_EQ(lines.front()["type"], "begin");
  EXPECT_EQ(lines[1]["type"], "backend");
  EXPECT_EQ(lines[1]["backend"], "cpu");
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
  EXPECT_EQ(lines[7]["type"], "end");
  ASSERT_EQ(lines[7]["summaries"].size(), 1u);
  EXPECT_EQ(lines[7]["summaries"][0]["line"], s["line"]);
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
  EXPECT_NE(text.find("SUMMARY backend=cpu kernels=0/0 known=0 controls=1/1 limit_problems=0 errors=0"), std::string::npos)
      << text;
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

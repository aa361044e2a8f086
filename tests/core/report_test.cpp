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

TEST(Report, JsonParsesAndCarriesTheSummary) {
  std::string js = render("json", "toy/scale/ok");
  auto doc = nlohmann::json::parse(js);
  ASSERT_EQ(doc["backends"].size(), 1u);
  const auto& b = doc["backends"][0];
  EXPECT_EQ(b["backend"], "cpu");
  EXPECT_EQ(b["summary"]["kernels"], 1);
  EXPECT_EQ(b["summary"]["kernels_passing"], 1);
  EXPECT_EQ(b["events"].size(), 4u);
  EXPECT_NE(b["summary"]["line"].get<std::string>().find("SUMMARY backend=cpu"), std::string::npos);
}

TEST(Report, ConsolePrintsALinePerGateAndTheSummary) {
  std::string text = render("console", "toy/control/red");
  EXPECT_NE(text.find("RED    cpu toy/control/red gate1 nonfinite class_mismatch"), std::string::npos) << text;
  EXPECT_NE(text.find("SUMMARY backend=cpu kernels=0/0 known=0 controls=1/1 limit_problems=0 errors=0"), std::string::npos)
      << text;
}

// JUnit XML reporter: a testsuite per backend, a testcase per entry and gate, so any CI shows each.
// Failures: FAIL, FIXED, GREEN controls, ERROR; N/A and absent backends are <skipped>, never passes.
#include <fmt/format.h>
#include <ostream>
#include <vector>

#include "kc/report.hpp"

namespace kc {
namespace {

std::string xml(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        if (c < 0x20 && c != '\n' && c != '\t') o += fmt::format("&#{};", c == '\r' ? 13 : 32);  // XML 1.0 forbids
        else o += char(c);
    }
  }
  return o;
}

class JUnit final : public Reporter {
 public:
  explicit JUnit(std::ostream& out) : out_(out) {}
  void backend_begin(const std::string& b, const std::string&, const std::string& absent) override {
    suites_.push_back({b, absent, {}, {}});
  }
  void gate(const GateEvent& e) override {
    if (suites_.empty()) suites_.push_back({e.backend, "", {}, {}});
    suites_.back().cases.push_back(e);
  }
  void note(const std::string&, const std::string& text) override {
    if (!suites_.empty()) suites_.back().notes.push_back(text);
  }
  void summary(const Summary& s) override {
    if (!suites_.empty()) suites_.back().notes.push_back(s.line());
  }
  void end() override {
    int tests = 0, failures = 0, skipped = 0;
    for (const auto& s : suites_) {
      tests += int(s.cases.size()) + (s.absent.empty() ? 0 : 1);
      for (const auto& c : s.cases) failures += !status_ok(c.status), skipped += c.status == Status::na;
      skipped += !s.absent.empty();
    }
    out_ << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out_ << fmt::format("<testsuites name=\"kernel-contract\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n", tests,
                        failures, skipped);
    for (const auto& s : suites_) {
      int f = 0, k = 0;
      for (const auto& c : s.cases) f += !status_ok(c.status), k += c.status == Status::na;
      out_ << fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n", xml(s.name),
                          s.cases.size() + (s.absent.empty() ? 0 : 1), f, k + !s.absent.empty());
      if (!s.absent.empty())
        out_ << fmt::format("    <testcase classname=\"{}\" name=\"gates 1-4\"><skipped message=\"absent: {}\"/></testcase>\n",
                            xml(s.name), xml(s.absent));
      for (const auto& c : s.cases) {
        std::string name = fmt::format("gate{} {}", int(c.gate), gate_name(c.gate));
        out_ << fmt::format("    <testcase classname=\"{}.{}\" name=\"{}\" time=\"{:.6f}\">", xml(s.name), xml(c.entry),
                            xml(name), c.seconds);
        std::string msg = fmt::format("{} {}{}", status_name(c.status), c.why, c.shape.empty() ? "" : " at " + c.shape);
        if (!status_ok(c.status))
          out_ << fmt::format("<failure message=\"{}\">{}</failure>", xml(msg), xml(c.detail));
        else if (c.status == Status::na)
          out_ << fmt::format("<skipped message=\"{}\"/>", xml(c.detail));
        else if (!c.detail.empty())
          out_ << fmt::format("<system-out>{}</system-out>", xml(status_name(c.status) + std::string(": ") + c.detail));
        out_ << "</testcase>\n";
      }
      std::string notes;
      for (const auto& n : s.notes) notes += n + "\n";
      out_ << fmt::format("    <system-out>{}</system-out>\n  </testsuite>\n", xml(notes));
    }
    out_ << "</testsuites>\n" << std::flush;
  }

 private:
  struct Suite {
    std::string name, absent;
    std::vector<GateEvent> cases;
    std::vector<std::string> notes;
  };
  std::ostream& out_;
  std::vector<Suite> suites_;
};

}  // namespace

std::unique_ptr<Reporter> make_junit_reporter(std::ostream& out) { return std::make_unique<JUnit>(out); }

}  // namespace kc

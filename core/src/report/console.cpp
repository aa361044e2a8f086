// Console reporter: a line per entry and gate, notes indented, one SUMMARY line per backend.
#include <fmt/format.h>
#include <ostream>

#include "kc/report.hpp"

namespace kc {
namespace {

class Console final : public Reporter {
 public:
  Console(std::ostream& out, bool color) : out_(out), color_(color) {}
  void begin(uint64_t seed) override { out_ << fmt::format("kernel-contract seed={:#x}\n", seed); }
  void backend_begin(const std::string& b, const std::string& device, const std::string& absent) override {
    if (!absent.empty())
      out_ << fmt::format("== {}: absent ({}); gates 1-4 not run here\n", b, absent);
    else
      out_ << fmt::format("== {}: {}\n", b, device);
  }
  void gate(const GateEvent& e) override {
    const char* c = "";
    if (color_) c = status_ok(e.status) ? "\033[32m" : "\033[31m";
    std::string where = e.shape.empty() ? "" : " at " + e.shape;
    // Each line ends with the gate's time and goes out at once: a long run shows where its time goes,
    // and a run cut off by a time limit still leaves every line it finished.
    // A gate of a second or more also says where its time went.
    std::string took = fmt::format("{:.1f} s", e.seconds);
    if (e.seconds >= 1)
      if (const std::string where = e.phases.str(); !where.empty()) took += ": " + where;
    out_ << fmt::format("{}{:<6}{} {} {} gate{} {}{}{}{} ({})\n", c, status_name(e.status),
                        color_ ? "\033[0m" : "", e.backend, e.entry, int(e.gate), gate_name(e.gate),
                        e.why.empty() ? "" : " " + e.why, e.status == Status::pass || e.status == Status::na ? "" : where,
                        e.detail.empty() ? "" : ": " + e.detail, took)
         << std::flush;
  }
  void note(const std::string& b, const std::string& text) override {
    out_ << "  " << (b.empty() ? "" : b + ": ") << text << "\n" << std::flush;
  }
  void summary(const Summary& s) override { out_ << s.line() << "\n" << std::flush; }

 private:
  std::ostream& out_;
  bool color_;
};

}  // namespace

std::unique_ptr<Reporter> make_console_reporter(std::ostream& out, bool color) {
  return std::make_unique<Console>(out, color);
}

}  // namespace kc

// Console reporter: a line per entry and gate, notes indented, one SUMMARY line per backend, then the
// slowest entries; with --margins, under each gate 3 line that passed, how near its bound it came.
#include <fmt/format.h>
#include <ostream>

#include "kc/report.hpp"

namespace kc {
namespace {

class Console final : public Reporter {
 public:
  Console(std::ostream& out, bool color, bool margins) : out_(out), color_(color), margins_(margins) {}
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
                        e.detail.empty() ? "" : ": " + e.detail, took);
    if (margins_ && e.margin) out_ << margin_line(*e.margin);
    out_ << std::flush;
  }
  void note(const std::string& b, const std::string& text) override {
    out_ << "  " << (b.empty() ? "" : b + ": ") << text << "\n" << std::flush;
  }
  void summary(const Summary& s) override { out_ << s.line() << "\n" << std::flush; }
  // After the SUMMARY lines: where the run's time went, its slowest entries with their phases.
  void timings(const std::vector<EntryTime>& slowest) override {
    if (slowest.empty()) return;
    out_ << fmt::format("TIMINGS the {} slowest entries (every gate, by phase):\n", slowest.size());
    for (const auto& t : slowest) {
      const std::string by = t.phases.str();
      out_ << fmt::format("  {:7.1f} s  {} {}{}\n", t.seconds, t.backend, t.entry, by.empty() ? "" : ": " + by);
    }
    out_ << std::flush;
  }

 private:
  // "  margin 0.31 of the bound at y[17] (rows:7/cols:64, fill=offset): want .. got .. bound .."
  static std::string margin_line(const Margin& m) {
    std::string where = m.shape + (m.fill.empty() ? "" : ", fill=" + m.fill);
    std::string against = m.interval ? fmt::format("in [{:.9g}, {:.9g}]", m.lo, m.hi) : fmt::format("bound {:.3g}", m.bound);
    return fmt::format("  margin {:.3g} of the {} at {}[{}] ({}): want {:.9g} got {:.9g} {}\n", m.ratio,
                       m.interval ? "interval" : "bound", m.output, m.index, where, m.want, m.got, against);
  }
  std::ostream& out_;
  bool color_, margins_;
};

}  // namespace

std::unique_ptr<Reporter> make_console_reporter(std::ostream& out, bool color, bool margins) {
  return std::make_unique<Console>(out, color, margins);
}

}  // namespace kc

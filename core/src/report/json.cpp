// JSON reporter: JSON Lines, one object a line, each written and flushed as it happens, so a run
// cut off (a crash, a time limit, a kill) leaves every event it finished readable. Each object has
// "type": begin, backend, gate, note, summary (one a backend), timings (the slowest entries), and last
// end, which repeats every backend's summary and the slowest entries: a tool that needs only the
// verdict reads the last line. A gate 3 line that passed within its bounds carries "margin"
// (margin_json.hpp).
#include <nlohmann/json.hpp>
#include <ostream>

#include "kc/report.hpp"
#include "margin_json.hpp"
#include "phases_json.hpp"

namespace kc {
namespace {

using nlohmann::json;

json summary_json(const Summary& s) {
  json j{{"backend", s.backend},
          {"line", s.line()},
          {"kernels", s.kernels},
          {"kernels_passing", s.kernels_passing},
          {"known", s.known},
          {"controls", s.controls},
          {"controls_red", s.controls_red},
          {"controls_not_run", s.controls_not_run},
          {"limit_problems", s.limit_problems},
          {"failures", s.failures},
          {"errors", s.errors},
          {"absent", s.absent}};
  if (!s.shard.empty()) j["shard"] = s.shard;  // --shard I/N: what --merge checks for the whole set
  return j;
}

class JsonLines final : public Reporter {
 public:
  explicit JsonLines(std::ostream& out) : out_(out) {}
  void begin(uint64_t seed) override {
    seed_ = seed;
    put({{"type", "begin"}, {"tool", "kernel-contract"}, {"seed", seed}});
  }
  void backend_begin(const std::string& b, const std::string& device, const std::string& absent) override {
    backend_ = b;
    put({{"type", "backend"}, {"backend", b}, {"device", device}, {"absent", absent}});
  }
  void gate(const GateEvent& e) override {
    json j{{"type", "gate"},
           {"backend", e.backend},
           {"entry", e.entry},
           {"gate", int(e.gate)},
           {"gate_name", gate_name(e.gate)},
           {"status", status_name(e.status)},
           {"ok", status_ok(e.status)},
           {"why", e.why},
           {"shape", e.shape},
           {"detail", e.detail},
           {"seconds", e.seconds},
           {"phases", e.phases}};
    if (e.margin) j["margin"] = *e.margin;  // gate 3 passed: how near its bound it came
    put(j);
  }
  void note(const std::string& backend, const std::string& text) override {
    put({{"type", "note"}, {"backend", backend.empty() ? backend_ : backend}, {"text", text}});
  }
  void summary(const Summary& s) override {
    json j = summary_json(s);
    j["type"] = "summary";
    summaries_.push_back(summary_json(s));
    put(j);
  }
  // The slowest entries with their phases: a line of their own, and again in the end line.
  void timings(const std::vector<EntryTime>& slowest) override {
    for (const auto& t : slowest)
      slowest_.push_back({{"backend", t.backend}, {"entry", t.entry}, {"seconds", t.seconds}, {"phases", t.phases}});
    put({{"type", "timings"}, {"slowest", slowest_}});
  }
  void end() override {
    put({{"type", "end"}, {"tool", "kernel-contract"}, {"seed", seed_}, {"summaries", summaries_}, {"slowest", slowest_}});
  }

 private:
  // The line and its newline in one write, then flushed: a kill between two writes could otherwise
  // leave a whole object with no newline, read as a line cut in half.
  void put(const json& j) {
    const std::string line = j.dump() + "\n";
    out_.write(line.data(), std::streamsize(line.size()));
    out_.flush();
  }
  std::ostream& out_;
  json slowest_ = json::array();
  uint64_t seed_ = 0;
  std::string backend_;
  json summaries_ = json::array();
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter(std::ostream& out) { return std::make_unique<JsonLines>(out); }

}  // namespace kc

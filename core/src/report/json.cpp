// JSON reporter: one document at the end of the run (nlohmann-json).
#include <nlohmann/json.hpp>
#include <ostream>

#include "kc/report.hpp"
#include "phases_json.hpp"

namespace kc {
namespace {

class Json final : public Reporter {
 public:
  explicit Json(std::ostream& out) : out_(out) {}
  void begin(uint64_t seed) override {
    doc_ = {{"tool", "kernel-contract"}, {"seed", seed}, {"backends", nlohmann::json::array()}};
  }
  void backend_begin(const std::string& b, const std::string& device, const std::string& absent) override {
    doc_["backends"].push_back({{"backend", b}, {"device", device}, {"absent", absent}, {"events", nlohmann::json::array()},
                                {"notes", nlohmann::json::array()}});
  }
  void gate(const GateEvent& e) override {
    if (doc_["backends"].empty()) backend_begin(e.backend, "", "");
    doc_["backends"].back()["events"].push_back({{"entry", e.entry},
                                                 {"gate", int(e.gate)},
                                                 {"gate_name", gate_name(e.gate)},
                                                 {"status", status_name(e.status)},
                                                 {"ok", status_ok(e.status)},
                                                 {"why", e.why},
                                                 {"shape", e.shape},
                                                 {"detail", e.detail},
                                                 {"seconds", e.seconds},
                                                 {"phases", e.phases}});
  }
  void note(const std::string& /*backend*/, const std::string& text) override {
    if (!doc_["backends"].empty()) doc_["backends"].back()["notes"].push_back(text);
  }
  void summary(const Summary& s) override {
    doc_["backends"].back()["summary"] = {{"line", s.line()},
                                          {"kernels", s.kernels},
                                          {"kernels_passing", s.kernels_passing},
                                          {"known", s.known},
                                          {"controls", s.controls},
                                          {"controls_red", s.controls_red},
                                          {"controls_not_run", s.controls_not_run},
                                          {"limit_problems", s.limit_problems},
                                          {"errors", s.errors},
                                          {"absent", s.absent}};
  }
  void end() override { out_ << doc_.dump(2) << "\n" << std::flush; }

 private:
  std::ostream& out_;
  nlohmann::json doc_;
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter(std::ostream& out) { return std::make_unique<Json>(out); }

}  // namespace kc

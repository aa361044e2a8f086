// Gate 5 for kernels a binding compiles itself (Triton's cubins): one CUDA audit of given cubins,
// launch rows and records, as kernel-contract-limits runs it (and its --write-records), and the
// merged results handed to the run as an auditor, so they share the run's lines and SUMMARY.
#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <mutex>

#include "capi_common.hpp"
#include "kc/audit.hpp"
#include "kc/limits/cuda_audit.hpp"
#include "kc/limits/error.hpp"
#include "kc/limits/records.hpp"

using namespace kc;
using namespace kc::capi;

namespace {

class Given final : public Auditor {  // results the binding gathered before the run
 public:
  AuditResult result;
  std::string backend() const override { return result.backend; }
  AuditResult audit(const AuditOptions& o) override {
    AuditResult r = result;
    if (!o.only.empty())
      std::erase_if(r.lines, [&](const AuditLine& l) { return l.launch.find(o.only) == std::string::npos; });
    return r;
  }
};

}  // namespace

extern "C" {

char* kc_cuda_audit(const char* text) {
  char* out = nullptr;
  if (guard([&] {
        const json j = parse(text, "kc_cuda_audit");
        only_keys(j, {"binaries", "launches", "records", "sms", "only", "write", "regen"}, "kc_cuda_audit");
        limits::CudaAuditConfig cfg;
        cfg.binaries = get<std::vector<std::string>>(j, "binaries", "kc_cuda_audit");
        cfg.launch_paths = get<std::vector<std::string>>(j, "launches", "kc_cuda_audit");
        cfg.records_dir = get<std::string>(j, "records", "kc_cuda_audit");
        cfg.sms = get<std::vector<int>>(j, "sms", "kc_cuda_audit", {});
        cfg.only = get<std::string>(j, "only", "kc_cuda_audit", "");
        // The command that writes these records (the Python CLI's, with the contract's files): the
        // headers and the re-derive hints name it, not the audit's own arguments.
        cfg.regen = get<std::string>(j, "regen", "kc_cuda_audit", "python -m kernel_contract FILE --write-triton-records");
        const bool write = get<bool>(j, "write", "kc_cuda_audit", false);
        if (cfg.binaries.empty() || cfg.launch_paths.empty() || cfg.records_dir.empty())
          throw Error("kc_cuda_audit: binaries, launches and records must each be given");
        limits::CudaAudit a = limits::audit_cuda(cfg, !write);
        json lines = json::array(), written = json::array(), records = json::array();
        for (const auto& l : a.result.lines)
          lines.push_back({{"launch", l.launch}, {"chip", l.chip}, {"control", l.control}, {"problem", l.problem},
                           {"message", l.message}});
        for (const auto& c : a.checks) records.push_back(c.record);
        std::vector<std::string> errors = a.result.errors;
        if (write && errors.empty()) {
          for (const auto& [rel, recs] : a.fresh) {
            const limits::Release r = rel.major ? rel : limits::Release{13, 0};
            std::string compiler;
            for (const auto& t : a.compilers[rel]) compiler += (compiler.empty() ? "" : "; ") + t;
            try {
              const std::string f = limits::write_record_set(cfg.records_dir, r, recs, a.declared, a.regen, compiler);
              if (!f.empty()) written.push_back(f);
            } catch (const limits::FormatError& e) {
              errors.push_back(e.what());
            }
          }
        }
        json r{{"lines", lines}, {"notes", a.result.notes}, {"errors", errors}, {"records", records},
               {"written", written}};
        out = strdup(r.dump().c_str());
      }))
    return nullptr;
  return out;
}

int kc_audit_results(const char* text) {
  return guard([&] {
    const json j = parse(text, "kc_audit_results");
    only_keys(j, {"backend", "lines", "notes", "errors"}, "kc_audit_results");
    auto g = std::make_unique<Given>();
    g->result.backend = get<std::string>(j, "backend", "kc_audit_results");
    g->result.notes = get<std::vector<std::string>>(j, "notes", "kc_audit_results", {});
    g->result.errors = get<std::vector<std::string>>(j, "errors", "kc_audit_results", {});
    for (const auto& l : get<json>(j, "lines", "kc_audit_results", json::array()))
      g->result.lines.push_back({get<std::string>(l, "launch", "audit line"), get<std::string>(l, "chip", "audit line"),
                                 get<bool>(l, "control", "audit line", false), get<bool>(l, "problem", "audit line"),
                                 get<std::string>(l, "message", "audit line", "")});
    add_auditor(std::move(g));
  });
}

}  // extern "C"

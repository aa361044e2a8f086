// Gate 5's seam with core: an auditor reads compiled binaries (no GPU needed) and checks every
// registered launch against every chip served. limits/ provides auditors; the CLI adds them.
// Core knows nothing of ELF, fatbins or chip tables.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace kc {

struct AuditLine {
  std::string launch;  // launch record name
  std::string chip;    // sm_90, gfx1100, M1, bmg ...
  bool control = false;
  bool problem = false;  // a limit problem (for a control: the problem it was planted for)
  std::string message;   // what was checked or what is over (numbers with their limits)
};

struct AuditResult {
  std::string backend;             // cuda, hip, xpu, metal
  std::vector<std::string> notes;  // e.g. "records set nvcc 13.0 (image says 13.0)"
  std::vector<AuditLine> lines;
  std::vector<std::string> errors;  // unreadable binaries, stale or missing records: problems
};

struct AuditOptions {
  std::string only;                // like --only: launches whose name holds this text
  std::vector<std::string> paths;  // binaries to read; empty = the ones this build installed
};

class Auditor {
 public:
  virtual ~Auditor() = default;
  virtual std::string backend() const = 0;
  virtual AuditResult audit(const AuditOptions&) = 0;
};

std::vector<std::unique_ptr<Auditor>>& auditors();
void add_auditor(std::unique_ptr<Auditor> a);

}  // namespace kc

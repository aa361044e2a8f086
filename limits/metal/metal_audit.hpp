// Gate 5 for Metal: M1-M5 rows and the check of each declared launch. There is no Metal binary to
// read here (no macOS): a launch's row is its record, with the thread limit its pipeline compiles to
// on M1/M2 (m1m2=), re-derived on a Mac (limits/README-backends.md).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kc/audit.hpp"
#include "kc/limits/launches.hpp"

namespace kc::limits::metal {

struct AppleChip {
  std::string name, family;
  uint32_t threads = 0;
  uint64_t tg = 0;
  bool pipeline_limit = false;  // regs column: M1/M2 record a per-pipeline thread limit
  std::string source;
};
std::vector<AppleChip> parse_apple_chips(const std::string& text, const std::string& name);
const std::vector<AppleChip>& apple_chips();  // limits/metal/apple_chips.tsv, compiled in

// `metal launch pipeline threads tg_bytes flags`; flags: m1m2=<threads> (the pipeline's recorded
// M1/M2 limit), sized (the launcher sizes its groups to the pipeline), reserved (the source reserves
// its threads), control=<threads|m1m2|tg>. A launch needs m1m2= unless sized or reserved.
struct MetalLaunch {
  std::string name, pipeline, where, control;
  uint32_t threads = 0, m1m2 = 0;
  uint64_t tg = 0;
  bool sized = false, reserved = false;
};
std::vector<MetalLaunch> metal_launches(const std::vector<LaunchRow>& rows);

// The RECORD line a launch gives (what kernel-contract-limits prints for Metal):
//   RECORD metal <launch> pipeline=<p> threads=N tg=N m1m2=N|sized|reserved
std::string record_line(const MetalLaunch& l);

struct MetalCheck {
  bool problem = false;
  std::vector<std::string> kinds;  // threads, m1m2, tg
  std::string message;
};
MetalCheck check_launch(const MetalLaunch& l, const AppleChip& chip);

kc::AuditResult audit_metal(const std::vector<MetalLaunch>& launches, const std::string& only);
std::unique_ptr<kc::Auditor> make_metal_auditor();

}  // namespace kc::limits::metal

// The HIP auditor: every declared `hip` launch against every AMD chip row, from the records set of
// the compiler that built the code objects, the records checked against the code objects themselves.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "hip_audit.hpp"
#include "kc/audit.hpp"
#include "kc/limits/launches.hpp"

namespace kc::limits::hip {

// The `hip` rows of launches files: `hip launch symbol threads dyn_lds flags`, flags `-` or a comma
// list of control=<kind> and scratch=<bytes a lane>. Throws FormatError naming the row.
std::vector<HipLaunch> hip_launches(const std::vector<LaunchRow>& rows);

// Every *.co file under the paths (files as given, directories searched), sorted.
std::vector<std::string> find_code_objects(const std::vector<std::string>& paths);
// Device builds that failed under the paths (OUT.failed files left by limits/hip/device-build.sh,
// for code objects and zebins alike): one error each, naming the file and its first error line.
std::vector<std::string> failed_device_builds(const std::vector<std::string>& paths);

// The records the declared launches have in these code objects (what kernel-contract-limits prints),
// one per launch and chip the code objects cover. A launch whose symbol is missing on a chip, or
// found in two images of one chip, is an error string.
std::vector<HipRecord> derive_records(const std::vector<HipLaunch>& launches, const std::vector<CodeObject>& objects,
                                      std::vector<std::string>& errors);

// Where this build keeps things: the records folder (records/hip) and the code objects it built.
std::string default_records_dir();
std::string default_objects_dir();
// The records files in `dir` (clang-<N>.txt), and the one for a compiler: the newest at or below it.
std::string records_file_for(const std::string& dir, const std::string& compiler, std::string& note);

// The audit proper: launches x chips from `stored`; when `objects` is given, each stored record is
// first compared with what the code objects say (a difference is a stale record, an error).
kc::AuditResult audit_hip(const std::vector<HipLaunch>& launches, const std::vector<HipRecord>& stored,
                          const std::vector<CodeObject>* objects, const std::string& only,
                          const std::string& records_name);

std::unique_ptr<kc::Auditor> make_hip_auditor();

}  // namespace kc::limits::hip

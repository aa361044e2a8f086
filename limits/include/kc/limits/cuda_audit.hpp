// Gate 5 for CUDA: every declared launch (launches.tsv) against every served SM, from the cubins in
// the binaries read, with the records per nvcc release (records/cuda/).
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "kc/audit.hpp"
#include "kc/limits/chips.hpp"
#include "kc/limits/cubin.hpp"
#include "kc/limits/fatbin.hpp"
#include "kc/limits/launches.hpp"
#include "kc/limits/records.hpp"

namespace kc::limits {

// Problem kinds a control may plant (control=<kind> in launches.tsv).
inline const std::vector<std::string> kCudaProblemKinds = {"bounds", "regs", "smem", "cluster", "frame"};

struct CudaAuditConfig {
  std::vector<std::string> binaries;      // files or directories; empty = this executable
  std::vector<std::string> launch_paths;  // launches.tsv files or folders; empty = default_launch_paths()
  std::string records_dir;                // empty = default_records_dir()
  std::vector<int> sms;                   // SMs audited; empty = the SMs this build compiled for
  std::string only;                       // launches whose name holds this text
  const std::vector<CudaChip>* chips = nullptr;  // null = the compiled-in table
  std::string tool;                       // kernel-contract-limits' path, for the re-derive command
  std::string regen;                      // the whole re-derive command, where another tool writes the records
};

// One launch on one SM: what the image says and what the audit found.
struct CudaCheck {
  Launch launch;
  const CudaChip* chip = nullptr;
  std::string image;         // where the kernel was read
  KernelUsage usage;
  Release release;           // the image's toolkit release (0.0 when it names none)
  std::string record;        // the RECORD line derived from the image
  std::vector<std::string> kinds;  // problem kinds found
  std::string message;
};

struct CudaAudit {
  std::vector<CudaCheck> checks;
  kc::AuditResult result;  // lines, notes and errors as the kernel-contract CLI shows them
  std::map<Release, std::map<RecordKey, std::string>> fresh;  // RECORD lines by image release
  std::map<Release, std::set<std::string>> compilers;  // the images' tkinfo version texts by release
  std::vector<std::string> declared;  // every declared CUDA launch name (before --only)
  std::string regen;                  // the command that re-derives the records
  size_t images = 0, kernels = 0;
  std::vector<Image> image_list;  // every image read, in order
};

// Runs the audit. With `compare_records` false the records are not read (writing them).
CudaAudit audit_cuda(const CudaAuditConfig& cfg, bool compare_records = true);

// The RECORD line of a launch's usage on a chip.
std::string record_line(const std::string& launch, const std::string& chip, const KernelUsage& k);
// The limit checks alone: fills `kinds` and returns the message.
std::string check_limits(const Launch& l, const CudaChip& c, const KernelUsage& k, std::vector<std::string>& kinds);

// $KC_CUDA_RECORDS when set, else the paths file's `cuda-records` (kc/limits/paths.hpp); "" where
// neither says (the audit then names both).
std::string default_records_dir();
// The kernel-contract-limits a message names: $KC_LIMITS_TOOL or `limits-tool`, else the one
// beside this executable, else the name alone (found on PATH).
std::string limits_tool();
// The SMs this build compiled its CUDA sources for (KC_CUDA_SMS), empty without nvcc.
std::vector<int> build_sms();
bool build_has_cuda();

}  // namespace kc::limits

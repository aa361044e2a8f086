// kernel-contract-limits for the kinds beyond CUDA (--kind hip|xpu|metal): prints the RECORD lines of
// the declared launches from the binaries given (hip: AMDGPU code objects *.co; xpu: zebins *.zebin;
// metal: the launches' own rows, no binary), then audits every launch on every chip (AUDIT lines).
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace kc::limits {

struct OtherKindOptions {
  std::string kind;                       // hip, xpu, metal
  std::vector<std::string> paths;         // code objects / zebins or folders of them (default: this build's)
  std::vector<std::string> launch_paths;  // launches.tsv files or folders (default: the source tree's)
  std::string only;
  std::string write_dir;  // non-empty: write the RECORD lines as the set file in DIR and stop
};
// Returns the exit status: 0 within limits, 1 a limit problem (or a control not red, a missing or
// stale record, an unreadable binary), 2 a usage error.
int run_other_kind(const OtherKindOptions& o, std::ostream& out);

// For kernel-contract-limits' main: when the arguments hold `--kind hip|xpu|metal`, parses them
// (paths..., --launches P, --only TEXT, --write-records DIR) and runs that kind; returns its exit
// status. Returns -1 when there is no --kind or it is cuda (the CUDA tool goes on as before).
int other_kind_main(int argc, char** argv);

}  // namespace kc::limits

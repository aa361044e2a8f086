// Where a contract binary's own files are: its launch rows, its records, the device binaries its
// build made, the tool that re-derives records. Never compiled in (a binary names no machine
// path): each comes from its environment variable where set, else from a paths file beside the
// executable, `<exe>.paths` (kc_add_contract writes one a contract) or else `kc.paths` in its
// folder (the harness's build writes build/bin/kc.paths): one `key path` a line, `#` a comment,
// a relative path taken from the file's folder. Keys and variables:
//   launches      KC_LAUNCHES (':' between paths)  launches.tsv files, or folders searched for them
//   cuda-records  KC_CUDA_RECORDS                  records/cuda of the launches
//   hip-records   KC_HIP_RECORDS     hip-objects  KC_HIP_OBJECTS
//   xpu-records   KC_XPU_RECORDS     xpu-zebins   KC_XPU_ZEBINS
//   limits-tool   KC_LIMITS_TOOL                   the kernel-contract-limits a message names
//   cupti         KC_CUPTI                         the CUDA toolkit's libcupti, opened by the launch
//                                                  watch where the loader's path has none
#pragma once
#include <string>
#include <vector>

namespace kc::limits {

// Every path given for `key` (launches may have several), or none.
std::vector<std::string> contract_paths(const std::string& key);
// The first path given for `key`, or "".
std::string contract_path(const std::string& key);
// The paths file read (or, where there is none, the `<exe>.paths` that would be), for messages.
std::string paths_file();
// Reads a paths file's text (tests): key -> paths, relative ones taken from `dir`; throws
// FormatError naming `name` and the line for a line with no path or an unknown key.
std::vector<std::pair<std::string, std::string>> parse_paths(const std::string& text, const std::string& dir,
                                                             const std::string& name);

}  // namespace kc::limits

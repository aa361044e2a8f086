// The `.ze_info` section of an Intel zebin: YAML that ocloc writes, one entry a kernel (key list:
// intel/compute-runtime shared/source/device_binary_format/zebin/zeinfo.h). This reader takes the
// section's text; finding the section in the ELF file is the shared ELF reader's job (xpu_objects).
//
// It reads the subset of YAML that ocloc emits, strictly: block maps and block sequences indented
// by spaces, "- " items (a map may start on the item's line), flow sequences of scalars
// ("[ 256, 1, 1 ]"), plain and quoted scalars, "---" / "..." markers, "#" comments. Anything else
// (tabs, anchors, flow maps, multi-line scalars, bad indentation) is an error naming the line.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kc::limits::xpu {

// A parsed YAML node of that subset.
struct YamlNode {
  enum Kind { scalar, map, seq } kind = scalar;
  std::string value;                                  // scalar
  std::vector<std::string> keys;  // map, in order (values[i] is keys[i]'s value)
  std::vector<YamlNode> values;
  std::vector<YamlNode> elems;                         // seq
  int line = 0;                                        // 1-based source line
  const YamlNode* get(std::string_view key) const;     // map member or nullptr
};

// Parses the text; `what` names the file in errors. Throws kc::limits::FormatError.
YamlNode parse_yaml_subset(std::string_view text, const std::string& what);

// One kernel's execution environment, as IGC recorded it.
struct ZeKernel {
  std::string name;
  uint32_t simd = 0;       // execution_env.simd_size: the SIMD width = sub-group size (8, 16, 32)
  uint32_t grf = 0;        // execution_env.grf_count: 128 (default) or 256 (large GRF)
  uint32_t slm = 0;        // execution_env.slm_size: static SLM bytes
  uint32_t barriers = 0;   // execution_env.barrier_count
  std::array<uint32_t, 3> required_wg{0, 0, 0};  // execution_env.required_work_group_size ({0,0,0}: none)
  uint32_t reqd_sub_group = 0;  // user_attributes.intel_reqd_sub_group_size (0: none)
  uint64_t private_bytes = 0;   // per_thread_memory_buffers, usage private_space
  uint64_t spill_bytes = 0;     // per_thread_memory_buffers, usage spill_fill_space
  uint64_t wg_required() const { return uint64_t(required_wg[0]) * required_wg[1] * required_wg[2]; }
};

struct ZeInfo {
  std::string version;  // the .ze_info version, e.g. "1.20"
  std::vector<ZeKernel> kernels;
};

ZeInfo parse_ze_info(std::string_view text, const std::string& what);

}  // namespace kc::limits::xpu

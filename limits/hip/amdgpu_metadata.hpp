// The NT_AMDGPU_METADATA note of an AMDGPU code object (code object v4/v5): a msgpack map whose
// "amdhsa.kernels" array holds one map a kernel (llvm.org/docs/AMDGPUUsage.html, "Code Object V3
// Metadata" and later). This reader takes the note's descriptor bytes; finding the note in the ELF
// file is the shared ELF reader's job (see hip_objects.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kc::limits::hip {

// One kernel's usage, as the compiler recorded it.
struct AmdKernel {
  std::string name;    // .name
  std::string symbol;  // .symbol (the kernel descriptor, name + ".kd")
  uint32_t vgprs = 0;         // .vgpr_count: VGPRs a lane (a wave allocates them per lane)
  uint32_t agprs = 0;         // .agpr_count (gfx90a-class only; 0 on RDNA)
  uint32_t sgprs = 0;         // .sgpr_count
  uint32_t lds = 0;           // .group_segment_fixed_size: static LDS bytes
  uint32_t scratch = 0;       // .private_segment_fixed_size: scratch bytes a lane
  uint32_t bound = 0;         // .max_flat_workgroup_size: __launch_bounds__ (1024 when none)
  uint32_t wave = 0;          // .wavefront_size: 32 or 64
  uint32_t vgpr_spills = 0;   // .vgpr_spill_count
  uint32_t sgpr_spills = 0;   // .sgpr_spill_count
  bool dynamic_stack = false; // .uses_dynamic_stack: scratch size not known at compile time
  bool dynamic_lds = false;   // an argument of kind hidden_dynamic_lds_size (extern __shared__)
};

struct AmdMetadata {
  std::string target;  // amdhsa.target, e.g. "amdgcn-amd-amdhsa--gfx1100"
  std::string chip;    // the processor named in target, e.g. "gfx1100"
  uint32_t version_major = 0, version_minor = 0;  // amdhsa.version
  std::vector<AmdKernel> kernels;
};

// Decodes the note's descriptor. `what` names the file in every error. Throws FormatError on
// malformed msgpack, a missing required key, a value of the wrong type or out of range.
AmdMetadata parse_amdgpu_metadata(std::span<const uint8_t> desc, const std::string& what);

}  // namespace kc::limits::hip

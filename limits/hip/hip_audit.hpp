// Gate 5 for HIP: AMD chip rows, the recorded usage of each kernel on each chip (RECORD lines), the
// code objects that usage is read from, and the check of one launch on one chip.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "amdgpu_metadata.hpp"

namespace kc::limits::hip {

// One row of amd_chips.tsv (see its header for each column's meaning).
struct AmdChip {
  std::string name;
  uint32_t vgpr32 = 0, vgpr64 = 0, gran32 = 0, gran64 = 0, waves = 0, simds = 0;
  uint64_t lds = 0;
  uint32_t threads = 0, sgprs = 0;
  std::string source;
  uint32_t vgprs_simd(uint32_t wave) const { return wave == 64 ? vgpr64 : vgpr32; }
  uint32_t granule(uint32_t wave) const { return wave == 64 ? gran64 : gran32; }
};
std::vector<AmdChip> parse_amd_chips(const std::string& text, const std::string& name);
const std::vector<AmdChip>& amd_chips();  // limits/hip/amd_chips.tsv, compiled in
const AmdChip* find_amd_chip(const std::string& name);

// What one declared launch's kernel uses on one chip, as a records file holds it. A RECORD line:
//   RECORD hip <launch> <chip> symbol=<s> image=<i> instances=N vgprs=N sgprs=N lds=N scratch=N bound=N wave=N spills=N dynstack=0|1
// A symbol names a kernel by its source name; when it has several instances in the code object (a
// template instantiated at several widths) the record holds the worst of each: the most VGPRs,
// SGPRs, LDS, scratch and spills, the lowest bound.
struct HipRecord {
  std::string launch, chip, symbol, image;
  uint32_t instances = 1;
  uint32_t vgprs = 0, sgprs = 0, lds = 0, scratch = 0, bound = 0, wave = 0, spills = 0;
  bool dynamic_stack = false;
  bool operator==(const HipRecord&) const = default;
};
HipRecord record_of(const std::string& launch, const AmdKernel& k, const std::string& chip, const std::string& image);
std::string record_line(const HipRecord& r);
// Folds another instance of the same symbol into a record (worst of each; throws on two wave sizes).
void merge_instance(HipRecord& r, const HipRecord& other);
// The source name of a kernel symbol: "kc_x" for "kc_x", "_Z12kc_topk_bf16ILi1EE..." and
// "_ZN2kc2cu4nameE..." give "kc_topk_bf16" and "kc::cu::name"; "" for what it cannot read.
std::string base_name(const std::string& mangled);
// The template-id of a kernel symbol as C++ spells it: "_Z12kc_gemv_bf16ILi1E...EvPK5uint4..." gives
// "kc_gemv_bf16<1, 4, __bf16, (kc::dense_cu::Fault)0>" (demangled, less return type and parameters);
// "" when it is not a mangled template. A launch may name one instance exactly this way.
std::string template_id(const std::string& mangled);
// Parses every RECORD hip line of a records file (other lines must be blank or # comments).
std::vector<HipRecord> parse_records(const std::string& text, const std::string& name);

// A code object read from disk: its chip (from the metadata note's target), the compiler that built
// it (from .comment, e.g. "clang-19"; "" when it does not say) and its kernels.
struct CodeObject {
  std::string path, image, chip, compiler;
  uint32_t e_flags_mach = 0;
  std::vector<AmdKernel> kernels;
};
// Reads an AMDGPU code object through the shared ELF reader: EM_AMDGPU, then the AMDGPU note of
// type 32 (NT_AMDGPU_METADATA). `image` is the name records use (the file name without _<chip>.co).
CodeObject read_code_object(const std::string& path);
// The image name of a code object path: "controls.hip.limits_bound_gfx1100.co" -> "controls.hip.limits_bound".
std::string image_of(const std::string& path);

// A declared HIP launch (a `hip` row of a launches.tsv).
struct HipLaunch {
  std::string name, symbol;
  uint32_t threads = 0;
  uint64_t dyn_lds = 0;
  uint64_t scratch_budget = 0;  // flags: scratch=<bytes a lane> a launch accepts (default 0)
  std::string control;          // flags: control=<bound|lds|vgprs|scratch|wave>; "" for a served launch
  std::string image;            // flags: image=<image> when the symbol is in several code objects
  std::string where;            // file:line of the row
};

struct HipCheck {
  bool problem = false;
  std::vector<std::string> kinds;  // which limits are over: bound, threads, vgprs, waves, lds, sgprs, scratch, wave
  std::string message;
};
// Checks one launch on one chip from its record. Every number in the message names its limit.
HipCheck check_launch(const HipLaunch& l, const HipRecord& r, const AmdChip& chip);

}  // namespace kc::limits::hip

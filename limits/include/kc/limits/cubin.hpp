// A CUDA cubin (an ELF image for one SM): its SM, toolkit release and, per kernel, the resources the
// driver reads at launch (binary-formats.md §1, re-checked against nvcc 13.0.88 output).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kc/limits/elf.hpp"

namespace kc::limits {

// .nv.info attribute codes gate 5 reads (EIATTR_*).
namespace eiattr {
inline constexpr uint8_t kMaxThreads = 0x05, kParamCbank = 0x0a, kReqntid = 0x10, kFrameSize = 0x11,
                         kMinStackSize = 0x12, kCbankParamSize = 0x19, kMaxregCount = 0x1b,
                         kRegcount = 0x2f, kCudaApiVersion = 0x37, kCtaPerCluster = 0x3d,
                         kExplicitCluster = 0x3e, kMaxClusterRank = 0x3f, kNumBarriers = 0x4c,
                         kBlocksAreClusters = 0x5b;
}

// One .nv.info record: format (1 NVAL, 2 BVAL, 3 HVAL, 4 SVAL), attribute, and value or payload.
struct NvInfoAttr {
  uint8_t format = 0, attr = 0;
  uint16_t value = 0;                  // BVAL / HVAL (and SVAL's size)
  std::span<const uint8_t> payload;    // SVAL only
};
// Parses a whole .nv.info section; throws FormatError naming `file` on a truncated record.
std::vector<NvInfoAttr> parse_nv_info(std::span<const uint8_t> section, const std::string& file);

struct KernelUsage {
  std::string symbol;  // mangled, as in the ELF symbol table
  std::string name;    // demangled without its parameter list ("kc::f<float, 8>"); = symbol for C names
  int regs = -1;       // EIATTR_REGCOUNT (or the sm_8x .text sh_info copy); -1 when absent
  uint64_t shared = 0;          // static shared bytes as the driver counts them (sm_90+: section - 1 KiB)
  uint64_t shared_section = 0;  // the .nv.shared.<k> section's size as stored
  std::array<uint32_t, 3> max_threads{0, 0, 0};  // __launch_bounds__ (0 = none)
  std::array<uint32_t, 3> reqntid{0, 0, 0};      // __block_size__ / reqntid (0 = none)
  int maxreg = 0;                                 // register cap (0 = none; nvcc writes 0xff for none)
  uint32_t frame = 0;                             // local memory a thread: stack frame and spills
  uint32_t min_stack = 0;
  std::array<uint32_t, 3> cluster{0, 0, 0};  // __cluster_dims__ (0 = none)
  bool explicit_cluster = false;
  uint32_t cluster_rank = 0;  // __launch_bounds__' third argument (0 = none)
  int barriers = 0;
  uint32_t params = 0;  // parameter bytes (PARAM_CBANK size)

  uint32_t bound() const;          // max threads a block the kernel was compiled for (1024 when none)
  uint32_t cluster_size() const;   // product of cluster dims (0 when none)
};

struct Cubin {
  std::string file;   // where it came from (path, plus fatbin entry)
  int sm = 0;         // 80, 86, 90 ...
  bool accel = false; // sm_90a-style target (.nv.compat attribute 9)
  int abi = 0;        // EI_ABIVERSION: 8 = SM in e_flags bits 8-15, older = bits 0-7
  int release_major = 0, release_minor = 0;  // toolkit release (0.0 when the image names none)
  std::string tool;   // tkinfo's tool version text, when present
  std::vector<KernelUsage> kernels;
  std::string release() const;  // "13.0", or "" when unknown
};

// The SM an ELF cubin is for, from e_flags in either ABI layout; throws when it is not a cubin.
int cubin_sm(const ElfFile& elf);
// Reads a cubin's kernels; throws FormatError naming the file on anything malformed.
Cubin read_cubin(const ElfFile& elf);

// Demangles an Itanium name and drops its return type and parameter list; returns the input when it
// is not a mangled name.
std::string kernel_name(const std::string& mangled);

}  // namespace kc::limits

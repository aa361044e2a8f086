// Per-SM limits gate 5 audits CUDA launches against. The numbers live in limits/chips/cuda.tsv (a
// source on every row); the build compiles that file in, and a table can also be read at run time.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace kc::limits {

struct CudaChip {
  std::string name;  // sm_90
  int sm = 0;        // 90
  uint32_t threads_block = 0, threads_sm = 0, blocks_sm = 0;
  uint32_t regs_block = 0, regs_sm = 0, regs_thread = 0, reg_unit = 0, warp_round = 0;
  uint64_t smem_sm = 0, smem_optin = 0, smem_default = 0, smem_reserved = 0;
  bool clusters = false;
  uint32_t cluster_portable = 0, cluster_max = 0;
  std::string source;
};

// Parses a table in cuda.tsv's format; throws kc::limits::FormatError naming `name` and the line.
std::vector<CudaChip> parse_cuda_chips(const std::string& text, const std::string& name);
// The table compiled into this build (limits/chips/cuda.tsv).
const std::vector<CudaChip>& cuda_chips();
const CudaChip* find_cuda_chip(const std::vector<CudaChip>& chips, int sm);

}  // namespace kc::limits

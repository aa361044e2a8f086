#include "kc/limits/chips.hpp"

#include "kc/limits/error.hpp"
#include "kc/limits/text.hpp"

namespace kc::limits {

extern const char* const kCudaChipsTsv;  // generated from chips/cuda.tsv (chips_data.cpp)

std::vector<CudaChip> parse_cuda_chips(const std::string& text, const std::string& name) {
  std::vector<CudaChip> out;
  for_each_row(text, name, [&](const std::string& where, const std::vector<std::string>& cols) {
    if (cols.size() < 17) throw FormatError(where, "chip row has " + std::to_string(cols.size()) + " columns, want 16 and a source");
    CudaChip c;
    c.name = cols[0];
    if (c.name.rfind("sm_", 0) != 0) throw FormatError(where, "chip name '" + c.name + "' is not sm_<n>");
    c.sm = static_cast<int>(parse_uint(c.name.substr(3), where, "SM number"));
    uint64_t* u64s[] = {&c.smem_sm, &c.smem_optin, &c.smem_default, &c.smem_reserved};
    uint32_t* u32s[] = {&c.threads_block, &c.threads_sm, &c.blocks_sm, &c.regs_block, &c.regs_sm, &c.regs_thread, &c.reg_unit, &c.warp_round};
    const char* names[] = {"threads_block", "threads_sm", "blocks_sm", "regs_block", "regs_sm", "regs_thread", "reg_unit", "warp_round"};
    for (int i = 0; i < 8; ++i) *u32s[i] = static_cast<uint32_t>(parse_uint(cols[1 + i], where, names[i]));
    const char* snames[] = {"smem_sm", "smem_optin", "smem_default", "smem_reserved"};
    for (int i = 0; i < 4; ++i) *u64s[i] = parse_uint(cols[9 + i], where, snames[i]);
    if (cols[13] != "yes" && cols[13] != "no") throw FormatError(where, "clusters column is '" + cols[13] + "', want yes or no");
    c.clusters = cols[13] == "yes";
    c.cluster_portable = static_cast<uint32_t>(parse_uint(cols[14], where, "cluster_portable"));
    c.cluster_max = static_cast<uint32_t>(parse_uint(cols[15], where, "cluster_max"));
    c.source = join_from(cols, 16);
    if (c.reg_unit == 0 || c.warp_round == 0) throw FormatError(where, "reg_unit and warp_round must be positive");
    if (c.smem_optin + c.smem_reserved > c.smem_sm) throw FormatError(where, "smem_optin + smem_reserved is more than smem_sm");
    out.push_back(std::move(c));
  });
  if (out.empty()) throw FormatError(name, "no chip rows");
  return out;
}

const std::vector<CudaChip>& cuda_chips() {
  static const std::vector<CudaChip> chips = parse_cuda_chips(kCudaChipsTsv, "limits/chips/cuda.tsv");
  return chips;
}

const CudaChip* find_cuda_chip(const std::vector<CudaChip>& chips, int sm) {
  for (const auto& c : chips)
    if (c.sm == sm) return &c;
  return nullptr;
}

}  // namespace kc::limits

// Gate 5 for Intel XPU: the card rows, the records of each launch's kernel in ocloc's zebins
// (RECORD lines), reading a zebin's .ze_info through the shared ELF reader, and the check of one
// launch on one card. Level Zero does not report a kernel's GRF mode, so a launch states it and the
// audit fails a launch whose mode is not the zebin's grf_count.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kc/audit.hpp"
#include "kc/limits/launches.hpp"
#include "ze_info.hpp"

namespace kc::limits::xpu {

struct IntelCard {
  std::string name;
  uint32_t wg = 0;
  uint64_t slm = 0;
  uint32_t eus = 0, thr128 = 0, thr256 = 0;
  std::vector<uint32_t> sgs;
  std::string source;
  // Work-items a work-group of SIMD width `simd` can hold: one Xe-core's threads at that GRF mode.
  uint32_t max_wg(uint32_t simd, uint32_t grf) const;
};
std::vector<IntelCard> parse_intel_cards(const std::string& text, const std::string& name);
const std::vector<IntelCard>& intel_cards();  // limits/xpu/intel_cards.tsv, compiled in

// RECORD xpu <launch> <card> symbol=<s> image=<i> simd=N grf=N slm=N reqd_wg=XxYxZ private=N spill=N barriers=N
struct XpuRecord {
  std::string launch, card, symbol, image;
  uint32_t simd = 0, grf = 0, slm = 0, barriers = 0;
  std::array<uint32_t, 3> reqd_wg{0, 0, 0};
  uint64_t private_bytes = 0, spill_bytes = 0;
  bool operator==(const XpuRecord&) const = default;
};
XpuRecord record_of(const std::string& launch, const ZeKernel& k, const std::string& card, const std::string& image);
std::string record_line(const XpuRecord& r);
std::vector<XpuRecord> parse_records(const std::string& text, const std::string& name);

// A zebin: ET_REL, e_machine 205 (EM_INTELGT), its .ze_info section (sh_type 0xff000011).
struct Zebin {
  std::string path, image, card;
  std::vector<ZeKernel> kernels;
};
Zebin read_zebin(const std::string& path);
// "controls.xpu.grf_mismatch.grf256_acm-g10.zebin" -> image "controls.xpu.grf_mismatch.grf256", card "acm-g10".
void image_and_card(const std::string& path, std::string& image, std::string& card);

// A declared launch: `xpu launch symbol wg_size slm_bytes flags`, flags sg=<8|16|32>, grf=<128|256>
// (both required), spill=<bytes> accepted, control=<kind>.
struct XpuLaunch {
  std::string name, symbol, where, control;
  uint32_t wg = 0, sg = 0, grf = 0;
  uint64_t slm = 0, spill_budget = 0;
};
std::vector<XpuLaunch> xpu_launches(const std::vector<LaunchRow>& rows);

struct XpuCheck {
  bool problem = false;
  std::vector<std::string> kinds;  // wg, reqd_wg, slm, sg, grf, spill
  std::string message;
};
XpuCheck check_launch(const XpuLaunch& l, const XpuRecord& r, const IntelCard& card);

std::vector<std::string> find_zebins(const std::vector<std::string>& paths);
std::vector<XpuRecord> derive_records(const std::vector<XpuLaunch>& launches, const std::vector<Zebin>& bins,
                                      std::vector<std::string>& errors);
kc::AuditResult audit_xpu(const std::vector<XpuLaunch>& launches, const std::vector<XpuRecord>& stored,
                          const std::vector<Zebin>* bins, const std::string& only, const std::string& records_name);
std::string default_records_dir();
std::string default_zebin_dir();
std::unique_ptr<kc::Auditor> make_xpu_auditor();

}  // namespace kc::limits::xpu

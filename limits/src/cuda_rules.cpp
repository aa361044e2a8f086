// The CUDA audit's rules: one launch's usage on one chip against the chip's limits, and the RECORD
// line that usage is kept as (limits/README.md, "The CUDA audit").
#include <algorithm>
#include <sstream>

#include "kc/limits/cuda_audit.hpp"

namespace kc::limits {

namespace {

std::string dims(const std::array<uint32_t, 3>& d) {
  if (!d[0] && !d[1] && !d[2]) return "none";
  return std::to_string(d[0]) + "x" + std::to_string(d[1]) + "x" + std::to_string(d[2]);
}

uint64_t round_up(uint64_t v, uint64_t unit) { return (v + unit - 1) / unit * unit; }

}  // namespace

std::string record_line(const std::string& launch, const std::string& chip, const KernelUsage& k) {
  std::ostringstream o;
  o << "RECORD cuda " << launch << " " << chip << " regs=" << k.regs << " shared=" << k.shared
    << " bound=" << k.bound() << " maxreg=" << k.maxreg << " frame=" << k.frame << " stack=" << k.min_stack
    << " cluster=" << dims(k.cluster) << " rank=" << k.cluster_rank << " barriers=" << k.barriers
    << " params=" << k.params << " symbol=" << k.symbol;
  return o.str();
}

std::string check_limits(const Launch& l, const CudaChip& c, const KernelUsage& k, std::vector<std::string>& kinds) {
  std::vector<std::string> bad, ok;
  auto fail = [&](const char* kind, const std::string& what) {
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
    bad.push_back(std::string(kind) + ": " + what);
  };
  const uint64_t t = l.threads;
  // Threads a block: the chip's maximum and the kernel's compiled bound.
  if (t > c.threads_block) fail("bounds", "threads " + std::to_string(t) + " > " + std::to_string(c.threads_block) + " a block");
  if (t > k.bound()) fail("bounds", "threads " + std::to_string(t) + " > the kernel's bound " + std::to_string(k.bound()) + " (__launch_bounds__)");
  const uint64_t req = uint64_t{k.reqntid[0]} * k.reqntid[1] * k.reqntid[2];
  if (req && t != req) fail("bounds", "threads " + std::to_string(t) + " != the required block size " + dims(k.reqntid));
  ok.push_back("threads " + std::to_string(t) + "/" + std::to_string(std::min<uint32_t>(k.bound(), c.threads_block)));

  // Registers: allocated per warp in units of reg_unit; the block's warps rounded up to warp_round
  // (cuda_occupancy.h's hardware check).
  const uint64_t per_warp = round_up(uint64_t(k.regs) * 32, c.reg_unit);
  const uint64_t warps = (t + 31) / 32, warps_r = round_up(warps, c.warp_round);
  const uint64_t need = per_warp * warps_r;
  if (uint32_t(k.regs) > c.regs_thread) fail("regs", "regs " + std::to_string(k.regs) + " > " + std::to_string(c.regs_thread) + " a thread");
  if (need > c.regs_block)
    fail("regs", "regs " + std::to_string(k.regs) + " a thread -> " + std::to_string(per_warp) + " a warp x " + std::to_string(warps_r) +
                     " warps = " + std::to_string(need) + " > " + std::to_string(c.regs_block) + " a block");
  ok.push_back("regs " + std::to_string(k.regs) + " -> " + std::to_string(need) + "/" + std::to_string(c.regs_block));

  // Shared: static + dynamic, plus the reserved 1 KiB a block, within the SM's shared memory
  // (equivalently static + dynamic <= the opt-in maximum a block); past 48 KiB only with optin.
  const uint64_t total = k.shared + l.dyn_smem;
  if (total + c.smem_reserved > c.smem_sm)
    fail("smem", "shared " + std::to_string(k.shared) + " static + " + std::to_string(l.dyn_smem) + " dynamic + " +
                     std::to_string(c.smem_reserved) + " reserved = " + std::to_string(total + c.smem_reserved) + " > " +
                     std::to_string(c.smem_sm) + " (opt-in max " + std::to_string(c.smem_optin) + " a block)");
  if (!l.optin && total > c.smem_default)
    fail("smem", "shared " + std::to_string(total) + " > " + std::to_string(c.smem_default) + " without optin");
  if (k.shared > c.smem_default)
    fail("smem", "static shared " + std::to_string(k.shared) + " > " + std::to_string(c.smem_default));
  ok.push_back("shared " + std::to_string(k.shared) + "+" + std::to_string(l.dyn_smem) + "+" + std::to_string(c.smem_reserved) + "/" +
               std::to_string(l.optin ? c.smem_sm : c.smem_default + c.smem_reserved));

  // Clusters: from sm_90 only; portable up to cluster_portable, non-portable (declared) up to
  // cluster_max; the compiled __cluster_dims__ and cluster rank must agree with the launch.
  const uint32_t compiled = k.cluster_size();
  if ((l.cluster > 1 || compiled > 1) && !c.clusters)
    fail("cluster", "cluster " + std::to_string(std::max(l.cluster, compiled)) + " on " + c.name + ", which has no clusters");
  if (c.clusters) {
    if (l.cluster > c.cluster_portable && !l.nonportable)
      fail("cluster", "cluster " + std::to_string(l.cluster) + " > portable " + std::to_string(c.cluster_portable) + " without nonportable");
    if (l.cluster > c.cluster_max)
      fail("cluster", "cluster " + std::to_string(l.cluster) + " > " + std::to_string(c.cluster_max) + " on " + c.name);
  }
  if (compiled && compiled != l.cluster)
    fail("cluster", "launch cluster " + std::to_string(l.cluster) + " but the kernel is compiled for __cluster_dims__ " + dims(k.cluster));
  if (k.cluster_rank && l.cluster > k.cluster_rank)
    fail("cluster", "cluster " + std::to_string(l.cluster) + " > the kernel's max cluster rank " + std::to_string(k.cluster_rank));
  ok.push_back("cluster " + std::to_string(l.cluster));

  // Local memory a thread (stack frame, spills) above the declared budget.
  if (k.frame > l.frame)
    fail("frame", "frame " + std::to_string(k.frame) + " bytes > budget " + std::to_string(l.frame) + " (frame=<bytes>)");
  ok.push_back("frame " + std::to_string(k.frame) + "/" + std::to_string(l.frame));

  std::string msg;
  if (bad.empty()) {
    msg = "ok:";
    for (size_t i = 0; i < ok.size(); ++i) msg += (i ? ", " : " ") + ok[i];
  } else {
    for (size_t i = 0; i < bad.size(); ++i) msg += (i ? "; " : "") + bad[i];
  }
  return msg;
}

}  // namespace kc::limits

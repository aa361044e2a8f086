// The .ze_info reader pinned to what the fixture's source forces (required work-group and sub-group
// size, an SLM array, a private array, 128 vs 256 GRF builds of one source), malformed YAML, the
// card row, and the XPU audit with its GRF control on this build's zebins.
#include <gtest/gtest.h>

#include <fstream>

#include "test_env.hpp"
#include "kc/limits/error.hpp"
#include "xpu/xpu_audit.hpp"

using namespace kc::limits;
using namespace kc::limits::xpu;

namespace {
const ZeKernel& kernel(const Zebin& z, const std::string& n) {
  for (const auto& k : z.kernels)
    if (k.name == n) return k;
  throw std::runtime_error("no kernel " + n + " in " + z.path);
}
std::string fx(const char* f) { return kc_test::env_dir("KC_FX_DIR") + "/" + f; }
}  // namespace

TEST(ZeInfo, ForcedByTheSource) {
  Zebin z = read_zebin(fx("forced_acm-g10.zebin"));
  EXPECT_EQ(z.card, "acm-g10");
  const ZeKernel& wg = kernel(z, "kc_fx_wg");
  EXPECT_EQ(wg.required_wg, (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(wg.reqd_sub_group, 16u);
  EXPECT_EQ(wg.simd, 16u);
  EXPECT_EQ(kernel(z, "kc_fx_slm").slm, 12288u);
  EXPECT_EQ(kernel(z, "kc_fx_wg").slm, 0u);
  EXPECT_GE(kernel(z, "kc_fx_private").private_bytes, 512u * 4u);
  for (const auto& k : z.kernels) EXPECT_EQ(k.grf, 128u) << k.name;
}

TEST(ZeInfo, LargeGrfBuild) {
  Zebin z = read_zebin(fx("forced256_acm-g10.zebin"));
  for (const auto& k : z.kernels) EXPECT_EQ(k.grf, 256u) << k.name;
}

TEST(ZeInfo, MalformedYamlGivesClearErrors) {
  auto err = [](const std::string& text) -> std::string {
    try {
      parse_ze_info(text, "z.bin");
    } catch (const FormatError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(err("kernels:\n\t- name: a\n").find("line 2: a tab"), std::string::npos);
  EXPECT_NE(err("kernels:\n  - name: a\n    execution_env:\n      simd_size: 16\n").find("no grf_count"), std::string::npos);
  EXPECT_NE(err("kernels:\n  - name: a\n    execution_env: { simd_size: 16 }\n").find("flow maps"), std::string::npos);
  EXPECT_NE(err("kernels:\n  - name: a\n    execution_env:\n      simd_size: 16\n      grf_count: 128\n      required_work_group_size: [ 1, 2\n").find("without its"), std::string::npos);
  EXPECT_NE(err("a: 1\na: 2\n").find("duplicate key"), std::string::npos);
  EXPECT_NE(err("kernels:\n  - name: a\n    execution_env:\n      simd_size: 12\n      grf_count: 128\n").find("simd_size = 12"), std::string::npos);
  EXPECT_NE(err("").find("no YAML content"), std::string::npos);
  EXPECT_NE(err("x: 'open\n").find("closing quote"), std::string::npos);
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += std::string(size_t(i) * 2, ' ') + "k:\n";
  EXPECT_NE(err(deep).find("nested deeper"), std::string::npos);
  // Not a zebin at all, and a zebin-shaped ELF without .ze_info.
  const std::string p = testing::TempDir() + "/x_acm-g10.zebin";
  std::ofstream(p) << "not an elf";
  EXPECT_THROW(read_zebin(p), FormatError);
  for (const char* f : {"bad/noze_acm-g10.zebin", "bad/short_acm-g10.zebin"}) {
    try {
      read_zebin(fx(f));
      ADD_FAILURE() << f << " was read";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    }
  }
  try {
    read_zebin(fx("bad/noze_acm-g10.zebin"));
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("no .ze_info section"), std::string::npos) << e.what();
  }
}

TEST(XpuCard, MaxWorkGroupFollowsGrf) {
  const IntelCard& c = intel_cards().at(0);
  EXPECT_EQ(c.max_wg(8, 128), 1024u);   // 8 x 8 threads x 16 EUs
  EXPECT_EQ(c.max_wg(8, 256), 512u);    // 256 GRF halves the threads an EU
  EXPECT_EQ(c.max_wg(16, 256), 1024u);
  EXPECT_FALSE(c.source.empty());
}

TEST(XpuAudit, GrfModeMustBeTheZebins) {
  XpuRecord r;
  r.simd = 16, r.grf = 256, r.slm = 1024;
  XpuLaunch l;
  l.wg = 256, l.sg = 16, l.grf = 256;
  const IntelCard& c = intel_cards().at(0);
  EXPECT_FALSE(check_launch(l, r, c).problem) << check_launch(l, r, c).message;
  l.grf = 128;
  auto k = check_launch(l, r, c);
  ASSERT_EQ(k.kinds.size(), 1u);
  EXPECT_EQ(k.kinds[0], "grf");
  l.grf = 256, l.sg = 32;
  EXPECT_TRUE(check_launch(l, r, c).problem);  // sub-group is the zebin's SIMD width
  l.sg = 16, l.slm = 65536;
  EXPECT_TRUE(check_launch(l, r, c).problem);  // SLM over 64 KiB
  l.slm = 0, r.simd = 8, r.grf = 256, l.sg = 8, l.wg = 1024;
  EXPECT_TRUE(check_launch(l, r, c).problem);  // SIMD8 at 256 GRF holds 512
  r.reqd_wg = {128, 1, 1}, r.simd = 16, l.sg = 16, l.wg = 256;
  EXPECT_TRUE(check_launch(l, r, c).problem);  // not the required work-group size
}

TEST(XpuAudit, ThisBuildsControlIsRed) {
  auto a = make_xpu_auditor();
  kc::AuditResult r = a->audit({});
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  int red = 0, controls = 0;
  for (const auto& l : r.lines) {
    if (l.control) ++controls, red += l.problem;
    else EXPECT_FALSE(l.problem) << l.launch << ": " << l.message;
  }
  EXPECT_GE(controls, 1);
  EXPECT_EQ(red, controls);
}

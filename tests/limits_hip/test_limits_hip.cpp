// The NT_AMDGPU_METADATA reader pinned to what the fixtures' sources force (a bound, an LDS array, a
// spilling kernel, wave64), malformed input, the chip rows against LLVM's own occupancy, and the HIP
// audit with its controls on this build's code objects.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "test_env.hpp"
#include "hip/hip_audit.hpp"
#include "hip/hip_auditor.hpp"
#include "kc/limits/error.hpp"

using namespace kc::limits;
using namespace kc::limits::hip;

namespace {
const AmdKernel& kernel(const CodeObject& co, const std::string& name) {
  for (const auto& k : co.kernels)
    if (k.name == name) return k;
  throw std::runtime_error("no kernel " + name + " in " + co.path);
}
std::string fx(const char* f) { return kc_test::env_dir("KC_FX_DIR") + "/" + f; }
}  // namespace

TEST(HipReader, ForcedBoundLdsSpill) {
  CodeObject co = read_code_object(fx("forced_gfx1100.co"));
  EXPECT_EQ(co.chip, "gfx1100");
  EXPECT_EQ(co.e_flags_mach, 0x41u);  // binary-formats.md §4
  EXPECT_EQ(co.compiler, "clang-19");
  EXPECT_EQ(kernel(co, "kc_fx_bound").bound, 128u);    // __launch_bounds__(128)
  EXPECT_EQ(kernel(co, "kc_fx_lds").bound, 1024u);     // none: the default
  EXPECT_EQ(kernel(co, "kc_fx_lds").lds, 12288u);      // float[3072]
  EXPECT_EQ(kernel(co, "kc_fx_bound").lds, 0u);
  const AmdKernel& s = kernel(co, "kc_fx_spill");
  EXPECT_LE(s.vgprs, 16u);  // amdgpu_num_vgpr(16)
  EXPECT_GT(s.vgpr_spills, 0u);
  EXPECT_GT(s.scratch, 0u);
  EXPECT_EQ(s.wave, 32u);
  EXPECT_EQ(read_code_object(fx("forced_gfx1030.co")).e_flags_mach, 0x36u);
}

// Every served chip's code object says its chip in e_flags and in the note (binary-formats.md §4).
TEST(HipReader, EveryServedChip) {
  const std::pair<const char*, uint32_t> chips[] = {{"gfx1030", 0x36}, {"gfx1100", 0x41}, {"gfx1151", 0x4A}, {"gfx1201", 0x4E}};
  for (auto [chip, mach] : chips) {
    CodeObject co = read_code_object(default_objects_dir() + "/controls.hip.limits_bound_" + chip + ".co");
    EXPECT_EQ(co.chip, chip);
    EXPECT_EQ(co.e_flags_mach, mach) << chip;
    EXPECT_EQ(kernel(co, "kc_ctl_hip_past_bound").bound, 256u) << chip;
    EXPECT_EQ(kernel(co, "kc_ctl_hip_past_bound").wave, 32u) << chip;
  }
}

TEST(HipReader, Wave64Build) {
  CodeObject co = read_code_object(fx("forced_w64_gfx1100.co"));
  for (const auto& k : co.kernels) EXPECT_EQ(k.wave, 64u) << k.name;
}

TEST(HipReader, MalformedNotesGiveClearErrors) {
  const uint8_t not_map[] = {0x93, 0x01, 0x02, 0x03};  // a msgpack array
  EXPECT_THROW(parse_amdgpu_metadata(not_map, "x.co"), FormatError);
  const uint8_t truncated[] = {0x82, 0xad};
  try {
    parse_amdgpu_metadata(truncated, "x.co");
    FAIL() << "a truncated note was accepted";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("x.co: NT_AMDGPU_METADATA"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_amdgpu_metadata({}, "x.co"), FormatError);
  // A file that is not a code object at all.
  const std::string p = testing::TempDir() + "/not_elf.co";
  std::ofstream(p) << "hello";
  EXPECT_THROW(read_code_object(p), FormatError);
  EXPECT_THROW(read_code_object(testing::TempDir() + "/missing.co"), FormatError);
  // A real code object without its note, and one cut short: errors naming the file.
  for (const char* f : {"bad/nonote_gfx1100.co", "bad/short_gfx1100.co"}) {
    try {
      read_code_object(fx(f));
      ADD_FAILURE() << f << " was read";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
    }
  }
  try {
    read_code_object(fx("bad/nonote_gfx1100.co"));
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("no NT_AMDGPU_METADATA note"), std::string::npos) << e.what();
  }
}

TEST(HipReader, BaseNames) {
  EXPECT_EQ(base_name("kc_x"), "kc_x");
  EXPECT_EQ(base_name("_Z12kc_topk_bf16ILi1EEvPK5kc_u4PiPtii"), "kc_topk_bf16");
  EXPECT_EQ(base_name("_ZN2kc2cu4nameEv"), "kc::cu::name");
  EXPECT_EQ(base_name("_Z999x"), "");
  EXPECT_EQ(template_id("_Z12kc_gemv_bf16ILi1ELi4EDF16bLN2kc8dense_cu5FaultE0EEvPK5uint4S5_PT1_iii"),
            "kc_gemv_bf16<1, 4, __bf16, (kc::dense_cu::Fault)0>");
  EXPECT_EQ(template_id("_Z19kc_gemv_bf16_slicesILi1ELi4EEvPK5uint4S2_Pfiii"), "kc_gemv_bf16_slices<1, 4>");
  EXPECT_EQ(template_id("_Z4kc_xPf"), "");  // not a template
  EXPECT_EQ(template_id("kc_x"), "");
  EXPECT_EQ(template_id("_Zgarbage"), "");
}

// The chip rows against LLVM 19's own occupancy: 97 VGPRs give 9 waves a SIMD on gfx1030, 12 on
// the 1536-VGPR chips (binary-formats.md §4): min(16, total / alignTo(97, granule)).
TEST(HipChips, OccupancyMatchesLlvm) {
  auto occ = [](const char* n) {
    const AmdChip* c = find_amd_chip(n);
    const uint32_t alloc = (97 + c->gran32 - 1) / c->gran32 * c->gran32;
    return std::min(c->waves, c->vgpr32 / alloc);
  };
  EXPECT_EQ(occ("gfx1030"), 9u);
  for (const char* n : {"gfx1100", "gfx1151", "gfx1201"}) EXPECT_EQ(occ(n), 12u) << n;
  for (const auto& c : amd_chips()) EXPECT_FALSE(c.source.empty()) << c.name;
}

// The chip rows against the compiler itself: for each chip, LLVM's occupancy remark for a kernel of
// 97 VGPRs and no LDS equals min(waves, VGPRs a SIMD / VGPRs rounded to the granule) from the table.
TEST(HipChips, OccupancyMatchesTheCompilersRemark) {
  for (const auto& chip : amd_chips()) {
    std::ifstream in(fx(("occupancy_" + chip.name + ".remarks").c_str()));
    ASSERT_TRUE(in) << "no remarks for " << chip.name;
    std::string line;
    int vgprs = -1, occ = -1;
    while (std::getline(in, line)) {
      auto num = [&](const char* key) {
        size_t p = line.find(key);
        return p == std::string::npos ? -1 : std::atoi(line.c_str() + p + std::strlen(key));
      };
      if (int v = num("remark:     VGPRs: "); v >= 0) vgprs = v;
      if (int o = num("Occupancy [waves/SIMD]: "); o >= 0) occ = o;
    }
    ASSERT_GT(vgprs, 0) << chip.name;
    ASSERT_GT(occ, 0) << chip.name;
    CodeObject co = read_code_object(fx(("occupancy_" + chip.name + ".co").c_str()));
    EXPECT_EQ(kernel(co, "kc_fx_v97").vgprs, uint32_t(vgprs)) << chip.name;  // the reader agrees with the remark
    const uint32_t alloc = (uint32_t(vgprs) + chip.gran32 - 1) / chip.gran32 * chip.gran32;
    EXPECT_EQ(std::min(chip.waves, chip.vgpr32 / alloc), uint32_t(occ)) << chip.name << ": " << vgprs << " VGPRs";
  }
}

TEST(HipAudit, ChecksEachLimit) {
  const AmdChip& chip = *find_amd_chip("gfx1100");
  HipRecord r;
  r.vgprs = 10, r.sgprs = 18, r.lds = 40960, r.bound = 256, r.wave = 32;
  HipLaunch l;
  l.threads = 256;
  EXPECT_FALSE(check_launch(l, r, chip).problem);
  l.threads = 512;
  EXPECT_TRUE(check_launch(l, r, chip).problem);  // past the bound
  l.threads = 256, l.dyn_lds = 32768;
  auto c = check_launch(l, r, chip);
  ASSERT_EQ(c.kinds.size(), 1u);
  EXPECT_EQ(c.kinds[0], "lds");
  // 1024 threads = 32 waves, 8 a SIMD: 8 x 192 = 1536 fits exactly; 193 VGPRs (216 rounded) do not.
  r.lds = 0, r.bound = 1024, r.vgprs = 192;
  l.threads = 1024, l.dyn_lds = 0;
  EXPECT_FALSE(check_launch(l, r, chip).problem) << check_launch(l, r, chip).message;
  r.vgprs = 193;
  EXPECT_TRUE(check_launch(l, r, chip).problem);
  r.vgprs = 10, r.scratch = 64;
  EXPECT_TRUE(check_launch(l, r, chip).problem);  // scratch beyond the declared 0
  l.scratch_budget = 64;
  EXPECT_FALSE(check_launch(l, r, chip).problem);
}

TEST(HipAudit, ThisBuildsLaunchesAndControls) {
  auto a = make_hip_auditor();
  kc::AuditResult r = a->audit({});
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  int controls = 0, red = 0, served = 0;
  for (const auto& l : r.lines) {
    if (l.control) {
      ++controls;
      red += l.problem;
      EXPECT_TRUE(l.problem) << l.launch << " " << l.chip << ": " << l.message;
    } else {
      ++served;
      EXPECT_FALSE(l.problem) << l.launch << " " << l.chip << ": " << l.message;
    }
  }
  EXPECT_EQ(controls, 8);  // 2 controls x 4 chips
  EXPECT_EQ(red, 8);
  EXPECT_GT(served, 0);
}

TEST(HipAudit, StaleRecordIsAnError) {
  std::vector<HipLaunch> launches(1);
  launches[0].name = "t", launches[0].symbol = "kc_fx_bound", launches[0].threads = 64;
  std::vector<CodeObject> objs{read_code_object(fx("forced_gfx1100.co"))};
  std::vector<std::string> errs;
  auto recs = derive_records(launches, objs, errs);
  ASSERT_EQ(recs.size(), 1u);
  auto count = [](const kc::AuditResult& r, const char* what) {
    int n = 0;
    for (const auto& e : r.errors) n += e.find(what) != std::string::npos;
    return n;
  };
  // The other chips have no record here (only a gfx1100 object was read): those lines are errors too.
  auto fresh = audit_hip(launches, recs, &objs, "", "x.txt");
  EXPECT_EQ(count(fresh, "stale record"), 0);
  EXPECT_EQ(count(fresh, "missing record"), 0);
  EXPECT_EQ(count(fresh, "no record on gfx1100"), 0);
  EXPECT_EQ(count(fresh, "no record on gfx1030"), 1);
  recs[0].vgprs += 1;
  EXPECT_EQ(count(audit_hip(launches, recs, &objs, "", "x.txt"), "stale record"), 1);
  EXPECT_EQ(count(audit_hip(launches, {}, &objs, "", "x.txt"), "missing record"), 1);
  EXPECT_THROW(parse_records("RECORD hip a gfx1100 symbol=x\n", "r.txt"), FormatError);
}

// Metal's gate 5: chip rows, launch rows (each records its pipeline's M1/M2 limit), the audit, and the
// controls (1,024 threads where M1/M2 compile for 512; 36 KiB of threadgroup memory).
#include <gtest/gtest.h>

#include "kc/limits/error.hpp"
#include "metal/metal_audit.hpp"

using namespace kc::limits;
using namespace kc::limits::metal;

namespace {
std::vector<MetalLaunch> parse(const std::string& text) { return metal_launches(parse_launch_rows(text, "t.tsv")); }
}  // namespace

TEST(MetalChips, RowsM1ToM5WithSources) {
  std::vector<std::string> names;
  for (const auto& c : apple_chips()) {
    names.push_back(c.name);
    EXPECT_FALSE(c.source.empty()) << c.name;
    EXPECT_EQ(c.threads, 1024u) << c.name;
    EXPECT_EQ(c.tg, 32768u) << c.name;
    EXPECT_EQ(c.pipeline_limit, c.name == "M1" || c.name == "M2") << c.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"M1", "M2", "M3", "M4", "M5"}));
}

TEST(MetalLaunches, RowsAreStrict) {
  EXPECT_THROW(parse("metal a p 256 0 -\n"), FormatError);  // no M1/M2 limit recorded
  EXPECT_THROW(parse("metal a p 256 0 m1m2=2048\n"), FormatError);
  EXPECT_THROW(parse("metal a p 256 0 m1m2=512,bogus\n"), FormatError);
  EXPECT_THROW(parse("metal a p 256 m1m2=512\n"), FormatError);  // 5 columns
  EXPECT_THROW(parse("metal a p 256 0 m1m2=512\nmetal a q 64 0 sized\n"), FormatError);  // twice
  auto l = parse("metal a p 256 1024 m1m2=512\nmetal b q 64 0 sized\ncuda x y 1 0 1 -\n");
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[0].m1m2, 512u);
  EXPECT_TRUE(l[1].sized);
  EXPECT_EQ(record_line(l[0]), "RECORD metal a pipeline=p threads=256 tg=1024 m1m2=512");
}

TEST(MetalAudit, M1M2LimitOnlyOnM1M2) {
  auto l = parse("metal a p 768 0 m1m2=512\n");
  auto r = audit_metal(l, "");
  ASSERT_EQ(r.lines.size(), 5u);
  for (const auto& line : r.lines) EXPECT_EQ(line.problem, line.chip == "M1" || line.chip == "M2") << line.message;
  auto ok = audit_metal(parse("metal a p 512 32768 m1m2=512\n"), "");
  for (const auto& line : ok.lines) EXPECT_FALSE(line.problem) << line.chip << ": " << line.message;
  auto over = audit_metal(parse("metal a p 64 32769 reserved\n"), "");
  for (const auto& line : over.lines) EXPECT_TRUE(line.problem) << line.chip;
}

TEST(MetalAudit, ThisBuildsControlsAreRed) {
  auto a = make_metal_auditor();
  kc::AuditResult r = a->audit({});
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  int m1m2 = 0, tg = 0;
  for (const auto& l : r.lines) {
    if (!l.control) {
      EXPECT_FALSE(l.problem) << l.launch << " " << l.chip << ": " << l.message;
      continue;
    }
    EXPECT_TRUE(l.problem) << l.launch << " " << l.chip << ": " << l.message;
    if (l.launch == "ctl_metal_past_m1m2") ++m1m2;
    if (l.launch == "ctl_metal_tg_36k") ++tg;
  }
  EXPECT_EQ(m1m2, 2);  // red on M1 and M2, where the pipeline compiles for 512
  EXPECT_EQ(tg, 5);    // red on every chip
}

// Gate 5 (CUDA) without compiled fixtures: the chip table, launches.tsv, records per release, the
// audit's rules, and hand-built hostile headers.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "kc/limits/chips.hpp"
#include "kc/limits/cuda_audit.hpp"
#include "kc/limits/elf.hpp"
#include "kc/limits/error.hpp"
#include "kc/limits/fatbin.hpp"
#include "kc/limits/launches.hpp"
#include "kc/limits/records.hpp"
#include "kc/limits/text.hpp"

namespace fs = std::filesystem;
using namespace kc::limits;

namespace {

Launch launch(uint64_t threads, uint64_t dyn = 0, uint32_t cluster = 1, std::string flags = "-") {
  return parse_launch(parse_launch_rows("cuda t/x kx " + std::to_string(threads) + " " + std::to_string(dyn) + " " +
                                            std::to_string(cluster) + " " + flags,
                                        "test.tsv")
                          .at(0));
}

KernelUsage usage(int regs, uint64_t shared = 0) {
  KernelUsage k;
  k.symbol = k.name = "kx";
  k.regs = regs;
  k.shared = shared;
  return k;
}

const CudaChip& chip(int sm) {
  const CudaChip* c = find_cuda_chip(cuda_chips(), sm);
  EXPECT_NE(c, nullptr) << "sm_" << sm;
  return *c;
}

std::vector<std::string> kinds(const Launch& l, const CudaChip& c, const KernelUsage& k) {
  std::vector<std::string> v;
  check_limits(l, c, k, v);
  return v;
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST(LimitsChips, EveryServedSmHasASourcedRow) {
  for (int sm : {80, 86, 89, 90, 100, 120, 121}) {
    const CudaChip* c = find_cuda_chip(cuda_chips(), sm);
    ASSERT_NE(c, nullptr) << "sm_" << sm;
    EXPECT_FALSE(c->source.empty());
    EXPECT_EQ(c->threads_block, 1024u);
    EXPECT_EQ(c->regs_block, 65536u);
    EXPECT_EQ(c->smem_reserved, 1024u);
    EXPECT_EQ(c->smem_optin + c->smem_reserved, c->smem_sm);
    EXPECT_EQ(c->clusters, sm >= 90);
  }
  EXPECT_EQ(chip(90).smem_optin, 232448u);  // measured on the H200
  EXPECT_EQ(chip(80).smem_optin, 166912u);  // 163 KiB
  EXPECT_EQ(chip(86).smem_optin, 101376u);  // 99 KiB
}

TEST(LimitsChips, BadTablesNameTheLine) {
  EXPECT_THROW(parse_cuda_chips("sm_90 1024 2048\n", "t.tsv"), FormatError);
  try {
    parse_cuda_chips("# c\nsm_90 1024 2048 32 65536 65536 255 256 4 233472 232448 49152 1024 maybe 8 16 src\n", "t.tsv");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("t.tsv:2"), std::string::npos) << e.what();
  }
  // A row without its source is refused.
  EXPECT_THROW(parse_cuda_chips("sm_90 1024 2048 32 65536 65536 255 256 4 233472 232448 49152 1024 yes 8 16\n", "t.tsv"), FormatError);
}

TEST(LimitsLaunches, ParsesRowsFlagsAndSymbolsWithSpaces) {
  auto rows = parse_launch_rows(
      "# comment\n\ncuda rows/a kc::f<__nv_bfloat16, 8> 256 1024 1 optin,frame=64  # trailing\n"
      "hip rows/b kb 64 0 1 -\n",
      "k/launches.tsv");
  ASSERT_EQ(rows.size(), 2u);
  auto a = parse_launch(rows[0]);
  EXPECT_EQ(a.backend, "cuda");
  EXPECT_EQ(a.name, "rows/a");
  EXPECT_EQ(a.symbol, "kc::f<__nv_bfloat16, 8>");
  EXPECT_EQ(a.threads, 256u);
  EXPECT_EQ(a.dyn_smem, 1024u);
  EXPECT_TRUE(a.optin);
  EXPECT_EQ(a.frame, 64u);
  EXPECT_EQ(a.line, 3);
  EXPECT_EQ(rows[1].backend(), "hip");  // other backends' rows are kept as written
  EXPECT_EQ(rows[1].cols.size(), 7u);
  auto c = parse_launch(parse_launch_rows("cuda c/x kx 128 0 16 nonportable,control=cluster\n", "x").at(0));
  EXPECT_TRUE(c.nonportable);
  EXPECT_EQ(c.control, "cluster");
  EXPECT_EQ(c.cluster, 16u);
  EXPECT_EQ(parse_launch(parse_launch_rows("cuda c/y ky 128 0 2 from=90\n", "x").at(0)).from_sm, 90);
  EXPECT_EQ(parse_launch(parse_launch_rows("cuda c/y ky 128 0 2 from=sm_100\n", "x").at(0)).from_sm, 100);
  EXPECT_THROW(parse_launch(parse_launch_rows("cuda c/y ky 128 0 2 from=abc\n", "x").at(0)), FormatError);
}

TEST(LimitsLaunches, BadRowsNameFileAndLine) {
  auto expect_error = [](const std::string& text, const std::string& want) {
    try {
      for (auto& r : parse_launch_rows(text, "k/launches.tsv")) parse_launch(r);
      ADD_FAILURE() << "no error for: " << text;
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  expect_error("cuda a b 256 0 1\n", "k/launches.tsv:1");
  expect_error("\ncuda a b 25x6 0 1 -\n", "k/launches.tsv:2");
  expect_error("cuda a b 0 0 1 -\n", "threads is 0");
  expect_error("cuda a b 32 0 0 -\n", "cluster");
  expect_error("cuda a b 32 0 1 control=\n", "control=");
  expect_error("cuda a b 32 99999999999999999999999 1 -\n", "dyn_smem");
  EXPECT_THROW(find_launch_files({"/nonexistent/kc/launches"}), FormatError);
}

TEST(LimitsRules, ThreadsAgainstTheChipAndTheBound) {
  auto k = usage(16);
  EXPECT_TRUE(kinds(launch(1024), chip(90), k).empty());
  EXPECT_TRUE(has(kinds(launch(1056), chip(90), k), "bounds"));
  k.max_threads = {128, 1, 1};
  EXPECT_TRUE(kinds(launch(128), chip(80), k).empty());
  EXPECT_TRUE(has(kinds(launch(160), chip(80), k), "bounds"));
  k.max_threads = {0, 0, 0};
  k.reqntid = {128, 2, 1};
  EXPECT_TRUE(kinds(launch(256), chip(90), k).empty());
  EXPECT_TRUE(has(kinds(launch(128), chip(90), k), "bounds"));
}

TEST(LimitsRules, RegistersRoundPerWarpAndToFourWarps) {
  // 64 regs x 1024 threads = 65536 exactly: fits.
  EXPECT_TRUE(kinds(launch(1024), chip(90), usage(64)).empty());
  // 65 regs round to 72 a thread (256 a warp): 72 x 32 x 32 warps = 73728 > 65536.
  EXPECT_TRUE(has(kinds(launch(1024), chip(90), usage(65)), "regs"));
  // 80 regs at 800 threads: 25 warps x 2560 = 64000 fits unrounded, but 25 warps round to 28:
  // 71680 > 65536 (cuda_occupancy.h's hardware check).
  EXPECT_TRUE(has(kinds(launch(800), chip(86), usage(80)), "regs"));
  EXPECT_TRUE(kinds(launch(768), chip(86), usage(80)).empty());  // 24 warps: 61440
  // 255 a thread at 256 threads: 256 x 32 x 8 = 65536 fits; 288 threads (9 -> 12 warps) does not.
  EXPECT_TRUE(kinds(launch(256), chip(120), usage(255)).empty());
  EXPECT_TRUE(has(kinds(launch(288), chip(120), usage(255)), "regs"));
}

TEST(LimitsRules, SharedWithReservedAndOptIn) {
  const auto& h = chip(90);
  // 48 KiB static + dynamic without opt-in is the default limit; one byte more needs optin.
  EXPECT_TRUE(kinds(launch(128, 49152 - 4096), h, usage(16, 4096)).empty());
  EXPECT_TRUE(has(kinds(launch(128, 49152 - 4096 + 1), h, usage(16, 4096)), "smem"));
  EXPECT_TRUE(kinds(launch(128, 49152 - 4096 + 1, 1, "optin"), h, usage(16, 4096)).empty());
  // With optin: static + dynamic up to the opt-in maximum (the reserved 1 KiB on top fills the SM).
  EXPECT_TRUE(kinds(launch(128, h.smem_optin, 1, "optin"), h, usage(16)).empty());
  EXPECT_TRUE(has(kinds(launch(128, h.smem_optin + 1, 1, "optin"), h, usage(16)), "smem"));
  EXPECT_TRUE(has(kinds(launch(128, 100 * 1024, 1, "optin"), chip(86), usage(16)), "smem"));
  EXPECT_TRUE(kinds(launch(128, 99 * 1024, 1, "optin"), chip(86), usage(16)).empty());
  EXPECT_TRUE(has(kinds(launch(128, 99 * 1024, 1, "optin"), chip(86), usage(16, 16)), "smem"));
}

TEST(LimitsRules, ClustersFromSm90PortableUpToEight) {
  auto k = usage(16);
  EXPECT_TRUE(has(kinds(launch(128, 0, 2), chip(89), k), "cluster"));
  EXPECT_TRUE(kinds(launch(128, 0, 8), chip(90), k).empty());
  EXPECT_TRUE(has(kinds(launch(128, 0, 16), chip(90), k), "cluster"));
  EXPECT_TRUE(kinds(launch(128, 0, 16, "nonportable"), chip(90), k).empty());
  EXPECT_TRUE(has(kinds(launch(128, 0, 32, "nonportable"), chip(90), k), "cluster"));
  EXPECT_TRUE(has(kinds(launch(128, 0, 16, "nonportable"), chip(120), k), "cluster"));
  k.cluster = {2, 1, 1};
  EXPECT_TRUE(kinds(launch(128, 0, 2), chip(90), k).empty());
  EXPECT_TRUE(has(kinds(launch(128, 0, 4), chip(90), k), "cluster"));  // not the compiled dims
  k.cluster = {0, 0, 0};
  k.cluster_rank = 4;
  EXPECT_TRUE(has(kinds(launch(128, 0, 8), chip(90), k), "cluster"));
}

TEST(LimitsRules, FrameAboveBudget) {
  auto k = usage(32);
  k.frame = 1224;
  EXPECT_TRUE(has(kinds(launch(128), chip(90), k), "frame"));
  EXPECT_TRUE(kinds(launch(128, 0, 1, "frame=1224"), chip(90), k).empty());
  EXPECT_TRUE(has(kinds(launch(128, 0, 1, "frame=1000"), chip(90), k), "frame"));
}

TEST(LimitsRecords, SetsPerReleaseOverlayAndDeltas) {
  const fs::path dir = fs::temp_directory_path() / ("kc_records_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::map<RecordKey, std::string> base = {
      {{"a", "sm_90"}, "RECORD cuda a sm_90 regs=10 symbol=ka"},
      {{"b", "sm_90"}, "RECORD cuda b sm_90 regs=20 symbol=kb"},
  };
  write_record_set(dir.string(), {13, 0}, base, {"a", "b"}, "cmd");
  auto later = base;
  later[{"b", "sm_90"}] = "RECORD cuda b sm_90 regs=22 symbol=kb";
  auto f = write_record_set(dir.string(), {13, 2}, later, {"a", "b"}, "cmd");
  auto sets = read_record_sets(dir.string());
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].lines.size(), 2u);
  ASSERT_EQ(sets[1].lines.size(), 1u);  // only what 13.2 compiles differently
  EXPECT_EQ(sets[1].lines.begin()->second, "RECORD cuda b sm_90 regs=22 symbol=kb");
  EXPECT_EQ(set_for(sets, {13, 1})->release, (Release{13, 0}));
  EXPECT_EQ(set_for(sets, {13, 3})->release, (Release{13, 2}));
  EXPECT_EQ(set_for(sets, {12, 8}), nullptr);
  EXPECT_EQ(effective_records(sets, {13, 1}).at({"b", "sm_90"}), "RECORD cuda b sm_90 regs=20 symbol=kb");
  EXPECT_EQ(effective_records(sets, {13, 9}).at({"b", "sm_90"}), "RECORD cuda b sm_90 regs=22 symbol=kb");
  // Which set each release is checked against, and what the run says about it.
  auto own = choose_set(sets, {13, 2}), between = choose_set(sets, {13, 1}), newer = choose_set(sets, {13, 5});
  EXPECT_TRUE(own.own());
  EXPECT_EQ(own.says(), "its own set nvcc-13.2.txt");
  EXPECT_FALSE(between.own());
  EXPECT_EQ(between.set->release, (Release{13, 0}));
  EXPECT_NE(between.says().find("nvcc-13.0.txt, the newest set below 13.1 (which has none of its own"), std::string::npos) << between.says();
  EXPECT_NE(between.says().find("; nvcc-13.2.txt lies above it)"), std::string::npos) << between.says();
  EXPECT_FALSE(newer.own());
  EXPECT_EQ(newer.above, nullptr);
  EXPECT_NE(newer.says().find("nvcc-13.2.txt, the newest set, below 13.5"), std::string::npos) << newer.says();
  EXPECT_NE(newer.says().find("shows as stale records"), std::string::npos) << newer.says();
  EXPECT_EQ(choose_set(sets, {12, 8}).set, nullptr);
  // A release compiling everything as the sets below it gets no file (and loses an old one).
  EXPECT_EQ(write_record_set(dir.string(), {13, 3}, later, {"a", "b"}, "cmd"), "");
  EXPECT_FALSE(fs::exists(dir / "nvcc-13.3.txt"));
  std::ofstream(dir / "nvcc-13.4.txt") << "RECORD cuda b sm_90 regs=22 symbol=kb\n";
  EXPECT_EQ(write_record_set(dir.string(), {13, 4}, later, {"a", "b"}, "cmd"), "");
  EXPECT_FALSE(fs::exists(dir / "nvcc-13.4.txt"));
  // The compiler's version text goes into the header.
  auto again = later;
  again[{"a", "sm_90"}] = "RECORD cuda a sm_90 regs=12 symbol=ka";
  auto f4 = write_record_set(dir.string(), {13, 4}, again, {"a", "b"}, "cmd", "Cuda compilation tools, release 13.4, V13.4.92");
  std::ifstream in4(f4);
  std::string t4((std::istreambuf_iterator<char>(in4)), std::istreambuf_iterator<char>());
  EXPECT_NE(t4.find("# Read from images of: Cuda compilation tools, release 13.4, V13.4.92\n"), std::string::npos) << t4;
  EXPECT_NE(t4.find("RECORD cuda a sm_90 regs=12 symbol=ka\n"), std::string::npos) << t4;
  EXPECT_EQ(t4.find("regs=22"), std::string::npos) << t4;  // b is as in 13.2's set
  fs::remove(f4);
  // Rewriting the base drops records of launches no longer declared.
  write_record_set(dir.string(), {13, 0}, {{{"a", "sm_90"}, "RECORD cuda a sm_90 regs=10 symbol=ka"}}, {"a"}, "cmd");
  EXPECT_EQ(read_record_sets(dir.string())[0].lines.size(), 1u);
  // A malformed records file names itself and the line.
  std::ofstream(dir / "nvcc-13.1.txt") << "# x\nRECORD cuda a\n";
  try {
    read_record_sets(dir.string());
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("nvcc-13.1.txt:2"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
  EXPECT_THROW(read_record_sets(dir.string()), FormatError);
}

// The header's command names no machine's folders: paths under the working directory relative to
// it, others by file name.
TEST(LimitsRecords, HeaderCommandHasNoMachinePaths) {
  const fs::path dir = fs::current_path() / ("kc_records_hdr_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string cmd = "/opt/somewhere/bin/kernel-contract-limits --write-records " + dir.string() + " " +
                          (fs::current_path() / "bin" / "kernel-contract").string();
  auto f = write_record_set(dir.string(), {13, 0}, {{{"a", "sm_90"}, "RECORD cuda a sm_90 regs=10 symbol=ka"}}, {"a"}, cmd);
  std::ifstream in(f);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("#   kernel-contract-limits --write-records " + dir.filename().string() + " bin/kernel-contract\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("/opt/somewhere"), std::string::npos) << text;
  EXPECT_EQ(text.find(fs::current_path().string()), std::string::npos) << text;
  fs::remove_all(dir);
}

// Hand-built hostile headers (the fixture tests mutate real files too).
TEST(LimitsHostile, ElfHeadersThatLie) {
  auto make = [](size_t n) { return std::make_shared<std::vector<uint8_t>>(n, 0); };
  auto expect_error = [](std::shared_ptr<std::vector<uint8_t>> d, const std::string& want) {
    try {
      ElfFile e(d, "evil.bin");
      ADD_FAILURE() << "no error, want " << want;
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find("evil.bin"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  auto d = make(10);
  expect_error(d, "not an ELF");
  d = make(64);
  (*d)[0] = 0x7f, (*d)[1] = 'E', (*d)[2] = 'L', (*d)[3] = 'F', (*d)[4] = 2, (*d)[5] = 1;
  auto set64 = [](std::vector<uint8_t>& v, size_t off, uint64_t x) { std::memcpy(v.data() + off, &x, 8); };
  auto set16 = [](std::vector<uint8_t>& v, size_t off, uint16_t x) { std::memcpy(v.data() + off, &x, 2); };
  auto e1 = std::make_shared<std::vector<uint8_t>>(*d);
  set64(*e1, 40, 0xfffffffffffffff0ull);  // e_shoff near 2^64: offset + size must not wrap
  set16(*e1, 58, 64);
  set16(*e1, 60, 1);
  expect_error(e1, "past the end");
  auto e2 = std::make_shared<std::vector<uint8_t>>(*d);
  set64(*e2, 40, 0);
  set16(*e2, 58, 64);
  set16(*e2, 60, 65535);  // more sections than the file could hold
  set64(*e2, 40, 64);
  expect_error(e2, "cannot fit");
  auto e3 = std::make_shared<std::vector<uint8_t>>(*d);
  (*e3)[4] = 1;
  expect_error(e3, "64-bit");
}

TEST(LimitsHostile, FatbinHeadersThatLie) {
  auto run = [](std::vector<uint8_t> v, const std::string& want) {
    try {
      parse_fatbins(v, "evil.fatbin");
      ADD_FAILURE() << "no error, want " << want;
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find("evil.fatbin"), std::string::npos);
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  std::vector<uint8_t> h(16 + 64, 0);
  auto put32 = [&](std::vector<uint8_t>& v, size_t o, uint32_t x) { std::memcpy(v.data() + o, &x, 4); };
  auto put64 = [&](std::vector<uint8_t>& v, size_t o, uint64_t x) { std::memcpy(v.data() + o, &x, 8); };
  put32(h, 0, 0xdeadbeef);
  run(h, "bad fatbin magic");
  put32(h, 0, kFatbinMagic);
  h[4] = 1, h[6] = 16;
  put64(h, 8, ~0ull);  // payload past the end
  run(h, "past the end");
  put64(h, 8, 64);
  h[16] = 2;          // ELF entry
  put32(h, 16 + 4, 64);
  put64(h, 16 + 8, 1ull << 40);  // entry size past the fatbin
  run(h, "past the fatbin");
  // A ZSTD entry whose data is garbage, and one claiming 1 TiB decompressed.
  std::vector<uint8_t> z(16 + 64 + 16, 0);
  put32(z, 0, kFatbinMagic);
  z[4] = 1, z[6] = 16;
  put64(z, 8, 80);
  z[16] = 2;
  put32(z, 16 + 4, 64);
  put64(z, 16 + 8, 16);
  put32(z, 16 + 16, 16);
  put64(z, 16 + 40, kFatbinZstd);
  put64(z, 16 + 56, 4096);
  for (int i = 0; i < 16; ++i) z[80 + i] = static_cast<uint8_t>(0x5a + i);
  run(z, "ZSTD");
  put64(z, 16 + 56, 1ull << 40);
  run(z, "decompressed bytes");
  put64(z, 16 + 40, kFatbinLz4);
  put64(z, 16 + 56, 1 << 20);
  run(z, "LZ4");
}

// The text helpers every gate 5 data file goes through (chip tables, launch rows, records).
TEST(LimitsText, RowsListsSourcesAndKeyedFields) {
  std::vector<std::string> seen;
  for_each_row("# header\n\na b  # note\n  c\n", "f.tsv", [&](const std::string& where, const std::vector<std::string>& c) {
    seen.push_back(where + "=" + join_from(c, 0));
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"f.tsv:3=a b", "f.tsv:4=c"}));

  EXPECT_TRUE(split_list("-").empty());
  EXPECT_EQ(split_list("optin,frame=8"), (std::vector<std::string>{"optin", "frame=8"}));
  // Empty items are kept so that a parser can refuse "a,,b" and "a," by name.
  EXPECT_EQ(split_list("a,,b"), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split_list("a,"), (std::vector<std::string>{"a", ""}));

  // A source is the columns after the numbers, even when its text also occurs among them.
  const std::vector<std::string> row{"sm_90", "1", "2", "see", "table", "1"};
  EXPECT_EQ(join_from(row, 3), "see table 1");
  EXPECT_EQ(join_from(row, 1, 3), "1 2");
  EXPECT_EQ(join_from(row, 9), "");

  const std::vector<std::string> rec{"RECORD", "hip", "symbol=k", "vgprs"};
  EXPECT_EQ(keyed(rec, 2, "symbol", "r.txt:1"), "k");
  EXPECT_THROW(keyed(rec, 3, "vgprs", "r.txt:1"), FormatError);
  EXPECT_THROW(keyed(rec, 7, "vgprs", "r.txt:1"), FormatError);
  try {
    keyed(rec, 2, "image", "r.txt:4");
    FAIL() << "no error";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("r.txt:4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("image="), std::string::npos) << e.what();
  }
}

// A trailing or doubled comma in a launch's flags is an error naming the row, not a silent drop.
TEST(LimitsText, EmptyLaunchFlagIsRefused) {
  EXPECT_THROW(launch(128, 0, 1, "optin,"), FormatError);
  EXPECT_THROW(launch(128, 0, 1, "optin,,nonportable"), FormatError);
  EXPECT_TRUE(launch(128, 0, 1, "optin").optin);
}

// An SM as flags, --sm and CMake's architectures write it; an arch-specific image serves its SM.
TEST(LimitsText, SmSpellings) {
  EXPECT_EQ(parse_sm("90"), 90);
  EXPECT_EQ(parse_sm("sm_90"), 90);
  EXPECT_EQ(parse_sm("90a"), 90);
  EXPECT_EQ(parse_sm("90a-real"), 90);
  EXPECT_EQ(parse_sm("100f"), 100);
  EXPECT_EQ(parse_sm("121-virtual"), 121);
  EXPECT_EQ(parse_sm(""), 0);
  EXPECT_EQ(parse_sm("sm_"), 0);
  EXPECT_EQ(parse_sm("90x"), 0);
  EXPECT_EQ(parse_sm("compute_90"), 0);
  EXPECT_EQ(launch(128, 0, 1, "only=90").only_sm, 90);
  EXPECT_EQ(launch(128, 0, 1, "only=sm_90a").only_sm, 90);
  EXPECT_EQ(launch(128, 0, 1, "from=sm_90").from_sm, 90);
  EXPECT_THROW(launch(128, 0, 1, "only=gfx1100"), FormatError);
}

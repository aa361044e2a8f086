// Gate 5 (CUDA) readers against kernels compiled for every served SM by the build
// (tests/limits/fixtures/forced.cu, the kc_limits_fixtures target): the numbers must be what the
// sources force and what ptxas -v reported, in every container, and hostile edits of those files
// must give clear errors, never a crash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>
#include <cstring>

#include "test_env.hpp"
#include "kc/limits/cuda_audit.hpp"
#include "kc/limits/error.hpp"
#include "kc/limits/fatbin.hpp"

namespace fs = std::filesystem;
using namespace kc::limits;

namespace {

const std::vector<int> kServed = {80, 86, 89, 90, 100, 120, 121};

std::string fixtures() {
  const char* d = std::getenv("KC_LIMITS_FIXTURES");
  return d ? d : "";
}

// Without nvcc the fixtures cannot exist: skipped, saying so. With nvcc a missing fixture is a failure.
#define NEED_FIXTURES()                                                                                 \
  if (std::getenv("KC_LIMITS_NO_NVCC")) GTEST_SKIP() << "nvcc was not found at configure time: no CUDA fixtures to read"; \
  if (fixtures().empty() || !fs::exists(fixtures() + "/forced.o"))                                       \
    FAIL() << "KC_LIMITS_FIXTURES is not set or holds no forced.o: run under CTest, after the build made them " \
              "(the kc_limits_fixtures target)";

std::string path(const std::string& f) { return fixtures() + "/" + f; }

// (symbol, sm) -> usage, checking each is read once.
std::map<std::pair<std::string, int>, KernelUsage> index(const std::vector<Image>& images) {
  std::map<std::pair<std::string, int>, KernelUsage> out;
  for (const auto& im : images)
    for (const auto& k : im.cubin.kernels) out[{k.symbol, im.cubin.sm}] = k;
  return out;
}

const KernelUsage& get(const std::map<std::pair<std::string, int>, KernelUsage>& m, const std::string& sym, int sm) {
  auto it = m.find({sym, sm});
  if (it == m.end()) throw std::runtime_error(sym + " not found for sm_" + std::to_string(sm));
  return it->second;
}

std::vector<uint8_t> bytes_of(const std::string& f) { return *read_file(f); }


}  // namespace

TEST(LimitsReaders, EveryServedSmIsInTheObject) {
  NEED_FIXTURES();
  auto images = read_images(path("forced.o"));
  std::set<int> sms;
  for (const auto& im : images) {
    sms.insert(im.cubin.sm);
    EXPECT_EQ(im.cubin.release(), "13.0") << im.where;  // nvcc 13.0: cuinfo 0x82
    EXPECT_NE(im.cubin.tool.find("release 13.0"), std::string::npos) << im.cubin.tool;
    EXPECT_EQ(im.cubin.abi, 8) << im.where;
    EXPECT_EQ(im.cubin.kernels.size(), 10u) << im.where;
  }
  EXPECT_EQ(sms, std::set<int>(kServed.begin(), kServed.end()));
}

TEST(LimitsReaders, NumbersTheSourcesForce) {
  NEED_FIXTURES();
  auto m = index(read_images(path("forced.o")));
  for (int sm : kServed) {
    SCOPED_TRACE("sm_" + std::to_string(sm));
    const auto& b = get(m, "_Z9fx_boundsPKfPf", sm);
    EXPECT_EQ(b.max_threads, (std::array<uint32_t, 3>{256, 1, 1}));
    EXPECT_EQ(b.bound(), 256u);
    EXPECT_EQ(b.maxreg, 128);  // 65536 / (256 * 2)
    EXPECT_EQ(b.shared, 4096u);
    // The section itself holds the reserved 1 KiB from sm_90 on.
    EXPECT_EQ(b.shared_section, sm >= 90 ? 4096u + 1024u : 4096u);
    EXPECT_EQ(b.barriers, 1);
    EXPECT_EQ(b.params, 16u);  // two pointers

    EXPECT_EQ(get(m, "_Z9fx_sharedPK6float4PS_Pi", sm).shared, 257u * 16 + 3 * 4);

    const auto& r = get(m, "_Z10fx_maxnregPKfPfi", sm);
    EXPECT_EQ(r.maxreg, 40);
    EXPECT_LE(r.regs, 40);
    EXPECT_GE(r.regs, 24);  // 24 values live at once

    const auto& s = get(m, "_Z8fx_spillPKfPfi", sm);
    EXPECT_EQ(s.maxreg, 32);
    EXPECT_LE(s.regs, 32);
    EXPECT_GT(s.frame, 0u);  // 96 live values in 32 registers spill

    const auto& c = get(m, "_Z10fx_clusterPf", sm);
    const auto& k = get(m, "_Z7fx_rankPf", sm);
    if (sm >= 90) {
      EXPECT_EQ(c.cluster, (std::array<uint32_t, 3>{2, 1, 1}));
      EXPECT_TRUE(c.explicit_cluster);
      EXPECT_EQ(k.cluster_rank, 4u);
    } else {
      EXPECT_EQ(c.cluster_size(), 0u);
      EXPECT_EQ(k.cluster_rank, 0u);
    }
    EXPECT_EQ(k.bound(), 128u);

    const auto& t = get(m, "_Z7fx_tmplIfLi8EEvPT_", sm);
    EXPECT_EQ(t.name, "fx_tmpl<float, 8>");
    EXPECT_EQ(t.maxreg, 0);  // no cap
    EXPECT_EQ(t.bound(), 1024u);
    EXPECT_EQ(get(m, "fx_plain", sm).name, "fx_plain");

    const auto& r80 = get(m, "_Z9fx_regs80PKfPfi", sm);
    EXPECT_EQ(r80.maxreg, 80);
    EXPECT_EQ(r80.regs, 80);  // 120 live values fill the cap
    EXPECT_GT(r80.frame, 0u);
  }
}

// ptxas -v's own report, kept by the fixture step, is an independent reading of every kernel on
// every SM: registers, barriers, static shared bytes and stack frame must all agree.
TEST(LimitsReaders, AgreeWithPtxasForEveryKernelAndSm) {
  NEED_FIXTURES();
  auto m = index(read_images(path("forced.o")));
  std::ifstream in(path("forced.ptxas.txt"));
  ASSERT_TRUE(in) << "no ptxas report";
  static const std::regex entry(R"(Compiling entry function '([^']+)' for 'sm_(\d+)')");
  static const std::regex frame(R"((\d+) bytes stack frame)");
  static const std::regex used(R"(Used (\d+) registers, used (\d+) barriers(?:, (\d+) bytes smem)?)");
  std::string line, sym;
  int sm = 0, checked = 0;
  uint32_t fr = 0;
  while (std::getline(in, line)) {
    std::smatch mm;
    if (std::regex_search(line, mm, entry)) {
      sym = mm[1];
      sm = std::stoi(mm[2]);
    } else if (std::regex_search(line, mm, frame)) {
      fr = static_cast<uint32_t>(std::stoul(mm[1]));
    } else if (std::regex_search(line, mm, used)) {
      SCOPED_TRACE(sym + " sm_" + std::to_string(sm));
      const auto& k = get(m, sym, sm);
      EXPECT_EQ(k.regs, std::stoi(mm[1]));
      EXPECT_EQ(k.barriers, std::stoi(mm[2]));
      EXPECT_EQ(k.shared, mm[3].matched ? std::stoull(mm[3]) : 0ull);
      EXPECT_EQ(k.frame, fr);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 10 * static_cast<int>(kServed.size()));
}

TEST(LimitsReaders, EveryContainerGivesTheSameKernels) {
  NEED_FIXTURES();
  auto lines = [](const std::vector<Image>& images, int sm) {
    std::set<std::string> out;
    for (const auto& im : images)
      if (im.cubin.sm == sm)
        for (const auto& k : im.cubin.kernels) out.insert(record_line("x", "sm_" + std::to_string(sm), k));
    return out;
  };
  const auto want = lines(read_images(path("forced.o")), 90);
  ASSERT_EQ(want.size(), 10u);
  for (const char* f : {"libforced.so", "forced_exe", "forced_zstd.fatbin", "forced_lz4.fatbin", "forced_raw90.fatbin", "forced_90.cubin"}) {
    SCOPED_TRACE(f);
    EXPECT_EQ(lines(read_images(path(f)), 90), want);
  }
  // The compressed files really hold compressed ELF entries.
  auto flags = [](const std::string& f) {
    uint64_t any = 0;
    for (const auto& e : parse_fatbins(*read_file(f), f))
      if (e.kind == 2) any |= e.flags;
    return any;
  };
  EXPECT_TRUE(flags(path("forced_zstd.fatbin")) & kFatbinZstd);
  EXPECT_TRUE(flags(path("forced_lz4.fatbin")) & kFatbinLz4);
  EXPECT_FALSE(flags(path("forced_raw90.fatbin")) & (kFatbinZstd | kFatbinLz4));
  EXPECT_EQ(lines(read_images(path("forced_80.cubin")), 80), lines(read_images(path("forced.o")), 80));
}

// The older ELF ABI (EI_ABIVERSION < 8) keeps the SM in e_flags bits 0-7 (LLVM's EF_CUDA_SM); nvcc 13
// writes ABI 8 with the SM in bits 8-15. The same cubin relabelled in the old layout reads the same.
TEST(LimitsReaders, BothEflagsLayouts) {
  NEED_FIXTURES();
  auto v = bytes_of(path("forced_90.cubin"));
  ASSERT_EQ(v[8], 8);  // EI_ABIVERSION
  uint32_t flags;
  std::memcpy(&flags, v.data() + 48, 4);
  EXPECT_EQ((flags >> 8) & 0xff, 90u);
  auto old = v;
  old[8] = 7;
  const uint32_t old_flags = 0x0500 | 90;  // 64-bit address flag, SM in the low byte
  std::memcpy(old.data() + 48, &old_flags, 4);
  auto a = read_images(std::make_shared<std::vector<uint8_t>>(v), "abi8.cubin");
  auto b = read_images(std::make_shared<std::vector<uint8_t>>(old), "abi7.cubin");
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(a[0].cubin.sm, 90);
  EXPECT_EQ(b[0].cubin.sm, 90);
  EXPECT_EQ(b[0].cubin.abi, 7);
  EXPECT_EQ(b[0].cubin.kernels.size(), a[0].cubin.kernels.size());
}

// Cuts and flips of real files: only FormatError (naming the file) may come out.
TEST(LimitsHostileFiles, TruncatedAndCorruptedNeverCrash) {
  NEED_FIXTURES();
  for (const char* f : {"forced_90.cubin", "forced_zstd.fatbin", "forced_lz4.fatbin", "forced.o"}) {
    const auto orig = bytes_of(path(f));
    int errors = 0, tries = 0;
    auto attempt = [&](std::vector<uint8_t> v, const std::string& what) {
      ++tries;
      try {
        read_images(std::make_shared<std::vector<uint8_t>>(std::move(v)), std::string("mut/") + f);
      } catch (const FormatError& e) {
        ++errors;
        EXPECT_EQ(std::string(e.what()).rfind(std::string("mut/") + f, 0), 0u) << what << ": " << e.what();
      } catch (const std::exception& e) {
        ADD_FAILURE() << f << " " << what << ": not a FormatError: " << e.what();
      }
    };
    const size_t step = std::max<size_t>(1, orig.size() / 300);
    for (size_t n = 0; n < orig.size(); n += step) attempt({orig.begin(), orig.begin() + static_cast<long>(n)}, "cut at " + std::to_string(n));
    std::mt19937_64 rng(12345);
    for (int i = 0; i < 300; ++i) {
      auto v = orig;
      for (int j = 0; j < 4; ++j) v[rng() % v.size()] = static_cast<uint8_t>(rng());
      attempt(std::move(v), "flip " + std::to_string(i));
    }
    // Large values written over 8 aligned bytes (offsets and sizes gone wild).
    for (int i = 0; i < 300; ++i) {
      auto v = orig;
      const size_t at = (rng() % (v.size() / 8)) * 8;
      const uint64_t big = (i % 3 == 0) ? ~0ull : (i % 3 == 1) ? (1ull << 40) : 0x7fffffffull;
      std::memcpy(v.data() + at, &big, 8);
      attempt(std::move(v), "big at " + std::to_string(at));
    }
    EXPECT_GT(errors, tries / 4) << f << ": cuts and flips should mostly be refused";
  }
}

TEST(LimitsHostileFiles, SpecificDamageGivesItsError) {
  NEED_FIXTURES();
  auto expect = [](std::vector<uint8_t> v, const std::string& name, const std::string& want) {
    try {
      auto im = read_images(std::make_shared<std::vector<uint8_t>>(std::move(v)), name);
      ADD_FAILURE() << name << ": no error (" << im.size() << " images), want " << want;
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  auto cubin = bytes_of(path("forced_90.cubin"));
  {  // section table past the end
    auto v = cubin;
    const uint64_t off = v.size() + 8;
    std::memcpy(v.data() + 40, &off, 8);
    expect(v, "shoff.cubin", "past the end");
  }
  {  // not a CUDA machine
    auto v = cubin;
    v[18] = 62, v[19] = 0;  // x86-64 without .nv_fatbin: no images, no error
    EXPECT_TRUE(read_images(std::make_shared<std::vector<uint8_t>>(v), "x86.o").empty());
  }
  {  // a fatbin with its compressed payload scrambled
    auto v = bytes_of(path("forced_zstd.fatbin"));
    for (size_t i = 16 + 64 + 8; i < 16 + 64 + 200 && i < v.size(); ++i) v[i] ^= 0xa5;
    expect(v, "zstd.fatbin", "ZSTD");
  }
  {
    auto v = bytes_of(path("forced_lz4.fatbin"));
    for (size_t i = 16 + 64 + 8; i < 16 + 64 + 400 && i < v.size(); ++i) v[i] = 0xff;
    expect(v, "lz4.fatbin", "LZ4");
  }
  {  // a fatbin entry claiming a huge decompressed size
    auto v = bytes_of(path("forced_zstd.fatbin"));
    const uint64_t huge = 1ull << 50;
    std::memcpy(v.data() + 16 + 56, &huge, 8);
    expect(v, "huge.fatbin", "decompressed bytes");
  }
  {  // wrong fatbin magic: neither ELF nor fatbin, so no images
    auto v = bytes_of(path("forced_raw90.fatbin"));
    v[0] ^= 0xff;
    EXPECT_TRUE(read_images(std::make_shared<std::vector<uint8_t>>(v), "magic.fatbin").empty());
  }
}

// The audit end to end on the fixtures: declarations, records, controls.
class LimitsAudit : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("KC_LIMITS_NO_NVCC")) GTEST_SKIP() << "nvcc was not found at configure time: no CUDA fixtures to audit";
    if (fixtures().empty() || !fs::exists(path("forced.o"))) GTEST_FAIL() << "no fixtures (run under CTest)";
    dir = fs::temp_directory_path() / ("kc_audit_" + std::to_string(::getpid()) + "_" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir / "decl");
    std::ofstream(dir / "decl" / "launches.tsv")
        << "# fixtures\n"
           "cuda fx/bounds     fx_bounds          256 0 1 -\n"
           "cuda fx/tmpl       fx_tmpl<float, 8>  1024 0 1 -\n"
           "cuda fx/tmpl_int   _Z7fx_tmplIiLi3EEvPT_ 32 0 1 -\n"
           "cuda fx/plain      fx_plain           64 0 1 -\n"
           "cuda fx/spill      fx_spill           128 0 1 frame=4096\n"
           "cuda fx/shared     fx_shared          256 40000 1 -\n"
           "hip  fx/other      k                  64 0 1 -\n";
    cfg.binaries = {path("forced.o")};
    cfg.launch_paths = {(dir / "decl").string()};
    cfg.records_dir = (dir / "records").string();
    cfg.tool = "kernel-contract-limits";
  }
  void TearDown() override { fs::remove_all(dir); }
  fs::path dir;
  CudaAuditConfig cfg;
};

TEST_F(LimitsAudit, CleanDeclarationsRecordsAndReDerivation) {
  auto first = audit_cuda(cfg);
  ASSERT_EQ(first.result.lines.size(), 6u * kServed.size());
  for (const auto& l : first.result.lines) EXPECT_FALSE(l.problem) << l.launch << " " << l.chip << ": " << l.message;
  // No records yet: every line is missing, and the message says how to re-derive.
  ASSERT_FALSE(first.result.errors.empty());
  EXPECT_NE(first.result.errors[0].find("--write-records " + cfg.records_dir), std::string::npos) << first.result.errors[0];
  for (const auto& [rel, lines] : first.fresh) write_record_set(cfg.records_dir, rel, lines, first.declared, first.regen);
  auto second = audit_cuda(cfg);
  for (const auto& e : second.result.errors) ADD_FAILURE() << e;
  bool noted = false;
  for (const auto& n : second.result.notes)
    noted |= n.rfind("cuda records: images of nvcc 13.0 (Cuda compilation tools, release 13.0, V13.0.", 0) == 0 &&
             n.find(") checked against its own set nvcc-13.0.txt") != std::string::npos;
  EXPECT_TRUE(noted);

  // A record edited by hand is stale; a removed one is missing.
  const auto file = fs::path(cfg.records_dir) / "nvcc-13.0.txt";
  std::stringstream ss;
  ss << std::ifstream(file).rdbuf();
  std::string text = ss.str();
  const auto at = text.find("RECORD cuda fx/bounds sm_90 regs=");
  ASSERT_NE(at, std::string::npos);
  text.replace(text.find("regs=", at), 7, "regs=99");
  const auto drop = text.find("RECORD cuda fx/plain sm_120");
  text.erase(drop, text.find('\n', drop) - drop + 1);
  std::ofstream(file, std::ios::trunc) << text;
  auto third = audit_cuda(cfg);
  std::string all;
  for (const auto& e : third.result.errors) all += e + "\n";
  EXPECT_NE(all.find("stale record for fx/bounds on sm_90"), std::string::npos) << all;
  EXPECT_NE(all.find("missing record for fx/plain on sm_120"), std::string::npos) << all;
  EXPECT_NE(all.find("re-derive with kernel-contract-limits --write-records"), std::string::npos) << all;

  // A later release's set does not apply to 13.0 images; an older one is overridden by 13.0's.
  std::ofstream(fs::path(cfg.records_dir) / "nvcc-13.2.txt") << "RECORD cuda fx/bounds sm_90 regs=77 symbol=x\n";
  std::ofstream(fs::path(cfg.records_dir) / "nvcc-12.8.txt") << "RECORD cuda fx/plain sm_120 regs=1 symbol=x\n";
  auto fourth = audit_cuda(cfg);
  all.clear();
  for (const auto& e : fourth.result.errors) all += e + "\n";
  EXPECT_NE(all.find("stale record for fx/plain on sm_120"), std::string::npos) << all;  // 12.8's, below 13.0
  EXPECT_EQ(all.find("regs=77"), std::string::npos) << all;                               // 13.2's not used
}

TEST_F(LimitsAudit, ProblemsAreFoundAndNamed) {
  std::ofstream(dir / "decl" / "launches.tsv", std::ios::app)
      << "cuda fx/past     fx_bounds   512 0 1 -\n"
         "cuda fx/spilly   fx_spill    128 0 1 -\n"
         "cuda fx/big      fx_shared   256 60000 1 -\n"
         "cuda fx/clu      fx_cluster  128 0 4 -\n"
         "cuda fx/gone     no_such_kernel 128 0 1 -\n"
         "cuda fx/tmplbare fx_tmpl     128 0 1 -\n";
  auto a = audit_cuda(cfg, false);
  std::map<std::string, std::set<std::string>> problems;  // launch -> chips
  for (const auto& l : a.result.lines)
    if (l.problem) problems[l.launch].insert(l.chip);
  EXPECT_EQ(problems["fx/past"].size(), kServed.size());
  EXPECT_EQ(problems["fx/spilly"].size(), kServed.size());
  EXPECT_EQ(problems["fx/big"].size(), kServed.size());
  EXPECT_EQ(problems["fx/clu"].size(), kServed.size());  // no clusters before sm_90; not the compiled 2 after
  std::string all;
  for (const auto& e : a.result.errors) all += e + "\n";
  EXPECT_NE(all.find("launch fx/gone: symbol 'no_such_kernel' is in no sm_90 image"), std::string::npos) << all;
  EXPECT_NE(all.find("launch fx/tmplbare: symbol 'fx_tmpl'"), std::string::npos) << all;
  EXPECT_NE(all.find("launches.tsv:"), std::string::npos) << all;
}

// With no --sm, the SMs audited are those the binary holds images for (an outside build's own), and
// the served chips it lacks are named, not failed; --sm still makes a missing image an error.
TEST_F(LimitsAudit, TheBinarysOwnSmsAreAuditedAndTheLackingOnesNamed) {
  std::ofstream(dir / "decl" / "launches.tsv", std::ios::trunc) << "cuda fx/plain fx_plain 64 0 1 -\n";
  cfg.binaries = {path("forced_90.cubin")};
  auto a = audit_cuda(cfg, false);
  for (const auto& e : a.result.errors) ADD_FAILURE() << e;
  ASSERT_EQ(a.result.lines.size(), 1u);
  EXPECT_EQ(a.result.lines[0].chip, "sm_90");
  std::string notes;
  for (const auto& n : a.result.notes) notes += n + "\n";
  EXPECT_NE(notes.find("no image for sm_80 sm_86 sm_89 sm_100 sm_120 sm_121"), std::string::npos) << notes;
  cfg.sms = {80, 90};
  auto asked = audit_cuda(cfg, false);
  std::string all;
  for (const auto& e : asked.result.errors) all += e + "\n";
  EXPECT_NE(all.find("symbol 'fx_plain' is in no sm_80 image"), std::string::npos) << all;
}

// Code linked beside the contract's kernels (the harness's own, in an outside project's binary) may
// hold images of more SMs than the contract compiled for: those SMs are not the contract's.
TEST_F(LimitsAudit, ImagesHoldingNoDeclaredLaunchDoNotChooseTheSms) {
  std::ofstream(dir / "decl" / "launches.tsv", std::ios::trunc) << "cuda fx/plain fx_plain 64 0 1 -\n";
  std::string control;
  for (const auto& e : fs::directory_iterator(fixtures()))
    if (e.path().filename().string().rfind("control_", 0) == 0) control = e.path().string();
  ASSERT_FALSE(control.empty()) << "no control_* fixture (every served SM)";
  cfg.binaries = {path("forced_90.cubin"), control};
  auto a = audit_cuda(cfg, false);
  for (const auto& e : a.result.errors) ADD_FAILURE() << e;
  ASSERT_EQ(a.result.lines.size(), 1u);
  EXPECT_EQ(a.result.lines[0].chip, "sm_90");
  std::string notes;
  for (const auto& n : a.result.notes) notes += n + "\n";
  EXPECT_NE(notes.find("hold none of the declared launches"), std::string::npos) << notes;
}

TEST_F(LimitsAudit, FromSmLeavesLowerSmsOut) {
  std::ofstream(dir / "decl" / "launches.tsv", std::ios::trunc) << "cuda fx/clu fx_cluster 128 0 2 from=90\n";
  auto a = audit_cuda(cfg, false);
  for (const auto& e : a.result.errors) ADD_FAILURE() << e;
  ASSERT_EQ(a.result.lines.size(), 4u);  // sm_90, 100, 120, 121
  for (const auto& l : a.result.lines) EXPECT_FALSE(l.problem) << l.chip << ": " << l.message;
  bool noted = false;
  for (const auto& n : a.result.notes) noted |= n.find("3 launch x SM pairs outside") != std::string::npos;
  EXPECT_TRUE(noted);
}

// only=<sm>: a kernel of one SM's arch-specific image (wgmma in sm_90a) is audited there alone; its
// trap stubs elsewhere may well ask for more shared memory than those chips have.
TEST_F(LimitsAudit, OnlySmAuditsThatSmAlone) {
  std::ofstream(dir / "decl" / "launches.tsv", std::ios::trunc) << "cuda fx/clu fx_cluster 128 0 2 only=90\n";
  auto a = audit_cuda(cfg, false);
  for (const auto& e : a.result.errors) ADD_FAILURE() << e;
  ASSERT_EQ(a.result.lines.size(), 1u);
  EXPECT_EQ(a.result.lines[0].chip, "sm_90");
  EXPECT_FALSE(a.result.lines[0].problem) << a.result.lines[0].message;
  bool noted = false;
  for (const auto& n : a.result.notes) noted |= n.find("6 launch x SM pairs outside") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST_F(LimitsAudit, ControlsOfControlsCudaAreRedOnEverySm) {
  cfg.binaries.clear();
  for (const auto& e : fs::directory_iterator(fixtures()))
    if (e.path().filename().string().rfind("control_", 0) == 0) cfg.binaries.push_back(e.path().string());
  ASSERT_EQ(cfg.binaries.size(), 2u);
  cfg.launch_paths = {(fs::path(fixtures()) / "controls_launches.tsv").string()};  // copied by build_fixtures
  auto a = audit_cuda(cfg, false);
  for (const auto& e : a.result.errors) ADD_FAILURE() << e;
  ASSERT_EQ(a.result.lines.size(), 2u * kServed.size());
  for (const auto& l : a.result.lines) {
    EXPECT_TRUE(l.control);
    EXPECT_TRUE(l.problem) << l.launch << " " << l.chip << " stayed green: " << l.message;
  }
  // A control whose planted problem is gone is reported green (problem == false).
  std::ofstream(dir / "decl" / "launches.tsv", std::ios::trunc)
      << "cuda c/fixed kc_ctl_past_bounds 128 0 1 control=bounds\n";
  cfg.launch_paths = {(dir / "decl").string()};
  auto b = audit_cuda(cfg, false);
  ASSERT_EQ(b.result.lines.size(), kServed.size());
  for (const auto& l : b.result.lines) EXPECT_FALSE(l.problem) << l.message;
}

TEST_F(LimitsAudit, ToolExitCodes) {
  const std::string tool = kc_test::bin_file("kernel-contract-limits");
  const std::string base = std::string(tool) + " --launches " + (dir / "decl").string() + " --records " + cfg.records_dir + " ";
  auto rc = [](const std::string& cmd) {
    const int r = std::system((cmd + " > /dev/null 2>&1").c_str());
    return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
  };
  EXPECT_EQ(rc(std::string(tool)), 2);                                  // no path: usage
  EXPECT_EQ(rc(std::string(tool) + " --help"), 0);
  EXPECT_EQ(rc(base + path("forced.o")), 1);                            // no records yet
  EXPECT_EQ(rc(std::string(tool) + " --launches " + (dir / "decl").string() + " --write-records " + cfg.records_dir + " " + path("forced.o")), 0);
  EXPECT_EQ(rc(base + path("forced.o")), 0);
  EXPECT_EQ(rc(base + path("forced_exe")), 0);                           // same kernels in the executable
  EXPECT_EQ(rc(base + "/nonexistent/kc/binary"), 1);                     // unreadable: a problem, named
  std::ofstream(dir / "decl" / "launches.tsv", std::ios::app) << "cuda fx/past fx_bounds 512 0 1 -\n";
  EXPECT_EQ(rc(base + "--only fx/past " + path("forced.o")), 1);        // over the bound (and no record)
}

// The CUDA launch tables agree three ways, with no GPU: every launch a CUDA rows spec names has a
// KC_CUDA_LAUNCH (the kernel check_entry inspects on the device), every one has a row in its
// folder's launches.tsv (what gate 5 audits) with the same threads, dynamic shared bytes and
// symbol, and no row or registration is left over.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "tests/test_env.hpp"
#include "kc/cuda.hpp"
#include "kc/registry.hpp"

namespace {

struct Row {
  std::string file, symbol;
  int line = 0;
  long threads = 0, dyn = 0;
};

// launches.tsv rows of the CUDA rows kernels and controls (the limits helper's controls/cuda/limits_*
// are gate 5's own and not registered as entries).
std::map<std::string, Row> tsv_rows() {
  std::map<std::string, Row> out;
  namespace fs = std::filesystem;
  for (const char* dir : {"/kernels/rows", "/controls/cuda"}) {
    for (const auto& f : fs::recursive_directory_iterator(kc_test::env_dir("KC_TEST_SOURCE_DIR") + dir)) {
      if (f.path().filename() != "launches.tsv") continue;
      std::ifstream in(f.path());
      std::string line;
      int n = 0;
      while (std::getline(in, line)) {
        ++n;
        if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
        std::istringstream ss(line);
        std::vector<std::string> c;
        for (std::string w; ss >> w;) c.push_back(w);
        if (c.empty() || c[0] != "cuda" || c.size() < 7 || c[1].rfind("rows/", 0) != 0) continue;
        Row r;
        r.file = f.path().string();
        r.line = n;
        for (size_t i = 2; i + 4 < c.size(); ++i) r.symbol += (i > 2 ? " " : "") + c[i];
        r.threads = std::stol(c[c.size() - 4]);
        r.dyn = std::stol(c[c.size() - 3]);
        EXPECT_TRUE(out.emplace(c[1], r).second) << c[1] << " declared twice (" << r.file << ":" << n << ")";
      }
    }
  }
  return out;
}

std::string base_name(const std::string& s) { return s.substr(0, s.find('<')); }

TEST(LaunchTable, SymbolOfASourceName) {
  kc::cuda::LaunchFn f{"x", nullptr, "(kc_rms_norm_vec<Bf16Out, 1>)", 256, 0, 1, "-", "f", 1};
  EXPECT_EQ(f.symbol(), "kc_rms_norm_vec");
  f.source = "kc_row_sum";
  EXPECT_EQ(f.symbol(), "kc_row_sum");
}

TEST(LaunchTable, EverySpecLaunchIsRegisteredOnceAndDeclared) {
  auto rows = tsv_rows();
  int specs = 0;
  for (const auto& reg : kc::registry()) {
    if (reg.backend != "cuda" || reg.name.rfind("rows/", 0) != 0) continue;
    kc::Entry e = kc::build(reg);
    ++specs;
    EXPECT_FALSE(e.spec.launches.empty()) << reg.name << " names no launch";
    for (const auto& l : e.spec.launches) {
      int n = 0;
      for (const auto& f : kc::cuda::launch_fns()) n += f.name == l;
      EXPECT_EQ(n, 1) << reg.name << ": launch " << l << " has " << n << " KC_CUDA_LAUNCH registrations";
      EXPECT_TRUE(rows.count(l)) << reg.name << ": launch " << l << " has no launches.tsv row";
    }
  }
  EXPECT_GE(specs, 24) << "the CUDA rows kernels and controls are not all linked in";
}

TEST(LaunchTable, RegistrationsAndRowsAgree) {
  auto rows = tsv_rows();
  std::set<std::string> seen;
  for (const auto& f : kc::cuda::launch_fns()) {
    if (f.name.rfind("rows/", 0) != 0) continue;
    EXPECT_TRUE(seen.insert(f.name).second) << f.name << " registered twice";
    auto it = rows.find(f.name);
    if (it == rows.end()) {
      ADD_FAILURE() << f.name << " (" << f.file << ":" << f.line << ") has no launches.tsv row";
      continue;
    }
    EXPECT_EQ(it->second.threads, f.threads) << f.name << " at " << it->second.file << ":" << it->second.line;
    EXPECT_EQ(it->second.dyn, long(f.dyn_smem)) << f.name;
    EXPECT_EQ(base_name(it->second.symbol), f.symbol()) << f.name;
  }
  for (const auto& [name, r] : rows)
    EXPECT_TRUE(seen.count(name)) << r.file << ":" << r.line << ": " << name << " has no KC_CUDA_LAUNCH";
}

}  // namespace

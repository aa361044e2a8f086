// tc-probe: measures how each tensor-core instruction (device.hpp) adds its products, as a rule of
// kc/tensor_core.hpp fitted bit-exactly to the GPU's outputs, and writes the rows of
// records/cuda/tensor-cores.tsv. Run on a GPU:  tc-probe --write records/cuda/tensor-cores.tsv
//   --instr NAME   only this instruction (repeatable)
//   --dump FILE    also write every experiment with the GPU's output (for --fit elsewhere)
//   --fit FILE     fit a dump instead of running the GPU (no device needed)
//   --seed N       experiments' seed (1: the records'; the GPU test runs 2)
//   --no-fit       run and dump only (under compute-sanitizer, say)
// Exit 0: every instruction run and fitted by one rule; 1: a rule is missing or ambiguous; 2: no device.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "experiments.hpp"
#include "fit.hpp"

using namespace kc::tcprobe;

namespace {

struct Run {
  const InstrInfo* in;
  std::vector<Exp> exps;
};

void dump(std::ostream& o, const Device& d, const std::vector<Run>& runs) {
  o << "#device\t" << d.name << "\t" << d.sm << "\t" << d.driver << "\n";
  char b[64];
  for (const Run& r : runs)
    for (const Exp& e : r.exps) {
      o << r.in->name << "\t" << e.family;
      for (float v : {e.c, e.d}) std::snprintf(b, sizeof b, "\t%a", double(v)), o << b;
      for (const auto* v : {&e.a, &e.b}) {
        o << "\t";
        for (size_t k = 0; k < v->size(); ++k) o << (k ? "," : "") << std::hex << (*v)[k] << std::dec;
      }
      o << "\n";
    }
}

bool undump(std::istream& in, Device& d, std::vector<Run>& runs, const std::vector<std::string>& only) {
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string f[6];
    for (auto& s : f) std::getline(l, s, '\t');
    if (f[0] == "#device") {
      d.name = f[1], d.sm = f[2], d.driver = std::atoi(f[3].c_str());
      continue;
    }
    const InstrInfo* ii = find_instr(f[0]);
    if (!ii) return false;
    if (!only.empty() && std::find(only.begin(), only.end(), f[0]) == only.end()) continue;
    if (runs.empty() || runs.back().in != ii) runs.push_back({ii, {}});
    Exp e;
    e.family = f[1], e.c = std::strtof(f[2].c_str(), nullptr), e.d = std::strtof(f[3].c_str(), nullptr);
    for (int i : {4, 5}) {
      std::istringstream c(f[i]);
      std::string h;
      while (std::getline(c, h, ',')) (i == 4 ? e.a : e.b).push_back(uint32_t(std::stoul(h, nullptr, 16)));
    }
    if (int(e.a.size()) != ii->K || int(e.b.size()) != ii->K) return false;
    runs.back().exps.push_back(std::move(e));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> only;
  std::string dump_to, fit_from, write_to;
  uint64_t seed = 1;
  bool no_fit = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--no-fit") {
      no_fit = true;
      continue;
    }
    if (i + 1 >= argc) return std::fprintf(stderr, "tc-probe: %s needs a value\n", a.c_str()), 2;
    const std::string v = argv[++i];
    if (a == "--instr") only.push_back(v);
    else if (a == "--dump") dump_to = v;
    else if (a == "--fit") fit_from = v;
    else if (a == "--write") write_to = v;
    else if (a == "--seed") seed = std::stoull(v);
    else return std::fprintf(stderr, "tc-probe: unknown option %s\n", a.c_str()), 2;
  }
  Device dev;
  std::vector<Run> runs;
  if (!fit_from.empty()) {
    std::ifstream in(fit_from);
    if (!in || !undump(in, dev, runs, only)) return std::fprintf(stderr, "tc-probe: cannot read %s\n", fit_from.c_str()), 2;
  } else {
    dev = device();
    if (dev.sm.empty()) return std::printf("tc-probe: %s\n", dev.why.c_str()), 2;
    std::printf("# %s %s driver API %d, wgmma image %s\n", dev.name.c_str(), dev.sm.c_str(), dev.driver,
                dev.wgmma ? "yes" : "no");
    for (const InstrInfo& in : instrs()) {
      if (!only.empty() && std::find(only.begin(), only.end(), in.name) == only.end()) continue;
      if (in.wgmma && !dev.wgmma) {
        std::printf("# %s skipped: needs an sm_90 device and the sm_90a image\n", in.name);
        continue;
      }
      if (in.fmt == kc::tc::Fmt::e4m3 && dev.sm < "sm_89" && dev.sm.size() == 5) {
        std::printf("# %s skipped: e4m3 mma needs sm_89 or later\n", in.name);
        continue;
      }
      Run r{&in, experiments(in, seed)};
      if (const std::string why = run(in, r.exps); !why.empty()) return std::printf("tc-probe: %s\n", why.c_str()), 1;
      runs.push_back(std::move(r));
    }
    if (!dump_to.empty()) {
      std::ofstream o(dump_to);
      dump(o, dev, runs);
    }
  }
  if (no_fit) return 0;
  char date[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  const std::string source = "tc-probe --seed " + std::to_string(seed) + " on " + dev.name + " (" + dev.sm +
                             ", CUDA driver API " + std::to_string(dev.driver) + "), " + date;
  std::ostringstream tsv;
  tsv << "# Tensor-core sums as measured by tools/tc-probe: one row a property of an instruction on an SM.\n"
         "# Columns (tab-separated): instr sm property value how source. `rule` is the whole rule of\n"
         "# core/include/kc/tensor_core.hpp that gives the GPU's bits on every fitted experiment; each\n"
         "# parameter row says which single changes of it miss and where; special:* rows are the GPU's\n"
         "# output as seen (not fitted). Regenerate on the GPU, never by hand:\n"
         "#   build/bin/tc-probe --write records/cuda/tensor-cores.tsv\n";
  int bad = 0;
  for (const Run& r : runs) {
    const Fit f = fit(*r.in, r.exps);
    bad += f.fits.size() != 1;
    std::fprintf(stderr, "%s: %zu of %ld rules fit %ld experiments; %s%s\n", r.in->name, f.fits.size(), f.models, f.fitted,
                 kc::tc::format(f.best).c_str(), f.fits.empty() ? (" misses " + std::to_string(f.best_misses)).c_str() : "");
    for (const std::string& row : rows(*r.in, f, r.exps, dev.sm, source)) tsv << row << "\n";
    std::fflush(stderr);
  }
  std::cout << tsv.str();
  if (!write_to.empty()) std::ofstream(write_to) << tsv.str();
  return bad ? 1 : 0;
}

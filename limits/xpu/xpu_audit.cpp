// Intel XPU's gate 5 (see xpu_audit.hpp).
#include "xpu_audit.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "kc/limits/elf.hpp"
#include "kc/limits/error.hpp"
#include "kc/limits/paths.hpp"
#include "kc/limits/planted.hpp"
#include "kc/limits/text.hpp"
#include "../hip/hip_auditor.hpp"  // failed_device_builds


namespace kc::limits::xpu {

namespace fs = std::filesystem;
extern const char* const kIntelCardsTsv;  // intel_cards.tsv, written into the build by CMake

uint32_t IntelCard::max_wg(uint32_t simd, uint32_t grf) const {
  const uint32_t threads = grf > 128 ? thr256 : thr128;
  return std::min<uint32_t>(wg, simd * threads * eus);
}

std::vector<IntelCard> parse_intel_cards(const std::string& text, const std::string& name) {
  std::vector<IntelCard> out;
  for_each_row(text, name, [&](const std::string& where, const std::vector<std::string>& c) {
    if (c.size() < 8) throw FormatError(where, "a card row needs 7 columns and a source");
    IntelCard r;
    r.name = c[0];
    r.wg = uint32_t(parse_uint(c[1], where, "wg"));
    r.slm = parse_uint(c[2], where, "slm");
    r.eus = uint32_t(parse_uint(c[3], where, "eus"));
    r.thr128 = uint32_t(parse_uint(c[4], where, "thr128"));
    r.thr256 = uint32_t(parse_uint(c[5], where, "thr256"));
    for (const std::string& s : split_list(c[6])) r.sgs.push_back(uint32_t(parse_uint(s, where, "sub-group size")));
    r.source = join_from(c, 7);
    out.push_back(std::move(r));
  });
  if (out.empty()) throw FormatError(name, "no card rows");
  return out;
}

const std::vector<IntelCard>& intel_cards() {
  static const std::vector<IntelCard> cards = parse_intel_cards(kIntelCardsTsv, "limits/xpu/intel_cards.tsv");
  return cards;
}

XpuRecord record_of(const std::string& launch, const ZeKernel& k, const std::string& card, const std::string& image) {
  XpuRecord r;
  r.launch = launch;
  r.card = card;
  r.symbol = k.name;
  r.image = image;
  r.simd = k.simd;
  r.grf = k.grf;
  r.slm = k.slm;
  r.barriers = k.barriers;
  r.reqd_wg = k.required_wg;
  r.private_bytes = k.private_bytes;
  r.spill_bytes = k.spill_bytes;
  return r;
}

std::string record_line(const XpuRecord& r) {
  std::ostringstream o;
  o << "RECORD xpu " << r.launch << ' ' << r.card << " symbol=" << r.symbol << " image=" << r.image << " simd=" << r.simd
    << " grf=" << r.grf << " slm=" << r.slm << " reqd_wg=" << r.reqd_wg[0] << 'x' << r.reqd_wg[1] << 'x' << r.reqd_wg[2]
    << " private=" << r.private_bytes << " spill=" << r.spill_bytes << " barriers=" << r.barriers;
  return o.str();
}

std::vector<XpuRecord> parse_records(const std::string& text, const std::string& name) {
  std::vector<XpuRecord> out;
  for_each_row(text, name, [&](const std::string& where, const std::vector<std::string>& c) {
    if (c.size() != 13 || c[0] != "RECORD" || c[1] != "xpu") throw FormatError(where, "not a RECORD xpu line of 13 fields");
    auto field = [&](size_t i, const char* key) { return keyed(c, i, key, where); };
    XpuRecord r;
    r.launch = c[2];
    r.card = c[3];
    r.symbol = field(4, "symbol");
    r.image = field(5, "image");
    r.simd = uint32_t(parse_uint(field(6, "simd"), where, "simd"));
    r.grf = uint32_t(parse_uint(field(7, "grf"), where, "grf"));
    r.slm = uint32_t(parse_uint(field(8, "slm"), where, "slm"));
    std::string wg = field(9, "reqd_wg");
    std::istringstream ws(wg);
    std::string part;
    int i = 0;
    while (std::getline(ws, part, 'x')) {
      if (i == 3) throw FormatError(where, "reqd_wg '" + wg + "' is not XxYxZ");
      r.reqd_wg[i++] = uint32_t(parse_uint(part, where, "reqd_wg"));
    }
    if (i != 3) throw FormatError(where, "reqd_wg '" + wg + "' is not XxYxZ");
    r.private_bytes = parse_uint(field(10, "private"), where, "private");
    r.spill_bytes = parse_uint(field(11, "spill"), where, "spill");
    r.barriers = uint32_t(parse_uint(field(12, "barriers"), where, "barriers"));
    out.push_back(std::move(r));
  });
  return out;
}

void image_and_card(const std::string& path, std::string& image, std::string& card) {
  std::string base = fs::path(path).filename().string();
  if (base.size() > 6 && base.compare(base.size() - 6, 6, ".zebin") == 0) base.resize(base.size() - 6);
  size_t us = base.rfind('_');
  if (us == std::string::npos) {
    image = base;
    card.clear();
    return;
  }
  image = base.substr(0, us);
  card = base.substr(us + 1);
}

Zebin read_zebin(const std::string& path) {
  ElfFile f = ElfFile::read(path);
  if (f.machine() != kEmIntelGt)
    throw FormatError(path, "not an Intel zebin (e_machine " + std::to_string(f.machine()) + ", want 205 EM_INTELGT)");
  const ElfSection* s = f.find(".ze_info");
  if (!s) throw FormatError(path, "no .ze_info section (built without --format zebin?)");
  if (s->type != 0xff000011u) throw FormatError(path, ".ze_info has section type " + std::to_string(s->type) + ", want 0xff000011");
  auto d = f.data(*s);
  Zebin z;
  z.path = path;
  image_and_card(path, z.image, z.card);
  if (z.card.empty()) throw FormatError(path, "the file name names no card (want <image>_<card>.zebin)");
  z.kernels = parse_ze_info(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()), path).kernels;
  return z;
}

std::vector<XpuLaunch> xpu_launches(const std::vector<LaunchRow>& rows) {
  std::vector<XpuLaunch> out;
  for (const LaunchRow& row : rows) {
    if (row.cols.empty() || row.backend() != "xpu") continue;
    const std::string where = row.where();
    const auto& c = row.cols;
    if (c.size() != 6) throw FormatError(where, "an xpu row has 6 columns: xpu launch symbol wg_size slm_bytes flags");
    XpuLaunch l;
    l.name = c[1];
    l.symbol = c[2];
    l.where = where;
    const uint64_t wg = parse_uint(c[3], where, "wg_size");
    if (wg == 0 || wg > 65536) throw FormatError(where, "wg_size " + c[3] + " is not 1..65536");
    l.wg = uint32_t(wg);
    l.slm = parse_uint(c[4], where, "slm_bytes");
    for (const std::string& f : split_list(c[5])) {
      if (f.rfind("sg=", 0) == 0) l.sg = uint32_t(parse_uint(f.substr(3), where, "sg"));
      else if (f.rfind("grf=", 0) == 0) l.grf = uint32_t(parse_uint(f.substr(4), where, "grf"));
      else if (f.rfind("spill=", 0) == 0) l.spill_budget = parse_uint(f.substr(6), where, "spill budget");
      else if (f.rfind("control=", 0) == 0 && f.size() > 8) l.control = f.substr(8);
      else throw FormatError(where, "unknown xpu flag '" + f + "' (known: sg=, grf=, spill=, control=)");
    }
    if (l.sg != 8 && l.sg != 16 && l.sg != 32) throw FormatError(where, "an xpu launch states its sub-group size: sg=8, 16 or 32");
    if (l.grf != 128 && l.grf != 256) throw FormatError(where, "an xpu launch states its GRF mode: grf=128 or 256");
    static const char* const kinds[] = {"wg", "reqd_wg", "slm", "sg", "grf", "spill"};
    if (!l.control.empty() && std::find(std::begin(kinds), std::end(kinds), l.control) == std::end(kinds))
      throw FormatError(where, "control=" + l.control + " is not an XPU limit (wg, reqd_wg, slm, sg, grf, spill)");
    for (const XpuLaunch& o : out)
      if (o.name == l.name) throw FormatError(where, "launch " + l.name + " is declared twice (also " + o.where + ")");
    out.push_back(std::move(l));
  }
  return out;
}

XpuCheck check_launch(const XpuLaunch& l, const XpuRecord& r, const IntelCard& card) {
  XpuCheck c;
  std::ostringstream m;
  auto over = [&](const char* k) {
    c.problem = true;
    c.kinds.push_back(k);
  };
  // The GRF mode the launch states must be the one the zebin was built with.
  m << "GRF " << l.grf;
  if (l.grf != r.grf) {
    over("grf");
    m << " stated, zebin grf_count " << r.grf;
  } else {
    m << " = zebin's";
  }
  m << "; sub-group " << l.sg;
  if (l.sg != r.simd) {
    over("sg");
    m << " stated, zebin SIMD " << r.simd;
  }
  if (std::find(card.sgs.begin(), card.sgs.end(), r.simd) == card.sgs.end()) {
    over("sg");
    m << " (SIMD " << r.simd << " not run by " << card.name << ")";
  }
  const uint32_t max = card.max_wg(r.simd, r.grf);
  m << "; work-group " << l.wg;
  if (l.wg > max) {
    over("wg");
    m << " > " << max << " (SIMD" << r.simd << " x " << (r.grf > 128 ? card.thr256 : card.thr128) << " threads x " << card.eus
      << " EUs at " << r.grf << " GRF, at most " << card.wg << ")";
  } else {
    m << " <= " << max;
  }
  const uint64_t req = uint64_t(r.reqd_wg[0]) * r.reqd_wg[1] * r.reqd_wg[2];
  if (req != 0 && req != l.wg) {
    over("reqd_wg");
    m << " != required " << r.reqd_wg[0] << 'x' << r.reqd_wg[1] << 'x' << r.reqd_wg[2];
  }
  const uint64_t slm = uint64_t(r.slm) + l.slm;
  m << "; SLM " << r.slm << " static + " << l.slm << " dynamic = " << slm;
  if (slm > card.slm) {
    over("slm");
    m << " > " << card.slm;
  } else {
    m << " <= " << card.slm;
  }
  if (r.spill_bytes > l.spill_budget) {
    over("spill");
    m << "; spill " << r.spill_bytes << " B > declared " << l.spill_budget;
  }
  if (r.private_bytes) m << "; private " << r.private_bytes << " B a thread";
  c.message = m.str();
  return c;
}

std::vector<std::string> find_zebins(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".zebin") out.push_back(it->path().string());
    } else if (fs::is_regular_file(p, ec) && fs::path(p).extension() == ".zebin") {
      out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<XpuRecord> derive_records(const std::vector<XpuLaunch>& launches, const std::vector<Zebin>& bins,
                                      std::vector<std::string>& errors) {
  std::vector<std::string> cards;
  for (const Zebin& z : bins)
    if (std::find(cards.begin(), cards.end(), z.card) == cards.end()) cards.push_back(z.card);
  std::sort(cards.begin(), cards.end());
  std::vector<XpuRecord> out;
  for (const XpuLaunch& l : launches) {
    for (const std::string& card : cards) {
      const ZeKernel* hit = nullptr;
      const Zebin* from = nullptr;
      for (const Zebin& z : bins) {
        if (z.card != card) continue;
        for (const ZeKernel& k : z.kernels) {
          if (k.name != l.symbol) continue;
          if (hit) errors.push_back("launch " + l.name + ": kernel " + l.symbol + " is in two zebins for " + card + ": " + from->path + " and " + z.path);
          else hit = &k, from = &z;
        }
      }
      if (!hit) errors.push_back("launch " + l.name + " (" + l.where + "): kernel " + l.symbol + " is in no zebin for " + card);
      else out.push_back(record_of(l.name, *hit, card, from->image));
    }
  }
  return out;
}

// $KC_XPU_RECORDS and $KC_XPU_ZEBINS where set, else the paths file's (kc/limits/paths.hpp), as
// for CUDA; else the folders of that name under the working directory.
std::string default_records_dir() {
  std::string d = contract_path("xpu-records");
  return d.empty() ? "records/xpu" : d;
}
std::string default_zebin_dir() {
  std::string d = contract_path("xpu-zebins");
  return d.empty() ? "zebin" : d;
}

kc::AuditResult audit_xpu(const std::vector<XpuLaunch>& launches, const std::vector<XpuRecord>& stored,
                          const std::vector<Zebin>* bins, const std::string& only, const std::string& records_name) {
  kc::AuditResult res;
  res.backend = "xpu";
  const std::string regen = "re-derive: kernel-contract-limits --kind xpu --write-records records/xpu (writes " + records_name +
                            " from this build's zebins)";
  std::map<std::pair<std::string, std::string>, const XpuRecord*> by_key;
  for (const XpuRecord& r : stored)
    if (!by_key.emplace(std::make_pair(r.launch, r.card), &r).second)
      res.errors.push_back("two records for launch " + r.launch + " on " + r.card);
  if (bins) {
    std::vector<std::string> errs;
    for (const XpuRecord& r : derive_records(launches, *bins, errs)) {
      if (!only.empty() && r.launch.find(only) == std::string::npos) continue;
      auto it = by_key.find({r.launch, r.card});
      if (it == by_key.end()) res.errors.push_back("missing record: " + record_line(r) + " (" + regen + ")");
      else if (!(*it->second == r))
        res.errors.push_back("stale record: the set says \"" + record_line(*it->second) + "\", the zebin says \"" + record_line(r) + "\" (" + regen + ")");
    }
    for (auto& e : errs) res.errors.push_back(std::move(e));
  }
  for (const XpuLaunch& l : launches) {
    if (!only.empty() && l.name.find(only) == std::string::npos) continue;
    for (const IntelCard& card : intel_cards()) {
      kc::AuditLine line;
      line.launch = l.name;
      line.chip = card.name;
      line.control = !l.control.empty();
      auto it = by_key.find({l.name, card.name});
      if (it == by_key.end()) {
        line.problem = !line.control;
        line.message = "no record on " + card.name + " (" + regen + ")";
        res.errors.push_back("launch " + l.name + ": " + line.message);
      } else {
        set_verdict(line, l.control, check_launch(l, *it->second, card));
      }
      res.lines.push_back(std::move(line));
    }
  }
  return res;
}

namespace {

std::string newest_set(const std::string& dir) {
  // Sets are named ocloc-<version>.txt; the newest (by name) is the one in force.
  std::string best;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string n = it->path().filename().string();
    if (n.rfind("ocloc-", 0) == 0 && it->path().extension() == ".txt" && n > best) best = n;
  }
  return best;
}

class XpuAuditor final : public kc::Auditor {
 public:
  std::string backend() const override { return "xpu"; }
  kc::AuditResult audit(const kc::AuditOptions& opt) override {
    kc::AuditResult res;
    res.backend = "xpu";
    try {
      auto launches = xpu_launches(read_launch_rows(find_launch_files(default_launch_paths())));
      // A contract with no XPU launch rows has nothing here to audit (its records are not its own).
      if (launches.empty()) {
        res.notes.push_back("no XPU launch rows in this contract's launch files: nothing to audit");
        return res;
      }
      auto files = find_zebins(opt.paths);  // zebins among the paths given, else this build's
      if (files.empty()) files = find_zebins({default_zebin_dir()});
      for (auto& e : hip::failed_device_builds({default_zebin_dir()})) res.errors.push_back(std::move(e));
      std::vector<Zebin> bins;
      for (const auto& f : files) {
        try {
          bins.push_back(read_zebin(f));
        } catch (const std::exception& e) {
          res.errors.push_back(e.what());
        }
      }
      const std::string set = newest_set(default_records_dir());
      std::vector<XpuRecord> stored;
      if (set.empty()) {
        res.errors.push_back("no XPU records set (ocloc-<version>.txt) in " + default_records_dir());
      } else {
        const std::string file = default_records_dir() + "/" + set;
        stored = parse_records(read_text_file(file, "XPU records"), file);
        res.notes.push_back("records set " + set);
      }
      res.notes.push_back(files.empty() ? "no zebins found (built with ocloc into " + default_zebin_dir() +
                                              "): records audited without checking them against zebins"
                                        : std::to_string(bins.size()) + " zebins read");
      kc::AuditResult a = audit_xpu(launches, stored, files.empty() ? nullptr : &bins, opt.only, set.empty() ? "ocloc-22.43.txt" : set);
      for (auto& e : a.errors) res.errors.push_back(std::move(e));
      res.lines = std::move(a.lines);
    } catch (const std::exception& e) {
      res.errors.push_back(std::string("xpu audit: ") + e.what());
    }
    return res;
  }
};

}  // namespace

std::unique_ptr<kc::Auditor> make_xpu_auditor() { return std::make_unique<XpuAuditor>(); }

}  // namespace kc::limits::xpu

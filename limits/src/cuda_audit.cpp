#include "kc/limits/cuda_audit.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "kc/limits/error.hpp"
#include "kc/limits/paths.hpp"

#ifndef KC_BUILD_CUDA_SMS
#define KC_BUILD_CUDA_SMS ""
#endif

namespace kc::limits {

namespace fs = std::filesystem;

std::string default_records_dir() { return contract_path("cuda-records"); }

std::string limits_tool() {
  if (std::string t = contract_path("limits-tool"); !t.empty()) return t;
  // Beside the contract binary (a build's bin/, an install prefix's), else found on PATH.
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && fs::exists(self.parent_path() / "kernel-contract-limits", ec))
    return (self.parent_path() / "kernel-contract-limits").string();
  return "kernel-contract-limits";
}

bool build_has_cuda() {
#ifdef KC_BUILD_HAS_CUDA
  return true;
#else
  return false;
#endif
}

std::vector<int> build_sms() {
  std::vector<int> out;
  std::istringstream in(KC_BUILD_CUDA_SMS);
  std::string s;
  while (std::getline(in, s, ','))
    if (int sm = parse_sm(s)) out.push_back(sm);
  return out;
}

namespace {

std::string strip_ws(const std::string& s) {
  std::string o;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) o += c;
  return o;
}

std::string quote_args(const std::vector<std::string>& v) {
  std::string o;
  for (const auto& a : v) o += " " + a;
  return o;
}

}  // namespace

CudaAudit audit_cuda(const CudaAuditConfig& cfg, bool compare_records) {
  CudaAudit a;
  auto& res = a.result;
  res.backend = "cuda";
  const auto& chips = cfg.chips ? *cfg.chips : cuda_chips();

  // Which binaries.
  std::vector<std::string> bins = cfg.binaries;
  std::vector<std::string> shown = cfg.binaries;
  if (bins.empty()) {
    bins.push_back("/proc/self/exe");
    std::error_code ec;
    auto self = fs::read_symlink("/proc/self/exe", ec);
    shown.push_back(ec ? "/proc/self/exe" : self.string());
  }

  const std::string records_dir = cfg.records_dir.empty() ? default_records_dir() : cfg.records_dir;
  const bool no_records = records_dir.empty();
  std::vector<std::string> lpaths = cfg.launch_paths.empty() ? default_launch_paths() : cfg.launch_paths;
  {
    std::string cmd = (cfg.tool.empty() ? limits_tool() : cfg.tool) + " --write-records " +
                      (no_records ? std::string("<records folder>") : records_dir);
    if (!cfg.launch_paths.empty())
      for (const auto& p : cfg.launch_paths) cmd += " --launches " + p;
    if (!cfg.sms.empty()) {
      cmd += " --sm ";
      for (size_t i = 0; i < cfg.sms.size(); ++i) cmd += (i ? "," : "") + std::to_string(cfg.sms[i]);
    }
    a.regen = cfg.regen.empty() ? cmd + quote_args(shown) : cfg.regen;
  }

  // Declarations.
  std::vector<Launch> launches;
  try {
    std::set<std::string> names;
    for (const auto& row : read_launch_rows(find_launch_files(lpaths))) {
      if (row.backend() != "cuda") continue;
      try {
        Launch l = parse_launch(row);
        for (const auto& f : l.flags)
          if (f != "optin" && f != "nonportable" && f.rfind("frame=", 0) != 0 && f.rfind("control=", 0) != 0 && f.rfind("from=", 0) != 0 && f.rfind("only=", 0) != 0)
            throw FormatError(row.where(), "unknown flag '" + f + "' (want optin, nonportable, frame=<bytes>, from=<sm>, only=<sm>, control=<kind>)");
        if (!l.control.empty() && std::find(kCudaProblemKinds.begin(), kCudaProblemKinds.end(), l.control) == kCudaProblemKinds.end())
          throw FormatError(row.where(), "unknown control kind '" + l.control + "' (want bounds, regs, smem, cluster or frame)");
        if (!names.insert(l.name).second) throw FormatError(row.where(), "launch " + l.name + " is declared twice");
        a.declared.push_back(l.name);
        if (cfg.only.empty() || l.name.find(cfg.only) != std::string::npos) launches.push_back(std::move(l));
      } catch (const FormatError& e) {
        res.errors.push_back(e.what());
      }
    }
  } catch (const FormatError& e) {
    res.errors.push_back(e.what());
  }

  // Images.
  std::vector<Image> images;
  for (size_t i = 0; i < bins.size(); ++i) {
    std::vector<std::string> files;
    std::error_code ec;
    if (fs::is_directory(bins[i], ec)) {
      for (fs::recursive_directory_iterator it(bins[i], fs::directory_options::skip_permission_denied, ec), end; it != end; it.increment(ec)) {
        if (ec) break;
        if (it->is_regular_file(ec)) files.push_back(it->path().string());
      }
      std::sort(files.begin(), files.end());
    } else {
      files.push_back(bins[i]);
    }
    size_t found = 0;
    for (const auto& f : files) {
      try {
        auto im = read_images(f);
        found += im.size();
        for (auto& x : im) {
          if (x.where.rfind("/proc/self/exe", 0) == 0) x.where = shown[i] + x.where.substr(14);
          images.push_back(std::move(x));
        }
      } catch (const FormatError& e) {
        std::string m = e.what();
        if (m.rfind("/proc/self/exe", 0) == 0) m = shown[i] + m.substr(14);
        res.errors.push_back(m);
      }
    }
    // Named binaries must hold images; this executable must when CUDA launches are declared.
    if (!found && (!cfg.binaries.empty() || (build_has_cuda() && !launches.empty())))
      res.errors.push_back(shown[i] + ": no CUDA images (no cubin, fatbin or .nv_fatbin section)");
  }
  a.images = images.size();
  for (const auto& im : images) a.kernels += im.cubin.kernels.size();
  if (images.empty() && cfg.binaries.empty() && !build_has_cuda()) {
    res.notes.push_back("cuda: this build has no CUDA images (nvcc was not found when it was configured); gate 5 for CUDA did not run");
    return a;
  }
  if (images.empty() && cfg.binaries.empty() && launches.empty()) {
    res.notes.push_back("cuda: no CUDA launches declared and no CUDA images in this executable: nothing to audit");
    return a;
  }

  // Which SMs: those asked for, else those the binaries hold images of the declared launches for (an
  // outside project's build serves the SMs it compiled its kernels for, whatever this library's own
  // kernels, linked beside them, were built for), said beside the served chips they lack; where no
  // image holds a declared launch, every image's SM (the launches' errors then say so); with no
  // image at all, this build's own list.
  std::vector<int> sms = cfg.sms;
  if (sms.empty()) {
    auto declares = [&](const Image& im) {
      for (const auto& k : im.cubin.kernels)
        for (const auto& l : launches)
          if (k.symbol == l.symbol || strip_ws(k.name) == strip_ws(l.symbol)) return true;
      return false;
    };
    std::set<int> theirs, other;
    for (const auto& im : images) (declares(im) ? theirs : other).insert(im.cubin.sm);
    if (theirs.empty()) theirs.swap(other);
    std::string others;
    for (int sm : other)
      if (!theirs.count(sm)) others += (others.empty() ? "sm_" : " sm_") + std::to_string(sm);
    if (!others.empty())
      res.notes.push_back("cuda: images for " + others + " in" + quote_args(shown) +
                          " hold none of the declared launches (code linked beside them): not audited");
    std::set<int> held, unserved;
    for (int sm : theirs) (find_cuda_chip(chips, sm) ? held : unserved).insert(sm);
    sms.assign(held.begin(), held.end());
    for (int sm : unserved)
      res.notes.push_back("cuda: images for sm_" + std::to_string(sm) + " in" + quote_args(shown) +
                          ", a chip the table does not serve: not audited");
    std::string lacking;
    for (const auto& c : chips)
      if (!held.count(c.sm)) lacking += (lacking.empty() ? "" : " ") + c.name;
    if (!held.empty() && !lacking.empty())
      res.notes.push_back("cuda: no image for " + lacking + " (served chips of limits/chips/cuda.tsv) in" + quote_args(shown) +
                          ": not audited there; compile for them to serve them (--sm names SMs an image must hold)");
    if (sms.empty()) sms = build_sms();
  }
  std::vector<const CudaChip*> audited;
  for (int sm : sms) {
    const CudaChip* c = find_cuda_chip(chips, sm);
    if (!c) res.errors.push_back("sm_" + std::to_string(sm) + " is not in the chip table (limits/chips/cuda.tsv)");
    else audited.push_back(c);
  }

  a.image_list = std::move(images);
  const auto& imgs = a.image_list;
  // Kernels by SM.
  std::map<int, std::vector<std::pair<const Image*, const KernelUsage*>>> by_sm;
  // Each kernel under its mangled name and its whitespace-free demangled name, per SM.
  std::map<int, std::map<std::string, std::vector<std::pair<const Image*, const KernelUsage*>>>> by_name;
  for (const auto& im : imgs)
    for (const auto& k : im.cubin.kernels) {
      by_sm[im.cubin.sm].push_back({&im, &k});
      auto& names = by_name[im.cubin.sm];
      names[k.symbol].push_back({&im, &k});
      const std::string n = strip_ws(k.name);
      if (n != k.symbol) names[n].push_back({&im, &k});
    }

  std::vector<RecordSet> sets;
  if (compare_records && !launches.empty() && no_records) {
    res.errors.push_back("cuda: no records folder for these launches: set KC_CUDA_RECORDS, or add `cuda-records <folder>` to " +
                         paths_file() + " (kc_add_contract writes it); then write the records with " + a.regen);
    compare_records = false;
  }
  if (compare_records && !launches.empty()) {
    try {
      sets = read_record_sets(records_dir);
    } catch (const FormatError& e) {
      res.errors.push_back(std::string(e.what()) + ": re-derive with " + a.regen);
    }
  }
  // Per image release: the set it is checked against, the records in force, the compiler versions
  // its images name, and the files holding them.
  struct Use {
    SetChoice choice;
    std::map<RecordKey, std::string> records;
    std::set<std::string> files;
  };
  std::map<Release, Use> uses;

  auto check_one = [&](const Launch& l, const CudaChip& c, const Image& im, const KernelUsage& k) {
    CudaCheck ch;
    ch.launch = l;
    ch.chip = &c;
    ch.image = im.where;
    ch.usage = k;
    ch.release = {im.cubin.release_major, im.cubin.release_minor};
    ch.record = record_line(l.name, c.name, k);
    ch.message = check_limits(l, c, k, ch.kinds);
    a.fresh[ch.release][{l.name, c.name}] = ch.record;
    if (!im.cubin.tool.empty()) a.compilers[ch.release].insert(im.cubin.tool);

    kc::AuditLine line;
    line.launch = l.name;
    line.chip = c.name;
    line.control = !l.control.empty();
    if (line.control) {
      const bool red = std::find(ch.kinds.begin(), ch.kinds.end(), l.control) != ch.kinds.end();
      line.problem = red;
      line.message = (red ? "planted " + l.control + " found: " : "planted " + l.control + " NOT found: ") + ch.message;
      for (const auto& kind : ch.kinds)
        if (kind != l.control) res.errors.push_back("control " + l.name + " on " + c.name + " also shows a " + kind + " problem it was not built for");
    } else {
      line.problem = !ch.kinds.empty();
      line.message = ch.message;
    }
    line.message += " [" + ch.image + "]";
    res.lines.push_back(std::move(line));

    // The record in force for the image's release.
    if (compare_records && !sets.empty()) {
      const Release r = ch.release.major ? ch.release : Release{13, 0};  // an image naming none is checked as 13.0's
      auto u = uses.find(r);
      if (u == uses.end()) u = uses.emplace(r, Use{choose_set(sets, r), effective_records(sets, r), {}}).first;
      const SetChoice& choice = u->second.choice;
      const auto file = im.where.substr(0, im.where.find(" fatbin "));
      u->second.files.insert(file);
      // A release without a set of its own is told which file would hold its differences.
      const std::string fix = choice.own() ? "re-derive with " + a.regen
                                           : "nvcc " + r.str() + " has no set of its own: write nvcc-" + r.str() + ".txt with " + a.regen;
      if (!choice.set) {
        res.errors.push_back("no records set at or below nvcc " + r.str() + " in " + records_dir + " for " + l.name + " on " + c.name + ": " + fix);
      } else {
        auto it = u->second.records.find({l.name, c.name});
        if (it == u->second.records.end())
          res.errors.push_back("missing record for " + l.name + " on " + c.name + " (nvcc " + r.str() + ", checked against " + choice.says() + "): " + fix);
        else if (it->second != ch.record)
          res.errors.push_back("stale record for " + l.name + " on " + c.name + " (nvcc " + r.str() + ", checked against " + choice.says() +
                               "):\n    record: " + it->second + "\n    image:  " + ch.record + "\n  " + fix);
      }
    }
    a.checks.push_back(std::move(ch));
  };

  size_t not_served = 0;  // launch x SM pairs below a launch's from=<sm> or beside its only=<sm>
  for (const auto& l : launches) {
    const std::string want = strip_ws(l.symbol);
    for (const CudaChip* c : audited) {
      if (c->sm < l.from_sm || (l.only_sm && c->sm != l.only_sm)) {
        ++not_served;
        continue;
      }
      std::vector<std::pair<const Image*, const KernelUsage*>> hits;
      auto& names = by_name[c->sm];
      for (const std::string* key : {&l.symbol, &want}) {
        auto it = names.find(*key);
        if (it == names.end()) continue;
        for (const auto& h : it->second)
          if (std::find(hits.begin(), hits.end(), h) == hits.end()) hits.push_back(h);
      }
      if (hits.empty()) {
        // Name the kernels the symbol nearly matches (a template's name without its arguments).
        std::set<std::string> near;
        for (const auto& [im, k] : by_sm[c->sm])
          if (strip_ws(k->name).rfind(want + "<", 0) == 0) near.insert(k->name);
        std::string hint;
        for (const auto& n : near) hint += (hint.empty() ? " (did you mean: " : ", ") + n;
        if (!hint.empty()) hint += "? a template kernel needs its arguments, or give the mangled name)";
        res.errors.push_back(l.where() + ": launch " + l.name + ": symbol '" + l.symbol + "' is in no " + c->name + " image of" +
                             quote_args(shown) + hint);
        continue;
      }
      // Images of several releases each get their own check against their own records: one release
      // compiling the kernel differently from another is what the sets per release are for.
      std::map<Release, std::vector<std::pair<const Image*, const KernelUsage*>>> by_release;
      for (const auto& h : hits) by_release[{h.first->cubin.release_major, h.first->cubin.release_minor}].push_back(h);
      for (const auto& [rel, group] : by_release) {
        std::set<std::string> distinct;
        for (const auto& [im, k] : group) distinct.insert(record_line(l.name, c->name, *k));
        if (distinct.size() > 1) {
          std::string w;
          for (const auto& h : group) w += "\n    " + h.first->where + ": " + h.second->symbol;
          res.errors.push_back(l.where() + ": launch " + l.name + ": symbol '" + l.symbol + "' matches kernels that differ on " + c->name +
                               (rel.major ? " in images of nvcc " + rel.str() : "") + ":" + w);
          continue;
        }
        check_one(l, *c, *group.front().first, *group.front().second);
      }
    }
  }

  // Records of launches no longer declared.
  if (compare_records && cfg.only.empty() && !sets.empty()) {
    std::set<std::string> declared(a.declared.begin(), a.declared.end());
    for (const auto& s : sets)
      for (const auto& [k, v] : s.lines)
        if (!declared.count(k.first))
          res.errors.push_back("record for undeclared launch " + k.first + " on " + k.second + " in " + s.file + ": re-derive with " + a.regen);
  }
  // Which set each image release, and each file of images, was checked against.
  for (const auto& [r, u] : uses) {
    if (!u.choice.set) continue;
    std::string tools;
    for (const auto& t : a.compilers[r]) tools += (tools.empty() ? " (" : "; ") + t;
    if (!tools.empty()) tools += ")";
    res.notes.push_back("cuda records: images of nvcc " + r.str() + tools + " checked against " + u.choice.says() + " in " + records_dir +
                        (u.choice.own() || u.choice.above ? "" : "; write its set with " + a.regen));
    const std::string set = fs::path(u.choice.set->file).filename().string();
    for (const auto& f : u.files) res.notes.push_back("cuda records: " + f + ": nvcc " + r.str() + " -> " + set);
  }
  if (not_served) res.notes.push_back("cuda: " + std::to_string(not_served) + " launch x SM pairs outside their launch's from=<sm> or only=<sm> not audited");
  std::string sm_list;
  for (const auto* c : audited) sm_list += (sm_list.empty() ? "" : " ") + c->name;
  res.notes.push_back("cuda: " + std::to_string(launches.size()) + " launches x " + std::to_string(audited.size()) + " SMs (" + sm_list +
                      ") from " + std::to_string(a.images) + " images, " + std::to_string(a.kernels) + " kernels in" + quote_args(shown));
  return a;
}

}  // namespace kc::limits

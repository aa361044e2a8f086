// The HIP auditor (see hip_auditor.hpp).
#include "hip_auditor.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "kc/limits/error.hpp"
#include "kc/limits/paths.hpp"
#include "kc/limits/planted.hpp"
#include "kc/limits/text.hpp"


namespace kc::limits::hip {

namespace fs = std::filesystem;

std::vector<HipLaunch> hip_launches(const std::vector<LaunchRow>& rows) {
  std::vector<HipLaunch> out;
  for (const LaunchRow& row : rows) {
    if (row.cols.empty() || row.backend() != "hip") continue;
    const std::string where = row.where();
    const auto& c = row.cols;
    // The symbol may hold spaces (a template-id): it is every column between the launch and the last three.
    if (c.size() < 6) throw FormatError(where, "a hip row has 6 columns: hip launch symbol threads dyn_lds flags (has " + std::to_string(c.size()) + ")");
    const size_t n = c.size();
    HipLaunch l;
    l.name = c[1];
    l.symbol = join_from(c, 2, n - 3);
    l.where = where;
    const uint64_t t = parse_uint(c[n - 3], where, "threads");
    if (t == 0 || t > 65536) throw FormatError(where, "threads " + c[n - 3] + " is not 1..65536");
    l.threads = uint32_t(t);
    l.dyn_lds = parse_uint(c[n - 2], where, "dyn_lds");
    {
      for (const std::string& f : split_list(c[n - 1])) {
        if (f.rfind("control=", 0) == 0 && f.size() > 8) l.control = f.substr(8);
        else if (f.rfind("scratch=", 0) == 0) l.scratch_budget = parse_uint(f.substr(8), where, "scratch budget");
        else if (f.rfind("image=", 0) == 0 && f.size() > 6) l.image = f.substr(6);
        else throw FormatError(where, "unknown hip flag '" + f + "' (known: control=<kind>, scratch=<bytes>, image=<image>)");
      }
    }
    static const char* const kinds[] = {"bound", "threads", "vgprs", "waves", "lds", "sgprs", "scratch", "wave"};
    if (!l.control.empty() && std::find(std::begin(kinds), std::end(kinds), l.control) == std::end(kinds))
      throw FormatError(where, "control=" + l.control + " is not a HIP limit (bound, threads, vgprs, waves, lds, sgprs, scratch, wave)");
    for (const HipLaunch& o : out)
      if (o.name == l.name) throw FormatError(where, "launch " + l.name + " is declared twice (also " + o.where + ")");
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<std::string> find_code_objects(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".co") out.push_back(it->path().string());
    } else if (fs::is_regular_file(p, ec)) {
      if (fs::path(p).extension() == ".co") out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> failed_device_builds(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  auto one = [&](const fs::path& f) {
    std::ifstream in(f);
    std::string line, first, err;
    while (std::getline(in, line)) {
      if (first.empty()) first = line;
      if (err.empty() && line.find("error") != std::string::npos) err = line;
    }
    std::string built = f.string();
    built.resize(built.size() - 7);  // less ".failed"
    out.push_back(built + ": the device compile failed: " + (err.empty() ? first : err) + " (log: " + f.string() + ")");
  };
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (fs::recursive_directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".failed") one(it->path());
    } else if (fs::path(p).extension() == ".failed" && fs::is_regular_file(p, ec)) {
      one(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<HipRecord> derive_records(const std::vector<HipLaunch>& launches, const std::vector<CodeObject>& objects,
                                      std::vector<std::string>& errors) {
  std::vector<std::string> chips;
  for (const CodeObject& co : objects)
    if (std::find(chips.begin(), chips.end(), co.chip) == chips.end()) chips.push_back(co.chip);
  std::sort(chips.begin(), chips.end());
  std::vector<HipRecord> out;
  for (const HipLaunch& l : launches) {
    for (const std::string& chip : chips) {
      // Every instance of the symbol on this chip, in one code object (two images holding it is an error).
      bool have = false;
      HipRecord rec;
      std::string from;
      for (const CodeObject& co : objects) {
        if (co.chip != chip || (!l.image.empty() && co.image != l.image)) continue;
        for (const AmdKernel& k : co.kernels) {
          // The symbol names one kernel (as mangled, or its template-id) or all instances of a name.
          if (k.name != l.symbol && base_name(k.name) != l.symbol && template_id(k.name) != l.symbol) continue;
          if (have && from != co.path) {
            errors.push_back("launch " + l.name + ": symbol " + l.symbol + " is in two code objects for " + chip + ": " +
                             from + " and " + co.path + " (name one with the flag image=<image>)");
            continue;
          }
          HipRecord one = record_of(l.name, k, chip, co.image);
          one.symbol = l.symbol;  // a RECORD line's fields hold no spaces: "kc_f<1, 4>" is kept as "kc_f<1,4>"
          one.symbol.erase(std::remove(one.symbol.begin(), one.symbol.end(), ' '), one.symbol.end());
          if (have) merge_instance(rec, one);
          else rec = one, have = true, from = co.path;
        }
      }
      if (!have) {
        errors.push_back("launch " + l.name + " (" + l.where + "): symbol " + l.symbol + " is in no code object" +
                         (l.image.empty() ? std::string() : " of image " + l.image) + " for " + chip);
        continue;
      }
      out.push_back(rec);
    }
  }
  return out;
}

// $KC_HIP_RECORDS and $KC_HIP_OBJECTS where set, else the paths file's (kc/limits/paths.hpp), as
// for CUDA; else the folders of that name under the working directory.
std::string default_records_dir() {
  std::string d = contract_path("hip-records");
  return d.empty() ? "records/hip" : d;
}
std::string default_objects_dir() {
  std::string d = contract_path("hip-objects");
  return d.empty() ? "hsaco" : d;
}

std::string records_file_for(const std::string& dir, const std::string& compiler, std::string& note) {
  // Sets are named clang-<major>.txt; a code object is checked against the newest at or below its own.
  auto major_of = [](const std::string& name) -> int {
    if (name.rfind("clang-", 0) != 0) return -1;
    try {
      return std::stoi(name.substr(6));
    } catch (...) {
      return -1;
    }
  };
  const int want = compiler.empty() ? 1 << 30 : major_of(compiler);
  int best = -1;
  std::string file;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() != ".txt") continue;
    int m = major_of(it->path().stem().string());
    if (m >= 0 && m <= want && m > best) best = m, file = it->path().string();
  }
  if (file.empty()) {
    note = "no HIP records set at or below " + (compiler.empty() ? std::string("any compiler") : compiler) + " in " + dir;
    return "";
  }
  note = "records set " + fs::path(file).filename().string() + " (code objects say " +
         (compiler.empty() ? std::string("no compiler") : compiler) + ")";
  return file;
}

namespace {

std::string regen_command(const std::string& records_name) {
  return "re-derive: kernel-contract-limits --kind hip --write-records records/hip (writes " +
         (records_name.empty() ? std::string("clang-19.txt") : records_name) + " from this build's code objects)";
}

}  // namespace

kc::AuditResult audit_hip(const std::vector<HipLaunch>& launches, const std::vector<HipRecord>& stored,
                          const std::vector<CodeObject>* objects, const std::string& only,
                          const std::string& records_name) {
  kc::AuditResult res;
  res.backend = "hip";
  std::map<std::pair<std::string, std::string>, const HipRecord*> by_key;
  for (const HipRecord& r : stored) {
    auto [it, fresh] = by_key.emplace(std::make_pair(r.launch, r.chip), &r);
    if (!fresh) res.errors.push_back("two records for launch " + r.launch + " on " + r.chip);
  }
  // The records must say what the code objects say.
  if (objects) {
    std::vector<std::string> errs;
    std::vector<HipRecord> now = derive_records(launches, *objects, errs);
    for (auto& e : errs) res.errors.push_back(e);
    for (const HipRecord& r : now) {
      if (!only.empty() && r.launch.find(only) == std::string::npos) continue;
      auto it = by_key.find({r.launch, r.chip});
      if (it == by_key.end())
        res.errors.push_back("missing record: " + record_line(r) + " (" + regen_command(records_name) + ")");
      else if (!(*it->second == r))
        res.errors.push_back("stale record: the set says \"" + record_line(*it->second) + "\", the code object says \"" +
                             record_line(r) + "\" (" + regen_command(records_name) + ")");
    }
  }
  for (const HipLaunch& l : launches) {
    if (!only.empty() && l.name.find(only) == std::string::npos) continue;
    for (const AmdChip& chip : amd_chips()) {
      kc::AuditLine line;
      line.launch = l.name;
      line.chip = chip.name;
      line.control = !l.control.empty();
      auto it = by_key.find({l.name, chip.name});
      if (it == by_key.end()) {
        line.problem = !line.control;  // a control with nothing to check has not found its problem
        line.message = "no record on " + chip.name + " (" + regen_command(records_name) + ")";
        res.errors.push_back("launch " + l.name + ": " + line.message);
        res.lines.push_back(std::move(line));
        continue;
      }
      set_verdict(line, l.control, check_launch(l, *it->second, chip));
      res.lines.push_back(std::move(line));
    }
  }
  return res;
}

namespace {

class HipAuditor final : public kc::Auditor {
 public:
  std::string backend() const override { return "hip"; }
  kc::AuditResult audit(const kc::AuditOptions& opt) override {
    kc::AuditResult res;
    res.backend = "hip";
    try {
      std::vector<HipLaunch> launches = hip_launches(read_launch_rows(find_launch_files(default_launch_paths())));
      // A contract with no HIP launch rows (an outside CUDA or CPU project) has nothing here to audit:
      // neither records nor code objects are its own.
      if (launches.empty()) {
        res.notes.push_back("no HIP launch rows in this contract's launch files: nothing to audit");
        return res;
      }
      // Code objects: those among the paths given (a run may name CUDA binaries only), else the ones
      // this build compiled.
      std::vector<std::string> files = find_code_objects(opt.paths);
      if (files.empty()) files = find_code_objects({default_objects_dir()});
      for (auto& e : failed_device_builds({default_objects_dir()})) res.errors.push_back(std::move(e));
      std::vector<CodeObject> objects;
      std::string compiler;
      for (const std::string& f : files) {
        try {
          objects.push_back(read_code_object(f));
          if (compiler.empty()) compiler = objects.back().compiler;
        } catch (const std::exception& e) {
          res.errors.push_back(e.what());
        }
      }
      std::string note;
      const std::string rec_file = records_file_for(default_records_dir(), compiler, note);
      std::vector<HipRecord> stored;
      if (!rec_file.empty()) {
        stored = parse_records(read_text_file(rec_file, "HIP records"), rec_file);
      }
      kc::AuditResult a = audit_hip(launches, stored, files.empty() ? nullptr : &objects, opt.only,
                                    fs::path(rec_file).filename().string());
      res.notes.push_back(note);
      res.notes.push_back(files.empty() ? "no AMDGPU code objects found (built with clang-19 into " + default_objects_dir() +
                                              "): records audited without checking them against code objects"
                                        : std::to_string(objects.size()) + " code objects read");
      if (rec_file.empty()) res.errors.push_back(note);
      for (auto& e : a.errors) res.errors.push_back(std::move(e));
      res.lines = std::move(a.lines);
    } catch (const std::exception& e) {
      res.errors.push_back(std::string("hip audit: ") + e.what());
    }
    return res;
  }
};

}  // namespace

std::unique_ptr<kc::Auditor> make_hip_auditor() { return std::make_unique<HipAuditor>(); }

}  // namespace kc::limits::hip

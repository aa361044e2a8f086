// kernel-contract-limits --kind hip|xpu|metal (see other_kinds.hpp).
#include "other_kinds.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <fstream>
#include <sstream>

#include "hip/hip_auditor.hpp"
#include "kc/limits/error.hpp"
#include "kc/limits/text.hpp"
#include "metal/metal_audit.hpp"
#include "xpu/xpu_audit.hpp"

#ifndef KC_XPU_SET
#define KC_XPU_SET "ocloc"
#endif

namespace kc::limits {

namespace fs = std::filesystem;

namespace {


int report(const kc::AuditResult& r, std::ostream& out) {
  size_t problems = 0, controls = 0, red = 0;
  for (const auto& l : r.lines) {
    out << "AUDIT " << r.backend << ' ' << l.launch << ' ' << l.chip << ' '
        << (l.control ? (l.problem ? "CONTROL-RED " : "CONTROL-GREEN ") : (l.problem ? "PROBLEM " : "OK ")) << l.message << "\n";
    if (l.control) {
      ++controls;
      if (l.problem) ++red;
      else ++problems;
    } else if (l.problem) {
      ++problems;
    }
  }
  for (const auto& n : r.notes) out << "NOTE " << n << "\n";
  for (const auto& e : r.errors) out << "ERROR " << e << "\n";
  problems += r.errors.size();
  out << "LIMITS " << r.backend << ": " << r.lines.size() << " launch x chip lines, " << problems
      << " limit problems, controls red " << red << " of " << controls << "\n";
  return problems ? 1 : 0;
}

int write_set(const std::string& dir, const std::string& name, const std::vector<std::string>& lines, std::ostream& out) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string f = dir + "/" + name;
  std::ofstream o(f);
  for (const auto& l : lines) o << l << "\n";
  if (!o) {
    out << "ERROR cannot write " << f << "\n";
    return 1;
  }
  out << "wrote " << f << " (" << lines.size() << " records)\n";
  return 0;
}

}  // namespace

int run_other_kind(const OtherKindOptions& o, std::ostream& out) {
  try {
    const auto rows = read_launch_rows(find_launch_files(o.launch_paths.empty() ? default_launch_paths() : o.launch_paths));
    if (o.kind == "hip") {
      auto launches = hip::hip_launches(rows);
      auto files = hip::find_code_objects(o.paths.empty() ? std::vector<std::string>{hip::default_objects_dir()} : o.paths);
      if (files.empty()) {
        out << "ERROR no AMDGPU code objects (*.co) in the paths given\n";
        return 1;
      }
      std::vector<hip::CodeObject> objs;
      kc::AuditResult bad;
      bad.backend = "hip";
      bad.errors = hip::failed_device_builds(o.paths.empty() ? std::vector<std::string>{hip::default_objects_dir()} : o.paths);
      for (const auto& f : files) {
        try {
          objs.push_back(hip::read_code_object(f));
        } catch (const std::exception& e) {
          bad.errors.push_back(e.what());
        }
      }
      std::string compiler = objs.empty() ? "" : objs.front().compiler;
      for (const auto& c : objs)
        if (c.compiler != compiler) bad.errors.push_back(c.path + ": built by " + c.compiler + ", the others by " + compiler);
      std::vector<std::string> errs;
      auto fresh = hip::derive_records(launches, objs, errs);
      for (auto& e : errs) bad.errors.push_back(e);
      std::vector<std::string> lines;
      for (const auto& r : fresh)
        if (o.only.empty() || r.launch.find(o.only) != std::string::npos) lines.push_back(hip::record_line(r));
      if (!o.write_dir.empty()) {
        if (!bad.errors.empty()) return report(bad, out);
        return write_set(o.write_dir, (compiler.empty() ? std::string("clang") : compiler) + ".txt", lines, out);
      }
      for (const auto& l : lines) out << l << "\n";
      std::string note;
      const std::string set = hip::records_file_for(hip::default_records_dir(), compiler, note);
      auto stored = set.empty() ? std::vector<hip::HipRecord>{} : hip::parse_records(read_text_file(set, "HIP records"), set);
      kc::AuditResult r = hip::audit_hip(launches, stored, &objs, o.only, fs::path(set).filename().string());
      r.notes.insert(r.notes.begin(), note);
      if (set.empty()) r.errors.push_back(note);
      for (auto& e : bad.errors) r.errors.push_back(e);
      return report(r, out);
    }
    if (o.kind == "xpu") {
      auto launches = xpu::xpu_launches(rows);
      auto files = xpu::find_zebins(o.paths.empty() ? std::vector<std::string>{xpu::default_zebin_dir()} : o.paths);
      if (files.empty()) {
        out << "ERROR no zebins (*.zebin) in the paths given\n";
        return 1;
      }
      std::vector<xpu::Zebin> bins;
      kc::AuditResult bad;
      bad.backend = "xpu";
      bad.errors = hip::failed_device_builds(o.paths.empty() ? std::vector<std::string>{xpu::default_zebin_dir()} : o.paths);
      for (const auto& f : files) {
        try {
          bins.push_back(xpu::read_zebin(f));
        } catch (const std::exception& e) {
          bad.errors.push_back(e.what());
        }
      }
      std::vector<std::string> errs;
      auto fresh = xpu::derive_records(launches, bins, errs);
      for (auto& e : errs) bad.errors.push_back(e);
      std::vector<std::string> lines;
      for (const auto& r : fresh)
        if (o.only.empty() || r.launch.find(o.only) != std::string::npos) lines.push_back(xpu::record_line(r));
      const std::string set = std::string(KC_XPU_SET) + ".txt";
      if (!o.write_dir.empty()) {
        if (!bad.errors.empty()) return report(bad, out);
        return write_set(o.write_dir, set, lines, out);
      }
      for (const auto& l : lines) out << l << "\n";
      const std::string file = xpu::default_records_dir() + "/" + set;
      auto stored = fs::exists(file) ? xpu::parse_records(read_text_file(file, "XPU records"), file) : std::vector<xpu::XpuRecord>{};
      kc::AuditResult r = xpu::audit_xpu(launches, stored, &bins, o.only, set);
      r.notes.insert(r.notes.begin(), "records set " + set);
      if (!fs::exists(file)) r.errors.push_back("no XPU records set " + file);
      for (auto& e : bad.errors) r.errors.push_back(e);
      return report(r, out);
    }
    if (o.kind == "metal") {
      auto launches = metal::metal_launches(rows);
      for (const auto& l : launches)
        if (o.only.empty() || l.name.find(o.only) != std::string::npos) out << metal::record_line(l) << "\n";
      if (!o.write_dir.empty()) {
        out << "ERROR Metal records are the launches' own rows (m1m2=), re-derived on a Mac: nothing to write here\n";
        return 2;
      }
      kc::AuditResult r = metal::audit_metal(launches, o.only);
      r.notes.push_back("no Metal binaries here: each launch's declared M1/M2 limit is its record");
      return report(r, out);
    }
    out << "ERROR --kind " << o.kind << " is not one of cuda, hip, xpu, metal\n";
    return 2;
  } catch (const std::exception& e) {
    out << "ERROR " << e.what() << "\n";
    return 1;
  }
}

int other_kind_main(int argc, char** argv) {
  OtherKindOptions o;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--kind") && i + 1 < argc) o.kind = argv[i + 1];
    else if (!std::strncmp(argv[i], "--kind=", 7)) o.kind = argv[i] + 7;
  }
  if (o.kind.empty() || o.kind == "cuda") return -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* opt) -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "kernel-contract-limits: " << opt << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--kind") ++i;
    else if (a.rfind("--kind=", 0) == 0) continue;
    else if (a == "--launches") o.launch_paths.push_back(value("--launches"));
    else if (a == "--only") o.only = value("--only");
    else if (a == "--write-records") o.write_dir = value("--write-records");
    else if (a == "-h" || a == "--help") {
      std::cout << "kernel-contract-limits --kind hip|xpu|metal [PATHS...] [--launches P]... [--only TEXT] [--write-records DIR]\n"
                   "  hip: AMDGPU code objects (*.co), default this build's hsaco/; xpu: zebins (*.zebin), default zebin/;\n"
                   "  metal: no binaries (the launches' rows are the records). Prints RECORD lines, then AUDIT lines.\n";
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::cerr << "kernel-contract-limits: unknown option " << a << " for --kind " << o.kind << "\n";
      return 2;
    } else {
      o.paths.push_back(a);
    }
  }
  return run_other_kind(o, std::cout);
}

}  // namespace kc::limits

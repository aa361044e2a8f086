// kernel-contract-limits DIR|FILE...: reads every CUDA image in the binaries (no GPU needed), prints a
// RECORD line per declared launch and SM, then audits each against the chip table and the records.
// Exit: 0 all within limits; 1 a limit problem (over a limit, a control not red, a missing or stale
// record, an unreadable binary); 2 a usage error.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "kc/limits/cuda_audit.hpp"
#include "kc/limits/error.hpp"
// --kind hip|xpu|metal hands the whole command line to limits/hip (when that folder is built).
#if __has_include("hip/other_kinds.hpp")
#include "hip/other_kinds.hpp"
#define KC_OTHER_KINDS 1
#endif

int main(int argc, char** argv) {
#ifdef KC_OTHER_KINDS
  if (const int rc = kc::limits::other_kind_main(argc, argv); rc >= 0) return rc;
#endif
  CLI::App app{
      "Gate 5 for CUDA: reads registers, shared memory, launch bounds, clusters and frames from the cubins in\n"
      "executables, shared libraries, object files, fatbins or cubins (no GPU needed), prints one RECORD line\n"
      "per declared launch and SM, and audits every launch against every served SM and the records.\n"
      "Exit status: 0 within limits, 1 a limit problem (or a control not red, a missing or stale record, an\n"
      "unreadable binary), 2 a usage error."};
  kc::limits::CudaAuditConfig cfg;
  std::string write_dir, sm_list, extract_dir;
  bool kernels = false;
  std::string kind = "cuda";
  app.add_option("paths", cfg.binaries, "binaries or directories to read (directories are searched recursively)")->required();
  app.add_option("--launches", cfg.launch_paths, "launches.tsv files or folders (default: $KC_LAUNCHES, else the `launches` lines of the paths file beside this tool: bin/kc.paths in a build)")->allow_extra_args(false);
  app.add_option("--records", cfg.records_dir, "records directory (default: $KC_CUDA_RECORDS, else the paths file's `cuda-records`)");
  app.add_option("--write-records", write_dir, "write the record set of each image release into DIR (base or difference) and exit");
  app.add_option("--sm", sm_list, "SMs to audit, comma-separated; an image missing for one is a problem (default: the SMs the binaries hold images for)");
  app.add_option("--only", cfg.only, "launches whose name holds TEXT");
  app.add_option("--kind", kind, "binary kind: cuda (this audit), or hip, xpu, metal (limits/hip, limits/xpu, limits/metal)")
      ->check(CLI::IsMember({"cuda", "hip", "xpu", "metal"}));
  app.add_option("--extract", extract_dir, "also write every cubin of the images into DIR (<n>_sm_<sm>.cubin), e.g. for cuModuleLoadData");
  app.add_flag("--kernels", kernels, "also print every kernel found in the images, declared or not (KERNEL lines)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  if (kind != "cuda") {
    std::cerr << "kernel-contract-limits: --kind " << kind << " is not built into this tool\n";
    return 2;
  }
  if (!sm_list.empty()) {
    std::string s;
    std::istringstream in(sm_list);
    while (std::getline(in, s, ',')) {
      const int sm = kc::limits::parse_sm(s);
      if (!sm) {
        std::cerr << "kernel-contract-limits: --sm '" << sm_list << "': '" << s << "' is not an SM (want 90, sm_90, 90a)\n";
        return 2;
      }
      cfg.sms.push_back(sm);
    }
  }
  std::error_code ec;
  cfg.tool = std::filesystem::canonical("/proc/self/exe", ec).string();
  if (ec) cfg.tool = argv[0];
  if (!write_dir.empty()) cfg.records_dir = write_dir;

  auto a = kc::limits::audit_cuda(cfg, write_dir.empty());
  for (const auto& c : a.checks) std::cout << c.record << "\n";
  if (kernels || !extract_dir.empty()) {
    // Every kernel of every image (for writing a launches.tsv row), and the cubins themselves.
    int n = 0;
    if (!extract_dir.empty()) std::filesystem::create_directories(extract_dir, ec);
    for (const auto& im : a.image_list) {
      std::string file;
      if (!extract_dir.empty()) {
        file = extract_dir + "/" + std::to_string(n++) + "_sm_" + std::to_string(im.cubin.sm) + ".cubin";
        std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(im.bytes->data()), static_cast<std::streamsize>(im.bytes->size()));
      }
      if (!kernels) continue;
      for (const auto& k : im.cubin.kernels)
        std::cout << "KERNEL " << kc::limits::record_line("-", "sm_" + std::to_string(im.cubin.sm), k).substr(14)
                  << " section=" << k.shared_section << (file.empty() ? "" : " cubin=" + file) << " name=" << k.name << " [" << im.where << "]\n";
    }
  }
  auto& r = a.result;
  if (!write_dir.empty()) {
    if (!r.errors.empty()) {
      for (const auto& e : r.errors) std::cout << "ERROR " << e << "\n";
      std::cout << "records not written: fix the errors above first\n";
      return 1;
    }
    try {
      for (const auto& [rel, lines] : a.fresh) {
        kc::limits::Release rr = rel.major ? rel : kc::limits::Release{13, 0};
        std::string compiler;
        for (const auto& t : a.compilers[rel]) compiler += (compiler.empty() ? "" : "; ") + t;
        auto f = kc::limits::write_record_set(write_dir, rr, lines, a.declared, a.regen, compiler);
        if (f.empty())
          std::cout << "nvcc " << rr.str() << " compiles all " << lines.size() << " records read as the sets below it: no set of its own written\n";
        else
          std::cout << "wrote " << f << " (" << lines.size() << " records derived from images of nvcc " << rr.str() << ")\n";
      }
    } catch (const kc::limits::FormatError& e) {
      std::cout << "ERROR " << e.what() << "\n";
      return 1;
    }
    return 0;
  }
  size_t problems = 0, controls = 0, red = 0;
  for (const auto& l : r.lines) {
    std::cout << "AUDIT cuda " << l.launch << " " << l.chip << " " << (l.control ? (l.problem ? "CONTROL-RED " : "CONTROL-GREEN ") : (l.problem ? "PROBLEM " : "OK "))
              << l.message << "\n";
    if (l.control) {
      ++controls;
      if (l.problem) ++red; else ++problems;
    } else if (l.problem) {
      ++problems;
    }
  }
  for (const auto& n : r.notes) std::cout << "NOTE " << n << "\n";
  for (const auto& e : r.errors) std::cout << "ERROR " << e << "\n";
  problems += r.errors.size();
  std::cout << "LIMITS cuda: " << r.lines.size() << " launch x SM lines, " << problems << " limit problems, controls red " << red << " of "
            << controls << "\n";
  return problems ? 1 : 0;
}

// The kernel-contract command line. Exit codes: 0 every gate passed or is KNOWN and every control
// is red; 1 a failure (a gate, a green control, a limit problem, an entry that cannot run);
// 2 bad usage; 3 the filter matched nothing.
#include "kc/cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <tuple>
#include <iostream>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "kc/audit.hpp"
#include "kc/not_here.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"
#include "ctest_gpus.hpp"
#include "merge.hpp"
#include "respawn.hpp"
#include "sanitize.hpp"
#include "shard.hpp"

namespace kc {

// What a fresh process after a lost device runs: this very binary, even if its file was replaced
// since, through /proc/self/exe; where there is none, argv[0] as found on PATH.
static std::string self_exe(const char* argv0) {
  if (access("/proc/self/exe", X_OK) == 0) return "/proc/self/exe";
  std::string a = argv0 ? argv0 : "";
  if (a.empty() || a.find('/') != std::string::npos) return a;
  const char* path = std::getenv("PATH");
  for (std::string dirs = path ? path : ""; !dirs.empty();) {
    std::string dir = dirs.substr(0, dirs.find(':'));
    dirs.erase(0, dir.size() + 1);
    std::string p = (dir.empty() ? "." : dir) + "/" + a;
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

static void list_entries(const RunOptions& opt, const std::vector<Backend*>& backends, int& matched) {
  for (auto* b : backends) {
    if (!opt.backend.empty() && opt.backend != b->name()) continue;
    for (const auto* r : detail::run_selection(opt, b->name())) {
      const Registration& reg = *r;
      ++matched;
      try {
        Entry e = build(reg);
        std::vector<std::string> dims;
        for (const auto& d : e.spec.dims)
          dims.push_back(d.tiled ? fmt::format("{}{{{}}} tile {} step {} least {}", d.name, fmt::join(d.served, ","),
                                               d.tile, d.step, d.least)
                                 : fmt::format("{}{{{}}}", d.name, fmt::join(d.served, ",")));
        std::string kind = e.spec.control ? fmt::format("control(gate {} {}, {})", int(*e.spec.control_gate),
                                                        gate_name(*e.spec.control_gate), why_name(e.spec.control_why))
                                          : "kernel";
        std::cout << fmt::format("{:<6} {:<40} {} {}{}{}{}\n", b->name(), reg.name, kind, fmt::join(dims, " "),
                                 e.spec.replaces.empty() ? "" : " replaces " + e.spec.replaces,
                                 e.spec.chained.empty() ? "" : fmt::format(" chained {}", fmt::join(e.spec.chained, ",")),
                                 b->absent().empty() ? "" : "  [backend absent here]");
      } catch (const NotHere& x) {
        std::cout << fmt::format("{:<6} {:<40} {} not run on this device: {}\n", b->name(), reg.name,
                                 reg.control ? "control," : "kernel, ERROR: a kernel is never skipped, but", x.what());
      } catch (const std::exception& x) {
        std::cout << fmt::format("{:<6} {:<40} ERROR {}\n", b->name(), reg.name, x.what());
      }
    }
  }
}

// A run allocates and frees buffers of up to gigabytes case after case. glibc serves each from a
// fresh mmap, which one core then faults in and zeroes page by page (about 0.1 s a 256 MiB vector,
// more than many references take); from the heap, kept after free, the next case reuses pages
// already mapped. The cost is a process that keeps its peak footprint until it exits. Trimming is
// off altogether (-1; the largest int, 2 GiB, still let glibc hand back the top of the heap once a
// case at 8,192 x 16,384 freed its two 1 GiB float64 outputs, and the next case fault them in again:
// 0.9 s of gate 1's 11 plants each at that shape, 0.15 s without).
static void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
#endif
}

// --launch-rows: every backend's derived rows (or one backend's) to a file, written aside and renamed so
// that a reader never sees half of it.
static int write_launch_rows(const std::string& path, const std::vector<Backend*>& backends, const std::string& only) {
  std::string rows;
  try {
    for (auto* b : backends)
      if (only.empty() || only == b->name()) rows += b->launch_rows();
  } catch (const std::exception& e) {
    std::cerr << "kernel-contract: --launch-rows: " << e.what() << "\n";
    return exit_fail;
  }
  if (path == "-") {
    std::cout << rows;
    return exit_ok;
  }
  const std::string part = path + ".part";
  {
    std::ofstream out(part);
    if (!(out << rows) || !(out.flush())) {
      std::cerr << "kernel-contract: cannot write --launch-rows '" << path << "'\n";
      return exit_usage;
    }
  }
  if (std::rename(part.c_str(), path.c_str()) != 0) {
    std::cerr << "kernel-contract: cannot write --launch-rows '" << path << "'\n";
    return exit_usage;
  }
  return exit_ok;
}

int cli_main(int argc, char** argv, std::vector<std::unique_ptr<Backend>> owned) {
  return cli_main(argc, argv, std::move(owned), {});
}

int cli_main(int argc, char** argv, std::vector<std::unique_ptr<Backend>> owned, std::vector<std::string> self) {
  keep_freed_memory();
  CLI::App app{"kernel-contract: runs every registered kernel through the five gates of the contract\n"
               "(1 non-finite, 2 repeat and aliasing, 3 shapes within a float64 bound, 4 fp32 sums,\n"
               "5 launch limits from the compiled binaries) on every backend this machine has,\n"
               "with every planted control, and prints one SUMMARY line per backend.",
               "kernel-contract"};
  RunOptions opt;
  std::string reporter = "console", out_path;
  bool list = false, no_limits = false;
  std::string seed_text;
  app.add_option("--only", opt.only, "run the entries (and gate 5 launches) whose name holds TEXT");
  app.add_flag("--exact", opt.exact, "--only names one entry: its whole name, not a part of it");
  app.add_flag("--list", list, "list the matching entries and exit");
  app.add_option("--backend", opt.backend, "run one backend: cpu, cuda, hip, xpu, opencl, metal");
  app.add_option("--seed", seed_text, "seed of every input (decimal or 0x hex); the run prints it");
  app.add_option("--seeds", opt.seeds, "run every case under N seeds: --seed, --seed + 1, ... (each printed)")
      ->check(CLI::Range(1, 1000));
  app.add_flag("--repro", opt.repro, "print the smallest input behind each finding, with values, want and got");
  app.add_flag("--margins", opt.margins,
               "under each gate 3 line that passed, print how near its bound it came: the worst |err| / bound "
               "(or distance from a rounding-point interval's middle over half its width), where, want and got");
  app.add_option("--reporter", reporter, "console (default), json or junit")
      ->check(CLI::IsMember({"console", "json", "junit"}));
  app.add_option("--out", out_path, "write the reporter's output to FILE (the console still prints)");
  app.add_option("--timeout", opt.timeout_s, "seconds a launch may run before it is reported as a hang")
      ->check(CLI::PositiveNumber);
  app.add_flag("--no-limits", no_limits, "skip gate 5 (the audit of compiled binaries)");
  app.add_flag("--cpu-references", opt.cpu_references,
               "evaluate every float64 reference on the CPU, even where a backend's device matched it "
               "(by default the large dense and affine ones run there)");
  std::string opencl_device;
  app.add_option("--opencl-device", opencl_device,
                 "the OpenCL device: its index among every platform's devices, or a part of its name (default: "
                 "the first GPU, else the first device; the same as KC_OPENCL_DEVICE)");
  app.add_option("--audit", opt.audit_paths, "binaries for gate 5 to read (default: this executable)");
  std::string launch_rows_path;
  app.add_option("--launch-rows", launch_rows_path,
                 "run nothing: write gate 5's launch rows derived from this executable's launch declarations "
                 "(KC_CUDA_LAUNCH) to FILE (- for standard output); the build writes them for gate 5");
  std::vector<std::string> merge;
  app.add_option("--merge", merge,
                 "run nothing: read the JSON Lines reports of runs over disjoint entries (--reporter json --out, "
                 "e.g. one a shard) and report them as one run, one SUMMARY a backend, with that run's exit code")
      ->check(CLI::ExistingFile);
  std::string shard_text, write_costs;
  app.add_option("--shard", shard_text,
                 "run shard I of N (I/N): each backend's selected entries split into N by their recorded seconds "
                 "(--costs), the same split in every run, so N shards merged (--merge) are the whole run; gate 5 "
                 "runs in one of them; --list lists the shard's entries");
  app.add_option("--costs", opt.costs_file,
                 "the recorded seconds of each entry that --shard balances (records/costs.tsv; without it every "
                 "entry counts 1 s; an entry with no row counts at the mean of its backend's rows)")
      ->check(CLI::ExistingFile);
  app.add_option("--write-costs", write_costs,
                 "after the run (or --merge), write each entry's seconds over gates 1-4 into FILE for --costs, "
                 "keeping the rows of entries it did not run");
  app.add_flag("--in-process", opt.in_process,
               "run CPU entries in this process (for a debugger); by default they run in a fresh process this "
               "one supervises, so a kernel that crashes or hangs is reported by name and the run goes on");
  std::string sanitize;
  app.add_option("--sanitize", sanitize,
                 "run nothing else: each CUDA entry's launches at its smallest shapes under compute-sanitizer's "
                 "tools (memcheck,racecheck,initcheck,synccheck, a comma list, or all), one process an entry and "
                 "tool; a finding on a kernel is an ERROR line naming the entry and the tool (compute-sanitizer "
                 "from KC_COMPUTE_SANITIZER, PATH, $CUDA_HOME/bin or $CUDA_PATH/bin)");
  bool sanitize_child = false;
  app.add_flag("--sanitize-launches", sanitize_child)->group("");  // the process --sanitize runs under the tool
  // Hidden: how a run re-runs this executable in a fresh process (core/src/respawn.cpp).
  std::string resume_at;
  int stream_fd = -1;
  app.add_option("--resume-at", resume_at)->group("");
  app.add_option("--stream-fd", stream_fd)->group("");
  app.footer(
      "Exit codes: 0 every gate passed or is KNOWN and every control is red; 1 any failed gate,\n"
      "green control, fixed known finding, limit problem or entry error; 2 bad usage; 3 nothing matched.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return exit_usage;
  }
  opt.limits = !no_limits;
  try {
    if (!shard_text.empty()) std::tie(opt.shard, opt.shards) = detail::parse_shard(shard_text);
    if (!opt.costs_file.empty()) opt.costs = detail::cost_map(detail::read_costs(opt.costs_file));
  } catch (const std::exception& e) {
    std::cerr << "kernel-contract: " << e.what() << "\n";
    return exit_usage;
  }
  if (opt.shards && !merge.empty()) {
    std::cerr << "kernel-contract: --shard runs a part of the entries and --merge runs none: give one of them\n";
    return exit_usage;
  }
  // Under `ctest --resource-spec-file`, the GPUs CTest allotted this test, before any device opens (a
  // fresh process of this run inherits them).
  try {
    if (const std::string pinned = resume_at.empty() ? detail::pin_ctest_gpus() : ""; !pinned.empty()) std::cerr << "kernel-contract: " << pinned << "\n";
  } catch (const std::exception& e) {
    std::cerr << "kernel-contract: " << e.what() << "\n";
    return exit_usage;
  }
  std::vector<std::string> sanitizers;
  if (!sanitize.empty() || app.count("--sanitize")) {
    try {
      sanitizers = detail::parse_sanitizers(sanitize);
    } catch (const std::exception& e) {
      std::cerr << "kernel-contract: " << e.what() << "\n";
      return exit_usage;
    }
    if (!opt.backend.empty() && opt.backend != "cuda") {
      std::cerr << "kernel-contract: --sanitize runs CUDA entries, not --backend " << opt.backend << "\n";
      return exit_usage;
    }
  }
  // Through the environment, which the backend reads when it first looks for a device and the
  // fresh processes a run supervises inherit.
  if (!opencl_device.empty()) setenv("KC_OPENCL_DEVICE", opencl_device.c_str(), 1);
  if (!seed_text.empty()) {
    try {
      size_t used = 0;
      opt.seed = std::stoull(seed_text, &used, 0);
      if (used != seed_text.size()) throw std::invalid_argument(seed_text);
    } catch (const std::exception&) {
      std::cerr << "kernel-contract: --seed '" << seed_text << "' is not a number\n";
      return exit_usage;
    }
  }
  std::vector<Backend*> backends;
  bool known_backend = opt.backend.empty();
  for (auto& b : owned) {
    backends.push_back(b.get());
    known_backend |= b->name() == opt.backend;
  }
  if (!known_backend) {
    std::cerr << "kernel-contract: unknown backend '" << opt.backend << "' (cpu, cuda, hip, xpu, opencl, metal)\n";
    return exit_usage;
  }
  if (!resume_at.empty() || stream_fd >= 0) {
    Backend* b = nullptr;
    for (auto* x : backends)
      if (x->name() == opt.backend) b = x;
    if (!b || resume_at.empty() || stream_fd < 0 || list) {
      std::cerr << "kernel-contract: --resume-at and --stream-fd are for the fresh process a run starts (after a "
                   "lost device, or to run CPU entries apart); they need each other and --backend\n";
      return exit_usage;
    }
    opt.limits = false;  // gate 5 is the parent's
    int rc = detail::run_resumed(opt, *b, resume_at, stream_fd);
    std::cout.flush();
    std::fflush(nullptr);
    std::_Exit(rc);  // a device's exit handlers could wait forever on a kernel that never returned
  }
  if (sanitize_child || !sanitizers.empty()) {
    Backend* cuda = nullptr;
    for (auto* x : backends)
      if (x->name() == "cuda") cuda = x;
    if (!cuda) {
      std::cerr << "kernel-contract: --sanitize: this executable has no cuda backend\n";
      return exit_usage;
    }
    opt.backend = "cuda";
    if (sanitize_child) {
      int rc = detail::sanitize_launches(opt, *cuda);
      std::cout.flush();
      std::fflush(nullptr);
      std::_Exit(rc);  // as --resume-at: a device's exit handlers could wait on a kernel that never returned
    }
    const std::string tool = detail::find_compute_sanitizer();
    if (tool.empty()) {
      std::cerr << "kernel-contract: --sanitize needs NVIDIA's compute-sanitizer (in the CUDA toolkit), and none was "
                   "found: KC_COMPUTE_SANITIZER, PATH, $CUDA_HOME/bin and $CUDA_PATH/bin hold none\n";
      return exit_fail;
    }
    // The device is left to the sanitized processes (an exclusive-process GPU takes one at a time):
    // each says itself where the backend is absent.
    opt.self_exe = self.empty() ? self_exe(argc > 0 ? argv[0] : nullptr) : self.front();
    if (!self.empty()) opt.self_args.assign(self.begin() + 1, self.end());
    return detail::run_sanitizers(opt, sanitizers, tool, *cuda, std::cout);
  }
  if (!launch_rows_path.empty()) return write_launch_rows(launch_rows_path, backends, opt.backend);
  if (list) {
    int matched = 0;
    list_entries(opt, backends, matched);
    if (matched) return exit_ok;
    // Listing a backend that holds no entries lists nothing and fails nothing; a filter that matches
    // nothing is an error (3), named with what it was given.
    const std::string where = opt.backend.empty() ? "" : " on backend " + opt.backend;
    bool any = false;
    for (const auto& reg : registry()) any |= opt.backend.empty() || reg.backend == opt.backend;
    if (opt.only.empty()) {
      std::cout << "kernel-contract: no entry is registered" << where << "\n";
      return exit_ok;
    }
    std::cerr << "kernel-contract: no entry" << where << " matches --only '" << opt.only << "'"
              << (opt.exact ? " exactly" : "") << (any ? "" : " (none is registered" + where + ")") << "\n";
    return exit_no_match;
  }
  opt.progress = isatty(2);
  if (self.empty()) {
    opt.self_exe = self_exe(argc > 0 ? argv[0] : nullptr);
  } else {
    opt.self_exe = self.front();
    opt.self_args.assign(self.begin() + 1, self.end());
  }
  std::vector<std::unique_ptr<Reporter>> reps;
  std::ofstream file;
  reps.push_back(make_console_reporter(std::cout, isatty(1), opt.margins));
  if (reporter != "console" || !out_path.empty()) {
    if (!out_path.empty()) {
      file.open(out_path);
      if (!file) {
        std::cerr << "kernel-contract: cannot write --out '" << out_path << "'\n";
        return exit_usage;
      }
    }
    if (out_path.empty()) reps.clear();  // json/junit to stdout alone
    std::ostream& to = out_path.empty() ? std::cout : file;
    reps.push_back(reporter == "console" ? make_console_reporter(to, false, opt.margins) : make_reporter(reporter, to));
  }
  if (!write_costs.empty()) reps.push_back(detail::make_cost_writer(write_costs));  // last: after every other
  std::vector<Reporter*> rp;
  for (auto& r : reps) rp.push_back(r.get());
  if (!merge.empty()) {
    try {
      return detail::merge_reports(merge, rp);
    } catch (const std::exception& e) {
      std::cerr << "kernel-contract: " << e.what() << "\n";
      return exit_fail;
    }
  }
  try {
    RunResult res = run(opt, backends, rp);
    if (res.exit_code == exit_no_match) {
      const std::string where = opt.backend.empty() ? "" : " on backend " + opt.backend;
      if (opt.only.empty())
        std::cerr << "kernel-contract: no entry is registered" << where << ": nothing ran\n";
      else
        std::cerr << "kernel-contract: nothing" << where << " matches --only '" << opt.only
                  << "': a filter that matches nothing is an error\n";
    }
    for (auto* b : backends)
      if ((opt.backend.empty() || opt.backend == b->name()) && !b->lost().empty()) {
        // Everything is reported; leave without the exit handlers, which could wait forever on a
        // kernel that never returned.
        if (file.is_open()) file.flush();
        std::cout.flush();
        std::fflush(nullptr);
        std::_Exit(res.exit_code);
      }
    return res.exit_code;
  } catch (const std::exception& e) {
    std::cerr << "kernel-contract: " << e.what() << "\n";
    return exit_fail;
  }
}

}  // namespace kc

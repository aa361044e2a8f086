// The kernel-contract command line. Exit codes: 0 every gate passed or is KNOWN and every control
// is red; 1 a failure (a gate, a green control, a limit problem, an entry that cannot run);
// 2 bad usage; 3 the filter matched nothing.
#include "kc/cli.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "kc/audit.hpp"
#include "kc/registry.hpp"
#include "kc/runner.hpp"

namespace kc {

static void list_entries(const RunOptions& opt, const std::vector<Backend*>& backends, int& matched) {
  for (auto* b : backends) {
    if (!opt.backend.empty() && opt.backend != b->name()) continue;
    for (const auto& reg : registry()) {
      if (reg.backend != b->name() || reg.name.find(opt.only) == std::string::npos) continue;
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
        std::cout << fmt::format("{:<6} {:<40} {} {}{}{}\n", b->name(), reg.name, kind, fmt::join(dims, " "),
                                 e.spec.replaces.empty() ? "" : " replaces " + e.spec.replaces,
                                 b->absent().empty() ? "" : "  [backend absent here]");
      } catch (const std::exception& x) {
        std::cout << fmt::format("{:<6} {:<40} ERROR {}\n", b->name(), reg.name, x.what());
      }
    }
  }
}

int cli_main(int argc, char** argv, std::vector<std::unique_ptr<Backend>> owned) {
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
  app.add_flag("--list", list, "list the matching entries and exit");
  app.add_option("--backend", opt.backend, "run one backend: cpu, cuda, hip, xpu, metal");
  app.add_option("--seed", seed_text, "seed of every input (decimal or 0x hex); the run prints it");
  app.add_flag("--repro", opt.repro, "print the smallest input behind each finding, with values, want and got");
  app.add_option("--reporter", reporter, "console (default), json or junit")
      ->check(CLI::IsMember({"console", "json", "junit"}));
  app.add_option("--out", out_path, "write the reporter's output to FILE (the console still prints)");
  app.add_option("--timeout", opt.timeout_s, "seconds a launch may run before it is reported as a hang")
      ->check(CLI::PositiveNumber);
  app.add_flag("--no-limits", no_limits, "skip gate 5 (the audit of compiled binaries)");
  app.add_option("--audit", opt.audit_paths, "binaries for gate 5 to read (default: this executable)");
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
    std::cerr << "kernel-contract: unknown backend '" << opt.backend << "' (cpu, cuda, hip, xpu, metal)\n";
    return exit_usage;
  }
  if (list) {
    int matched = 0;
    list_entries(opt, backends, matched);
    if (!matched) std::cerr << "kernel-contract: no entry matches --only '" << opt.only << "'\n";
    return matched ? exit_ok : exit_no_match;
  }
  opt.progress = isatty(2);
  std::vector<std::unique_ptr<Reporter>> reps;
  std::ofstream file;
  reps.push_back(make_console_reporter(std::cout, isatty(1)));
  if (reporter != "console" || !out_path.empty()) {
    if (!out_path.empty()) {
      file.open(out_path);
      if (!file) {
        std::cerr << "kernel-contract: cannot write --out '" << out_path << "'\n";
        return exit_usage;
      }
    }
    if (out_path.empty()) reps.clear();  // json/junit to stdout alone
    reps.push_back(make_reporter(reporter, out_path.empty() ? std::cout : file));
  }
  std::vector<Reporter*> rp;
  for (auto& r : reps) rp.push_back(r.get());
  try {
    RunResult res = run(opt, backends, rp);
    if (res.exit_code == exit_no_match)
      std::cerr << "kernel-contract: nothing matches --only '" << opt.only << "': a filter that matches nothing is an error\n";
    return res.exit_code;
  } catch (const std::exception& e) {
    std::cerr << "kernel-contract: " << e.what() << "\n";
    return exit_fail;
  }
}

}  // namespace kc

// The runner: for each backend, each registered entry through gates 1-4 (then gate 5 from the
// auditors), a verdict per gate to the reporters, and one SUMMARY per backend.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kc/backend.hpp"
#include "kc/report.hpp"
#include "kc/registry.hpp"
#include "kc/spec.hpp"

namespace kc {

struct RunOptions {
  std::string only;          // entries whose name holds this text
  bool exact = false;        // only the entry named `only` exactly (one CTest test an entry)
  std::string backend;       // "" = every backend
  uint64_t seed = 0x6b63'2026;
  int seeds = 1;             // every case runs under seeds seed, seed + 1, ..., seed + seeds - 1
  bool repro = false;        // print the smallest failing input behind each finding
  bool margins = false;      // the console prints gate 3's margin under its line (JSON always has it)
  bool limits = true;        // run gate 5's auditors
  bool progress = false;     // a progress line on stderr (the CLI sets it on a terminal)
  double timeout_s = 30;     // per launch, before a hang is reported
  bool cpu_references = false;  // keep every float64 reference on the CPU (no Backend::references())
  std::vector<std::string> audit_paths;
  // The executable to re-run when a backend's device is lost mid-run (the CLI sets it to itself):
  // the backend's remaining entries then run in a fresh process and are reported here as if run
  // here. "" = they run on in this process and fail fast, each naming the lost device.
  std::string self_exe;
  // Arguments the fresh process takes after self_exe and before the run's own options: where the
  // program is an interpreter running a script (the Python package: `-m kernel_contract FILE...`).
  std::vector<std::string> self_args;
  // Run a host backend's entries (Backend::host_launches) in this process, not a supervised fresh
  // one: for a debugger. A crash or a hang then ends the run.
  bool in_process = false;
  // --shard I/N: run shard `shard` (1-based) of `shards` of each backend's selected entries, split by
  // their recorded seconds (`costs`, "backend/entry" -> seconds, read from `costs_file`); shards = 0
  // runs them all. Every process of the run computes the same split (core/src/shard.hpp).
  int shard = 0, shards = 0;
  std::map<std::string, double> costs;
  std::string costs_file;
};

// Exit codes: 0 every gate passed or is KNOWN and every control red; 1 a failure; 2 bad usage;
// 3 the filter matched nothing.
enum Exit : int { exit_ok = 0, exit_fail = 1, exit_usage = 2, exit_no_match = 3 };

struct RunResult {
  std::vector<Summary> summaries;
  std::vector<GateEvent> events;
  int exit_code = exit_ok;
};

// The whole run over the given backends and the registry.
RunResult run(const RunOptions& opt, std::vector<Backend*> backends, std::vector<Reporter*> reporters);

// One entry on one backend (what the CLI does per entry; tests call it directly).
std::vector<GateEvent> run_entry(const Registration& r, Backend& b, const RunOptions& opt,
                                 std::vector<Reporter*> reporters = {});

}  // namespace kc

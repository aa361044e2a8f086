// Runs on after a lost device: a backend whose device this process can no longer use (after an
// illegal address some drivers refuse any new context; a kernel that never returns ends only with
// its process) has its remaining entries run by a fresh copy of this executable, which streams
// its verdicts back one JSON line each; this process reports and tallies them as its own.
#pragma once
#include <string>
#include <vector>

#include "kc/registry.hpp"
#include "kc/report.hpp"
#include "kc/runner.hpp"

namespace kc::detail {

// The registered entries of a backend whose names hold `only`, in registration order (the same in
// every process of one executable).
std::vector<const Registration*> selection(const std::string& backend, const std::string& only, bool exact = false);
// Whether an entry's name passes --only (a substring, or with --exact the whole name).
bool selected(const std::string& name, const std::string& only, bool exact);
// One entry's verdicts into its backend's SUMMARY counts.
void tally(Summary& s, const Registration& reg, const std::vector<GateEvent>& evs);

// The "[k/n] backend entry" line on stderr, counted over the whole run.
struct Progress {
  bool on = false;
  int done = 0, total = 0;
  void show(const std::string& backend, const std::string& entry);
};

// Parent side: runs sel[from..] in fresh processes of opt.self_exe, one after another as each
// loses the device or dies; re-emits their events to reps and tallies them into s. `why` says why
// this process does not run them itself (a lost device: noted before each process); "" for a
// supervised start (a host backend), where only the processes after a crash are noted. A process
// that dies mid-entry fails that entry by name (its last words: the signal and address, or the
// hang) and the next process starts after it; one that dies without finishing an entry ends the
// respawning, and every entry left is reported as not run. Each fresh process covers at least one.
void continue_fresh(Summary& s, const RunOptions& opt, const std::vector<const Registration*>& sel, size_t from,
                    const std::string& why, std::vector<Reporter*>& reps, Progress& progress);

// Child side (the CLI's hidden --resume-at): runs opt.backend's selected entries from the one named
// `at` on b, streaming to fd; stops after an entry that leaves the device lost. Returns the
// process's exit code: 0 when the stream is complete (verdicts are the parent's to judge).
int run_resumed(const RunOptions& opt, Backend& b, const std::string& at, int fd);

}  // namespace kc::detail

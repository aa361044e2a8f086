// --shard I/N: a backend's selected entries split over N runs, balanced by the seconds each entry took
// when last measured (--costs FILE, written by --write-costs). Internal to core.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kc/registry.hpp"
#include "kc/report.hpp"
#include "kc/runner.hpp"

namespace kc::detail {

// "I/N" with 1 <= I <= N <= 1000, as {I, N}. Throws Error naming the text.
std::pair<int, int> parse_shard(const std::string& text);

// One recorded cost: an entry's seconds over every gate, and where the number came from.
struct CostRow {
  double seconds = 0;
  std::string source;
};
// Keyed by backend, then entry.
using CostTable = std::map<std::string, std::map<std::string, CostRow>>;

// A costs file: "backend<TAB>entry<TAB>seconds<TAB>source" a line, '#' lines comments. Throws Error
// naming the file and line of anything it cannot read (a missing file too).
CostTable read_costs(const std::string& path);
// The same format, rows sorted, written aside and renamed so that a reader never sees half of it.
void write_costs(const std::string& path, const CostTable& costs);
// RunOptions::costs (backend/entry -> seconds) from a table.
std::map<std::string, double> cost_map(const CostTable& costs);

// Which of N shards runs each entry: longest recorded cost first, each to the shard with the least
// so far (the lowest-numbered on a tie), so the plan depends on the selection and the costs alone,
// the same in every process and on every machine. An entry with no recorded cost counts at the mean
// of the backend's recorded ones (1 s where it has none). Gate 5's audit, which reads binaries and
// not a device, goes to the shard the plan leaves lightest (the highest-numbered on a tie).
struct ShardPlan {
  std::vector<int> shard;      // per entry of the selection, 1-based
  std::vector<double> load;    // per shard, seconds by the costs
  int limits_shard = 1;        // the shard that runs gate 5
  int without_cost = 0;        // entries counted at the fallback
  double fallback = 1;         // the seconds they count at
};
ShardPlan plan_shards(const std::string& backend, const std::vector<std::string>& entries,
                      const std::map<std::string, double>& costs, int shards);

// The backend's selected entries this run runs: every one (opt.shards == 0) or its shard's, in
// registration order.
std::vector<const Registration*> run_selection(const RunOptions& opt, const std::string& backend);

// The line a shard's run notes for a backend: how many of the selected entries it runs and their
// share of the recorded seconds, and which shard runs gate 5 (`limits_shard`).
std::string shard_note(const RunOptions& opt, const std::string& backend, int& limits_shard);

// --write-costs: a reporter that collects each entry's seconds over its gates (gate 5's launches
// left out) and, at the end of the run, writes them over those rows of `path` (kept rows: every
// other entry's), each with the device it was measured on as its source.
std::unique_ptr<Reporter> make_cost_writer(const std::string& path);

}  // namespace kc::detail

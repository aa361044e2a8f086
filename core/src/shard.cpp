// --shard I/N and the costs that balance it (shard.hpp). A shard is a pure function of the
// selection, the costs file and N, so N runs on N machines, or the fresh processes of one, agree on
// it without talking to each other.
#include "shard.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>

#include "respawn.hpp"

namespace kc::detail {

std::pair<int, int> parse_shard(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return Error(fmt::format("--shard '{}': {} (I/N: run shard I of N, 1 <= I <= N <= 1000)", text, why));
  };
  const size_t slash = text.find('/');
  if (slash == std::string::npos) throw bad("no '/'");
  auto number = [&](const std::string& s) {
    if (s.empty() || s.size() > 4 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw bad("'" + s + "' is not a whole number");
    return std::stoi(s);
  };
  const int i = number(text.substr(0, slash)), n = number(text.substr(slash + 1));
  if (n < 1 || n > 1000) throw bad("N must be 1 to 1000");
  if (i < 1 || i > n) throw bad(fmt::format("I must be 1 to {}", n));
  return {i, n};
}

CostTable read_costs(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("--costs: cannot read '{}'", path));
  CostTable t;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, '\t');) f.push_back(x);
    if (f.size() != 4 || f[0].empty() || f[1].empty() || f[3].empty())
      throw Error(fmt::format("{}:{}: want backend, entry, seconds and source, tab-separated", path, n));
    char* end = nullptr;
    const double s = std::strtod(f[2].c_str(), &end);
    if (end == f[2].c_str() || *end || !(s >= 0) || s > 1e7)
      throw Error(fmt::format("{}:{}: seconds '{}' is not a number of seconds", path, n, f[2]));
    if (!t[f[0]].emplace(f[1], CostRow{s, f[3]}).second)
      throw Error(fmt::format("{}:{}: {} {} has a row already", path, n, f[0], f[1]));
  }
  return t;
}

void write_costs(const std::string& path, const CostTable& costs) {
  std::string text =
      "# Each entry's seconds over gates 1-4, as --shard balances them (kernel-contract --costs FILE).\n"
      "# Written by kernel-contract --write-costs FILE, from a run or a --merge of runs; rows of entries\n"
      "# it did not run are kept. backend, entry, seconds, source: tab-separated.\n";
  for (const auto& [backend, rows] : costs)
    for (const auto& [entry, row] : rows) text += fmt::format("{}\t{}\t{:.3f}\t{}\n", backend, entry, row.seconds, row.source);
  const std::string part = path + ".part";
  {
    std::ofstream out(part);
    if (!(out << text) || !out.flush()) throw Error(fmt::format("--write-costs: cannot write '{}'", path));
  }
  if (std::rename(part.c_str(), path.c_str()) != 0) throw Error(fmt::format("--write-costs: cannot write '{}'", path));
}

std::map<std::string, double> cost_map(const CostTable& costs) {
  std::map<std::string, double> m;
  for (const auto& [backend, rows] : costs)
    for (const auto& [entry, row] : rows) m[backend + "/" + entry] = row.seconds;
  return m;
}

ShardPlan plan_shards(const std::string& backend, const std::vector<std::string>& entries,
                      const std::map<std::string, double>& costs, int shards) {
  if (shards < 1) throw Error(fmt::format("{} shards: there must be at least one", shards));
  ShardPlan p;
  // The fallback: the mean of this backend's recorded costs, whichever entries are selected.
  const std::string prefix = backend + "/";
  double sum = 0;
  int rows = 0;
  for (auto it = costs.lower_bound(prefix); it != costs.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
    sum += it->second, ++rows;
  p.fallback = rows ? sum / rows : 1.0;
  std::vector<double> cost(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto it = costs.find(prefix + entries[i]);
    if (it == costs.end()) ++p.without_cost;
    cost[i] = it == costs.end() ? p.fallback : it->second;
  }
  std::vector<size_t> order(entries.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return cost[a] > cost[b]; });
  p.shard.assign(entries.size(), 0);
  p.load.assign(size_t(shards), 0.0);
  for (size_t i : order) {
    const size_t k = size_t(std::min_element(p.load.begin(), p.load.end()) - p.load.begin());
    p.shard[i] = int(k) + 1;
    p.load[k] += cost[i];
  }
  // Gate 5 to the lightest shard, the last of equals (the first ones took the heaviest entries).
  size_t light = 0;
  for (size_t k = 1; k < p.load.size(); ++k)
    if (p.load[k] <= p.load[light]) light = k;
  p.limits_shard = int(light) + 1;
  return p;
}

std::vector<const Registration*> run_selection(const RunOptions& opt, const std::string& backend) {
  auto sel = selection(backend, opt.only, opt.exact);
  if (opt.shards <= 0) return sel;
  std::vector<std::string> names;
  for (const auto* r : sel) names.push_back(r->name);
  const ShardPlan p = plan_shards(backend, names, opt.costs, opt.shards);
  std::vector<const Registration*> mine;
  for (size_t i = 0; i < sel.size(); ++i)
    if (p.shard[i] == opt.shard) mine.push_back(sel[i]);
  return mine;
}

std::string shard_note(const RunOptions& opt, const std::string& backend, int& limits_shard) {
  const auto sel = selection(backend, opt.only, opt.exact);
  std::vector<std::string> names;
  for (const auto* r : sel) names.push_back(r->name);
  const ShardPlan p = plan_shards(backend, names, opt.costs, opt.shards);
  limits_shard = p.limits_shard;
  const auto mine = std::count(p.shard.begin(), p.shard.end(), opt.shard);
  const double total = std::accumulate(p.load.begin(), p.load.end(), 0.0);
  std::string text = fmt::format("shard {}/{}: {} of the {} selected entries, {:.1f} s of {:.1f} s by {}", opt.shard,
                                 opt.shards, mine, sel.size(), p.load[size_t(opt.shard - 1)], total,
                                 opt.costs_file.empty() ? "no --costs (every entry 1 s)" : "--costs " + opt.costs_file);
  if (p.without_cost && !opt.costs_file.empty())
    text += fmt::format(" ({} with no recorded cost, counted at their mean, {:.2f} s)", p.without_cost, p.fallback);
  text += fmt::format("; gate 5 runs in shard {}/{}", p.limits_shard, opt.shards);
  return text;
}

namespace {

class CostWriter final : public Reporter {
 public:
  explicit CostWriter(std::string path) : path_(std::move(path)) {}
  void backend_begin(const std::string& b, const std::string& device, const std::string& absent) override {
    if (absent.empty()) device_[b] = device.empty() ? b : device;
  }
  void gate(const GateEvent& e) override { events_.push_back(e); }
  void summary(const Summary&) override {}
  void end() override {
    CostTable t;
    std::ifstream exists(path_);
    if (exists) t = read_costs(path_);
    // Entries of a backend that ran here (gate 5's launches and a backend absent here left out).
    for (const auto& e : slowest_entries(events_, events_.size())) {
      const auto d = device_.find(e.backend);
      if (d == device_.end() || e.entry.empty() || e.entry[0] == '(') continue;
      std::string source = "kernel-contract --write-costs on " + d->second;
      std::replace_if(source.begin(), source.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
      t[e.backend][e.entry] = {e.seconds, source};
    }
    write_costs(path_, t);
  }

 private:
  std::string path_;
  std::map<std::string, std::string> device_;
  std::vector<GateEvent> events_;
};

}  // namespace

std::unique_ptr<Reporter> make_cost_writer(const std::string& path) { return std::make_unique<CostWriter>(path); }

}  // namespace kc::detail

// kernel-contract --merge: the JSON Lines reports of several runs over disjoint entries (the shards of
// --shard, or one CTest test an entry) read back into one report, with one SUMMARY per backend
// summed from theirs. The merged run is judged as a run is: the exit code is the one a single run of
// all those entries gives.
#include "merge.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "kc/runner.hpp"
#include "report/margin_json.hpp"
#include "report/phases_json.hpp"
#include "shard.hpp"

namespace kc::detail {
namespace {

using nlohmann::json;

Status status_named(const std::string& name, const std::string& where) {
  for (Status s : {Status::pass, Status::fail, Status::known, Status::fixed, Status::control_red, Status::control_green,
                   Status::na, Status::error, Status::also})
    if (name == status_name(s)) return s;
  throw Error(fmt::format("{}: unknown status '{}'", where, name));
}

GateEvent gate_event(const json& j, const std::string& where) {
  GateEvent e;
  e.backend = j.at("backend").get<std::string>();
  e.entry = j.at("entry").get<std::string>();
  const int g = j.at("gate").get<int>();
  if (g < 1 || g > 6) throw Error(fmt::format("{}: gate {} is not 1 to 6", where, g));
  e.gate = Gate(g);
  e.status = status_named(j.at("status").get<std::string>(), where);
  e.why = j.at("why").get<std::string>();
  e.shape = j.at("shape").get<std::string>();
  e.detail = j.at("detail").get<std::string>();
  e.seconds = j.at("seconds").get<double>();
  e.phases = j.at("phases").get<Phases>();
  if (j.contains("margin")) e.margin = j.at("margin").get<Margin>();
  return e;
}

Summary summary_of(const json& j) {
  Summary s;
  s.backend = j.at("backend").get<std::string>();
  s.absent = j.at("absent").get<std::string>();
  s.kernels = j.at("kernels").get<int>();
  s.kernels_passing = j.at("kernels_passing").get<int>();
  s.known = j.at("known").get<int>();
  s.controls = j.at("controls").get<int>();
  s.controls_red = j.at("controls_red").get<int>();
  s.controls_not_run = j.at("controls_not_run").get<int>();
  s.limit_problems = j.at("limit_problems").get<int>();
  s.failures = j.at("failures").get<int>();
  s.errors = j.at("errors").get<int>();
  if (j.contains("shard")) s.shard = j.at("shard").get<std::string>();
  return s;
}

// One report, whole: every line parsed, and its end line there (a run cut off has none).
struct Report {
  std::string file;
  uint64_t seed = 0;
  std::vector<json> lines;
};

Report read_report(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw Error(fmt::format("--merge: cannot read '{}'", file));
  Report r{file};
  std::string line;
  bool ended = false;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception& e) {
      throw Error(fmt::format("{}:{}: not a JSON line of kernel-contract --reporter json ({})", file, n, e.what()));
    }
    if (!j.is_object() || !j.contains("type")) throw Error(fmt::format("{}:{}: a JSON line with no \"type\"", file, n));
    if (j["type"] == "begin") r.seed = j.value("seed", uint64_t(0));
    if (j["type"] == "end") ended = true;
    r.lines.push_back(std::move(j));
  }
  if (r.lines.empty()) throw Error(fmt::format("--merge: '{}' is empty (its run wrote no report)", file));
  if (!ended) throw Error(fmt::format("--merge: '{}' has no end line: its run was cut off before it finished", file));
  return r;
}

}  // namespace

int merge_reports(const std::vector<std::string>& files, const std::vector<Reporter*>& reps) {
  std::vector<Report> reports;
  for (const auto& f : files) reports.push_back(read_report(f));
  // Backends in the order first seen; each entry from one report only (shards are disjoint).
  std::vector<std::string> order;
  std::map<std::string, Summary> sums;
  std::map<std::string, std::pair<std::string, std::string>> device;  // backend -> device, absent
  std::map<std::string, size_t> entry_report;                       // backend/entry -> report
  std::map<std::string, std::vector<json>> lines;                   // backend -> its gate and note lines
  std::vector<std::string> run_notes;                               // notes of no backend
  std::map<std::string, std::map<int, std::string>> shards;          // backend -> shard I -> its report
  std::map<std::string, int> shard_count;                           // backend -> N of --shard I/N
  std::map<std::string, std::string> whole;                         // backend -> a report of no shard
  for (size_t ri = 0; ri < reports.size(); ++ri) {
    const Report& r = reports[ri];
    for (size_t i = 0; i < r.lines.size(); ++i) {
      const json& j = r.lines[i];
      const std::string where = fmt::format("{} (line {})", r.file, i + 1);
      const std::string type = j.at("type").get<std::string>();
      try {
        if (type == "backend") {
          const std::string b = j.at("backend").get<std::string>();
          if (!sums.count(b)) order.push_back(b), sums[b].backend = b;
          auto& d = device[b];
          if (d.first.empty()) d.first = j.at("device").get<std::string>();
          if (d.second.empty()) d.second = j.at("absent").get<std::string>();
        } else if (type == "note" && j.at("backend").get<std::string>().empty()) {
          // A run's own note (its seeds, say): once, however many reports repeat it.
          const std::string text = j.at("text").get<std::string>();
          if (std::find(run_notes.begin(), run_notes.end(), text) == run_notes.end()) run_notes.push_back(text);
        } else if (type == "gate" || type == "note") {
          const std::string b = j.at("backend").get<std::string>();
          if (!sums.count(b)) order.push_back(b), sums[b].backend = b;
          if (type == "gate") {
            const std::string key = b + "/" + j.at("entry").get<std::string>();
            auto [it, fresh] = entry_report.emplace(key, ri);
            if (!fresh && it->second != ri)
              throw Error(fmt::format("{}: entry {} on {} is in {} too: the merged runs must be disjoint", where,
                                      j.at("entry").get<std::string>(), b, reports[it->second].file));
          }
          lines[b].push_back(j);
        } else if (type == "summary") {
          const Summary s = summary_of(j);
          // Shards of one split: all of 1..N, each once, and no run of the whole beside them.
          if (!s.shard.empty()) {
            const auto [i, n] = parse_shard(s.shard);
            auto [c, fresh] = shard_count.emplace(s.backend, n);
            if (!fresh && c->second != n)
              throw Error(fmt::format("{}: shard {} of {} is of another split than {}'s (of {})", where, s.shard,
                                      s.backend, shards[s.backend].begin()->second, c->second));
            auto [it, first] = shards[s.backend].emplace(i, r.file);
            if (!first) throw Error(fmt::format("{}: shard {} of {} is in {} too", where, s.shard, s.backend, it->second));
          } else {
            whole.emplace(s.backend, r.file);
          }
          if (!sums.count(s.backend)) order.push_back(s.backend), sums[s.backend].backend = s.backend;
          Summary& m = sums[s.backend];
          if (m.absent.empty()) m.absent = s.absent;
          m.kernels += s.kernels;
          m.kernels_passing += s.kernels_passing;
          m.known += s.known;
          m.controls += s.controls;
          m.controls_red += s.controls_red;
          m.controls_not_run += s.controls_not_run;
          m.limit_problems += s.limit_problems;
          m.failures += s.failures;
          m.errors += s.errors;
        }
      } catch (const json::exception& e) {
        throw Error(fmt::format("{}: a {} line lacks a field or has the wrong type ({})", where, type, e.what()));
      }
    }
  }
  for (const auto& [b, n] : shard_count) {
    if (whole.count(b))
      throw Error(fmt::format("--merge: {} holds {} entries run as no shard, beside shards of {}/{}: merge one split's "
                              "shards, or runs of no shard", whole[b], b, shards[b].begin()->first, n));
    std::vector<std::string> missing;
    for (int i = 1; i <= n; ++i)
      if (!shards[b].count(i)) missing.push_back(fmt::format("{}/{}", i, n));
    if (!missing.empty())
      throw Error(fmt::format("--merge: no report of shard {} of {}: the merged run would not be the whole run",
                              fmt::join(missing, ", "), b));
  }
  for (auto* r : reps) r->begin(reports.front().seed);
  for (const auto& t : run_notes)
    for (auto* r : reps) r->note("", t);
  bool failed = false;
  std::vector<GateEvent> events;
  for (const auto& b : order) {
    for (auto* r : reps) r->backend_begin(b, device[b].first, device[b].second);
    for (const json& j : lines[b]) {
      if (j.at("type") == "note") {
        for (auto* r : reps) r->note(b, j.at("text").get<std::string>());
        continue;
      }
      const GateEvent e = gate_event(j, b + "/" + j.at("entry").get<std::string>());
      for (auto* r : reps) r->gate(e);
      events.push_back(e);
    }
    const Summary& s = sums[b];
    for (auto* r : reps) r->summary(s);
    failed |= s.failures || s.errors || s.limit_problems;
  }
  const auto slowest = slowest_entries(events);
  for (auto* r : reps) r->timings(slowest);
  for (auto* r : reps) r->end();
  return failed ? exit_fail : exit_ok;
}

}  // namespace kc::detail

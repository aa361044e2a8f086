// Gate 5 at run time: the kernels an entry's launch hook really starts. Gate 5 reads each launch
// record's limits from the binaries; that proves nothing of a kernel the hook starts without a
// record, or with a larger block than its record declares. And gate 3 runs each form at a ragged
// shape only if the pick names the form the launcher takes. So, where the backend can watch its
// launches, every run of the entry (gates 1-4) is checked: each function launched is registered
// under one of the entry's launch records, within the threads and dynamic shared bytes it declares,
// and where the entry picks, the picked form is among the run's launches; and each ran on the
// harness's stream (a launch on another, such as the default stream, races with the harness's
// copies and checks, so the run proves nothing: an error).
#include <algorithm>
#include <tuple>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gates.hpp"

namespace kc::detail {

namespace {

// Problems in one run's launches ("" none), each in words that name the function and the record.
std::vector<std::string> problems_of(const Spec& spec, const std::vector<SeenLaunch>& seen, const std::string& picked,
                                     std::vector<std::string>& names, std::vector<std::string>& streams) {
  std::vector<std::string> out;
  auto ours = [&](const std::string& n) {
    return std::find(spec.launches.begin(), spec.launches.end(), n) != spec.launches.end();
  };
  for (const SeenLaunch& l : seen) {
    const std::string what = fmt::format("{} ({} threads a block, {} dynamic shared bytes)", l.symbol, l.threads,
                                         l.dyn_smem);
    if (!l.stream.empty())
      streams.push_back(fmt::format("launched {} on {}, not the harness's stream: a launcher must launch on "
                                    "Buffers::stream() (kc::cuda::stream(b))",
                                    l.symbol, l.stream));
    if (l.records.empty()) {
      out.push_back(fmt::format("launched {}, which no launch record registers: gate 5 never saw its limits", what));
      continue;
    }
    // Every record of this entry's that declares this block or more; else the first of this entry's.
    const LaunchRecordRef* over = nullptr;
    std::vector<std::string> fit, others;
    for (const auto& r : l.records) {
      if (!ours(r.name)) others.push_back(r.name);
      else if (l.threads <= r.threads && l.dyn_smem <= r.dyn_smem) fit.push_back(r.name);
      else if (!over) over = &r;
    }
    if (fit.empty() && over) {
      out.push_back(fmt::format("launched {} as {}, whose record declares at most {} threads and {} dynamic shared "
                                "bytes: gate 5 checked the smaller block",
                                what, over->name, over->threads, over->dyn_smem));
      continue;
    }
    if (fit.empty()) {
      out.push_back(fmt::format("launched {}, registered as {}, which is not one of this entry's launches ({})", what,
                                fmt::join(others, ", "), fmt::join(spec.launches, ", ")));
      continue;
    }
    for (auto& n : fit)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(std::move(n));
  }
  if (!picked.empty() && std::find(names.begin(), names.end(), picked) == names.end())
    out.push_back(fmt::format("the pick names {}, but the launcher started {}: gate 3's form shapes do not run the "
                              "forms they say",
                              picked, names.empty() ? std::string("none of the entry's launches")
                                                    : fmt::format("{}", fmt::join(names, ", "))));
  return out;
}

}  // namespace

SyncResult launch_entry(GateCtx& ctx, DeviceCase& dev, const Shape& s, const std::function<void(const Buffers&)>* fn) {
  const std::function<void(const Buffers&)>& run = fn ? *fn : ctx.entry.rig.run;
  LaunchWatch& w = ctx.watch;
  const bool watching = ctx.backend.watches() && w.off.empty();
  if (watching) w.off = ctx.backend.watch();
  if (!watching || !w.off.empty()) return dev.launch(run, ++ctx.run, ctx.opt.timeout_s);
  SyncResult res;
  try {
    res = dev.launch(run, ++ctx.run, ctx.opt.timeout_s);
  } catch (...) {
    ctx.backend.seen();  // end the watch: nothing after this run is the entry's
    throw;
  }
  const std::vector<SeenLaunch> seen = ctx.backend.seen();
  if (res.kind != SyncResult::ok) return res;  // a fault or hang is the gate's finding; its launches may be cut short
  std::string picked;
  std::vector<std::string> problems;
  if (ctx.entry.rig.pick) try {
      picked = ctx.entry.rig.pick(s);
    } catch (const std::exception& x) {
      problems.push_back(fmt::format("the pick threw: {}", x.what()));
    }
  std::vector<std::string> names, streams;
  for (auto& p : problems_of(ctx.entry.spec, seen, picked, names, streams)) problems.push_back(std::move(p));
  ++w.runs;
  for (const auto& n : names) ++w.names[n];
  auto keep = [&](std::vector<std::string>& found, std::vector<std::pair<std::string, std::string>>& list, int& runs) {
    if (!found.empty()) ++runs;
    for (auto& p : found)
      if (std::none_of(list.begin(), list.end(), [&](const auto& q) { return q.first == p; }))
        list.emplace_back(std::move(p), s.str());
  };
  keep(problems, w.problems, w.problem_runs);
  keep(streams, w.streams, w.stream_runs);
  return res;
}

Outcome gate_launches(GateCtx& ctx) {
  const LaunchWatch& w = ctx.watch;
  Outcome o;
  if (!w.off.empty() || w.runs == 0) {
    o.applies = false;
    const std::string lost = ctx.backend.lost();
    o.detail = !w.off.empty() ? "the launches were not watched: " + w.off
               : lost.empty() ? "no run of the entry ended to be watched"
                              : "no run of the entry ended to be watched: " + lost;
    return o;
  }
  // The wrong stream first: it makes every other finding of the run suspect.
  for (const auto& [list, runs, why] : {std::tuple{&w.streams, w.stream_runs, Why::stream},
                                        std::tuple{&w.problems, w.problem_runs, Why::launch}}) {
    if (list->empty()) continue;
    o.failed = true;
    o.why = why;
    o.detail = fmt::format("{} of {} runs: at {}: {}", runs, w.runs, list->front().second, list->front().first);
    const size_t more = w.streams.size() + w.problems.size() - 1;
    if (more) o.detail += fmt::format(" (and {} more)", more);
    return o;
  }
  std::vector<std::string> seen;
  for (const auto& [n, k] : w.names) seen.push_back(fmt::format("{} x{}", n, k));
  o.detail = seen.empty() ? fmt::format("{} runs watched on the device: no kernel launched", w.runs)
                          : fmt::format("{} runs watched on the device, each launch within its record: {}", w.runs,
                                        fmt::join(seen, ", "));
  if (ctx.entry.rig.pick) o.detail += "; the picked form launched in every run";
  return o;
}

}  // namespace kc::detail

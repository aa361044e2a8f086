// Gate 5 at run time: the kernels an entry's launch hook really starts. Gate 5 reads each launch
// record's limits from the binaries; that proves nothing of a kernel the hook starts without a
// record, or with a larger block than its record declares. And gate 3 runs each form at a ragged
// shape only if the pick names the form the launcher takes. So, where the backend can watch its
// launches, every run of the entry (gates 1-4) is checked: each function launched is registered
// under one of the entry's launch records, within the threads and dynamic shared bytes it declares,
// and where the entry picks, the picked form is among the run's launches.
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gates.hpp"

namespace kc::detail {

namespace {

// Problems in one run's launches ("" none), each in words that name the function and the record.
std::vector<std::string> problems_of(const Spec& spec, const std::vector<SeenLaunch>& seen, const std::string& picked,
                                     std::vector<std::string>& names) {
  std::vector<std::string> out;
  auto ours = [&](const std::string& n) {
    return std::find(spec.launches.begin(), spec.launches.end(), n) != spec.launches.end();
  };
  for (const SeenLaunch& l : seen) {
    const std::string what = fmt::format("{} ({} threads a block, {} dynamic shared bytes)", l.symbol, l.threads,
                                         l.dyn_smem);
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
  std::vector<std::string> names;
  for (auto& p : problems_of(ctx.entry.spec, seen, picked, names)) problems.push_back(std::move(p));
  ++w.runs;
  for (const auto& n : names) ++w.names[n];
  if (!problems.empty()) ++w.problem_runs;
  for (auto& p : problems)
    if (std::none_of(w.problems.begin(), w.problems.end(), [&](const auto& q) { return q.first == p; }))
      w.problems.emplace_back(std::move(p), s.str());
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
  if (!w.problems.empty()) {
    o.failed = true;
    o.why = Why::launch;
    o.detail = fmt::format("{} of {} runs: at {}: {}", w.problem_runs, w.runs, w.problems.front().second,
                           w.problems.front().first);
    if (w.problems.size() > 1) o.detail += fmt::format(" (and {} more)", w.problems.size() - 1);
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

// The runner: each backend, each entry through gates 1-4, gate 5 from the auditors, verdicts to the
// reporters, a SUMMARY per backend. Known findings and controls are judged here, nowhere else.
#include "kc/runner.hpp"

#include <cstdio>
#include <algorithm>
#include <bit>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gates/gates.hpp"
#include "gates/margin.hpp"
#include "kc/audit.hpp"
#include "kc/not_here.hpp"
#include "kc/ref_device.hpp"
#include "kc/registry.hpp"
#include "repro.hpp"
#include "respawn.hpp"
#include "shard.hpp"

namespace kc {

namespace {

using detail::Outcome;

const Known* known_for(const Spec& s, Gate g) {
  for (const auto& k : s.known)
    if (k.gate == g) return &k;
  return nullptr;
}

}  // namespace

// The verdict of one gate on one entry, from what the gate found and what the spec says of it.
Status detail::judge(const Spec& s, Gate g, const Outcome& o, std::string& detail) {
  detail = o.detail;
  if (s.control) {
    // A planted bug may show at more gates than the one it was built for, the stronger the gates
    // the likelier: that is shown (ALSO) and not held against it. Its own gate must still fail
    // for its reason, and a fault, a hang or a wrong stream elsewhere is still an error.
    if (g != *s.control_gate) {
      if (!o.applies) return Status::na;
      if (!o.failed) return Status::pass;
      if (o.why == Why::fault || o.why == Why::hang || o.why == Why::stream) return Status::error;
      detail = "also caught here, besides the gate it was built for: " + o.detail;
      return Status::also;
    }
    if (o.applies && o.failed && o.why == s.control_why) return Status::control_red;
    detail = !o.applies ? fmt::format("the gate does not apply ({}); this control was built to fail it for {}",
                                      o.detail, why_name(s.control_why))
             : o.failed ? fmt::format("failed for {}, but it was built to fail for {}: {}", why_name(o.why),
                                      why_name(s.control_why), o.detail)
                        : fmt::format("stayed green, but it was built to fail for {}: {}", why_name(s.control_why),
                                      o.detail);
    return Status::control_green;
  }
  if (!o.applies) return Status::na;
  if (const Known* k = known_for(s, g)) {
    if (o.failed) {
      detail = fmt::format("known: {} — {}", k->what, o.detail);
      return Status::known;
    }
    detail = fmt::format("the known finding '{}' no longer fails: remove the entry from the spec", k->what);
    return Status::fixed;
  }
  // A fault, a hang, or a launch racing the harness on another stream: the run proves nothing.
  if (o.failed && (o.why == Why::fault || o.why == Why::hang || o.why == Why::stream)) return Status::error;
  return o.failed ? Status::fail : Status::pass;
}

namespace {
using detail::judge;

void emit(std::vector<Reporter*>& reps, const GateEvent& e) {
  for (auto* r : reps) r->gate(e);
}

void note(std::vector<Reporter*>& reps, const std::string& backend, const std::string& text) {
  for (auto* r : reps) r->note(backend, text);
}

// The backend's reference device, once it has matched the CPU bit for bit; the run says which.
const RefDevice* reference_device(Backend& b, const RunOptions& opt, std::vector<Reporter*>& reps) {
  const RefDevice* d = opt.cpu_references ? nullptr : b.references();
  if (!d) return nullptr;
  if (const std::string bad = check_ref_device(*d); !bad.empty()) {
    note(reps, b.name(), fmt::format("float64 references stay on the CPU: {} does not match it: {}", d->name, bad));
    return nullptr;
  }
  note(reps, b.name(), fmt::format("float64 references of 2^{} multiply-adds or more run on {}, which matched the "
                                   "CPU's bit for bit on ragged dense and affine cases (--cpu-references: all on the CPU)",
                                   std::countr_zero(uint64_t(kRefDeviceMacs)), d->name));
  return d;
}

}  // namespace

std::vector<GateEvent> run_entry(const Registration& reg, Backend& b, const RunOptions& opt,
                                 std::vector<Reporter*> reps) {
  std::vector<GateEvent> events;
  auto push = [&](GateEvent e) {
    emit(reps, e);
    events.push_back(std::move(e));
  };
  Entry e;
  try {
    e = build(reg);
  } catch (const NotHere& x) {
    if (reg.control) push({b.name(), reg.name, Gate::nonfinite, Status::na, "", "", std::string("control not run on this device: ") + x.what()});
    else push({b.name(), reg.name, Gate::nonfinite, Status::error, "spec", "", std::string("a kernel is never skipped, but it says it cannot run here: ") + x.what()});
    return events;
  } catch (const std::exception& x) {
    push({b.name(), reg.name, Gate::nonfinite, Status::error, "spec", "", x.what()});
    return events;
  }
  // A control planted for gate 2's chained run cannot fail it where no launch starts before the one
  // ahead ends: it is not run there (counted apart, as on an absent backend), never green or red.
  if (e.spec.control && !e.spec.chained.empty())
    if (const std::string why = b.chains(); !why.empty()) {
      push({b.name(), reg.name, Gate::repeat, Status::na, "", "", "control not run: " + why});
      return events;
    }
  struct Release {
    const Rig& rig;
    ~Release() {
      if (rig.release) try { rig.release(); } catch (...) {}
    }
  } release{e.rig};
  for (const auto& p : b.check_entry(e.spec))
    push({b.name(), reg.name, Gate::limits, Status::fail, why_name(Why::limit), "", "on the device: " + p});
  detail::GateCtx ctx{b, e, opt};
  const std::pair<Gate, Outcome (*)(detail::GateCtx&)> gates[] = {{Gate::nonfinite, detail::gate_nonfinite},
                                                                   {Gate::repeat, detail::gate_repeat},
                                                                   {Gate::shapes, detail::gate_shapes},
                                                                   {Gate::sums, detail::gate_sums},
                                                                   {Gate::invariance, detail::gate_invariance},
                                                                   {Gate::far, detail::gate_far}};
  for (const auto& [g, fn] : gates) {
    // The invariance line only where a spec states invariance (or a control was built to fail it).
    if (g == Gate::invariance && e.spec.invariant.empty() && e.spec.control_gate != Gate::invariance) continue;
    if (g == Gate::far && e.spec.far_dim.empty() && e.spec.control_gate != Gate::far) continue;
    const auto t0 = detail::Clock::now();
    ctx.phases = {};
    Outcome o;
    bool crashed = false;
    // Under each seed in turn, until one fails: a verdict that hangs on one draw of the inputs
    // shows under another. --repro then works on the failing seed's inputs.
    const int seeds = std::max(1, opt.seeds);
    int k = 0;
    std::vector<std::string> notes;
    std::optional<Margin> margin;  // gate 3's, the worst under every seed
    for (; k < seeds; ++k) {
      ctx.seed = opt.seed + uint64_t(k);
      try {
        o = fn(ctx);
      } catch (const std::exception& x) {
        o = {};
        o.failed = true;
        o.detail = x.what();
        crashed = true;
      }
      notes.insert(notes.end(), o.notes.begin(), o.notes.end());
      if (o.failed || !o.applies) break;
      if (o.margin) o.margin->seed = ctx.seed;
      detail::keep_worst(margin, o.margin);
    }
    o.notes = notes;
    if (seeds > 1 && o.applies)
      o.detail += o.failed ? fmt::format(" (seed {:#x}, {} of {})", ctx.seed, k + 1, seeds)
                           : fmt::format(" under {} seeds", seeds);
    GateEvent ev{b.name(), reg.name, g, Status::pass, o.failed && !crashed ? why_name(o.why) : "", o.shape, ""};
    ev.status = crashed ? Status::error : judge(e.spec, g, o, ev.detail);
    if (crashed) ev.detail = o.detail;  // what threw, e.g. the backend saying its device is lost
    ev.seconds = detail::seconds_since(t0);
    ev.phases = ctx.phases;
    if (g == Gate::shapes && !crashed && o.applies && !o.failed) ev.margin = margin;
    for (const auto& n : o.notes) note(reps, b.name(), fmt::format("{} gate {}: {}", reg.name, int(g), n));
    if (opt.repro && o.failed && !crashed && o.why != Why::fault && o.why != Why::hang) {
      try {
        for (const auto& line : detail::repro(ctx, g, o)) note(reps, b.name(), line);
      } catch (const std::exception& x) {
        note(reps, b.name(), fmt::format("repro of {} gate {} failed: {}", reg.name, int(g), x.what()));
      }
    }
    push(std::move(ev));
  }
  // Gate 5 at run time, on a backend that watches its launches: the kernels the runs started. On
  // one that cannot, a control built to fail it still gets its line: GREEN, never a silent pass.
  if (b.watches() || (e.spec.control && e.spec.control_gate == Gate::limits)) {
    if (!b.watches()) ctx.watch.off = b.watch();
    Outcome o = detail::gate_launches(ctx);
    GateEvent ev{b.name(), reg.name, Gate::limits, Status::pass, o.failed ? why_name(o.why) : "", "", ""};
    ev.status = judge(e.spec, Gate::limits, o, ev.detail);
    ev.detail = "at run time: " + ev.detail;
    push(std::move(ev));
  }
  return events;
}

namespace detail {
void tally(Summary& s, const Registration& reg, const std::vector<GateEvent>& evs) {
  bool ok = true, red = false;
  for (const auto& e : evs) {
    if (e.status == Status::known) ++s.known;
    if (e.status == Status::control_red) red = true;
    if (!status_ok(e.status)) {
      ok = false;
      s.count(e.status);
    }
    if (e.gate == Gate::limits && e.status == Status::fail) ++s.limit_problems;
  }
  if (reg.control && !evs.empty() &&
      std::all_of(evs.begin(), evs.end(), [](const GateEvent& e) { return e.status == Status::na; })) {
    ++s.controls_not_run;  // run_entry's control this backend cannot prove here
  } else if (reg.control) {
    ++s.controls;
    if (red && ok) ++s.controls_red;
  } else {
    ++s.kernels;
    if (ok) ++s.kernels_passing;
  }
}

bool selected(const std::string& name, const std::string& only, bool exact) {
  return exact ? name == only : name.find(only) != std::string::npos;
}

std::vector<const Registration*> selection(const std::string& backend, const std::string& only, bool exact) {
  std::vector<const Registration*> sel;
  for (const auto& reg : registry())
    if (reg.backend == backend && selected(reg.name, only, exact)) sel.push_back(&reg);
  return sel;
}

void Progress::show(const std::string& backend, const std::string& entry) {
  if (on) std::fprintf(stderr, "\r\033[K[%d/%d] %s %s", ++done, total, backend.c_str(), entry.c_str()), std::fflush(stderr);
}
}  // namespace detail

static void audit_backend(Summary& s, const RunOptions& opt, std::vector<Reporter*>& reps, int& matched) {
  for (auto& a : auditors()) {
    if (a->backend() != s.backend) continue;
    AuditResult res = a->audit({opt.only, opt.audit_paths});
    for (const auto& n : res.notes) note(reps, s.backend, "gate 5: " + n);
    for (const auto& err : res.errors) {
      ++s.limit_problems;
      s.count(Status::fail);
      emit(reps, {s.backend, "(gate 5)", Gate::limits, Status::fail, why_name(Why::limit), "", err});
    }
    // One verdict a launch, over every chip.
    std::vector<std::string> order;
    for (const auto& l : res.lines)
      if (std::find(order.begin(), order.end(), l.launch) == order.end()) order.push_back(l.launch);
    matched += int(order.size());
    for (const auto& launch : order) {
      bool control = false, problem = false;
      std::vector<std::string> chips, problems;
      for (const auto& l : res.lines)
        if (l.launch == launch) {
          control |= l.control;
          chips.push_back(l.chip);
          if (l.problem) {
            problem = true;
            problems.push_back(l.chip + ": " + l.message);
          }
        }
      GateEvent ev{s.backend, launch, Gate::limits, Status::pass, "", fmt::format("{}", fmt::join(chips, ",")), ""};
      if (control) {
        ++s.controls;
        ev.status = problem ? Status::control_red : Status::control_green;
        if (problem) ++s.controls_red; else s.count(Status::control_green);
        ev.why = problem ? why_name(Why::limit) : "";
        ev.detail = problem ? problems.front() : "no limit problem found: the control stayed green";
      } else if (problem) {
        s.limit_problems += int(problems.size());
        s.count(Status::fail);
        ev.status = Status::fail;
        ev.why = why_name(Why::limit);
        ev.detail = fmt::format("{}", fmt::join(problems, "; "));
      } else {
        ev.detail = fmt::format("within limits on {} chips", chips.size());
      }
      emit(reps, ev);
    }
  }
}

RunResult run(const RunOptions& opt, std::vector<Backend*> backends, std::vector<Reporter*> reps) {
  RunResult out;
  struct Collect : Reporter {
    std::vector<GateEvent>* evs;
    void gate(const GateEvent& e) override { evs->push_back(e); }
    void summary(const Summary&) override {}
  } collect;
  collect.evs = &out.events;
  reps.push_back(&collect);
  for (auto* r : reps) r->begin(opt.seed);
  if (opt.seeds > 1) {
    std::vector<std::string> list;
    for (int k = 0; k < opt.seeds; ++k) list.push_back(fmt::format("{:#x}", opt.seed + uint64_t(k)));
    note(reps, "", fmt::format("every case runs under {} seeds: {}", opt.seeds, fmt::join(list, ", ")));
  }
  bool failed = false;
  for (const auto& d : duplicate_names()) {
    emit(reps, {"", "(registry)", Gate::nonfinite, Status::error, "spec", "", d});
    failed = true;
  }
  int matched = 0;
  detail::Progress progress{opt.progress};
  for (auto* b : backends)
    if ((opt.backend.empty() || opt.backend == b->name()) && b->absent().empty())
      progress.total += int(detail::run_selection(opt, b->name()).size());
  bool backend_seen = opt.backend.empty();
  for (auto* b : backends) {
    if (!opt.backend.empty() && opt.backend != b->name()) continue;
    backend_seen = true;
    Summary s;
    s.backend = b->name();
    s.absent = b->absent();
    for (auto* r : reps) r->backend_begin(s.backend, s.absent.empty() ? b->device() : "", s.absent);
    if (!s.absent.empty() && !opt.backend.empty()) {
      ++s.errors;  // asked for by name, and it cannot run here
      note(reps, s.backend, fmt::format("--backend {} was asked for, but it is absent: {}", s.backend, s.absent));
    }
    // A shard runs its part of the selection; the whole selection is what a filter matched.
    const auto sel = detail::run_selection(opt, s.backend);
    matched += int(detail::selection(s.backend, opt.only, opt.exact).size());
    bool limits_here = true;
    if (opt.shards > 0) {
      int limits_shard = 0;
      s.shard = fmt::format("{}/{}", opt.shard, opt.shards);
      note(reps, s.backend, detail::shard_note(opt, s.backend, limits_shard));
      limits_here = limits_shard == opt.shard;
    }
    RefDeviceScope refs(s.absent.empty() && !sel.empty() ? reference_device(*b, opt, reps) : nullptr);
    if (s.absent.empty() && !sel.empty())
      if (const std::string why = b->no_load(); !why.empty())
        note(reps, s.backend, "gate 2 makes no runs under load here: " + why);
    bool lost_noted = false;
    // A host backend's kernels run in this process's address space: under the command line they
    // run in a fresh process this one supervises, so a crash or a hang is a finding, not the end.
    if (s.absent.empty() && b->host_launches() && !opt.self_exe.empty() && !opt.in_process && !sel.empty()) {
      detail::continue_fresh(s, opt, sel, 0, "", reps, progress);
    } else
    for (size_t i = 0; i < sel.size(); ++i) {
      const Registration& reg = *sel[i];
      if (!s.absent.empty()) {
        if (reg.control) ++s.controls_not_run; else ++s.kernels;
        continue;
      }
      progress.show(s.backend, reg.name);
      detail::tally(s, reg, run_entry(reg, *b, opt, reps));
      if (const std::string fb = take_ref_fallback(); !fb.empty()) note(reps, s.backend, reg.name + ": " + fb);
      // After a fault some drivers refuse the device to this process for good: the rest of this
      // backend's entries then run in fresh processes, reported and tallied here.
      const std::string lost = i + 1 < sel.size() ? b->lost() : "";
      if (lost.empty()) continue;
      if (!opt.self_exe.empty()) {
        detail::continue_fresh(s, opt, sel, i + 1, lost, reps, progress);
        break;
      }
      if (!lost_noted)
        note(reps, s.backend, fmt::format("{}; no executable to re-run is known, so the remaining {} entries run "
                                          "on in this process and fail", lost, sel.size() - i - 1));
      lost_noted = true;
    }
    if (opt.progress && progress.total) std::fprintf(stderr, "\r\033[K"), std::fflush(stderr);
    if (opt.limits && limits_here) audit_backend(s, opt, reps, matched);
    for (auto* r : reps) r->summary(s);
    out.summaries.push_back(s);
    if (s.failures || s.errors || s.limit_problems) failed = true;
  }
  const auto slowest = slowest_entries(out.events);
  for (auto* r : reps) r->timings(slowest);
  for (auto* r : reps) r->end();
  if (!backend_seen) throw Error(fmt::format("unknown backend '{}'", opt.backend));
  out.exit_code = failed ? exit_fail : matched == 0 ? exit_no_match : exit_ok;
  return out;
}

}  // namespace kc

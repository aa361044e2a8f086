// Fresh processes: after a lost device, or from the start for a backend whose kernels run on the
// host (a crash there is the process's own), the parent re-runs this executable with a hidden
// resume point and a pipe, reads one JSON line a record, and reports each verdict as its own. A
// child that dies says why first where it can (last_words.hpp: the signal and its address, or the
// launch its watchdog cut off). The child's stdout and stderr stay the terminal's; only the pipe
// carries verdicts, so nothing a kernel prints can corrupt them.
#include "respawn.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gates/gates.hpp"
#include "last_words.hpp"
#include "report/margin_json.hpp"
#include "report/phases_json.hpp"
#include "shard.hpp"

namespace kc::detail {
namespace {

using nlohmann::json;

// The fd the child writes its stream to (the parent's pipe is moved there before exec).
constexpr int stream_fd = 3;

void emit(std::vector<Reporter*>& reps, const GateEvent& e) {
  for (auto* r : reps) r->gate(e);
}
void note(std::vector<Reporter*>& reps, const std::string& backend, const std::string& text) {
  for (auto* r : reps) r->note(backend, text);
}

json to_json(const GateEvent& e) {
  json j{{"t", "gate"},
         {"entry", e.entry},
         {"gate", int(e.gate)},
         {"status", int(e.status)},
         {"why", e.why},
         {"shape", e.shape},
         {"detail", e.detail},
         {"seconds", e.seconds},
         {"phases", e.phases}};
  if (e.margin) j["margin"] = *e.margin;
  return j;
}

GateEvent from_json(const json& j, const std::string& backend) {
  int g = j.at("gate").get<int>(), st = j.at("status").get<int>();
  if (g < int(Gate::nonfinite) || g > int(Gate::far)) throw Error(fmt::format("gate {} out of range", g));
  if (st < int(Status::pass) || st > int(Status::also)) throw Error(fmt::format("status {} out of range", st));
  GateEvent e{backend, j.at("entry").get<std::string>(), Gate(g), Status(st), j.at("why").get<std::string>(),
              j.at("shape").get<std::string>(), j.at("detail").get<std::string>()};
  e.seconds = j.at("seconds").get<double>();
  e.phases = j.at("phases").get<Phases>();
  if (j.contains("margin")) e.margin = j.at("margin").get<Margin>();
  return e;
}

// The child's only reporter: a record a line, flushed at once, so a crash loses nothing written.
class Stream final : public Reporter {
 public:
  explicit Stream(FILE* f) : f_(f) {}
  void gate(const GateEvent& e) override { put(to_json(e)); }
  void note(const std::string&, const std::string& text) override { put({{"t", "note"}, {"text", text}}); }
  void summary(const Summary&) override {}
  void put(const json& j) {
    std::string line = j.dump() + "\n";
    std::fwrite(line.data(), 1, line.size(), f_);
    std::fflush(f_);
  }

 private:
  FILE* f_;
};

std::string how_it_ended(int status) {
  if (WIFEXITED(status)) return fmt::format("exited with code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return fmt::format("was killed by signal {} (SIG{}: {})", sig, abbrev ? abbrev : "?", strsignal(sig));
  }
  return fmt::format("ended with wait status {:#x}", status);
}

struct Child {
  pid_t pid = -1;
  FILE* in = nullptr;  // its stream
  std::string error;   // why it could not be started
};

// fork + exec with the stream on fd 3; an exec failure comes back by errno through a second pipe.
Child spawn(const std::vector<std::string>& args) {
  Child c;
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) return {-1, nullptr, fmt::format("pipe: {}", std::strerror(errno))};
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]), close(out[1]);
    return {-1, nullptr, fmt::format("pipe: {}", std::strerror(errno))};
  }
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();  // what this process printed so far comes before anything the child prints
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {  // only async-signal-safe calls from here to exec
    // A child outlives no parent: a run killed from outside takes its fresh process with it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // it died before the line above
    if (out[1] == stream_fd) {
      fcntl(stream_fd, F_SETFD, 0);
    } else if (dup2(out[1], stream_fd) < 0) {
      int e = errno;
      (void)!write(err[1], &e, sizeof e);
      _exit(127);
    }
    execv(argv[0], argv.data());
    int e = errno;
    (void)!write(err[1], &e, sizeof e);
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  if (pid < 0) {
    close(out[0]), close(err[0]);
    return {-1, nullptr, fmt::format("fork: {}", std::strerror(errno))};
  }
  int e = 0;
  ssize_t n;
  do n = read(err[0], &e, sizeof e);
  while (n < 0 && errno == EINTR);
  close(err[0]);
  if (n == ssize_t(sizeof e)) {
    close(out[0]);
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {}
    return {-1, nullptr, fmt::format("cannot execute {}: {}", args[0], std::strerror(e))};
  }
  c.pid = pid;
  c.in = fdopen(out[0], "r");
  if (!c.in) {
    close(out[0]);
    kill(pid, SIGKILL);
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {}
    return {-1, nullptr, fmt::format("fdopen: {}", std::strerror(errno))};
  }
  return c;
}

// The same selection and options as this run, for one backend, from the entry `at`. Gate 5 stays with
// the parent: it reads binaries, not the device, and runs once there after every entry.
std::vector<std::string> child_args(const RunOptions& opt, const std::string& backend, const std::string& at) {
  std::vector<std::string> a{opt.self_exe};
  a.insert(a.end(), opt.self_args.begin(), opt.self_args.end());
  a.insert(a.end(), {"--backend=" + backend, fmt::format("--seed={:#x}", opt.seed), fmt::format("--seeds={}", opt.seeds),
                     fmt::format("--timeout={}", opt.timeout_s), "--no-limits", "--resume-at=" + at,
                     fmt::format("--stream-fd={}", stream_fd)});
  if (!opt.only.empty()) a.push_back("--only=" + opt.only);  // CLI11 takes no empty value
  if (opt.exact) a.push_back("--exact");
  if (opt.repro) a.push_back("--repro");
  if (opt.cpu_references) a.push_back("--cpu-references");
  if (opt.shards > 0) a.push_back(fmt::format("--shard={}/{}", opt.shard, opt.shards));
  if (!opt.costs_file.empty()) a.push_back("--costs=" + opt.costs_file);
  return a;
}

// The gate after the last one an entry reported (where a process that died mid-entry was).
Gate next_gate(const std::vector<GateEvent>& evs) {
  int g = int(Gate::nonfinite);
  for (const auto& e : evs)
    if (e.gate != Gate::limits)
      g = e.gate == Gate::sums ? int(Gate::invariance) : std::min(int(e.gate) + 1, int(Gate::far));
  return Gate(g);
}

}  // namespace

void continue_fresh(Summary& s, const RunOptions& opt, const std::vector<const Registration*>& sel, size_t from,
                    const std::string& why, std::vector<Reporter*>& reps, Progress& progress) {
  const std::string& b = s.backend;
  size_t next = from;       // the first entry no process has reported yet
  std::string stopped;      // why no further process is started, "" while they are
  std::string reason = why;  // why this process cannot run them itself ("" for a supervised start)
  for (int round = 0; next < sel.size() && stopped.empty(); ++round) {
    const size_t start = next;
    const std::string resume = sel[next]->name;
    Child c = spawn(child_args(opt, b, resume));
    if (c.pid < 0) {
      stopped = "a fresh process could not be started: " + c.error;
      break;
    }
    if (!reason.empty())
      note(reps, b,
           fmt::format("{}. The remaining {} {} of {} continue{} in {} fresh process (pid {}: this executable re-run "
                       "with --resume-at {})",
                       reason, sel.size() - next, sel.size() - next == 1 ? "entry" : "entries", b,
                       sel.size() - next == 1 ? "s" : "", round ? "another" : "a", c.pid, resume));
    int open = -1;  // index of the entry the child is running, -1 between entries
    std::vector<GateEvent> evs;
    bool ended = false, lost_again = false;
    std::string bad;   // the stream broke the protocol
    std::string died;  // the child's last words: the signal that ended it, or the launch cut off
    Clock::time_point began = Clock::now();  // when the open entry began
    Why died_why = Why::fault;
    char* line = nullptr;
    size_t cap = 0;
    for (ssize_t n; bad.empty() && (n = getline(&line, &cap, c.in)) > 0;) {
      try {
        json j = json::parse(std::string(line, size_t(n)));
        const std::string t = j.at("t").get<std::string>();
        if (ended || lost_again) {
          bad = "a record after the end of the stream";
        } else if (t == "entry") {
          const std::string name = j.at("name").get<std::string>();
          if (open >= 0 || next >= sel.size() || sel[next]->name != name)
            bad = fmt::format("entry '{}' where '{}' was due", name, next < sel.size() ? sel[next]->name : "none");
          else
            open = int(next), evs.clear(), progress.show(b, name), began = Clock::now();
        } else if (t == "gate") {
          GateEvent e = from_json(j, b);
          emit(reps, e);
          if (open >= 0 && e.entry == sel[open]->name)
            evs.push_back(std::move(e));
          else
            s.count(e.status);  // a problem of the process itself, not of one entry
        } else if (t == "note") {
          note(reps, b, j.at("text").get<std::string>());
        } else if (t == "entry_end") {
          if (open < 0 || j.at("name").get<std::string>() != sel[open]->name) {
            bad = "an entry's end with no entry begun";
          } else {
            tally(s, *sel[open], evs);
            next = size_t(open) + 1;
            open = -1;
          }
        } else if (t == "lost") {
          lost_again = true;
          reason = fmt::format("the fresh process (pid {}) lost the device too, after {}: {}", c.pid,
                               j.at("after").get<std::string>(), j.at("why").get<std::string>());
          if (open >= 0 || next == start) bad = "a lost device reported before any entry finished";
        } else if (t == "signal") {
          died = signal_words(j.at("sig").get<int>(), j.at("code").get<int>(),
                              std::stoull(j.at("addr").get<std::string>(), nullptr, 16), j.at("has_addr").get<bool>());
          if (const std::string at = j.at("launch").get<std::string>(); !at.empty()) died += " in the launch of " + at;
          died_why = Why::fault;
        } else if (t == "hang") {
          died = fmt::format("the launch of {} did not return within {} s (--timeout): cut off",
                             j.at("launch").get<std::string>(), j.at("seconds").get<double>());
          died_why = Why::hang;
        } else if (t == "end") {
          ended = true;
          if (open >= 0) bad = "the end of the stream inside an entry";
        } else {
          bad = "an unknown record '" + t + "'";
        }
      } catch (const std::exception& x) {
        bad = fmt::format("an unreadable record ({}): {}", x.what(), std::string(line, std::min<size_t>(size_t(n), 200)));
      }
    }
    std::free(line);
    if (!bad.empty()) kill(c.pid, SIGKILL);
    std::fclose(c.in);
    int status = 0;
    while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {}
    const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    const std::string who = fmt::format("the fresh process (pid {})", c.pid);
    if (!bad.empty()) {  // no later record can be trusted: stop here
      GateEvent e{b, open >= 0 ? sel[open]->name : "(fresh process)", next_gate(evs), Status::error, "crash", "",
                  fmt::format("{} sent {}; it was stopped", who, bad)};
      emit(reps, e);
      if (open >= 0) {
        evs.push_back(e);
        tally(s, *sel[open], evs);
        next = size_t(open) + 1;
      } else {
        ++s.errors;
      }
      stopped = who + " broke its stream";
      break;
    }
    if (open >= 0) {  // died inside an entry: that entry fails by name, the next process starts after it
      GateEvent e{b, sel[open]->name, next_gate(evs), Status::error, died.empty() ? "crash" : why_name(died_why), "",
                  died.empty() ? fmt::format("{} {} while running this entry", who, how_it_ended(status))
                               : fmt::format("{}; {} {} while running this entry", died, who, how_it_ended(status))};
      // The dead gate's time: from the end of the last gate it finished.
      for (const auto& x : evs)
        began += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(x.seconds));
      e.seconds = seconds_since(began);
      // Judged as the gate's own finding: a control built to fault (or hang) there is red.
      Outcome o;
      o.failed = true;
      o.why = died_why;
      o.detail = e.detail;
      try {
        e.status = judge(build(*sel[open]).spec, e.gate, o, e.detail);
      } catch (const std::exception&) {
      }
      emit(reps, e);
      evs.push_back(e);
      tally(s, *sel[open], evs);
      next = size_t(open) + 1;
      reason = fmt::format("{} {} while running {}", who, died_why == Why::hang && !died.empty() ? "was cut off" : how_it_ended(status), sel[open]->name);
      continue;
    }
    if (!(ended || lost_again) || !clean) {
      ++s.errors;
      emit(reps, {b, "(fresh process)", Gate::nonfinite, Status::error, "crash", "",
                  fmt::format("{}{} {} {}", died.empty() ? "" : died + "; ", who, how_it_ended(status),
                              ended || lost_again ? "after finishing its stream"
                              : next == start     ? "before finishing any entry"
                                                  : "between entries, without finishing its stream")});
      if (!lost_again) reason = who + " " + how_it_ended(status);
    }
    if (next == start) stopped = who + " finished no entry";  // another would do no better
  }
  for (; next < sel.size(); ++next) {
    GateEvent e{b, sel[next]->name, Gate::nonfinite, Status::error, "not_run", "",
                fmt::format("not run: the device was lost and {}", stopped)};
    emit(reps, e);
    tally(s, *sel[next], {e});
  }
}

int run_resumed(const RunOptions& opt, Backend& b, const std::string& at, int fd) {
  FILE* f = fdopen(fd, "w");
  if (!f) {
    std::cerr << "kernel-contract: --stream-fd " << fd << ": " << std::strerror(errno) << "\n";
    return exit_usage;
  }
  last_words_to(fd);  // a fatal signal says which, where, before this process ends
  Stream st(f);
  std::vector<Reporter*> reps{&st};
  const auto sel = run_selection(opt, b.name());
  size_t i = 0;
  while (i < sel.size() && sel[i]->name != at) ++i;
  auto trouble = [&](const std::string& what) {
    st.gate({b.name(), "(fresh process)", Gate::nonfinite, Status::error, "crash", "", what});
    st.put({{"t", "end"}});
  };
  if (i == sel.size()) {
    trouble(fmt::format("no selected {} entry is named '{}' to resume at", b.name(), at));
  } else if (std::string why = b.absent(); !why.empty()) {
    trouble(fmt::format("{} is absent in the fresh process: {}", b.name(), why));
  } else {
    for (; i < sel.size(); ++i) {
      st.put({{"t", "entry"}, {"name", sel[i]->name}});
      run_entry(*sel[i], b, opt, reps);
      st.put({{"t", "entry_end"}, {"name", sel[i]->name}});
      if (i + 1 < sel.size())
        if (std::string why = b.lost(); !why.empty()) {
          st.put({{"t", "lost"}, {"after", sel[i]->name}, {"why", why}});
          break;
        }
    }
    if (i == sel.size()) st.put({{"t", "end"}});
  }
  std::fclose(f);
  return exit_ok;
}

}  // namespace kc::detail

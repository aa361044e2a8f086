#include "sanitize.hpp"

#include <cerrno>
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <istream>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gates/gates.hpp"
#include "kc/not_here.hpp"
#include "kc/registry.hpp"
#include "respawn.hpp"

namespace kc::detail {
namespace {

constexpr const char* kMark = "kc-sanitize: ";
// A sanitized launch runs tens of times slower than a plain one.
constexpr double kSlower = 20;

bool executable(const std::string& p) { return !p.empty() && access(p.c_str(), X_OK) == 0; }

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// Runs args with stdout on a pipe; returns what it printed and how it ended.
struct Piped {
  std::string out, error;
  int status = 0;
};
Piped run_piped(const std::vector<std::string>& args) {
  Piped r;
  int fd[2];
  if (pipe2(fd, O_CLOEXEC) != 0) return {"", fmt::format("pipe: {}", std::strerror(errno))};
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  std::fflush(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a run killed from outside takes its sanitized process along
    if (getppid() != parent) _exit(127);
    if (dup2(fd[1], 1) < 0) _exit(127);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fd[1]);
  if (pid < 0) {
    close(fd[0]);
    return {"", fmt::format("fork: {}", std::strerror(errno))};
  }
  char buf[65536];
  for (ssize_t n; (n = read(fd[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    r.out.append(buf, size_t(n));
  }
  close(fd[0]);
  while (waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {}
  if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127 && r.out.empty())
    r.error = fmt::format("cannot execute {}", args[0]);
  return r;
}

// The real path of this executable: under the sanitizer /proc/self/exe would be the sanitizer's.
std::string real_self(const std::string& self) {
  char buf[PATH_MAX];
  const char* p = realpath(self.c_str(), buf);
  return p ? p : self;
}

}  // namespace

const std::vector<std::string>& sanitizer_tools() {
  static const std::vector<std::string> tools{"memcheck", "racecheck", "initcheck", "synccheck"};
  return tools;
}

std::vector<std::string> parse_sanitizers(const std::string& text) {
  if (text == "all") return sanitizer_tools();
  std::vector<bool> want(sanitizer_tools().size());
  std::stringstream ss(text);
  std::string tool;
  int n = 0;
  while (std::getline(ss, tool, ',')) {
    size_t i = 0;
    while (i < want.size() && sanitizer_tools()[i] != tool) ++i;
    if (i == want.size())
      throw Error(fmt::format("--sanitize: unknown tool '{}' (memcheck, racecheck, initcheck, synccheck, or all)", tool));
    want[i] = true, ++n;
  }
  if (!n || text.back() == ',') throw Error("--sanitize: no tool named (memcheck, racecheck, initcheck, synccheck, or all)");
  std::vector<std::string> out;
  for (size_t i = 0; i < want.size(); ++i)
    if (want[i]) out.push_back(sanitizer_tools()[i]);
  return out;
}

std::string find_compute_sanitizer() {
  if (const std::string e = env("KC_COMPUTE_SANITIZER"); !e.empty()) return executable(e) ? e : "";
  for (std::string dirs = env("PATH"); !dirs.empty();) {
    const std::string dir = dirs.substr(0, dirs.find(':'));
    dirs.erase(0, std::min(dirs.size(), dir.size() + 1));
    if (const std::string p = (dir.empty() ? "." : dir) + "/compute-sanitizer"; executable(p)) return p;
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const std::string root = env(var); !root.empty())
      if (const std::string p = root + "/bin/compute-sanitizer"; executable(p)) return p;
  return "";
}

std::vector<std::string> sanitizer_command(const std::string& sanitizer, const std::string& tool, const std::string& self,
                                           const RunOptions& opt, const std::string& entry) {
  // Backtraces are long and name machine paths; the harness's own probing API calls are not findings.
  std::vector<std::string> a{sanitizer, "--tool", tool, "--print-limit", "20", "--show-backtrace", "no",
                             "--report-api-errors", "no"};
  a.push_back(self);
  a.insert(a.end(), opt.self_args.begin(), opt.self_args.end());
  a.insert(a.end(), {"--backend=" + opt.backend, fmt::format("--seed={:#x}", opt.seed),
                     fmt::format("--timeout={}", opt.timeout_s * kSlower), "--no-limits", "--sanitize-launches",
                     "--only=" + entry, "--exact"});
  return a;
}

Sanitized read_sanitized(std::istream& in) {
  Sanitized s;
  const std::string bar = "========= ";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(kMark, 0) == 0) {
      const std::string rest = line.substr(std::strlen(kMark));
      if (rest.rfind("done ", 0) == 0) {
        const size_t at = rest.rfind("launches=");
        if (at != std::string::npos) s.launches = std::atoi(rest.c_str() + at + 9);
      } else if (rest.rfind("error ", 0) == 0) {
        s.trouble = rest.substr(6);
      } else if (rest.rfind("notrun ", 0) == 0) {
        s.not_here = rest.substr(7);
      }
      continue;
    }
    if (line.rfind(bar, 0) != 0 || line.size() == bar.size()) continue;
    const std::string body = line.substr(bar.size());
    if (body.rfind("ERROR SUMMARY: ", 0) == 0) {
      s.errors = std::max(s.errors, std::atol(body.c_str() + 15));
      continue;
    }
    // racecheck's own: "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)".
    if (body.rfind("RACECHECK SUMMARY: ", 0) == 0) {
      const size_t open = body.find('(');
      s.errors = std::max(s.errors, open == std::string::npos ? 0L : std::atol(body.c_str() + open + 1));
      continue;
    }
    // A report's first line starts at the bar; its details are indented under it. racecheck's
    // warnings (a race whose accesses write the same value) are not counted as findings.
    if (body[0] == ' ' || body.rfind("COMPUTE-SANITIZER", 0) == 0 || body.rfind("LEAK SUMMARY", 0) == 0 ||
        body.rfind("Target application returned", 0) == 0 || body.rfind("Warning", 0) == 0)
      continue;
    s.findings.push_back(body);
  }
  return s;
}

int run_sanitizers(const RunOptions& opt, const std::vector<std::string>& tools, const std::string& sanitizer,
                   Backend& b, std::ostream& out) {
  const auto sel = selection(b.name(), opt.only, opt.exact);
  if (sel.empty()) {
    out << fmt::format("kernel-contract: --sanitize: no {} entry matches --only '{}'\n", b.name(), opt.only);
    return exit_no_match;
  }
  const std::string self = real_self(opt.self_exe);
  int clean = 0, findings = 0, red = 0, errors = 0, not_run = 0;
  for (const std::string& tool : tools)
    for (const Registration* reg : sel) {
      const auto cmd = sanitizer_command(sanitizer, tool, self, opt, reg->name);
      Piped r = run_piped(cmd);
      std::istringstream in(r.out);
      Sanitized s = read_sanitized(in);
      const std::string who = fmt::format("{} {} sanitize {}", b.name(), reg->name, tool);
      if (!s.findings.empty() || s.errors > 0) {
        const std::string first = s.findings.empty() ? "(no report printed)" : s.findings.front();
        const long n = std::max<long>(s.errors, long(s.findings.size()));
        if (reg->control) {
          ++red;
          out << fmt::format("RED   {}: {} finding{} in a planted control: {}\n", who, n, n == 1 ? "" : "s", first);
        } else {
          ++findings;
          out << fmt::format("ERROR {}: {} finding{}: {}\n", who, n, n == 1 ? "" : "s", first);
        }
        for (size_t i = 1; i < s.findings.size() && i < 4; ++i) out << "      " << s.findings[i] << "\n";
        continue;
      }
      std::string why = !r.error.empty()           ? r.error
                        : !s.trouble.empty()       ? s.trouble
                        : s.launches < 0           ? fmt::format("the sanitized process ended before it finished ({})",
                                                                 WIFSIGNALED(r.status) ? fmt::format("signal {}", WTERMSIG(r.status))
                                                                                       : fmt::format("exit code {}", WEXITSTATUS(r.status)))
                        : s.errors < 0             ? "compute-sanitizer printed no summary (ERROR SUMMARY or RACECHECK SUMMARY)"
                                                   : "";
      if (!s.not_here.empty()) {
        if (reg->control) {
          ++not_run;
          out << fmt::format("NA    {}: control not run on this device: {}\n", who, s.not_here);
          continue;
        }
        why = "a kernel is never skipped, but it says it cannot run here: " + s.not_here;
      }
      if (!why.empty()) {
        ++errors;
        out << fmt::format("ERROR {}: not sanitized: {}\n", who, why);
        continue;
      }
      ++clean;
      out << fmt::format("PASS  {}: {} launch{} at the smallest shapes, no finding\n", who, s.launches,
                         s.launches == 1 ? "" : "es");
    }
  out << fmt::format("SANITIZE {} tools={} entries={} clean={} findings={} controls_red={} controls_not_run={} errors={}\n",
                     b.name(), fmt::join(tools, ","), sel.size(), clean, findings, red, not_run, errors);
  out.flush();
  return findings || errors ? exit_fail : exit_ok;
}

int sanitize_launches(const RunOptions& opt, Backend& b) {
  const auto sel = selection(b.name(), opt.only, true);
  auto say = [](const std::string& s) {
    std::cout << kMark << s << "\n";
    std::cout.flush();
  };
  if (sel.size() != 1) {
    say(fmt::format("error no {} entry is named '{}'", b.name(), opt.only));
    return exit_fail;
  }
  if (const std::string why = b.absent(); !why.empty()) {
    say("error " + b.name() + " is absent: " + why);
    return exit_fail;
  }
  const Registration& reg = *sel.front();
  int launches = 0;
  try {
    Entry e;
    try {
      e = build(reg);
    } catch (const NotHere& x) {
      say(fmt::format("notrun {}", x.what()));
      return exit_ok;
    }
    GateCtx ctx{b, e, opt};
    ctx.seed = opt.seed;
    // The smallest served shape and one shape a launch form: the largest served shape is left out.
    const auto ext = extreme_shapes(e.spec);
    for (const Shape& s : form_extreme_shapes(ctx)) {
      if (ext.size() > 1 && s == ext.back() && !(s == ext.front())) continue;
      Case c = prepare_case(ctx, Gate::repeat, s, Fill{FillKind::random, {}});
      DeviceCase dev(b, e.spec, c);
      SyncResult r = dev.launch(e.rig.run, ++ctx.run, opt.timeout_s);
      if (r.kind != SyncResult::ok) {
        say(fmt::format("error at {}: {}", s.str(), r.error));
        return exit_ok;
      }
      ++launches;
    }
  } catch (const std::exception& x) {
    say(fmt::format("error {}", x.what()));
    return exit_ok;
  }
  say(fmt::format("done {} launches={}", reg.name, launches));
  return exit_ok;
}

}  // namespace kc::detail

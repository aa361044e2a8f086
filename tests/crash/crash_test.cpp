// A CPU entry that segfaults, aborts or never returns is an ERROR naming the signal (and its
// address) or the hang; the entries after it run in fresh processes and count in one SUMMARY;
// the JSON Lines report keeps every event. crash_cli is run as a user runs kernel-contract.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "../cli_lines.hpp"

namespace {

struct Ran {
  int code = -1;
  std::string out;
};

Ran cli(const std::string& args) {
  Ran r;
  FILE* p = popen((std::string(CRASH_CLI) + " --backend cpu --no-limits " + args + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
  return r;
}

std::vector<std::string> lines_of(const std::string& out, const std::string& entry) {
  return cli_lines::of(out, "cpu", entry);
}
using cli_lines::summary;
void all_pass(const Ran& r, const std::string& entry) { cli_lines::all_pass(r.out, "cpu", entry); }

std::string temp(const char* what) {
  std::string p = std::string(::testing::TempDir()) + "crash_" + what + "_XXXXXX";
  int fd = mkstemp(p.data());
  if (fd >= 0) close(fd);
  return p;
}

TEST(Crash, ASegfaultAndAHangAreNamedAndTheOtherEntriesPass) {
  Ran r = cli("--only planted/ --timeout 2");
  EXPECT_EQ(r.code, 1) << "the planted crash and hang fail the run:\n" << r.out;
  for (const char* ok : {"planted/1_ok", "planted/3_ok", "planted/5_ok"}) all_pass(r, ok);
  auto seg = lines_of(r.out, "planted/2_null_write");
  ASSERT_EQ(seg.size(), 1u) << r.out;
  EXPECT_EQ(seg[0].rfind("ERROR  cpu planted/2_null_write gate1 nonfinite fault", 0), 0u) << seg[0];
  EXPECT_NE(seg[0].find("SIGSEGV (Segmentation fault: address not mapped) at address 0x0 in the launch of "
                        "planted/2_null_write at rows:"),
            std::string::npos)
      << seg[0];
  auto hang = lines_of(r.out, "planted/4_spin");
  ASSERT_EQ(hang.size(), 1u) << r.out;
  EXPECT_EQ(hang[0].rfind("ERROR  cpu planted/4_spin gate1 nonfinite hang", 0), 0u) << hang[0];
  EXPECT_NE(hang[0].find("did not return within 2 s (--timeout): cut off"), std::string::npos) << hang[0];
  EXPECT_EQ(summary(r.out), "SUMMARY backend=cpu kernels=3/5 known=0 controls=0/0 limit_problems=0 failures=0 errors=2") << r.out;
}

TEST(Crash, AnAbortIsNamedAndTheEntryAfterItPasses) {
  Ran r = cli("--only abort/");
  EXPECT_EQ(r.code, 1) << r.out;
  auto a = lines_of(r.out, "abort/1_abort");
  ASSERT_EQ(a.size(), 1u) << r.out;
  EXPECT_EQ(a[0].rfind("ERROR  cpu abort/1_abort gate1 nonfinite fault: SIGABRT (Aborted) in the launch of", 0), 0u)
      << a[0];
  all_pass(r, "abort/2_ok");
  EXPECT_NE(r.out.find("The remaining 1 entry of cpu continues in another fresh process"), std::string::npos) << r.out;
  EXPECT_EQ(summary(r.out), "SUMMARY backend=cpu kernels=1/2 known=0 controls=0/0 limit_problems=0 failures=0 errors=1") << r.out;
}

// Nothing finished is lost: the JSON Lines report holds every entry's verdicts, the crashed ones
// included, and ends with the summary.
TEST(Crash, TheJsonLinesReportHoldsEveryVerdict) {
  const std::string path = temp("jsonl");
  Ran r = cli("--only planted/ --timeout 2 --reporter json --out " + path);
  EXPECT_EQ(r.code, 1) << r.out;
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(nlohmann::json::parse(l));
  std::remove(path.c_str());
  ASSERT_FALSE(lines.empty());
  int ok_gates = 0, errors = 0;
  for (const auto& j : lines)
    if (j["type"] == "gate") (j["ok"].get<bool>() ? ok_gates : errors)++;
  EXPECT_EQ(ok_gates, 12);  // three entries, four gates each
  EXPECT_EQ(errors, 2);
  EXPECT_EQ(lines.back()["type"], "end");
  EXPECT_EQ(lines.back()["summaries"][0]["kernels_passing"], 3);
}

// A run killed from outside (a CI time limit) leaves every line it finished: the hang's entry is
// running when the kill comes, the entries before it are already in the report.
TEST(Crash, ARunKilledHalfWayLeavesTheLinesItFinished) {
  const std::string path = temp("killed");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl(CRASH_CLI, CRASH_CLI, "--backend", "cpu", "--no-limits", "--only", "planted/", "--timeout", "60",
          "--reporter", "json", "--out", path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the report shows planted/3_ok's last gate (then planted/4_spin hangs for 60 s).
  bool reached = false;
  for (int i = 0; i < 300 && !reached; ++i) {
    usleep(100 * 1000);
    std::ifstream in(path);
    for (std::string l; std::getline(in, l);)
      if (l.find("\"planted/3_ok\"") != std::string::npos && l.find("\"gate\":4") != std::string::npos) reached = true;
  }
  kill(pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_TRUE(reached) << "the report never showed planted/3_ok's gate 4";
  std::ifstream in(path);
  int parsed = 0, seg = 0;
  for (std::string l; std::getline(in, l);) {
    auto j = nlohmann::json::parse(l, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "a line cut in half: " << l;
    ++parsed;
    if (j["type"] == "gate" && j["entry"] == "planted/2_null_write") seg += j["why"] == "fault";
  }
  std::remove(path.c_str());
  EXPECT_EQ(seg, 1);
  EXPECT_GE(parsed, 2 + 4 + 1 + 4);  // begin, backend, planted/1_ok, the segfault, planted/3_ok
}

// A run killed with SIGKILL once its first entry's lines are out: each whole line of its JSON Lines
// report is an object of a known type with that type's keys (gate 3's passing line with its margin,
// through the supervised fresh process), there is a verdict, and no summary: the run never ended.
TEST(Crash, AJsonLinesReportKilledMidRunIsWholeObjectsAndNoSummary) {
  const std::string path = temp("sigkill");
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // planted/4_spin never returns within the timeout: the run cannot end before the kill.
    execl(CRASH_CLI, CRASH_CLI, "--backend", "cpu", "--no-limits", "--only", "planted/", "--timeout", "120",
          "--reporter", "json", "--out", path.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  auto whole_lines = [&] {
    std::ifstream in(path, std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> v;
    for (size_t at = 0, nl; (nl = all.find('\n', at)) != std::string::npos; at = nl + 1) v.push_back(all.substr(at, nl - at));
    return v;  // a last line with no newline yet is left out
  };
  auto first_entry_done = [](const std::vector<std::string>& v) {
    for (const auto& l : v)
      if (l.find("\"planted/1_ok\"") != std::string::npos && l.find("\"gate\":4") != std::string::npos) return true;
    return false;
  };
  // Polled, with a deadline far past the few seconds it takes: never a fixed wait.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool reached = false;
  int st = 0;
  bool exited = false;
  while (!reached && std::chrono::steady_clock::now() < deadline) {
    reached = first_entry_done(whole_lines());
    if (!reached && waitpid(pid, &st, WNOHANG) == pid) {
      exited = true;
      break;
    }
    if (!reached) usleep(20 * 1000);
  }
  if (!exited) {
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
  }
  ASSERT_FALSE(exited) << "the run ended by itself before it was killed (status " << st << ")";
  ASSERT_TRUE(reached) << "within 60 s the report at " << path << " never showed planted/1_ok's gate 4 line";
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << "status " << st;

  const std::map<std::string, std::vector<const char*>> keys = {
      {"begin", {"tool", "seed"}},
      {"backend", {"backend", "device", "absent"}},
      {"gate", {"backend", "entry", "gate", "gate_name", "status", "ok", "why", "shape", "detail", "seconds", "phases"}},
      {"note", {"backend", "text"}}};
  int verdicts = 0, margins = 0;
  const auto lines = whole_lines();
  for (const auto& l : lines) {
    auto j = nlohmann::json::parse(l, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << "not JSON: " << l;
    ASSERT_TRUE(j.is_object()) << l;
    ASSERT_TRUE(j.contains("type") && j["type"].is_string()) << l;
    const std::string type = j["type"];
    ASSERT_NE(type, "summary") << "a summary from a run that was killed: " << l;
    ASSERT_NE(type, "end") << l;
    ASSERT_TRUE(keys.count(type)) << "an unknown type: " << l;
    for (const char* k : keys.at(type)) EXPECT_TRUE(j.contains(k)) << type << " line lacks " << k << ": " << l;
    if (type != "gate") continue;
    ++verdicts;
    if (j["gate"] == 3 && j["status"] == "PASS") {
      ++margins;
      ASSERT_TRUE(j.contains("margin")) << l;
      for (const char* k : {"ratio", "output", "index", "want", "got", "bound", "shape", "fill", "seed"})
        EXPECT_TRUE(j["margin"].contains(k)) << "margin lacks " << k << ": " << l;
      EXPECT_LE(j["margin"]["ratio"].get<double>(), 1) << l;
    }
  }
  std::remove(path.c_str());
  EXPECT_EQ(nlohmann::json::parse(lines.front())["type"], "begin") << lines.front();
  EXPECT_GE(verdicts, 4) << "planted/1_ok's four gates";
  EXPECT_GE(margins, 1) << "planted/1_ok's gate 3";
}

}  // namespace

namespace {
// The served contract's CPU controls built to crash their process: red through the command line.
TEST(Crash, AReadPastAnInputsEndFaultsAndTheControlIsRed) {
  FILE* p = popen(KC_CONTRACT_BIN " --backend cpu --no-limits --only rows/ctl_overread_end/ 2>&1", "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int st = pclose(p);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << out;
  auto v = lines_of(out, "rows/ctl_overread_end/f32");
  ASSERT_EQ(v.size(), 1u) << out;
  EXPECT_EQ(v[0].rfind("RED    cpu rows/ctl_overread_end/f32 gate1 nonfinite fault", 0), 0u) << v[0];
  EXPECT_NE(v[0].find("SIGSEGV (Segmentation fault: access not allowed) at address 0x"), std::string::npos) << v[0];
  EXPECT_EQ(summary(out), "SUMMARY backend=cpu kernels=0/0 known=0 controls=1/1 limit_problems=0 failures=0 errors=0") << out;
}
}  // namespace

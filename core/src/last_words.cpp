#include "last_words.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <fmt/format.h>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace kc::detail {
namespace {

std::atomic<int> g_fd{-1};
std::atomic<bool> g_said{false};  // one record per process, whichever thread dies first
// The launch running now, as JSON-escaped text, for the records: set by watchdog_arm.
char g_launch[768];
std::atomic<bool> g_in_launch{false};

// Appends without allocating (signal context).
struct Line {
  char buf[1200];
  size_t n = 0;
  void put(const char* s) {
    while (*s && n < sizeof buf - 2) buf[n++] = *s++;
  }
  void num(unsigned long long v, int base) {
    char t[24];
    int k = 0;
    do t[k++] = "0123456789abcdef"[v % unsigned(base)], v /= unsigned(base);
    while (v && k < 24);
    if (base == 16) put("0x");
    while (k) buf[n < sizeof buf - 2 ? n++ : n] = t[--k];
  }
  void say(int fd) {
    buf[n++] = '\n';
    for (size_t at = 0; at < n;) {
      ssize_t w = write(fd, buf + at, n - at);
      if (w <= 0) break;
      at += size_t(w);
    }
  }
};

void on_fatal(int sig, siginfo_t* info, void*) {
  const int fd = g_fd.load();
  if (fd >= 0 && !g_said.exchange(true)) {
    Line l;
    l.put("{\"t\":\"signal\",\"sig\":");
    l.num(unsigned(sig), 10);
    l.put(",\"code\":");
    const int code = info ? info->si_code : 0;
    if (code < 0) l.put("-");
    l.num(unsigned(code < 0 ? -code : code), 10);
    // The kernel gives an address for faults it raised itself (si_code > 0), not for kill/abort.
    const bool addr = info && code > 0 && sig != SIGABRT;
    l.put(",\"has_addr\":");
    l.put(addr ? "true" : "false");
    l.put(",\"addr\":\"");
    l.num(addr ? reinterpret_cast<unsigned long long>(info->si_addr) : 0, 16);
    l.put("\",\"launch\":\"");
    if (g_in_launch.load()) l.put(g_launch);
    l.put("\"}");
    l.say(fd);
  }
  signal(sig, SIG_DFL);  // the default action ends the process once this handler returns
  raise(sig);
}

void escape_into(char* dst, size_t cap, const std::string& s) {
  size_t n = 0;
  for (char ch : s) {
    if (n + 3 >= cap) break;
    if (ch == '"' || ch == '\\') dst[n++] = '\\';
    dst[n++] = (ch == '\n' || ch == '\t') ? ' ' : ch;
  }
  dst[n] = 0;
}

class Watchdog {
 public:
  void arm(double timeout_s, const std::string& what) {
    std::unique_lock<std::mutex> l(m_);
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
    deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    escape_into(g_launch, sizeof g_launch, what);
    g_in_launch = true;
    Line rec;
    rec.put("{\"t\":\"hang\",\"seconds\":");
    rec.put(fmt::format("{}", timeout_s).c_str());
    rec.put(",\"launch\":\"");
    rec.put(g_launch);
    rec.put("\"}");
    hang_ = rec;
    Line err;
    err.put(fmt::format("kernel-contract: HANG: {} did not return within {} s (--timeout); this process ends here "
                        "(a run from the command line reports it and goes on in a fresh process)", what, timeout_s)
                .c_str());
    err_ = err;
    armed_ = true;
    ++gen_;
    cv_.notify_one();
  }
  void disarm() {
    std::lock_guard<std::mutex> l(m_);
    armed_ = false;
    g_in_launch = false;
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> l(m_);
      quit_ = true;
      cv_.notify_one();
    }
    if (thread_.joinable()) thread_.join();
  }

 private:
  using Clock = std::chrono::steady_clock;
  void loop() {
    std::unique_lock<std::mutex> l(m_);
    while (!quit_) {
      if (!armed_) {
        cv_.wait(l);
        continue;
      }
      const uint64_t gen = gen_;
      if (cv_.wait_until(l, deadline_, [&] { return quit_ || !armed_ || gen_ != gen; })) continue;
      // Past the deadline and still the same launch: nothing in this process can stop it.
      const int fd = g_fd.load();
      if (fd >= 0 && !g_said.exchange(true)) hang_.say(fd);
      if (fd < 0) err_.say(2);
      _exit(exit_hung);
    }
  }
  std::mutex m_;
  std::condition_variable cv_;
  std::thread thread_;
  Clock::time_point deadline_{};
  bool armed_ = false, quit_ = false;
  uint64_t gen_ = 0;
  Line hang_, err_;
};

Watchdog& watchdog() {
  static Watchdog w;
  return w;
}

}  // namespace

void last_words_to(int fd) {
  if (fd < 0) return;
  g_fd = fd;
  // An alternate stack, so a stack overflow still runs the handler.
  static std::byte alt[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alt;
  ss.ss_size = sizeof alt;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
}

void watchdog_arm(double timeout_s, const std::string& what) { watchdog().arm(timeout_s, what); }
void watchdog_disarm() { watchdog().disarm(); }

std::string signal_words(int sig, int code, unsigned long long addr, bool has_addr) {
  const char* abbrev = sigabbrev_np(sig);
  std::string why;
  if (sig == SIGSEGV) why = code == SEGV_MAPERR ? ": address not mapped" : code == SEGV_ACCERR ? ": access not allowed" : "";
  if (sig == SIGBUS) why = code == BUS_ADRALN ? ": misaligned address" : code == BUS_ADRERR ? ": no such physical address" : "";
  if (sig == SIGFPE) why = code == FPE_INTDIV ? ": integer divide by zero" : code == FPE_INTOVF ? ": integer overflow" : "";
  if (sig == SIGILL) why = code == ILL_ILLOPC ? ": illegal opcode" : "";
  return fmt::format("SIG{} ({}{}){}", abbrev ? abbrev : "?", strsignal(sig), why,
                     has_addr ? fmt::format(" at address {:#x}", addr) : "");
}

}  // namespace kc::detail

// What a process running a backend's entries says as it dies. A kernel that runs on the host (the
// CPU backend's) faults or hangs inside this very process: a fatal signal's handler and a launch
// watchdog then write one JSON line to the stream the supervising run reads (respawn.cpp) and
// end the process, so the supervisor can name the signal, its address or the hang, and go on.
// Everything here that runs at death is async-signal-safe: preformatted bytes and write(2).
#pragma once
#include <string>

namespace kc::detail {

// The exit code of a process whose launch watchdog fired.
inline constexpr int exit_hung = 124;

// From now on, SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT write {"t":"signal",...} to fd before
// the signal's default action ends the process (on an alternate stack, so a stack overflow is
// reported too). fd < 0 leaves the default actions alone (a run inside a debugger).
void last_words_to(int fd);

// Watches one launch of a host backend: if it has not returned timeout_s after arm(), writes
// {"t":"hang",...} (or, with no stream, a line to stderr naming `what`) and ends the process with
// exit_hung. One watchdog thread serves the whole process; arm and disarm are cheap.
void watchdog_arm(double timeout_s, const std::string& what);
void watchdog_disarm();

// The parent's reading of the records above: "SIGSEGV (Segmentation fault) at address 0x0" from a
// signal record's fields, or "" for a record that is neither.
std::string signal_words(int sig, int code, unsigned long long addr, bool has_addr);

}  // namespace kc::detail

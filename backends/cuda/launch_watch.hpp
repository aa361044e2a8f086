// Gate 5 at run time on CUDA: every kernel launch the driver is asked for while the watch is on,
// seen through CUPTI's callback API on the driver's launch calls (cuLaunchKernel, cuLaunchKernelEx,
// the cooperative launch: where the runtime's launches end), and matched to the KC_CUDA_LAUNCH records by function name.
// Plain C++ at this boundary; CUPTI stays in launch_watch.cpp, which opens it at run time.
#pragma once
#include <string>
#include <vector>

#include "kc/backend.hpp"

namespace kc::cuda {

// Starts a record of launches: "" or why launches cannot be watched in this process (CUPTI's own
// words, e.g. another tool such as a profiler already holds its callbacks). A launch on any stream
// but `stream` (the harness's) is seen with that stream named.
std::string watch_launches(void* stream);
// Ends the record: each distinct function and block launched since, with the records that register
// the function.
std::vector<SeenLaunch> seen_launches();

// Where the watch looks for CUPTI, in order: its soname on the loader's path (LD_LIBRARY_PATH, the
// ld.so cache), then the paths file's `cupti` (KC_CUPTI over it; the build writes the toolkit's).
std::vector<std::string> cupti_places();
// Opens the first of `places` that loads and has every CUPTI call the watch makes: "" or why none
// did, naming each library tried and how to point at one. The watch opens cupti_places().
std::string open_cupti(const std::vector<std::string>& places);

}  // namespace kc::cuda

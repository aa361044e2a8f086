// Gate 2's load on CUDA (Backend::load_start): while an entry's loaded runs last, a thread keeps
// two kinds of work going on streams of their own beside the harness's: spinning blocks (one a SM,
// 24 warps of independent multiply-adds) that take most of each SM's issue slots, and a copy
// streaming 64 MiB from one buffer to another. Each spinning launch lasts at most kSpinUs, so an
// entry's blocks that cannot fit beside one wait that long at most, never for the whole load.
#pragma once
#include <atomic>
#include <string>
#include <thread>

namespace kc::cuda {

// The load's kernels as the launch watch sees them (seen() leaves them out: they are the harness's).
inline constexpr const char* kLoadSymbolPrefix = "kc_load_";

class DeviceLoad {
 public:
  ~DeviceLoad();
  // Starts the load on the current device ("" or why it cannot); what() then says what runs.
  std::string start(int sms);
  // Ends it and waits for its last launches: "" or the first error its thread met.
  std::string stop();
  bool running() const { return thread_.joinable(); }
  std::string what() const;
  // Frees the buffers and streams (before a device reset: they go with the context).
  void forget();

 private:
  void loop();
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::string error_;  // written by the thread, read after join
  int sms_ = 0;
  void* spin_stream_ = nullptr;
  void* copy_stream_ = nullptr;
  void* from_ = nullptr;
  void* to_ = nullptr;
  unsigned* sink_ = nullptr;  // where the spinners leave their sums, so no compiler drops the work
};

}  // namespace kc::cuda

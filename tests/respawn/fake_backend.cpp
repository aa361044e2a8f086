#include "fake.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "backends/factories.hpp"

namespace fake {
namespace {

std::atomic<bool> planted{false};

class Fake final : public kc::Backend {
 public:
  std::string name() const override { return "fake"; }
  std::string absent() const override { return ""; }
  std::string device() const override { return "fake device (host memory; loses itself after a planted fault)"; }
  void* alloc(size_t n) override {
    ready("alloc");
    return cpu_->alloc(n);
  }
  void free(void* p) override { cpu_->free(p); }
  void upload(void* d, const void* s, size_t n) override {
    ready("upload");
    cpu_->upload(d, s, n);
  }
  void download(void* d, const void* s, size_t n) override {
    ready("download");
    cpu_->download(d, s, n);
  }
  void* stream() override {
    ready("stream");
    return nullptr;
  }
  kc::SyncResult sync(double) override {
    ready("sync");
    if (planted.exchange(false))
      return {kc::SyncResult::fault, "fakeErrorIllegalAddress: an illegal memory access was encountered (planted)"};
    return {};
  }
  // As CUDA on the H200: the reset succeeds, a new context is refused, and so it stays.
  std::string recover() override {
    lost_ = "the device is lost for the rest of this process: after the fault, fakeErrorDevicesUnavailable (planted)";
    return lost_;
  }
  std::string lost() const override { return lost_; }

 private:
  void ready(const char* what) {
    if (!lost_.empty()) throw kc::Error(std::string("fake: ") + what + ": " + lost_);
  }
  std::unique_ptr<kc::Backend> cpu_ = kc::make_cpu_backend();
  std::string lost_;
};

}  // namespace

std::unique_ptr<kc::Backend> make_backend() { return std::make_unique<Fake>(); }

void plant_fault() { planted = true; }

void log_run(const char* entry) {
  const char* path = std::getenv("KC_FAKE_LOG");
  if (!path) return;
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s %d\n", entry, int(getpid()));
    std::fclose(f);
  }
}

}  // namespace fake

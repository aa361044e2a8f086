// The CPU backend: host memory, synchronous launches. Always present. A CPU kernel may use threads.
#include <cstdlib>
#include <cstring>
#include <new>

#include "backends/factories.hpp"

namespace kc {
namespace {

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }
  std::string absent() const override { return ""; }
  std::string device() const override { return "host CPU"; }
  void* alloc(size_t bytes) override {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    if (!p) throw Error("cpu: cannot allocate " + std::to_string(bytes) + " bytes");
    return p;
  }
  void free(void* p) override { std::free(p); }
  void upload(void* dst, const void* src, size_t n) override { std::memcpy(dst, src, n); }
  void download(void* dst, const void* src, size_t n) override { std::memcpy(dst, src, n); }
  void* stream() override { return nullptr; }
  // CPU launches return when done; a kernel that throws is reported as a fault by the runner.
  SyncResult sync(double) override { return {}; }
  std::string recover() override { return ""; }
};

class AbsentBackend final : public Backend {
 public:
  AbsentBackend(const char* name, const char* why) : name_(name), why_(why) {}
  std::string name() const override { return name_; }
  std::string absent() const override { return why_; }
  void* alloc(size_t) override { throw Error(name_ + ": absent: " + why_); }
  void free(void*) override {}
  void upload(void*, const void*, size_t) override { throw Error(name_ + ": absent: " + why_); }
  void download(void*, const void*, size_t) override { throw Error(name_ + ": absent: " + why_); }
  void* stream() override { return nullptr; }
  SyncResult sync(double) override { return {SyncResult::fault, name_ + " is absent: " + why_}; }
  std::string recover() override { return why_; }

 private:
  std::string name_, why_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }
std::unique_ptr<Backend> make_absent_backend(const char* name, const char* why) {
  return std::make_unique<AbsentBackend>(name, why);
}

}  // namespace kc

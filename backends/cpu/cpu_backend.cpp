// The CPU backend: host memory, synchronous launches. Always present. A CPU kernel may use threads.
#include <cstdlib>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

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
  // An input that ends at a page no access reaches: a read past its end is a SIGSEGV, which the
  // supervising run reports by name (host_launches). Mappings are kept for the next case of the
  // same size: a fresh mapping of a large input would be faulted in and zeroed page by page again.
  void* alloc_fenced(size_t size) override {
    const size_t page = size_t(sysconf(_SC_PAGESIZE)), usable = (size + page - 1) / page * page;
    std::byte* map = nullptr;
    for (auto it = spare_.begin(); it != spare_.end(); ++it)
      if (it->usable == usable) {
        map = it->map;
        spare_bytes_ -= usable + page;
        spare_.erase(it);
        break;
      }
    if (!map) {
      void* m = mmap(nullptr, usable + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED) throw Error("cpu: cannot map " + std::to_string(usable + page) + " bytes");
      map = static_cast<std::byte*>(m);
      if (mprotect(map + usable, page, PROT_NONE) != 0) {
        munmap(map, usable + page);
        throw Error("cpu: cannot protect the page after an input");
      }
    }
    std::byte* base = map + (usable - size);
    live_.push_back({map, usable, base});
    return base;
  }
  void free_fenced(void* base) override {
    for (auto it = live_.begin(); it != live_.end(); ++it)
      if (it->base == base) {
        const size_t page = size_t(sysconf(_SC_PAGESIZE));
        if (spare_bytes_ + it->usable + page <= kSpareBytes) {
          spare_.push_back(*it);
          spare_bytes_ += it->usable + page;
        } else {
          munmap(it->map, it->usable + page);
        }
        live_.erase(it);
        return;
      }
  }
  void upload(void* dst, const void* src, size_t n) override { std::memcpy(dst, src, n); }
  void download(void* dst, const void* src, size_t n) override { std::memcpy(dst, src, n); }
  void* stream() override { return nullptr; }
  // CPU launches return when done; a kernel that throws is reported as a fault by the runner, one
  // that crashes or never returns by the process supervising this one (host_launches).
  SyncResult sync(double) override { return {}; }
  std::string recover() override { return ""; }
  bool host_launches() const override { return true; }

 private:
  struct Mapping {
    std::byte* map;
    size_t usable;   // bytes before the protected page
    std::byte* base; // what alloc_fenced returned
  };
  static constexpr size_t kSpareBytes = size_t(4) << 30;  // mappings kept for reuse, at most
  std::vector<Mapping> live_, spare_;
  size_t spare_bytes_ = 0;
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

// What a backend gives the harness: memory, copies, a stream, waiting with a time limit, and
// recovery after a fault. One backend a folder under backends/; a backend not built is a stub that
// says so by name. Core never includes a vendor header: a backend hides its API behind this.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kc/types.hpp"

namespace kc {

struct Spec;
struct RefDevice;

// What one wait for a launch found.
struct SyncResult {
  enum Kind { ok, fault, hang } kind = ok;
  std::string error;  // the backend's own name for the error, e.g. "cudaErrorIllegalAddress: ..."
};

// A launch record that registers a kernel function (CUDA: KC_CUDA_LAUNCH), with what it declares.
struct LaunchRecordRef {
  std::string name;  // as in Spec::launches
  int threads = 0;   // threads a block, at most
  size_t dyn_smem = 0;
};

// One kernel launch a backend saw while it watched: the function, its block and dynamic shared
// bytes, and every launch record that registers the function (none: it has no record).
struct SeenLaunch {
  std::string symbol;  // the function as the device names it (demangled)
  int threads = 0;
  size_t dyn_smem = 0;
  std::vector<LaunchRecordRef> records;
  // "" where it ran on the harness's stream (Buffers::stream()), else the stream it ran on, in words
  // ("the legacy default stream"): a launch there races with the harness's copies and checks.
  std::string stream;
};

// A copy an upstream kernel makes late: gate 2's chained run (Spec::chained).
struct LateWrite {
  void* dst;
  const void* src;
  size_t bytes;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // "" when this backend can run kernels here, else why not (e.g. "built without nvcc",
  // "no CUDA device: cudaErrorNoDevice"). An absent backend is reported by name, never as passed.
  virtual std::string absent() const = 0;
  // A line describing the device (name, chip, driver) for the report.
  virtual std::string device() const { return ""; }

  virtual void* alloc(size_t bytes) = 0;  // throws Error on failure
  virtual void free(void* p) = 0;
  // Memory for an input whose end meets memory no access reaches, so a read past it faults:
  // [base, base + size) is usable and base + size starts an inaccessible page. nullptr where the
  // backend cannot; guards alone then show what they can. Freed by free_fenced.
  virtual void* alloc_fenced(size_t size) { (void)size; return nullptr; }
  virtual void free_fenced(void* base) { (void)base; }
  virtual void upload(void* dst, const void* src, size_t bytes) = 0;
  // Writes the harness's poison pattern for (run, stream) over `bytes` of device memory at dst, made
  // on the device, bit for bit what the host's would be (core checks that on its first use); false
  // where the backend cannot, and the harness makes it on the host and uploads it. Throws Error
  // where it tried and failed.
  virtual bool fill_pattern(void* dst, size_t bytes, uint64_t run, uint64_t stream) {
    (void)dst, (void)bytes, (void)run, (void)stream;
    return false;
  }
  virtual void download(void* dst, const void* src, size_t bytes) = 0;
  virtual void* stream() = 0;
  // Waits for the last launch; a launch still running after timeout_s is reported as a hang.
  virtual SyncResult sync(double timeout_s) = 0;
  // After a fault: make the device usable again (e.g. reset it). Returns "" or why it could not.
  virtual std::string recover() = 0;
  // "" while the device is usable; else why it is lost for the rest of this process (e.g. the
  // driver refuses a new context after a fault, or a kernel never returned). The runner then
  // runs the backend's remaining entries in a fresh process.
  virtual std::string lost() const { return {}; }
  // True where a kernel runs on the host inside the launch call (the CPU backend): a fault or a
  // hang there is the harness process's own. The command line then runs the backend's entries in a
  // fresh process it supervises (a signal or a hang ends that process, is reported by name, and
  // the next entry runs in another), and each launch has a watchdog at the run's timeout.
  virtual bool host_launches() const { return false; }
  // Checks done on the device itself for an entry before it runs (e.g. the loaded kernels'
  // attributes, by the spec's launch names, against the device's limits). Each string is a problem.
  virtual std::vector<std::string> check_entry(const Spec&) { return {}; }
  // Gate 5 at run time: a backend that can see the kernels a launch hook starts says so; watch()
  // starts a record ("" or why it cannot), seen() ends it with every launch made since.
  virtual bool watches() const { return false; }
  virtual std::string watch() { return "this backend does not watch its launches"; }
  virtual std::vector<SeenLaunch> seen() { return {}; }
  // Gate 2's chained run: "" where a launch may start before the kernel ahead of it on the stream
  // ends (CUDA: programmatic dependent launch, sm_90 on), else why not.
  virtual std::string chains() { return "this backend has no dependent launches"; }
  // Launches on the stream a kernel that lets the next launch start at once and makes `writes` only
  // after delay_us: an input the next kernel reads before waiting on this one is then still poison.
  // Its own launch is not among seen()'s. Throws Error where it cannot.
  virtual void launch_upstream(const std::vector<LateWrite>& writes, double delay_us) {
    (void)writes, (void)delay_us;
    throw Error(name() + " cannot launch an upstream kernel: " + chains());
  }
  // Gate 2's runs under load: other work this backend keeps running on its device beside the
  // entry's launches (kernels on other streams holding the SMs' issue slots, a concurrent copy), so
  // that a race an idle device hides shows as other bytes. no_load(): "" where it has such work,
  // else why not. load_start() starts it and says what runs, in words (throws Error where it
  // cannot); load_stop() ends it and waits for it: "" or what went wrong meanwhile.
  virtual std::string no_load() { return "this backend has no work to run beside its kernels"; }
  virtual std::string load_start() { throw Error(name() + " cannot run a load: " + no_load()); }
  virtual std::string load_stop() { return ""; }
  // A device that evaluates the large float64 references in the CPU's place, bit for bit
  // (kc/ref_device.hpp), or nullptr. Core checks it before the run uses it.
  virtual const RefDevice* references() { return nullptr; }
  // Gate 5's launch rows of this executable's kernels for this backend, derived from their
  // declarations (launches.tsv's format), or "" where the backend derives none (its rows are files).
  // Needs no device. Throws Error naming a declaration it cannot complete.
  virtual std::string launch_rows() const { return ""; }
};

// Every backend this build knows, present or a stub (backends/all.cpp lists them).
std::vector<std::unique_ptr<Backend>> make_backends();

}  // namespace kc

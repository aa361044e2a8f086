#include "exec.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>
#include <fmt/format.h>

#include "kc/numeric.hpp"
#include "kc/parallel.hpp"
#include "last_words.hpp"

namespace kc::detail {

// Counter-based (a hash of run, stream and position), so large buffers fill on every core.
static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void pattern(std::byte* dst, size_t n, uint64_t run, uint64_t stream) {
  uint64_t key = mix64(run * 0x100000001b3ull ^ (stream + 1) * 0xcbf29ce484222325ull);
  int64_t words = int64_t((n + 7) / 8);
  parallel_for(words, [&](int64_t b, int64_t e) {
    for (int64_t w = b; w < e; ++w) {
      uint64_t v = mix64(key + uint64_t(w) * 0x9e3779b97f4a7c15ull);
      size_t at = size_t(w) * 8;
      std::memcpy(dst + at, &v, std::min<size_t>(8, n - at));
    }
  }, 1 << 16);
}

void guard_pattern(std::byte* dst, size_t n, DType t, uint64_t run, uint64_t stream) {
  pattern(dst, n, run, stream);
  // Exponent all ones and a quiet bit: a NaN whatever the rest of the pattern holds.
  auto nan = [&](auto word, auto bits) {
    using W = decltype(word);
    for (size_t at = 0; at + sizeof(W) <= n; at += sizeof(W)) {
      W w;
      std::memcpy(&w, dst + at, sizeof w);
      w |= W(bits);
      std::memcpy(dst + at, &w, sizeof w);
    }
  };
  switch (t) {
    case DType::f64: nan(uint64_t{}, 0x7ff8'0000'0000'0000ull); break;
    case DType::f32: nan(uint32_t{}, 0x7fc0'0000u); break;
    case DType::f16: nan(uint16_t{}, 0x7e00u); break;
    case DType::bf16: nan(uint16_t{}, 0x7fc0u); break;
    default: break;  // integer codes: every pattern is some value
  }
}

// Host bytes for a pattern on its way up or a buffer on its way down, kept by the thread between
// calls: at the largest shapes a fresh vector zeroes hundreds of MB a launch, which nothing reads.
static std::byte* scratch(size_t n) {
  thread_local std::vector<std::byte> s;
  if (s.size() < n) {
    s.clear();
    s.shrink_to_fit();
    s.resize(n);
  }
  return s.data();
}

// A backend's device-made poison against the host's pattern, once a backend a process (on the first
// buffer it poisons, up to 1 MiB of it): an unwritten output's bytes are printed in findings, so they
// must be the host's.
static void check_device_pattern(Backend& b, const void* dst, size_t n, uint64_t run, uint64_t stream) {
  static std::mutex mu;
  static std::vector<const Backend*> checked;
  {
    std::lock_guard<std::mutex> l(mu);
    if (std::find(checked.begin(), checked.end(), &b) != checked.end()) return;
    checked.push_back(&b);
  }
  n = std::min<size_t>(n, size_t(1) << 20);
  std::vector<std::byte> want(n), got(n);
  pattern(want.data(), n, run, stream);
  b.download(got.data(), dst, n);
  for (size_t i = 0; i < n; ++i)
    if (want[i] != got[i])
      throw Error(fmt::format("{} made poison that differs from the host's pattern at byte {} of {} (run {}, stream {})",
                              b.name(), i, n, run, stream));
}

static const std::string* in_place_input(const Spec& spec, const std::string& out) {
  for (const auto& [o, i] : spec.in_place)
    if (o == out) return &i;
  return nullptr;
}

DeviceCase::DeviceCase(Backend& b, const Spec& spec, const Case& c) : b_(b), spec_(spec), shape_(c.shape()) {
  const auto& hb = c.buffers();
  for (const auto& [o, i] : spec.in_place) {
    const HostBuffer *ob = nullptr, *ib = nullptr;
    for (const auto& h : hb) {
      if (h.decl.name == o) ob = &h;
      if (h.decl.name == i) ib = &h;
    }
    if (!ob || !ib || ob->decl.role == Role::in || ib->decl.role == Role::out)
      throw Error(fmt::format("{}: in_place('{}', '{}') must name a declared output and input", spec.name, o, i));
    if (ob->decl.type != ib->decl.type || ob->decl.count != ib->decl.count)
      throw Error(fmt::format("{}: in-place buffers '{}' and '{}' differ in type or count", spec.name, o, i));
  }
  std::vector<Buffers::Slot> slots;
  for (size_t k = 0; k < hb.size(); ++k) {
    const auto& h = hb[k];
    Region r{h.decl.name, h.decl.type, h.decl.role, h.bytes.size()};
    r.host = int(k);
    if (const std::string* in = (h.decl.role != Role::in) ? in_place_input(spec, h.decl.name) : nullptr) {
      r.in_place_out = true;
      r.name = *in;  // resolved below, once the input's region exists
    }
    regions_.push_back(r);
  }
  // Allocate every region that owns memory: [guard | data rounded to 256 | guard]. A pure input
  // ends instead where the backend can fence it ([guard | data rounded to 256 | no access]): a read
  // past its end faults, or past the rounding reads NaN guards.
  std::vector<bool> written(regions_.size(), false);
  for (const auto& r : regions_)
    if (r.in_place_out)
      for (size_t k = 0; k < regions_.size(); ++k)
        if (!regions_[k].in_place_out && regions_[k].name == r.name) written[k] = true;
  for (size_t k = 0; k < regions_.size(); ++k) {
    auto& r = regions_[k];
    if (r.in_place_out) continue;
    size_t padded = (r.bytes + 255) / 256 * 256;
    if (r.role == Role::in && !written[k] && r.bytes)
      if (void* p = b_.alloc_fenced(guard_bytes + padded)) {
        r.fenced = true;
        r.total = guard_bytes + padded;
        r.base = static_cast<std::byte*>(p);
        r.data = r.base + guard_bytes;
        continue;
      }
    r.total = guard_bytes + padded + guard_bytes;
    r.base = static_cast<std::byte*>(b_.alloc(r.total));
    r.data = r.base + guard_bytes;
  }
  for (auto& r : regions_) {
    if (!r.in_place_out) continue;
    for (const auto& o : regions_)
      if (!o.in_place_out && o.name == r.name) {
        r.base = o.base;
        r.data = o.data;
        r.total = o.total;
      }
    r.name = hb[r.host].decl.name;
  }
  uploaded_.assign(regions_.size(), nullptr);
  for (size_t k = 0; k < regions_.size(); ++k) {
    auto& r = regions_[k];
    const auto& h = hb[r.host];
    if (h.decl.role != Role::out && !r.in_place_out) {
      uploaded_[k] = h.bytes.data();
      if (r.bytes) b_.upload(r.data, uploaded_[k], r.bytes);
    }
    slots.push_back({h.decl.name, h.decl.type, h.decl.count, h.decl.role, r.data});
  }
  view_ = std::make_unique<Buffers>(shape_, b_.stream(), std::move(slots));
}

DeviceCase::~DeviceCase() {
  for (auto& r : regions_)
    if (!r.in_place_out && r.base) r.fenced ? b_.free_fenced(r.base) : b_.free(r.base);
}

SyncResult DeviceCase::launch(const std::function<void(const Buffers&)>& fn, uint64_t run, double timeout_s) {
  last_run_ = run;
  for (size_t k = 0; k < regions_.size(); ++k) {
    auto& r = regions_[k];
    if (r.in_place_out) continue;
    // Guards: fresh pattern each run, so a write of last run's guard value still shows.
    size_t back = r.total - guard_bytes - r.bytes;
    std::byte* tmp = scratch(std::max(guard_bytes, back));
    guard_pattern(tmp, guard_bytes, r.type, run, 2 * k);
    b_.upload(r.base, tmp, guard_bytes);
    guard_pattern(tmp, back, r.type, run, 2 * k + 1);
    if (back) b_.upload(r.data + r.bytes, tmp, back);
    r.guard_run = run;
    bool written = r.role != Role::in;
    for (const auto& o : regions_)
      if (o.in_place_out && o.data == r.data) written = true;
    if (!written || !r.bytes) continue;
    if (uploaded_[k]) {  // an input an in-place output writes over: restored before each run
      b_.upload(r.data, uploaded_[k], r.bytes);
    } else if (!b_.fill_pattern(r.data, r.bytes, run, 1000 + k)) {
      std::byte* poison = scratch(r.bytes);
      pattern(poison, r.bytes, run, 1000 + k);
      b_.upload(r.data, poison, r.bytes);
    } else {
      check_device_pattern(b_, r.data, r.bytes, run, 1000 + k);
    }
  }
  // A host backend's kernel runs inside this call: only a watchdog can cut a hang off (it ends
  // the process, whose supervisor reports the hang and goes on: last_words.hpp).
  const bool watched = b_.host_launches();
  if (watched) watchdog_arm(timeout_s, fmt::format("{} at {}", spec_.name, shape_.str()));
  try {
    fn(*view_);
  } catch (const std::exception& e) {
    if (watched) watchdog_disarm();
    return {SyncResult::fault, fmt::format("the launch threw: {}", e.what())};
  }
  if (watched) watchdog_disarm();
  SyncResult s = b_.sync(timeout_s);
  if (s.kind != SyncResult::ok) faulted_ = true;
  return s;
}

void DeviceCase::fetch(Case& c) {
  auto& hb = c.buffers();
  for (auto& r : regions_) {
    auto& h = hb[r.host];
    if (h.decl.role == Role::in || !r.bytes) continue;
    b_.download(h.bytes.data(), r.data, r.bytes);
  }
}

std::vector<std::string> DeviceCase::broken_guards() {
  std::vector<std::string> out;
  std::vector<std::byte> want, got;
  for (size_t k = 0; k < regions_.size(); ++k) {
    auto& r = regions_[k];
    if (r.in_place_out) continue;
    size_t back = r.total - guard_bytes - r.bytes;
    for (int side = 0; side < 2; ++side) {
      size_t n = side ? back : guard_bytes;
      std::byte* at = side ? r.data + r.bytes : r.base;
      want.resize(n);
      got.resize(n);
      guard_pattern(want.data(), n, r.type, r.guard_run, 2 * k + side);
      if (n) b_.download(got.data(), at, n);
      size_t first = n, last = 0, count = 0;
      for (size_t i = 0; i < n; ++i)
        if (want[i] != got[i]) {
          first = std::min(first, i);
          last = i;
          ++count;
        }
      if (count) {
        if (side)
          out.push_back(fmt::format("'{}': {} bytes written past its end (bytes +{}..+{} after the last element)",
                                    r.name, count, first, last));
        else
          out.push_back(fmt::format("'{}': {} bytes written before its start (bytes -{}..-{})", r.name, count,
                                    guard_bytes - first, guard_bytes - last));
      }
    }
  }
  return out;
}

std::vector<std::string> DeviceCase::changed_inputs() {
  std::vector<std::string> out;
  for (size_t k = 0; k < regions_.size(); ++k) {
    auto& r = regions_[k];
    if (r.role != Role::in || r.in_place_out || !r.bytes) continue;
    bool aliased = false;
    for (const auto& o : regions_)
      if (o.in_place_out && o.data == r.data) aliased = true;
    if (aliased) continue;
    std::byte* got = scratch(r.bytes);
    b_.download(got, r.data, r.bytes);
    const std::byte* want = uploaded_[k];
    if (std::memcmp(got, want, r.bytes) == 0) continue;  // the usual case, at memory speed
    size_t es = dtype_size(r.type), n = r.bytes / es, changed = 0, first = 0;
    for (size_t i = 0; i < n; ++i)
      if (std::memcmp(got + i * es, want + i * es, es) != 0) {
        if (!changed) first = i;
        ++changed;
      }
    if (changed)
      out.push_back(fmt::format("input '{}' changed in {} of {} elements (first {}[{}]: {} became {})", r.name, changed,
                                n, r.name, first, load_as_double(want, r.type, first),
                                load_as_double(got, r.type, first)));
  }
  return out;
}

std::vector<std::string> DeviceCase::overlaps() const {
  std::vector<std::string> out;
  const auto& s = view_->slots();
  for (size_t i = 0; i < s.size(); ++i)
    for (size_t j = 0; j < i; ++j) {
      auto lo_i = static_cast<const std::byte*>(s[i].ptr), lo_j = static_cast<const std::byte*>(s[j].ptr);
      auto hi_i = lo_i + s[i].count * dtype_size(s[i].type), hi_j = lo_j + s[j].count * dtype_size(s[j].type);
      if (lo_i >= hi_j || lo_j >= hi_i || lo_i == hi_i || lo_j == hi_j) continue;
      bool declared = false;
      for (const auto& [o, in] : spec_.in_place)
        if ((o == s[i].name && in == s[j].name) || (o == s[j].name && in == s[i].name)) declared = true;
      if (!declared)
        out.push_back(fmt::format("'{}' overlaps '{}' and the spec declares no in-place pair", s[i].name, s[j].name));
    }
  return out;
}

}  // namespace kc::detail

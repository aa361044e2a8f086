// The C ABI's registry, the views a hook reads (shapes, buffers, cases), DLPack tensors over the
// harness's buffers, the backends and the command line.
#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "capi_common.hpp"
#include "kc/backend.hpp"
#include "kc/cli.hpp"
#include "kc/limits.hpp"
#include "kc/registry.hpp"
#if KC_HAVE_CUDA
#include "kc/cuda_module.hpp"
#endif

namespace kc::capi {
namespace {
thread_local std::string last_error;
thread_local bool error_set = false;
}  // namespace

void set_error(const std::string& text) {
  last_error = text;
  error_set = true;
}

std::string take_error(const char* fallback) {
  std::string t = error_set ? last_error : std::string(fallback);
  error_set = false;
  last_error.clear();
  return t;
}

json parse(const char* text, const char* what) {
  if (!text || !*text) return json::object();
  try {
    return json::parse(text);
  } catch (const std::exception& e) {
    throw Error(std::string(what) + ": arguments are not JSON: " + e.what());
  }
}

void only_keys(const json& j, std::initializer_list<const char*> known, const char* what) {
  if (!j.is_object()) throw Error(std::string(what) + ": arguments must be a JSON object");
  for (const auto& [k, v] : j.items()) {
    bool ok = false;
    std::string all;
    for (const char* n : known) {
      ok |= k == n;
      all += (all.empty() ? "" : ", ") + std::string(n);
    }
    if (!ok) throw Error(fmt::format("{}: no argument '{}' ({})", what, k, all.empty() ? "it takes none" : "it takes " + all));
  }
}

DType dtype(const std::string& name, const char* what) {
  for (int i = 0; i <= int(DType::i8); ++i)
    if (name == dtype_name(DType(i))) return DType(i);
  throw Error(fmt::format("{}: '{}' is not an element type (f64, f32, f16, bf16, i64, i32, u32, u16, u8, i8)", what, name));
}

Gate gate(const json& g, const char* what) {
  if (g.is_number_integer()) {
    const int n = g.get<int>();
    if (n < 1 || n > 5) throw Error(fmt::format("{}: gate {} is not a gate (1 to 5)", what, n));
    return Gate(n);
  }
  if (g.is_string())
    for (int n = 1; n <= 5; ++n)
      if (g.get<std::string>() == gate_name(Gate(n))) return Gate(n);
  throw Error(fmt::format("{}: gate {} is not a gate (1 to 5, or nonfinite, repeat, shapes, sums, limits)", what, g.dump()));
}

Why why(const std::string& name, const char* what) {
  std::string all;
  for (int i = 1; i <= int(Why::stream); ++i) {
    if (name == why_name(Why(i))) return Why(i);
    all += (all.empty() ? "" : ", ") + std::string(why_name(Why(i)));
  }
  throw Error(fmt::format("{}: '{}' is not a reason a gate fails ({})", what, name, all));
}

}  // namespace kc::capi

using namespace kc;
using namespace kc::capi;

namespace {

// DLPack v0.8's ABI (dlpack.h), which every consumer (NumPy, PyTorch, CuPy, JAX) reads.
struct DLDevice {
  int32_t device_type, device_id;
};
struct DLDataType {
  uint8_t code, bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
struct Managed {  // the tensor and the one extent it points to, freed together
  DLManagedTensor m;
  int64_t shape[1];
};

int slot_of(const std::vector<Buffers::Slot>& s, int i, const char** name, int* dtype, uint64_t* count, int* role,
            void** ptr) {
  if (i < 0 || size_t(i) >= s.size()) return set_error(fmt::format("no buffer {} (there are {})", i, s.size())), 1;
  if (name) *name = s[size_t(i)].name.c_str();
  if (dtype) *dtype = int(s[size_t(i)].type);
  if (count) *count = s[size_t(i)].count;
  if (role) *role = int(s[size_t(i)].role);
  if (ptr) *ptr = s[size_t(i)].ptr;
  return 0;
}

}  // namespace

extern "C" {

int kc_capi_version(void) { return KC_CAPI_VERSION; }
const char* kc_last_error(void) { return last_error.c_str(); }
void kc_set_error(const char* text) { set_error(text ? text : "(no text)"); }

const char* kc_dtype_name(int t) { return t >= 0 && t <= int(DType::i8) ? dtype_name(DType(t)) : nullptr; }
size_t kc_dtype_size(int t) { return t >= 0 && t <= int(DType::i8) ? dtype_size(DType(t)) : 0; }

int kc_register(const char* name, const char* backend, const char* file, int line, int control, kc_factory_fn make,
                void* ud) {
  return guard([&] {
    if (!name || !*name || !backend || !make) throw Error("kc_register: an entry needs a name, a backend and a factory");
    const std::string n = name;
    registry().push_back({n, backend, file ? file : "", line, control != 0, [make, ud, n]() -> Entry {
                            kc_entry* h = nullptr;
                            if (make(ud, &h) != 0 || !h) throw Error(take_error("the factory returned no entry"));
                            std::unique_ptr<kc_entry> own(h);
                            return std::move(own->entry);
                          }});
  });
}

size_t kc_registered(void) { return registry().size(); }

int kc_shape_rank(const kc_shape* s) { return s ? int(reinterpret_cast<const Shape*>(s)->dims().size()) : 0; }

int kc_shape_dim(const kc_shape* s, int i, const char** name, int64_t* value) {
  const auto& d = reinterpret_cast<const Shape*>(s)->dims();
  if (i < 0 || size_t(i) >= d.size()) return set_error(fmt::format("no dim {} (the shape has {})", i, d.size())), 1;
  *name = d[size_t(i)].first.c_str();
  *value = d[size_t(i)].second;
  return 0;
}

int kc_buffers_size(const kc_buffers* b) { return int(reinterpret_cast<const Buffers*>(b)->slots().size()); }
int kc_buffers_slot(const kc_buffers* b, int i, const char** name, int* dtype, uint64_t* count, int* role, void** ptr) {
  return slot_of(reinterpret_cast<const Buffers*>(b)->slots(), i, name, dtype, count, role, ptr);
}
const kc_shape* kc_buffers_shape(const kc_buffers* b) {
  return reinterpret_cast<const kc_shape*>(&reinterpret_cast<const Buffers*>(b)->shape());
}
void* kc_buffers_stream(const kc_buffers* b) { return reinterpret_cast<const Buffers*>(b)->stream(); }

int kc_case_size(const kc_case* c) { return int(reinterpret_cast<const Case*>(c)->buffers().size()); }
int kc_case_buffer(const kc_case* c, int i, const char** name, int* dtype, uint64_t* count, int* role, void** ptr) {
  const auto& hb = reinterpret_cast<const Case*>(c)->buffers();
  if (i < 0 || size_t(i) >= hb.size()) return set_error(fmt::format("no buffer {} (there are {})", i, hb.size())), 1;
  const HostBuffer& h = hb[size_t(i)];
  std::vector<Buffers::Slot> one{{h.decl.name, h.decl.type, h.decl.count, h.decl.role, const_cast<std::byte*>(h.bytes.data())}};
  if (slot_of(one, 0, nullptr, dtype, count, role, ptr)) return 1;
  if (name) *name = h.decl.name.c_str();
  return 0;
}
const kc_shape* kc_case_shape(const kc_case* c) {
  return reinterpret_cast<const kc_shape*>(&reinterpret_cast<const Case*>(c)->shape());
}

void* kc_dlpack_new(void* data, uint8_t code, uint8_t bits, int64_t count, int32_t device_type, int32_t device_id) {
  auto* m = new Managed{};
  m->shape[0] = count;
  m->m.dl_tensor = DLTensor{data, DLDevice{device_type, device_id}, 1, DLDataType{code, bits, 1}, m->shape, nullptr, 0};
  m->m.manager_ctx = m;
  m->m.deleter = [](DLManagedTensor* t) { delete static_cast<Managed*>(t->manager_ctx); };
  return &m->m;
}

void kc_dlpack_delete(void* managed) {
  auto* t = static_cast<DLManagedTensor*>(managed);
  if (t && t->deleter) t->deleter(t);
}

const char* kc_backend_absent(const char* name) {
  static std::mutex m;
  static std::vector<std::pair<std::string, std::string>> seen;  // each backend asked once a process
  std::lock_guard<std::mutex> l(m);
  if (!name) return nullptr;
  for (const auto& [n, why] : seen)
    if (n == name) return why.c_str();
  for (auto& b : make_backends())
    if (b->name() == name) {
      seen.emplace_back(name, b->absent());
      return seen.back().second.c_str();
    }
  return nullptr;
}

int kc_cuda_module_launch(const char* name, const char* symbol, int threads, uint64_t dyn_smem) {
  return guard([&] {
    if (!name || !symbol) throw Error("kc_cuda_module_launch: a launch needs a name and a symbol");
#if KC_HAVE_CUDA
    cuda::add_module_launch(name, symbol, threads, size_t(dyn_smem));
#else
    (void)threads, (void)dyn_smem;
    throw Error(fmt::format("launch {} ({}): this library was built without the CUDA backend (nvcc was not found)",
                            name, symbol));
#endif
  });
}

int kc_main(int argc, const char* const* argv, int nself, const char* const* self) {
  static std::once_flag auditors;
  std::call_once(auditors, [] { limits::add_auditors(); });
  std::vector<std::string> again;
  for (int i = 0; i < nself; ++i) again.emplace_back(self[i]);
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) args.push_back(const_cast<char*>(argv[i]));
  args.push_back(nullptr);
  try {
    return cli_main(argc, args.data(), make_backends(), std::move(again));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kernel-contract: %s\n", e.what());
    return 1;
  }
}

}  // extern "C"

// Decodes NT_AMDGPU_METADATA with msgpack-cxx. Hostile input is bounded by msgpack's unpack limits
// (sizes and nesting), so a forged length cannot make the reader allocate without end.
#define MSGPACK_NO_BOOST 1
#include "amdgpu_metadata.hpp"

#include <msgpack.hpp>

#include <limits>
#include <new>
#include <string_view>

#include "kc/limits/error.hpp"

namespace kc::limits::hip {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& why) {
  throw FormatError(what, "NT_AMDGPU_METADATA: " + why);
}

std::string_view str_of(const msgpack::object& o) {
  return {o.via.str.ptr, o.via.str.size};
}

// The value under `key` in map `m`, or nullptr.
const msgpack::object* find(const msgpack::object& m, std::string_view key) {
  for (uint32_t i = 0; i < m.via.map.size; ++i) {
    const msgpack::object_kv& kv = m.via.map.ptr[i];
    if (kv.key.type == msgpack::type::STR && str_of(kv.key) == key) return &kv.val;
  }
  return nullptr;
}

std::string ctx(const std::string& kernel, std::string_view key) {
  return (kernel.empty() ? std::string() : "kernel " + kernel + ": ") + std::string(key);
}

uint32_t get_u32(const msgpack::object& m, std::string_view key, const std::string& kernel,
                 const std::string& what, bool required, uint32_t dflt = 0) {
  const msgpack::object* v = find(m, key);
  if (!v) {
    if (required) fail(what, ctx(kernel, key) + " is missing");
    return dflt;
  }
  if (v->type == msgpack::type::POSITIVE_INTEGER) {
    if (v->via.u64 > std::numeric_limits<uint32_t>::max())
      fail(what, ctx(kernel, key) + " = " + std::to_string(v->via.u64) + " is out of range");
    return static_cast<uint32_t>(v->via.u64);
  }
  fail(what, ctx(kernel, key) + " is not an unsigned integer");
}

bool get_bool(const msgpack::object& m, std::string_view key, const std::string& kernel, const std::string& what) {
  const msgpack::object* v = find(m, key);
  if (!v) return false;
  if (v->type == msgpack::type::BOOLEAN) return v->via.boolean;
  // LLVM writes some flags as 0/1 integers (.uniform_work_group_size); accept those too.
  if (v->type == msgpack::type::POSITIVE_INTEGER && v->via.u64 <= 1) return v->via.u64 == 1;
  fail(what, ctx(kernel, key) + " is not a boolean");
}

std::string get_str(const msgpack::object& m, std::string_view key, const std::string& kernel,
                    const std::string& what, bool required) {
  const msgpack::object* v = find(m, key);
  if (!v) {
    if (required) fail(what, ctx(kernel, key) + " is missing");
    return {};
  }
  if (v->type != msgpack::type::STR) fail(what, ctx(kernel, key) + " is not a string");
  std::string s(str_of(*v));
  if (s.empty() && required) fail(what, ctx(kernel, key) + " is empty");
  return s;
}

AmdKernel read_kernel(const msgpack::object& k, size_t index, const std::string& what) {
  if (k.type != msgpack::type::MAP) fail(what, "amdhsa.kernels[" + std::to_string(index) + "] is not a map");
  AmdKernel r;
  r.name = get_str(k, ".name", "", what, true);
  r.symbol = get_str(k, ".symbol", r.name, what, true);
  r.vgprs = get_u32(k, ".vgpr_count", r.name, what, true);
  r.sgprs = get_u32(k, ".sgpr_count", r.name, what, true);
  r.agprs = get_u32(k, ".agpr_count", r.name, what, false);
  r.lds = get_u32(k, ".group_segment_fixed_size", r.name, what, true);
  r.scratch = get_u32(k, ".private_segment_fixed_size", r.name, what, true);
  r.bound = get_u32(k, ".max_flat_workgroup_size", r.name, what, true);
  r.wave = get_u32(k, ".wavefront_size", r.name, what, true);
  r.vgpr_spills = get_u32(k, ".vgpr_spill_count", r.name, what, false);
  r.sgpr_spills = get_u32(k, ".sgpr_spill_count", r.name, what, false);
  r.dynamic_stack = get_bool(k, ".uses_dynamic_stack", r.name, what);
  if (r.wave != 32 && r.wave != 64)
    fail(what, "kernel " + r.name + ": .wavefront_size = " + std::to_string(r.wave) + " (want 32 or 64)");
  if (r.bound == 0 || r.bound > 1024)
    fail(what, "kernel " + r.name + ": .max_flat_workgroup_size = " + std::to_string(r.bound) + " (want 1..1024)");
  if (const msgpack::object* args = find(k, ".args")) {
    if (args->type != msgpack::type::ARRAY) fail(what, "kernel " + r.name + ": .args is not an array");
    for (uint32_t i = 0; i < args->via.array.size; ++i) {
      const msgpack::object& a = args->via.array.ptr[i];
      if (a.type != msgpack::type::MAP) fail(what, "kernel " + r.name + ": .args[" + std::to_string(i) + "] is not a map");
      if (get_str(a, ".value_kind", r.name, what, false) == "hidden_dynamic_lds_size") r.dynamic_lds = true;
    }
  }
  return r;
}

}  // namespace

AmdMetadata parse_amdgpu_metadata(std::span<const uint8_t> desc, const std::string& what) {
  if (desc.empty()) fail(what, "the note is empty");
  msgpack::object_handle oh;
  // A metadata note is a few KiB; these limits only stop forged sizes and deep nesting.
  const msgpack::unpack_limit limit(/*array*/ 1u << 16, /*map*/ 1u << 16, /*str*/ 1u << 20,
                                    /*bin*/ 1u << 20, /*ext*/ 1u << 20, /*depth*/ 32);
  try {
    size_t off = 0;
    oh = msgpack::unpack(reinterpret_cast<const char*>(desc.data()), desc.size(), off, nullptr, nullptr, limit);
  } catch (const std::bad_alloc&) {
    fail(what, "msgpack sizes too large to decode");
  } catch (const std::exception& e) {
    fail(what, std::string("bad msgpack: ") + e.what());
  }
  const msgpack::object& root = oh.get();
  if (root.type != msgpack::type::MAP) fail(what, "the note is not a msgpack map");

  AmdMetadata md;
  md.target = get_str(root, "amdhsa.target", "", what, true);
  const std::string_view prefix = "amdgcn-amd-amdhsa--";
  if (md.target.rfind(prefix, 0) != 0) fail(what, "amdhsa.target \"" + md.target + "\" is not amdgcn-amd-amdhsa--<chip>");
  md.chip = md.target.substr(prefix.size());
  // The processor ends at the first target feature (":xnack+", ":sramecc-").
  md.chip = md.chip.substr(0, md.chip.find(':'));
  if (md.chip.empty()) fail(what, "amdhsa.target \"" + md.target + "\" names no processor");

  if (const msgpack::object* v = find(root, "amdhsa.version")) {
    if (v->type != msgpack::type::ARRAY || v->via.array.size != 2 ||
        v->via.array.ptr[0].type != msgpack::type::POSITIVE_INTEGER ||
        v->via.array.ptr[1].type != msgpack::type::POSITIVE_INTEGER)
      fail(what, "amdhsa.version is not [major, minor]");
    md.version_major = static_cast<uint32_t>(v->via.array.ptr[0].via.u64);
    md.version_minor = static_cast<uint32_t>(v->via.array.ptr[1].via.u64);
  }

  const msgpack::object* ks = find(root, "amdhsa.kernels");
  if (!ks) fail(what, "amdhsa.kernels is missing");
  if (ks->type != msgpack::type::ARRAY) fail(what, "amdhsa.kernels is not an array");
  for (uint32_t i = 0; i < ks->via.array.size; ++i) md.kernels.push_back(read_kernel(ks->via.array.ptr[i], i, what));
  return md;
}

}  // namespace kc::limits::hip

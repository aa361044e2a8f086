#include "kc/rig.hpp"

#include <fmt/format.h>

#include "kc/lowp.hpp"
#include "kc/numeric.hpp"

namespace kc {

HostBuffer& Case::add(BufferDecl d) {
  for (const auto& b : buffers_)
    if (b.decl.name == d.name) throw Error(fmt::format("buffer '{}' declared twice", d.name));
  if (d.name.empty()) throw Error("a buffer needs a name");
  HostBuffer b{d, std::vector<std::byte>(d.count * dtype_size(d.type))};
  buffers_.push_back(std::move(b));
  return buffers_.back();
}

const HostBuffer& Case::buffer(std::string_view name) const {
  for (const auto& b : buffers_)
    if (b.decl.name == name) return b;
  throw Error(fmt::format("no buffer '{}' at shape {}", name, shape_.str()));
}

const HostBuffer& Case::find(std::string_view name, DType t) const {
  const HostBuffer& b = buffer(name);
  if (b.decl.type != t)
    throw Error(fmt::format("buffer '{}' holds {}, read as {}", name, dtype_name(b.decl.type), dtype_name(t)));
  return b;
}

double Case::value(std::string_view name, size_t i) const {
  const HostBuffer& b = buffer(name);
  if (i >= b.decl.count) throw Error(fmt::format("buffer '{}' has {} elements, asked for {}", name, b.decl.count, i));
  return load_as_double(b.bytes.data(), b.decl.type, i);
}

const char* codes_name(Codes c) {
  switch (c) {
    case Codes::none: return "none";
    case Codes::e4m3: return "e4m3";
    case Codes::e5m2: return "e5m2";
    case Codes::e2m1: return "e2m1";
    case Codes::int8: return "int8";
  }
  return "?";
}

size_t output_count(const HostBuffer& b, Codes c) {
  return c == Codes::e2m1 ? 2 * b.decl.count : b.decl.count;
}

double output_value(const HostBuffer& b, Codes c, size_t i) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(b.bytes.data());
  switch (c) {
    case Codes::none: return load_as_double(b.bytes.data(), b.decl.type, i);
    case Codes::e4m3: return lowp::decode(lowp::Format::e4m3, bytes[i]);
    case Codes::e5m2: return lowp::decode(lowp::Format::e5m2, bytes[i]);
    case Codes::e2m1: return lowp::decode(lowp::Format::e2m1, (bytes[i / 2] >> (4 * (i % 2))) & 0xF);
    case Codes::int8: return double(int8_t(bytes[i]));
  }
  return 0;
}

const Buffers::Slot& Buffers::slot(std::string_view name, DType t) const {
  for (const auto& s : slots_)
    if (s.name == name) {
      if (s.type != t)
        throw Error(fmt::format("buffer '{}' holds {}, used as {}", name, dtype_name(s.type), dtype_name(t)));
      return s;
    }
  throw Error(fmt::format("the kernel asked for buffer '{}', which prepare() did not declare", name));
}

void* Buffers::ptr(std::string_view name) const {
  for (const auto& s : slots_)
    if (s.name == name) return s.ptr;
  throw Error(fmt::format("the kernel asked for buffer '{}', which prepare() did not declare", name));
}

size_t Buffers::count(std::string_view name) const {
  for (const auto& s : slots_)
    if (s.name == name) return s.count;
  throw Error(fmt::format("the kernel asked for buffer '{}', which prepare() did not declare", name));
}

}  // namespace kc

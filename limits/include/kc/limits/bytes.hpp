// Bounds-checked little-endian reads over a byte range. Readers of hostile files go only through
// this: every offset and size is checked (without overflow) before a byte is touched.
#pragma once
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "kc/limits/error.hpp"

namespace kc::limits {

class Bytes {
 public:
  Bytes() = default;
  Bytes(std::span<const uint8_t> data, std::string name) : data_(data), name_(std::move(name)) {}

  size_t size() const { return data_.size(); }
  const std::string& name() const { return name_; }
  std::span<const uint8_t> all() const { return data_; }

  // True when [off, off + len) lies inside the range.
  bool fits(uint64_t off, uint64_t len) const { return off <= data_.size() && len <= data_.size() - off; }

  // The sub-range [off, off + len); throws naming `what` when it is past the end.
  std::span<const uint8_t> sub(uint64_t off, uint64_t len, const char* what) const {
    if (!fits(off, len))
      throw FormatError(name_, std::string(what) + " at offset " + std::to_string(off) + " size " +
                                   std::to_string(len) + " is past the end (" +
                                   std::to_string(data_.size()) + " bytes)");
    return data_.subspan(static_cast<size_t>(off), static_cast<size_t>(len));
  }

  template <typename T>
  T get(uint64_t off, const char* what) const {
    auto s = sub(off, sizeof(T), what);
    T v;
    std::memcpy(&v, s.data(), sizeof(T));  // hosts we build for are little-endian, as the formats are
    return v;
  }
  uint8_t u8(uint64_t off, const char* what) const { return get<uint8_t>(off, what); }
  uint16_t u16(uint64_t off, const char* what) const { return get<uint16_t>(off, what); }
  uint32_t u32(uint64_t off, const char* what) const { return get<uint32_t>(off, what); }
  uint64_t u64(uint64_t off, const char* what) const { return get<uint64_t>(off, what); }

  // A NUL-terminated string starting at off (the terminator must lie inside the range).
  std::string cstr(uint64_t off, const char* what) const {
    if (off >= data_.size()) sub(off, 1, what);
    const auto* p = data_.data() + off;
    const void* z = std::memchr(p, 0, data_.size() - static_cast<size_t>(off));
    if (!z) throw FormatError(name_, std::string(what) + " at offset " + std::to_string(off) + " has no terminating NUL");
    return std::string(reinterpret_cast<const char*>(p), static_cast<const uint8_t*>(z) - p);
  }

 private:
  std::span<const uint8_t> data_;
  std::string name_;
};

}  // namespace kc::limits

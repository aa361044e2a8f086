// The fatbin container (binary-formats.md §2): a header, then entries (PTX or ELF cubins, raw, LZ4
// block or ZSTD frame). Found as a `.fatbin` file, or as the `.nv_fatbin` section of an object file,
// shared library or executable (several fatbins back to back, one per translation unit).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kc/limits/cubin.hpp"

namespace kc::limits {

inline constexpr uint32_t kFatbinMagic = 0xBA55ED50;
inline constexpr uint64_t kFatbinLz4 = 0x2000, kFatbinZstd = 0x8000;
// Decompressed entries larger than this are refused as hostile (a real cubin is a few MiB).
inline constexpr uint64_t kMaxEntryBytes = 256ull << 20;

struct FatbinEntry {
  uint16_t kind = 0;  // 1 PTX, 2 ELF
  uint32_t arch = 0;  // SM number
  uint64_t flags = 0;
  std::string where;  // "<file> fatbin 0 entry 2"
  std::shared_ptr<const std::vector<uint8_t>> bytes;  // decompressed payload (ELF entries only)
};

// Every entry of the fatbins lying back to back in `region` (zero padding between them allowed).
// ELF entries are decompressed; PTX entries are listed without their text. Throws FormatError naming
// `name` on a bad header, an entry past the end, or bad compressed data.
std::vector<FatbinEntry> parse_fatbins(std::span<const uint8_t> region, const std::string& name);

// A cubin and where it came from.
struct Image {
  std::string where;  // file, or "file fatbin F entry E"
  Cubin cubin;
  std::shared_ptr<const std::vector<uint8_t>> bytes;  // the cubin itself (decompressed)
};

// Every cubin in a file: a raw cubin, a fatbin file, or an ELF host file (.o, .so, executable) with a
// `.nv_fatbin` section. A file with none of these gives an empty list.
std::vector<Image> read_images(const std::string& path);
// The same, over bytes already in memory (the fuzz targets use this).
std::vector<Image> read_images(std::shared_ptr<const std::vector<uint8_t>> data, const std::string& name);

}  // namespace kc::limits

#include "kc/limits/fatbin.hpp"

#include <lz4.h>
#include <zstd.h>

namespace kc::limits {

namespace {

std::shared_ptr<const std::vector<uint8_t>> decompress(std::span<const uint8_t> src, uint64_t flags, uint64_t want,
                                                       const std::string& where) {
  if (want == 0 || want > kMaxEntryBytes)
    throw FormatError(where, "compressed entry claims " + std::to_string(want) + " decompressed bytes (limit " +
                                 std::to_string(kMaxEntryBytes) + ")");
  // Refuse sizes the data cannot hold before allocating: a hostile header must not cost memory.
  if (flags & kFatbinZstd) {
    const unsigned long long fcs = ZSTD_getFrameContentSize(src.data(), src.size());
    if (fcs == ZSTD_CONTENTSIZE_ERROR) throw FormatError(where, "bad ZSTD data: no valid frame header");
    if (fcs != ZSTD_CONTENTSIZE_UNKNOWN && fcs != want)
      throw FormatError(where, "ZSTD frame holds " + std::to_string(fcs) + " bytes, header says " + std::to_string(want));
  } else if (want > uint64_t{src.size()} * 255 + 16) {
    throw FormatError(where, "LZ4 block of " + std::to_string(src.size()) + " bytes cannot give " + std::to_string(want));
  }
  auto out = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(want));
  if (flags & kFatbinZstd) {
    const size_t r = ZSTD_decompress(out->data(), out->size(), src.data(), src.size());
    if (ZSTD_isError(r)) throw FormatError(where, std::string("bad ZSTD data: ") + ZSTD_getErrorName(r));
    if (r != want) throw FormatError(where, "ZSTD data gave " + std::to_string(r) + " bytes, header says " + std::to_string(want));
  } else {
    if (src.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)) throw FormatError(where, "LZ4 block too large");
    const int r = LZ4_decompress_safe(reinterpret_cast<const char*>(src.data()), reinterpret_cast<char*>(out->data()),
                                      static_cast<int>(src.size()), static_cast<int>(want));
    if (r < 0) throw FormatError(where, "bad LZ4 block data");
    if (static_cast<uint64_t>(r) != want)
      throw FormatError(where, "LZ4 block gave " + std::to_string(r) + " bytes, header says " + std::to_string(want));
  }
  return out;
}

}  // namespace

std::vector<FatbinEntry> parse_fatbins(std::span<const uint8_t> region, const std::string& name) {
  Bytes b(region, name);
  std::vector<FatbinEntry> out;
  uint64_t off = 0;
  int fatbin = 0;
  while (off < b.size()) {
    if (b.size() - off < 16 || b.u32(off, "fatbin magic") == 0) {
      // Padding between (or after) fatbins: zeros only.
      if (b.u8(off, "padding") != 0) throw FormatError(name, "stray bytes at offset " + std::to_string(off) + " (no fatbin header)");
      ++off;
      continue;
    }
    const uint32_t magic = b.u32(off, "fatbin magic");
    if (magic != kFatbinMagic) {
      char m[16];
      std::snprintf(m, sizeof m, "%08x", magic);
      throw FormatError(name, "bad fatbin magic 0x" + std::string(m) + " at offset " + std::to_string(off));
    }
    const uint16_t hs = b.u16(off + 6, "fatbin header size");
    const uint64_t ps = b.u64(off + 8, "fatbin payload size");
    if (hs < 16) throw FormatError(name, "fatbin header size " + std::to_string(hs) + " < 16 at offset " + std::to_string(off));
    if (!b.fits(off, hs) || !b.fits(off + hs, ps))
      throw FormatError(name, "fatbin at offset " + std::to_string(off) + " claims " + std::to_string(ps) + " payload bytes, past the end (" + std::to_string(b.size()) + ")");
    Bytes body(b.sub(off + hs, ps, "fatbin payload"), name);
    uint64_t e = 0;
    int entry = 0;
    while (e < body.size()) {
      const std::string where = name + " fatbin " + std::to_string(fatbin) + " entry " + std::to_string(entry);
      FatbinEntry fe;
      fe.where = where;
      fe.kind = body.u16(e, "entry kind");
      const uint32_t ehs = body.u32(e + 4, "entry header size");
      const uint64_t size = body.u64(e + 8, "entry size");
      const uint32_t csize = body.u32(e + 16, "entry compressed size");
      fe.arch = body.u32(e + 28, "entry arch");
      fe.flags = body.u64(e + 40, "entry flags");
      const uint64_t dsize = body.u64(e + 56, "entry decompressed size");
      if (ehs < 64) throw FormatError(where, "entry header size " + std::to_string(ehs) + " < 64");
      if (!body.fits(e, ehs) || !body.fits(e + ehs, size))
        throw FormatError(where, "entry claims " + std::to_string(size) + " bytes past the fatbin's end");
      auto payload = body.sub(e + ehs, size, "entry payload");
      if (fe.kind == 2) {
        if (fe.flags & (kFatbinLz4 | kFatbinZstd)) {
          if (csize == 0 || csize > size) throw FormatError(where, "compressed size " + std::to_string(csize) + " does not fit the entry (" + std::to_string(size) + ")");
          fe.bytes = decompress(payload.subspan(0, csize), fe.flags, dsize, where);
        } else {
          fe.bytes = std::make_shared<std::vector<uint8_t>>(payload.begin(), payload.end());
        }
      }
      out.push_back(std::move(fe));
      e += ehs + size;
      ++entry;
    }
    off += hs + ps;
    ++fatbin;
  }
  return out;
}

std::vector<Image> read_images(std::shared_ptr<const std::vector<uint8_t>> data, const std::string& name) {
  std::vector<Image> out;
  std::span<const uint8_t> all(*data);
  auto from_region = [&](std::span<const uint8_t> region, const std::string& rname) {
    for (auto& e : parse_fatbins(region, rname)) {
      if (e.kind != 2) continue;  // PTX: JIT-compiled by the driver, nothing offline to read
      ElfFile elf(e.bytes, e.where);
      Image im{e.where, read_cubin(elf), e.bytes};
      if (static_cast<uint32_t>(im.cubin.sm) != e.arch)
        throw FormatError(e.where, "entry says sm_" + std::to_string(e.arch) + " but its cubin says sm_" + std::to_string(im.cubin.sm));
      out.push_back(std::move(im));
    }
  };
  if (all.size() >= 4 && Bytes(all, name).u32(0, "magic") == kFatbinMagic) {
    from_region(all, name);
  } else if (ElfFile::is_elf(all)) {
    ElfFile elf(data, name);
    if (elf.machine() == kEmCuda) {
      out.push_back(Image{name, read_cubin(elf), data});
    } else if (const auto* s = elf.find(".nv_fatbin")) {
      from_region(elf.data(*s), name + " .nv_fatbin");
    }
  }
  return out;
}

std::vector<Image> read_images(const std::string& path) { return read_images(read_file(path), path); }

}  // namespace kc::limits

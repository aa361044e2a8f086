// A small ELF64 little-endian reader: header, sections, symbols, notes. Enough for CUDA cubins, host
// objects/executables carrying `.nv_fatbin`, AMDGPU code objects and Intel zebins. Hostile input is
// rejected with a FormatError naming the file; nothing is read without a bounds check.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "kc/limits/bytes.hpp"

namespace kc::limits {

inline constexpr uint32_t kShtNull = 0, kShtProgbits = 1, kShtSymtab = 2, kShtStrtab = 3, kShtNote = 7,
                          kShtNobits = 8, kShtDynsym = 11, kShtLoproc = 0x70000000;
inline constexpr uint16_t kEmX86_64 = 62, kEmAarch64 = 183, kEmCuda = 190, kEmAmdgpu = 224, kEmIntelGt = 205;

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  uint32_t link = 0, info = 0;
  uint64_t align = 0, entsize = 0;
};

struct ElfSymbol {
  std::string name;
  uint64_t value = 0, size = 0;
  uint8_t info = 0, other = 0;
  uint16_t shndx = 0;
  uint8_t type() const { return info & 0xf; }
  uint8_t bind() const { return info >> 4; }
};

struct ElfNote {
  std::string owner;
  uint32_t type = 0;
  std::span<const uint8_t> desc;
};

class ElfFile {
 public:
  // Parses `data` (kept alive by the file); `name` appears in every error.
  ElfFile(std::shared_ptr<const std::vector<uint8_t>> data, std::string name);
  static ElfFile read(const std::string& path);        // reads the whole file
  static bool is_elf(std::span<const uint8_t> head);  // starts with \x7fELF

  const std::string& name() const { return bytes_.name(); }
  const Bytes& bytes() const { return bytes_; }
  uint8_t osabi() const { return osabi_; }
  uint8_t abiversion() const { return abiversion_; }
  uint16_t type() const { return type_; }
  uint16_t machine() const { return machine_; }
  uint32_t flags() const { return flags_; }

  const std::vector<ElfSection>& sections() const { return sections_; }
  const ElfSection* find(std::string_view name) const;
  // A section's bytes (empty for NOBITS); throws when the section lies past the end of the file.
  std::span<const uint8_t> data(const ElfSection& s) const;
  // The symbols of the first SHT_SYMTAB (or SHT_DYNSYM when there is none); empty when neither.
  // Parsed on first use: host executables have large tables the fatbin search never needs.
  const std::vector<ElfSymbol>& symbols() const;
  // The notes of one SHT_NOTE section (4-byte aligned name and desc).
  std::vector<ElfNote> notes(const ElfSection& s) const;

 private:
  std::shared_ptr<const std::vector<uint8_t>> data_;
  Bytes bytes_;
  uint8_t osabi_ = 0, abiversion_ = 0;
  uint16_t type_ = 0, machine_ = 0;
  uint32_t flags_ = 0;
  std::vector<ElfSection> sections_;
  mutable bool symbols_read_ = false;
  mutable std::vector<ElfSymbol> symbols_;
};

// Reads a whole file into memory; throws FormatError naming it when it cannot be read.
std::shared_ptr<const std::vector<uint8_t>> read_file(const std::string& path);

}  // namespace kc::limits

#include "kc/limits/elf.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>

namespace kc::limits {

std::shared_ptr<const std::vector<uint8_t>> read_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw FormatError(path, std::filesystem::exists(path, ec) ? "not a regular file" : "no such file");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw FormatError(path, "cannot open file");
  auto end = in.tellg();
  if (end < 0) throw FormatError(path, "cannot read file size");
  auto v = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(end));
  in.seekg(0);
  if (!v->empty() && !in.read(reinterpret_cast<char*>(v->data()), static_cast<std::streamsize>(v->size())))
    throw FormatError(path, "cannot read file");
  return v;
}

bool ElfFile::is_elf(std::span<const uint8_t> h) {
  return h.size() >= 4 && h[0] == 0x7f && h[1] == 'E' && h[2] == 'L' && h[3] == 'F';
}

ElfFile ElfFile::read(const std::string& path) { return ElfFile(read_file(path), path); }

ElfFile::ElfFile(std::shared_ptr<const std::vector<uint8_t>> data, std::string name)
    : data_(std::move(data)), bytes_(std::span<const uint8_t>(*data_), std::move(name)) {
  const Bytes& b = bytes_;
  if (b.size() < 64 || !is_elf(b.all())) throw FormatError(b.name(), "not an ELF file (bad magic or shorter than an ELF64 header)");
  if (b.u8(4, "EI_CLASS") != 2) throw FormatError(b.name(), "not a 64-bit ELF file (EI_CLASS " + std::to_string(b.u8(4, "")) + ")");
  if (b.u8(5, "EI_DATA") != 1) throw FormatError(b.name(), "not a little-endian ELF file");
  osabi_ = b.u8(7, "EI_OSABI");
  abiversion_ = b.u8(8, "EI_ABIVERSION");
  type_ = b.u16(16, "e_type");
  machine_ = b.u16(18, "e_machine");
  flags_ = b.u32(48, "e_flags");
  const uint64_t shoff = b.u64(40, "e_shoff");
  const uint16_t shentsize = b.u16(58, "e_shentsize");
  uint64_t shnum = b.u16(60, "e_shnum");
  uint32_t shstrndx = b.u16(62, "e_shstrndx");
  if (shoff == 0) return;  // no section table: nothing for gate 5 to read
  if (shentsize != 64) throw FormatError(b.name(), "e_shentsize " + std::to_string(shentsize) + " is not 64");
  // Extended numbering: section 0 holds the real count and string-table index.
  if (shnum == 0) shnum = b.u64(shoff + 32, "section 0 (extended section count)");
  if (shstrndx == 0xffff) shstrndx = b.u32(shoff + 40, "section 0 (extended string table index)");
  if (shnum > b.size() / 64) throw FormatError(b.name(), "section count " + std::to_string(shnum) + " cannot fit in the file");
  b.sub(shoff, shnum * 64, "section header table");
  sections_.resize(shnum);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint64_t h = shoff + i * 64;
    ElfSection& s = sections_[i];
    s.type = b.u32(h + 4, "sh_type");
    s.flags = b.u64(h + 8, "sh_flags");
    s.addr = b.u64(h + 16, "sh_addr");
    s.offset = b.u64(h + 24, "sh_offset");
    s.size = b.u64(h + 32, "sh_size");
    s.link = b.u32(h + 40, "sh_link");
    s.info = b.u32(h + 44, "sh_info");
    s.align = b.u64(h + 48, "sh_addralign");
    s.entsize = b.u64(h + 56, "sh_entsize");
  }
  if (shnum == 0) return;
  if (shstrndx >= shnum) throw FormatError(b.name(), "section name table index " + std::to_string(shstrndx) + " is past the section count " + std::to_string(shnum));
  const ElfSection& strs = sections_[shstrndx];
  if (strs.type == kShtNobits) throw FormatError(b.name(), "section name table has no bytes");
  Bytes names(b.sub(strs.offset, strs.size, "section name table"), b.name());
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint32_t off = b.u32(shoff + i * 64, "sh_name");
    sections_[i].name = names.cstr(off, "section name");
  }
}

const ElfSection* ElfFile::find(std::string_view name) const {
  for (const auto& s : sections_)
    if (s.name == name) return &s;
  return nullptr;
}

std::span<const uint8_t> ElfFile::data(const ElfSection& s) const {
  if (s.type == kShtNobits || s.type == kShtNull) return {};
  return bytes_.sub(s.offset, s.size, ("section " + s.name).c_str());
}

const std::vector<ElfSymbol>& ElfFile::symbols() const {
  if (symbols_read_) return symbols_;
  const ElfSection* tab = nullptr;
  for (const auto& s : sections_)
    if (s.type == kShtSymtab) { tab = &s; break; }
  if (!tab)
    for (const auto& s : sections_)
      if (s.type == kShtDynsym) { tab = &s; break; }
  std::vector<ElfSymbol> out;
  if (tab) {
    if (tab->entsize != 24) throw FormatError(name(), "symbol table " + tab->name + " has entry size " + std::to_string(tab->entsize) + ", not 24");
    if (tab->link >= sections_.size()) throw FormatError(name(), "symbol table " + tab->name + " links to section " + std::to_string(tab->link) + ", past the section count");
    Bytes syms(data(*tab), name());
    Bytes strs(data(sections_[tab->link]), name());
    const uint64_t n = tab->size / 24;
    out.resize(n);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t e = i * 24;
      ElfSymbol& y = out[i];
      y.name = strs.cstr(syms.u32(e, "st_name"), "symbol name");
      y.info = syms.u8(e + 4, "st_info");
      y.other = syms.u8(e + 5, "st_other");
      y.shndx = syms.u16(e + 6, "st_shndx");
      y.value = syms.u64(e + 8, "st_value");
      y.size = syms.u64(e + 16, "st_size");
    }
  }
  symbols_ = std::move(out);
  symbols_read_ = true;
  return symbols_;
}

std::vector<ElfNote> ElfFile::notes(const ElfSection& s) const {
  Bytes d(data(s), name());
  std::vector<ElfNote> out;
  uint64_t off = 0;
  auto align4 = [](uint64_t v) { return (v + 3) & ~uint64_t{3}; };
  while (off < d.size()) {
    const uint32_t namesz = d.u32(off, "note name size");
    const uint32_t descsz = d.u32(off + 4, "note desc size");
    ElfNote n;
    n.type = d.u32(off + 8, "note type");
    auto nm = d.sub(off + 12, namesz, "note name");
    n.owner.assign(reinterpret_cast<const char*>(nm.data()), nm.size());
    while (!n.owner.empty() && n.owner.back() == '\0') n.owner.pop_back();
    const uint64_t desc = off + 12 + align4(namesz);
    n.desc = d.sub(desc, descsz, "note desc");
    out.push_back(n);
    off = desc + align4(descsz);
  }
  return out;
}

}  // namespace kc::limits

#include "kc/limits/cubin.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <map>

namespace kc::limits {

std::vector<NvInfoAttr> parse_nv_info(std::span<const uint8_t> section, const std::string& file) {
  Bytes b(section, file);
  std::vector<NvInfoAttr> out;
  uint64_t off = 0;
  while (off < b.size()) {
    NvInfoAttr a;
    a.format = b.u8(off, ".nv.info record format");
    a.attr = b.u8(off + 1, ".nv.info record attribute");
    switch (a.format) {
      case 1:  // NVAL: no value
      case 2:  // BVAL: value in the low byte
      case 3:  // HVAL
        a.value = b.u16(off + 2, ".nv.info record value");
        if (a.format == 2) a.value &= 0xff;
        off += 4;
        break;
      case 4:  // SVAL: u16 size, then size bytes
        a.value = b.u16(off + 2, ".nv.info record size");
        a.payload = b.sub(off + 4, a.value, ".nv.info record payload");
        off += 4 + a.value;
        break;
      default:
        throw FormatError(file, ".nv.info record at offset " + std::to_string(off) + " has unknown format " +
                                    std::to_string(a.format));
    }
    out.push_back(a);
  }
  return out;
}

uint32_t KernelUsage::bound() const {
  const uint64_t t = uint64_t{max_threads[0]} * max_threads[1] * max_threads[2];
  const uint64_t r = uint64_t{reqntid[0]} * reqntid[1] * reqntid[2];
  uint64_t b = 1024;
  if (t) b = std::min<uint64_t>(b, t);
  if (r) b = std::min<uint64_t>(b, r);
  return static_cast<uint32_t>(b);
}

uint32_t KernelUsage::cluster_size() const {
  return cluster[0] * cluster[1] * cluster[2];
}

std::string Cubin::release() const {
  if (!release_major) return "";
  return std::to_string(release_major) + "." + std::to_string(release_minor);
}

int cubin_sm(const ElfFile& elf) {
  if (elf.machine() != kEmCuda)
    throw FormatError(elf.name(), "not a CUDA cubin (e_machine " + std::to_string(elf.machine()) + ", want 190)");
  // ABI 8 (nvcc 12.8+ for every SM) keeps the SM in bits 8-15; the older layout in bits 0-7
  // (LLVM's EF_CUDA_SM mask).
  const int sm = elf.abiversion() >= 8 ? (elf.flags() >> 8) & 0xff : elf.flags() & 0xff;
  if (sm < 10) throw FormatError(elf.name(), "cubin e_flags 0x" + [&] {
      char buf[16]; std::snprintf(buf, sizeof buf, "%x", elf.flags()); return std::string(buf); }() + " name no SM");
  return sm;
}

std::string kernel_name(const std::string& mangled) {
  if (mangled.rfind("_Z", 0) != 0) return mangled;
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) {
    std::free(d);
    return mangled;
  }
  std::string s(d);
  std::free(d);
  // Drop the parameter list: the '(' that matches the final ')'.
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      else if (s[i] == '(' && --depth == 0) { s.resize(i); break; }
    }
  }
  // Template kernels demangle with their return type first ("void f<int>").
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  return s;
}

namespace {

void note_release(const ElfFile& elf, Cubin& c) {
  for (const auto& s : elf.sections()) {
    if (s.type != kShtNote) continue;
    for (const auto& n : elf.notes(s)) {
      if (n.owner != "NVIDIA Corp") continue;
      Bytes d(n.desc, elf.name());
      if (n.type == 1000 && d.size() >= 8) {  // .note.nv.cuinfo: u16 ver, u16 virtual SM, u32 toolkit
        const uint32_t v = d.u32(4, "cuinfo toolkit version");
        if (v) { c.release_major = static_cast<int>(v / 10); c.release_minor = static_cast<int>(v % 10); }
      } else if (n.type == 2000 && d.size() >= 24) {  // .note.nv.tkinfo: u32 ver, u32 str_off[5], strings
        const uint32_t off = d.u32(12, "tkinfo tool version offset");
        Bytes strs(d.sub(24, d.size() - 24, "tkinfo strings"), elf.name());
        c.tool = strs.cstr(off, "tkinfo tool version");
        // "Cuda compilation tools, release 13.0, V13.0.88": the release when cuinfo names none.
        auto p = c.tool.find("release ");
        if (p != std::string::npos && !c.release_major) {
          int maj = 0, min = 0;
          if (std::sscanf(c.tool.c_str() + p + 8, "%d.%d", &maj, &min) == 2 && maj > 0 && maj < 1000 && min >= 0 && min < 100) {
            c.release_major = maj; c.release_minor = min;
          }
        }
      }
    }
  }
}

std::array<uint32_t, 3> dims(const NvInfoAttr& a, const std::string& file, const char* what) {
  Bytes p(a.payload, file);
  if (p.size() != 12) throw FormatError(file, std::string(what) + " has " + std::to_string(p.size()) + " bytes, want 12");
  return {p.u32(0, what), p.u32(4, what), p.u32(8, what)};
}

}  // namespace

Cubin read_cubin(const ElfFile& elf) {
  Cubin c;
  c.file = elf.name();
  c.sm = cubin_sm(elf);
  c.abi = elf.abiversion();
  note_release(elf, c);
  const auto& secs = elf.sections();
  const auto& syms = elf.symbols();
  auto sym_name = [&](uint32_t idx, const char* what) -> const std::string& {
    if (idx >= syms.size())
      throw FormatError(elf.name(), std::string(what) + " names symbol " + std::to_string(idx) + ", past the symbol table (" + std::to_string(syms.size()) + ")");
    return syms[idx].name;
  };

  if (const auto* compat = elf.find(".nv.compat"))
    for (const auto& a : parse_nv_info(elf.data(*compat), elf.name()))
      if (a.attr == 0x09) c.accel = a.value != 0;

  // Per-function records in the global .nv.info, keyed by symbol name.
  std::map<std::string, int> regs;
  std::map<std::string, uint32_t> frame, min_stack;
  if (const auto* g = elf.find(".nv.info")) {
    for (const auto& a : parse_nv_info(elf.data(*g), elf.name())) {
      if (a.format != 4 || a.payload.size() != 8) continue;
      Bytes p(a.payload, elf.name());
      const uint32_t sym = p.u32(0, "function symbol"), val = p.u32(4, "value");
      if (a.attr == eiattr::kRegcount) regs[sym_name(sym, "EIATTR_REGCOUNT")] = static_cast<int>(val);
      else if (a.attr == eiattr::kFrameSize) frame[sym_name(sym, "EIATTR_FRAME_SIZE")] = val;
      else if (a.attr == eiattr::kMinStackSize) min_stack[sym_name(sym, "EIATTR_MIN_STACK_SIZE")] = val;
    }
  }

  // A kernel is a function with its own .nv.info.<k> section.
  for (const auto& s : secs) {
    if (s.type != kShtLoproc || s.name.rfind(".nv.info.", 0) != 0) continue;
    KernelUsage k;
    k.symbol = s.name.substr(9);
    if (k.symbol.empty()) throw FormatError(elf.name(), "section .nv.info. names no kernel");
    k.name = kernel_name(k.symbol);
    for (const auto& a : parse_nv_info(elf.data(s), elf.name())) {
      switch (a.attr) {
        case eiattr::kMaxThreads: k.max_threads = dims(a, elf.name(), "EIATTR_MAX_THREADS"); break;
        case eiattr::kReqntid: k.reqntid = dims(a, elf.name(), "EIATTR_REQNTID"); break;
        case eiattr::kCtaPerCluster: k.cluster = dims(a, elf.name(), "EIATTR_CTA_PER_CLUSTER"); break;
        case eiattr::kExplicitCluster: k.explicit_cluster = true; break;
        case eiattr::kMaxregCount: k.maxreg = a.value == 0xff ? 0 : a.value; break;
        case eiattr::kNumBarriers: k.barriers = a.value; break;
        case eiattr::kMaxClusterRank:
          if (a.payload.size() == 4) k.cluster_rank = Bytes(a.payload, elf.name()).u32(0, "EIATTR_MAX_CLUSTER_RANK");
          break;
        case eiattr::kParamCbank:
          if (a.payload.size() == 8) k.params = Bytes(a.payload, elf.name()).u32(4, "EIATTR_PARAM_CBANK") >> 16;
          break;
        default: break;  // attributes the audit does not need
      }
    }
    if (auto it = regs.find(k.symbol); it != regs.end()) k.regs = it->second;
    if (auto it = frame.find(k.symbol); it != frame.end()) k.frame = it->second;
    if (auto it = min_stack.find(k.symbol); it != min_stack.end()) k.min_stack = it->second;
    if (k.regs < 0 && c.sm < 90) {
      // sm_75-sm_89 also keep the count in the top byte of .text.<k>'s sh_info.
      if (const auto* t = elf.find(".text." + k.symbol)) k.regs = static_cast<int>(t->info >> 24);
    }
    if (k.regs < 0) throw FormatError(elf.name(), "kernel " + k.symbol + " has no register count (EIATTR_REGCOUNT)");
    if (const auto* sh = elf.find(".nv.shared." + k.symbol)) {
      k.shared_section = sh->size;
      // sm_90 and later store the block's reserved 1 KiB in the section (binary-formats.md §1,
      // checked on the H200 against cudaFuncGetAttributes); the audit adds it back once.
      k.shared = c.sm >= 90 ? (sh->size > 1024 ? sh->size - 1024 : 0) : sh->size;
    }
    c.kernels.push_back(std::move(k));
  }
  return c;
}

}  // namespace kc::limits

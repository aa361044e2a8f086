// HIP's gate 5: chip rows, RECORD lines, code objects and the check of a launch on a chip.
#include "hip_audit.hpp"

#include <algorithm>
#include <cstdlib>
#include <cxxabi.h>
#include <sstream>

#include "kc/limits/elf.hpp"
#include "kc/limits/error.hpp"
#include "kc/limits/text.hpp"

namespace kc::limits::hip {

extern const char* const kAmdChipsTsv;  // amd_chips.tsv, written into the build by CMake

std::vector<AmdChip> parse_amd_chips(const std::string& text, const std::string& name) {
  std::vector<AmdChip> out;
  for_each_row(text, name, [&](const std::string& where, const std::vector<std::string>& c) {
    if (c.size() < 11) throw FormatError(where, "a chip row needs 10 columns and a source (has " + std::to_string(c.size()) + " columns)");
    AmdChip r;
    r.name = c[0];
    r.vgpr32 = uint32_t(parse_uint(c[1], where, "vgpr32"));
    r.vgpr64 = uint32_t(parse_uint(c[2], where, "vgpr64"));
    r.gran32 = uint32_t(parse_uint(c[3], where, "gran32"));
    r.gran64 = uint32_t(parse_uint(c[4], where, "gran64"));
    r.waves = uint32_t(parse_uint(c[5], where, "waves"));
    r.simds = uint32_t(parse_uint(c[6], where, "simds"));
    r.lds = parse_uint(c[7], where, "lds");
    r.threads = uint32_t(parse_uint(c[8], where, "threads"));
    r.sgprs = uint32_t(parse_uint(c[9], where, "sgprs"));
    if (!r.gran32 || !r.gran64 || !r.simds || !r.waves) throw FormatError(where, "a granule, waves or simds of 0");
    r.source = join_from(c, 10);
    out.push_back(std::move(r));
  });
  if (out.empty()) throw FormatError(name, "no chip rows");
  return out;
}

const std::vector<AmdChip>& amd_chips() {
  static const std::vector<AmdChip> chips = parse_amd_chips(kAmdChipsTsv, "limits/hip/amd_chips.tsv");
  return chips;
}

const AmdChip* find_amd_chip(const std::string& name) {
  for (const AmdChip& c : amd_chips())
    if (c.name == name) return &c;
  return nullptr;
}

HipRecord record_of(const std::string& launch, const AmdKernel& k, const std::string& chip, const std::string& image) {
  HipRecord r;
  r.launch = launch;
  r.chip = chip;
  r.symbol = k.name;
  r.image = image;
  r.vgprs = k.vgprs + k.agprs;  // AGPRs come from the same file on gfx90a-class chips (0 on RDNA)
  r.sgprs = k.sgprs;
  r.lds = k.lds;
  r.scratch = k.scratch;
  r.bound = k.bound;
  r.wave = k.wave;
  r.spills = k.vgpr_spills + k.sgpr_spills;
  r.dynamic_stack = k.dynamic_stack;
  return r;
}

std::string record_line(const HipRecord& r) {
  std::ostringstream o;
  o << "RECORD hip " << r.launch << ' ' << r.chip << " symbol=" << r.symbol << " image=" << r.image
    << " instances=" << r.instances << " vgprs=" << r.vgprs << " sgprs=" << r.sgprs
    << " lds=" << r.lds << " scratch=" << r.scratch << " bound=" << r.bound << " wave=" << r.wave << " spills=" << r.spills
    << " dynstack=" << (r.dynamic_stack ? 1 : 0);
  return o.str();
}

std::vector<HipRecord> parse_records(const std::string& text, const std::string& name) {
  std::vector<HipRecord> out;
  for_each_row(text, name, [&](const std::string& where, const std::vector<std::string>& c) {
    if (c[0] != "RECORD" || c.size() < 2 || c[1] != "hip") throw FormatError(where, "not a RECORD hip line");
    if (c.size() != 15) throw FormatError(where, "a RECORD hip line has 15 fields (has " + std::to_string(c.size()) + ")");
    HipRecord r;
    r.launch = c[2];
    r.chip = c[3];
    auto field = [&](size_t i, const char* key) { return keyed(c, i, key, where); };
    r.symbol = field(4, "symbol");
    r.image = field(5, "image");
    r.instances = uint32_t(parse_uint(field(6, "instances"), where, "instances"));
    if (r.instances == 0) throw FormatError(where, "instances=0");
    r.vgprs = uint32_t(parse_uint(field(7, "vgprs"), where, "vgprs"));
    r.sgprs = uint32_t(parse_uint(field(8, "sgprs"), where, "sgprs"));
    r.lds = uint32_t(parse_uint(field(9, "lds"), where, "lds"));
    r.scratch = uint32_t(parse_uint(field(10, "scratch"), where, "scratch"));
    r.bound = uint32_t(parse_uint(field(11, "bound"), where, "bound"));
    r.wave = uint32_t(parse_uint(field(12, "wave"), where, "wave"));
    r.spills = uint32_t(parse_uint(field(13, "spills"), where, "spills"));
    r.dynamic_stack = parse_uint(field(14, "dynstack"), where, "dynstack") != 0;
    out.push_back(std::move(r));
  });
  return out;
}

void merge_instance(HipRecord& r, const HipRecord& o) {
  if (r.wave != o.wave)
    throw FormatError(r.image, "symbol " + r.symbol + " has instances of wave " + std::to_string(r.wave) + " and " + std::to_string(o.wave));
  r.instances += o.instances;
  r.vgprs = std::max(r.vgprs, o.vgprs);
  r.sgprs = std::max(r.sgprs, o.sgprs);
  r.lds = std::max(r.lds, o.lds);
  r.scratch = std::max(r.scratch, o.scratch);
  r.spills = std::max(r.spills, o.spills);
  r.bound = std::min(r.bound, o.bound);
  r.dynamic_stack = r.dynamic_stack || o.dynamic_stack;
}

std::string base_name(const std::string& m) {
  if (m.rfind("_Z", 0) != 0) return m;
  size_t i = 2;
  auto ident = [&](std::string& out) -> bool {
    size_t len = 0, d = i;
    while (d < m.size() && m[d] >= '0' && m[d] <= '9' && d - i < 6) len = len * 10 + size_t(m[d++] - '0');
    if (d == i || len == 0 || len > m.size() - d) return false;
    out = m.substr(d, len);
    i = d + len;
    return true;
  };
  std::string name;
  if (i < m.size() && m[i] == 'N') {
    ++i;
    std::string part;
    while (i < m.size() && m[i] != 'E') {
      if (!ident(part)) return "";
      name += (name.empty() ? "" : "::") + part;
      if (i < m.size() && m[i] == 'I') break;  // template arguments of the last part
    }
    return name;
  }
  return ident(name) ? name : "";
}

std::string template_id(const std::string& m) {
  if (m.rfind("_Z", 0) != 0 || m.size() > 4096) return "";
  // GCC 12's demangler does not know DF16b (__bf16); spelled as the vendor type u6__bf16 it does.
  // That shifts later back-references, which only the parameters use, and those are dropped below.
  std::string in = m;
  for (size_t p = in.find("DF16b"); p != std::string::npos; p = in.find("DF16b", p + 8)) in.replace(p, 5, "u6__bf16");
  int status = 0;
  char* d = abi::__cxa_demangle(in.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) {
    std::free(d);
    return "";
  }
  std::string s(d);
  std::free(d);
  // The parameter list is the last '(' outside template arguments; a kernel returns void.
  int angle = 0;
  size_t params = std::string::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++angle;
    else if (s[i] == '>') --angle;
    else if (s[i] == '(' && angle == 0) params = i;
  }
  if (params == std::string::npos) return "";
  s.resize(params);
  if (s.rfind("void ", 0) == 0) s.erase(0, 5);
  return s.find('<') == std::string::npos ? "" : s;
}

std::string image_of(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') + 1);
  if (base.size() > 3 && base.compare(base.size() - 3, 3, ".co") == 0) base.resize(base.size() - 3);
  size_t us = base.rfind("_gfx");
  if (us != std::string::npos) base.resize(us);
  return base;
}

namespace {
// "Debian clang version 19.1.7 (...)" -> "clang-19"; "" when .comment names no clang.
std::string compiler_of(const ElfFile& f) {
  const ElfSection* s = f.find(".comment");
  if (!s) return "";
  auto d = f.data(*s);
  std::string text(reinterpret_cast<const char*>(d.data()), d.size());
  size_t p = text.find("clang version ");
  if (p == std::string::npos) return "";
  p += 14;
  size_t e = p;
  while (e < text.size() && text[e] >= '0' && text[e] <= '9') ++e;
  if (e == p) return "";
  return "clang-" + text.substr(p, e - p);
}
}  // namespace

CodeObject read_code_object(const std::string& path) {
  ElfFile f = ElfFile::read(path);
  if (f.machine() != kEmAmdgpu)
    throw FormatError(path, "not an AMDGPU code object (e_machine " + std::to_string(f.machine()) + ", want 224)");
  CodeObject co;
  co.path = path;
  co.image = image_of(path);
  co.e_flags_mach = f.flags() & 0xff;
  co.compiler = compiler_of(f);
  bool found = false;
  for (const ElfSection& s : f.sections()) {
    if (s.type != kShtNote) continue;
    for (const ElfNote& n : f.notes(s)) {
      if (n.owner != "AMDGPU" || n.type != 32) continue;
      if (found) throw FormatError(path, "two NT_AMDGPU_METADATA notes");
      AmdMetadata md = parse_amdgpu_metadata(n.desc, path);
      co.chip = md.chip;
      co.kernels = std::move(md.kernels);
      found = true;
    }
  }
  if (!found) throw FormatError(path, "no NT_AMDGPU_METADATA note (owner AMDGPU, type 32): not a code object v3+ file");
  return co;
}

HipCheck check_launch(const HipLaunch& l, const HipRecord& r, const AmdChip& chip) {
  HipCheck c;
  std::ostringstream m;
  auto over = [&](const char* kind) {
    c.problem = true;
    c.kinds.push_back(kind);
  };
  const uint32_t wave = r.wave;
  if (wave != 32 && wave != 64) {
    over("wave");
    m << "wave " << wave << " is not 32 or 64; ";
  }
  // Threads against the kernel's own bound and the chip's.
  m << "threads " << l.threads;
  if (l.threads == 0) {
    over("threads");
    m << " (a launch of 0 threads)";
  }
  if (l.threads > r.bound) {
    over("bound");
    m << " > bound " << r.bound << " (__launch_bounds__: the VGPRs were fitted to " << r.bound << ")";
  } else {
    m << " <= bound " << r.bound;
  }
  if (l.threads > chip.threads) {
    over("threads");
    m << ", > " << chip.threads << " a workgroup";
  }
  // VGPRs: the workgroup's waves spread over the WGP's SIMDs; each wave holds its VGPRs rounded up
  // to the chip's granule; the SIMD's file must hold all of its waves.
  if (wave == 32 || wave == 64) {
    const uint32_t waves = (std::max<uint32_t>(l.threads, 1) + wave - 1) / wave;
    const uint32_t per_simd = (waves + chip.simds - 1) / chip.simds;
    const uint32_t g = chip.granule(wave);
    const uint32_t alloc = (std::max<uint32_t>(r.vgprs, 1) + g - 1) / g * g;
    const uint64_t need = uint64_t(per_simd) * alloc;
    m << "; wave" << wave << ": " << waves << " waves, " << per_simd << " a SIMD x " << alloc << " VGPRs (" << r.vgprs
      << " rounded to " << g << ") = " << need;
    if (need > chip.vgprs_simd(wave)) {
      over("vgprs");
      m << " > " << chip.vgprs_simd(wave) << " a SIMD";
    } else {
      m << " <= " << chip.vgprs_simd(wave);
    }
    if (per_simd > chip.waves) {
      over("waves");
      m << "; " << per_simd << " waves a SIMD > " << chip.waves;
    }
  }
  // LDS: static (the code object's group segment) plus what the launch adds.
  const uint64_t lds = uint64_t(r.lds) + l.dyn_lds;
  m << "; LDS " << r.lds << " static + " << l.dyn_lds << " dynamic = " << lds;
  if (lds > chip.lds) {
    over("lds");
    m << " > " << chip.lds;
  } else {
    m << " <= " << chip.lds;
  }
  if (r.sgprs > chip.sgprs) {
    over("sgprs");
    m << "; SGPRs " << r.sgprs << " > " << chip.sgprs;
  }
  // Scratch: private memory a lane (arrays, spills) beyond what the launch declares it accepts.
  if (r.dynamic_stack) {
    over("scratch");
    m << "; scratch unknown (dynamic stack)";
  } else if (r.scratch > l.scratch_budget || r.spills > 0) {
    if (r.scratch > l.scratch_budget) over("scratch");
    m << "; scratch " << r.scratch << " B a lane" << (r.spills ? " (" + std::to_string(r.spills) + " registers spilled)" : "")
      << (r.scratch > l.scratch_budget ? " > declared " : " <= declared ") << l.scratch_budget;
  }
  c.message = m.str();
  return c;
}

}  // namespace kc::limits::hip

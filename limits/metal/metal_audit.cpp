// Metal's gate 5 (see metal_audit.hpp).
#include "metal_audit.hpp"

#include <algorithm>
#include <sstream>

#include "kc/limits/error.hpp"
#include "kc/limits/planted.hpp"
#include "kc/limits/text.hpp"

namespace kc::limits::metal {

extern const char* const kAppleChipsTsv;  // apple_chips.tsv, written into the build by CMake

std::vector<AppleChip> parse_apple_chips(const std::string& text, const std::string& name) {
  std::vector<AppleChip> out;
  for_each_row(text, name, [&](const std::string& where, const std::vector<std::string>& c) {
    if (c.size() < 6) throw FormatError(where, "a chip row needs 5 columns and a source");
    AppleChip r;
    r.name = c[0];
    r.family = c[1];
    r.threads = uint32_t(parse_uint(c[2], where, "threads"));
    r.tg = parse_uint(c[3], where, "tg");
    const uint64_t regs = parse_uint(c[4], where, "regs");
    if (regs > 1) throw FormatError(where, "regs is 0 or 1");
    r.pipeline_limit = regs == 1;
    r.source = join_from(c, 5);
    out.push_back(std::move(r));
  });
  if (out.empty()) throw FormatError(name, "no chip rows");
  return out;
}

const std::vector<AppleChip>& apple_chips() {
  static const std::vector<AppleChip> chips = parse_apple_chips(kAppleChipsTsv, "limits/metal/apple_chips.tsv");
  return chips;
}

std::vector<MetalLaunch> metal_launches(const std::vector<LaunchRow>& rows) {
  std::vector<MetalLaunch> out;
  for (const LaunchRow& row : rows) {
    if (row.cols.empty() || row.backend() != "metal") continue;
    const std::string where = row.where();
    const auto& c = row.cols;
    if (c.size() != 6) throw FormatError(where, "a metal row has 6 columns: metal launch pipeline threads tg_bytes flags");
    MetalLaunch l;
    l.name = c[1];
    l.pipeline = c[2];
    l.where = where;
    const uint64_t t = parse_uint(c[3], where, "threads");
    if (t == 0 || t > 65536) throw FormatError(where, "threads " + c[3] + " is not 1..65536");
    l.threads = uint32_t(t);
    l.tg = parse_uint(c[4], where, "tg_bytes");
    for (const std::string& f : split_list(c[5])) {
      if (f.rfind("m1m2=", 0) == 0) {
        const uint64_t m = parse_uint(f.substr(5), where, "m1m2");
        if (m == 0 || m > 1024) throw FormatError(where, "m1m2=" + f.substr(5) + " is not 1..1024");
        l.m1m2 = uint32_t(m);
      } else if (f == "sized") {
        l.sized = true;
      } else if (f == "reserved") {
        l.reserved = true;
      } else if (f.rfind("control=", 0) == 0 && f.size() > 8) {
        l.control = f.substr(8);
      } else {
        throw FormatError(where, "unknown metal flag '" + f + "' (known: m1m2=, sized, reserved, control=)");
      }
    }
    if (!l.m1m2 && !l.sized && !l.reserved)
      throw FormatError(where, "a metal launch records its pipeline's M1/M2 thread limit (m1m2=<threads>), or says its "
                               "launcher sizes groups to the pipeline (sized) or its source reserves the threads (reserved)");
    if (!l.control.empty() && l.control != "threads" && l.control != "m1m2" && l.control != "tg")
      throw FormatError(where, "control=" + l.control + " is not a Metal limit (threads, m1m2, tg)");
    for (const MetalLaunch& o : out)
      if (o.name == l.name) throw FormatError(where, "launch " + l.name + " is declared twice (also " + o.where + ")");
    out.push_back(std::move(l));
  }
  return out;
}

std::string record_line(const MetalLaunch& l) {
  std::ostringstream o;
  o << "RECORD metal " << l.name << " pipeline=" << l.pipeline << " threads=" << l.threads << " tg=" << l.tg << " m1m2="
    << (l.m1m2 ? std::to_string(l.m1m2) : l.sized ? std::string("sized") : std::string("reserved"));
  return o.str();
}

MetalCheck check_launch(const MetalLaunch& l, const AppleChip& chip) {
  MetalCheck c;
  std::ostringstream m;
  m << "threads " << l.threads;
  if (l.threads > chip.threads) {
    c.problem = true;
    c.kinds.push_back("threads");
    m << " > " << chip.threads << " a threadgroup";
  } else {
    m << " <= " << chip.threads;
  }
  if (chip.pipeline_limit) {
    if (l.m1m2) {
      m << "; pipeline compiles for " << l.m1m2 << " on " << chip.name;
      if (l.threads > l.m1m2) {
        c.problem = true;
        c.kinds.push_back("m1m2");
        m << " < " << l.threads << " launched";
      }
    } else {
      m << (l.sized ? "; launcher sizes groups to the pipeline" : "; source reserves its threads");
    }
  }
  m << "; threadgroup memory " << l.tg;
  if (l.tg > chip.tg) {
    c.problem = true;
    c.kinds.push_back("tg");
    m << " > " << chip.tg;
  } else {
    m << " <= " << chip.tg;
  }
  c.message = m.str();
  return c;
}

kc::AuditResult audit_metal(const std::vector<MetalLaunch>& launches, const std::string& only) {
  kc::AuditResult res;
  res.backend = "metal";
  for (const MetalLaunch& l : launches) {
    if (!only.empty() && l.name.find(only) == std::string::npos) continue;
    for (const AppleChip& chip : apple_chips()) {
      // An M1/M2 control is planted where pipelines carry their own limit; elsewhere its launch is
      // checked as any other (and must be clean).
      const bool planted_here = !l.control.empty() && (l.control != "m1m2" || chip.pipeline_limit);
      kc::AuditLine line;
      line.launch = l.name;
      line.chip = chip.name;
      line.control = planted_here;
      set_verdict(line, l.control, check_launch(l, chip));
      res.lines.push_back(std::move(line));
    }
  }
  return res;
}

namespace {
class MetalAuditor final : public kc::Auditor {
 public:
  std::string backend() const override { return "metal"; }
  kc::AuditResult audit(const kc::AuditOptions& opt) override {
    try {
      kc::AuditResult r = audit_metal(metal_launches(read_launch_rows(find_launch_files(default_launch_paths()))), opt.only);
      r.notes.push_back("no Metal binaries here: each launch's declared M1/M2 limit is its record (re-derived on a Mac)");
      return r;
    } catch (const std::exception& e) {
      kc::AuditResult r;
      r.backend = "metal";
      r.errors.push_back(std::string("metal audit: ") + e.what());
      return r;
    }
  }
};
}  // namespace

std::unique_ptr<kc::Auditor> make_metal_auditor() { return std::make_unique<MetalAuditor>(); }

}  // namespace kc::limits::metal

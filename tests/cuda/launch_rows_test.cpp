// Gate 5's CUDA launch rows are derived from the KC_CUDA_LAUNCH declarations (kc::cuda::launch_rows),
// with no GPU: every declaration's kernel has the device name the CUDA runtime registered for it, and
// that name is the declared function's; every launch an entry names is declared and every
// declaration is some entry's launch.
#include <gtest/gtest.h>

#include <set>

#include "kc/cuda.hpp"
#include "kc/limits/cubin.hpp"
#include "kc/not_here.hpp"
#include "kc/registry.hpp"

namespace {

TEST(LaunchRows, SymbolOfASourceName) {
  kc::cuda::LaunchFn f{"x", nullptr, "(kc_rms_norm_vec<Bf16Out, 1>)", 256, 0, 1, "-", "f", 1};
  EXPECT_EQ(f.symbol(), "kc_rms_norm_vec");
  f.source = "kc_row_sum";
  EXPECT_EQ(f.symbol(), "kc_row_sum");
}

// The runtime's name for each kernel is the declared function's: its demangled name starts with the
// function's name as written (a template's arguments follow), in its namespace where it has one.
TEST(LaunchRows, EveryDeclarationHasItsKernelsDeviceName) {
  ASSERT_GE(kc::cuda::launch_fns().size(), 300u) << "the served kernels and controls are not all linked in";
  for (const auto& f : kc::cuda::launch_fns()) {
    const std::string mangled = kc::cuda::device_name(f.fn);
    ASSERT_FALSE(mangled.empty()) << f.file << ":" << f.line << ": " << f.name << ": no device name registered";
    std::string name = kc::limits::kernel_name(mangled);
    name = name.substr(0, name.find('<'));
    if (auto at = name.rfind("::"); at != std::string::npos) name = name.substr(at + 2);
    EXPECT_EQ(name, f.symbol()) << f.file << ":" << f.line << ": " << f.name << " registered " << mangled;
  }
}

// A control whose planted fault this machine cannot run (kc::NotHere: a wgmma fault without an
// sm_90a device) builds no spec here; the launches declared under its name are its own.
TEST(LaunchRows, AnEntrysLaunchesAreDeclaredAndEveryDeclarationIsAnEntrys) {
  std::set<std::string> declared, named, unbuilt;
  for (const auto& f : kc::cuda::launch_fns()) declared.insert(f.name);
  int specs = 0;
  for (const auto& reg : kc::registry()) {
    if (reg.backend != "cuda") continue;
    kc::Entry e;
    try {
      e = kc::build(reg);
    } catch (const kc::NotHere&) {
      EXPECT_TRUE(reg.control) << reg.name << ": a served kernel's builder said NotHere";
      unbuilt.insert(reg.name);
      continue;
    }
    ++specs;
    for (const auto& l : e.spec.launches) {
      named.insert(l);
      EXPECT_TRUE(declared.count(l)) << reg.name << " names launch " << l << ", which no KC_CUDA_LAUNCH declares";
    }
  }
  EXPECT_GE(specs + static_cast<int>(unbuilt.size()), 140) << "the CUDA entries and controls are not all linked in";
  EXPECT_LE(unbuilt.size(), 4u) << "more controls than the wgmma ones built no spec here";
  auto of_unbuilt = [&](const std::string& launch) {
    for (const auto& u : unbuilt)
      if (launch.rfind(u + "/", 0) == 0 || launch == u) return true;
    return false;
  };
  // An entry names the forms the device it runs on takes (the wgmma tile on an sm_90a device, the
  // mma.sync tile elsewhere): a declaration unnamed here is one entry's other form.
  std::set<std::string> entries;
  for (const auto& l : named) entries.insert(l.substr(0, l.rfind('/')));
  auto other_form = [&](const std::string& launch) { return entries.count(launch.substr(0, launch.rfind('/'))) > 0; };
  for (const auto& f : kc::cuda::launch_fns())
    EXPECT_TRUE(named.count(f.name) || other_form(f.name) || of_unbuilt(f.name) || f.flags.find("control=") != std::string::npos)
        << f.file << ":" << f.line << ": " << f.name << " is declared, but no entry names it";
}

}  // namespace

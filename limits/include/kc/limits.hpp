// Gate 5: limits auditors. The CLI calls add_auditors() once; each auditor reads compiled binaries
// (no GPU needed) and checks every declared launch against every served chip.
#pragma once
#include <memory>

#include "kc/audit.hpp"

namespace kc::limits {

// Adds gate 5's auditors (one per binary kind this build reads) to kc::auditors(). The list is in
// limits/src/add_auditors.cpp.
void add_auditors();

// The CUDA auditor (cubins and fatbins): backend() == "cuda".
std::unique_ptr<kc::Auditor> make_cuda_auditor();

}  // namespace kc::limits

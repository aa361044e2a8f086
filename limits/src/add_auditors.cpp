// Gate 5's auditors, one line each. Each backend's folder under limits/ provides its factory.
#include "kc/limits.hpp"

#include "../hip/hip_auditor.hpp"
#include "../metal/metal_audit.hpp"
#include "../xpu/xpu_audit.hpp"

namespace kc::limits {

void add_auditors() {
  kc::add_auditor(make_cuda_auditor());  // limits/src/cuda_auditor.cpp
  kc::add_auditor(hip::make_hip_auditor());      // limits/hip: AMDGPU code objects
  kc::add_auditor(xpu::make_xpu_auditor());      // limits/xpu: zebins
  kc::add_auditor(metal::make_metal_auditor());  // limits/metal: declared launches against M1-M5
}

}  // namespace kc::limits

// Gate 5's auditors, one line each. Each backend's folder under limits/ provides its factory.
#include "kc/limits.hpp"

namespace kc::limits {

void add_auditors() {
  kc::add_auditor(make_cuda_auditor());  // limits/src/cuda_auditor.cpp
  // HIP, XPU and Metal auditors (limits/hip, limits/xpu, limits/metal) add their lines here.
}

}  // namespace kc::limits

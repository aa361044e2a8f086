// The CUDA auditor behind kc::Auditor: the kernel-contract CLI runs it in every run.
#include "kc/limits.hpp"
#include "kc/limits/cuda_audit.hpp"

namespace kc::limits {

namespace {

class CudaAuditor : public kc::Auditor {
 public:
  std::string backend() const override { return "cuda"; }
  kc::AuditResult audit(const kc::AuditOptions& o) override {
    CudaAuditConfig cfg;
    cfg.binaries = o.paths;  // empty: this executable, which links every .cu entry
    cfg.only = o.only;
    return audit_cuda(cfg).result;
  }
};

}  // namespace

std::unique_ptr<kc::Auditor> make_cuda_auditor() { return std::make_unique<CudaAuditor>(); }

}  // namespace kc::limits

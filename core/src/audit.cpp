#include "kc/audit.hpp"

namespace kc {

std::vector<std::unique_ptr<Auditor>>& auditors() {
  static std::vector<std::unique_ptr<Auditor>> a;
  return a;
}

void add_auditor(std::unique_ptr<Auditor> a) { auditors().push_back(std::move(a)); }

}  // namespace kc

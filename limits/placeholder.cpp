#include "kc/limits.hpp"
namespace kc::limits {
void add_auditors() {}
}  // namespace kc::limits

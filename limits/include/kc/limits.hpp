#pragma once
namespace kc::limits {
// Adds gate 5's auditors (one per binary kind this build reads) to kc::auditors().
void add_auditors();
}  // namespace kc::limits

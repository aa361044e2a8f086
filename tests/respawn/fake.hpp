// A backend that loses its device the way CUDA does after an illegal address, with no GPU: an
// entry plants a fault, the next wait reports it by name, and recover() then says the device is
// lost for the rest of the process; every later call fails fast. Memory is the CPU backend's.
#pragma once
#include <memory>

#include "kc/backend.hpp"

namespace fake {
std::unique_ptr<kc::Backend> make_backend();  // named "fake"
// Called by a planted entry's launch: the next sync reports an illegal address.
void plant_fault();
// Appends "<entry> <pid>" to $KC_FAKE_LOG (when set): which process ran which entry.
void log_run(const char* entry);
}  // namespace fake

// Static auto-registration of entries (kernels and controls), in the manner of Catch2's TEST_CASE:
// a file registers its entries by defining them; nothing needs a central list. Factories run when
// the runner asks, so a bad spec is reported as that entry's error, never a crash at start-up.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "kc/spec.hpp"

namespace kc {

struct Registration {
  std::string name;
  std::string backend;
  std::string file;
  int line;
  bool control;
  // Builds the entry. A function pointer for the static registrations (KC_KERNEL); a registration
  // made at run time (a binding's: an interpreter's callable) carries its state in the closure.
  std::function<Entry()> make;
};

// Every registration, in registration order.
std::vector<Registration>& registry();

struct Registrar {
  Registrar(const char* name, const char* backend, const char* file, int line, bool control, Entry (*make)());
};

// Builds an entry from its registration and validates it; throws Error naming the entry.
Entry build(const Registration& r);
// Duplicate names within a backend, as one Error text per duplicate ("" when none).
std::vector<std::string> duplicate_names();

}  // namespace kc

#define KC_CAT2(a, b) a##b
#define KC_CAT(a, b) KC_CAT2(a, b)
#define KC_ENTRY_I(NAME, BACKEND, CONTROL, ID)                                                        \
  static ::kc::Entry KC_CAT(kc_make_, ID)();                                                        \
  static const ::kc::Registrar KC_CAT(kc_reg_, ID)(NAME, #BACKEND, __FILE__, __LINE__, CONTROL, \
                                                   &KC_CAT(kc_make_, ID));                          \
  static ::kc::Entry KC_CAT(kc_make_, ID)()

// Registers a kernel on a backend (cpu, cuda, hip, metal, xpu, opencl). The body returns its Entry.
#define KC_KERNEL(NAME, BACKEND) KC_ENTRY_I(NAME, BACKEND, false, __COUNTER__)
// Registers a planted control; its Entry must call .control(gate, why).
#define KC_CONTROL(NAME, BACKEND) KC_ENTRY_I(NAME, BACKEND, true, __COUNTER__)

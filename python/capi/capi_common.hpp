// Internal to the C ABI: the entry handle, the thread's last error, and JSON argument reading
// whose every refusal names the field.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "kc/spec.hpp"
#include "kc_capi.h"

struct kc_entry {
  kc::Entry entry;
};

namespace kc::capi {

using nlohmann::json;

// Sets kc_last_error's text.
void set_error(const std::string& text);
// The text a hook left with kc_set_error, taken (cleared), or `fallback` where it left none.
std::string take_error(const char* fallback);

// Runs fn, turning any exception into the last error; returns 0, or 1 after an error.
template <class F> int guard(F&& fn) {
  try {
    fn();
    return 0;
  } catch (const std::exception& e) {
    set_error(e.what());
  } catch (...) {
    set_error("an unknown C++ exception");
  }
  return 1;
}

json parse(const char* text, const char* what);
// A field of an object: required, or `def` where absent; throws Error naming `what` and the key.
template <class T> T get(const json& j, const char* key, const char* what) {
  if (!j.contains(key)) throw Error(std::string(what) + ": missing argument '" + key + "'");
  try {
    return j.at(key).get<T>();
  } catch (const std::exception& e) {
    throw Error(std::string(what) + ": argument '" + key + "': " + e.what());
  }
}
template <class T> T get(const json& j, const char* key, const char* what, T def) {
  return j.contains(key) ? get<T>(j, key, what) : def;
}
// Rejects keys outside `known` (a misspelt argument is an error, never ignored).
void only_keys(const json& j, std::initializer_list<const char*> known, const char* what);
DType dtype(const std::string& name, const char* what);
Gate gate(const json& g, const char* what);
Why why(const std::string& name, const char* what);

// A hook's callback as the std::function the spec keeps: a non-zero return throws Error naming `hook`.
std::function<double(const Shape&)> shape_hook(kc_shape_fn fn, void* ud, std::string hook);

}  // namespace kc::capi

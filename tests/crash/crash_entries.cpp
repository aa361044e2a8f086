// Planted CPU entries, in the order a run visits them. planted/: a correct kernel, one writing
// through a null pointer (SIGSEGV), a correct one, one that never returns, a correct one.
// abort/: one that calls abort() (SIGABRT), then a correct one. Each broken one does its harm
// only after writing its outputs, so nothing but the crash or the hang can fail it.
#include <atomic>
#include <cstdlib>

#include "kc/registry.hpp"
#include "toy.hpp"

namespace {
kc::Entry env(kc::Entry e) { return std::move(e).served({{"rows", {1, 5}}, {"cols", {16, 64}}}).tile("cols", 64, 8, 8); }

int* volatile g_null = nullptr;  // volatile: the compiler cannot prove the write away
std::atomic<bool> g_never{false};
}  // namespace

KC_KERNEL("planted/1_ok", cpu) { return env(toy::scale()).launch(toy::scale_kernel); }
KC_KERNEL("planted/2_null_write", cpu) {
  return env(toy::scale()).launch([](const kc::Buffers& b) {
    toy::scale_kernel(b);
    *g_null = 1;
  });
}
KC_KERNEL("planted/3_ok", cpu) { return env(toy::scale()).launch(toy::scale_kernel); }
KC_KERNEL("planted/4_spin", cpu) {
  return env(toy::scale()).launch([](const kc::Buffers& b) {
    toy::scale_kernel(b);
    while (!g_never.load()) {
    }
  });
}
KC_KERNEL("planted/5_ok", cpu) { return env(toy::scale()).launch(toy::scale_kernel); }

KC_KERNEL("abort/1_abort", cpu) {
  return env(toy::scale()).launch([](const kc::Buffers& b) {
    toy::scale_kernel(b);
    std::abort();
  });
}
KC_KERNEL("abort/2_ok", cpu) { return env(toy::scale()).launch(toy::scale_kernel); }

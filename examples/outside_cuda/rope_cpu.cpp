// The CPU twin of rope.cu: the formula example's contract (examples/rotary) and CPU kernel. It runs
// wherever the contract does (CI included), so the contract itself is proven on every run.
#include <kc/registry.hpp>

#include "../rotary/rotary_cpu.hpp"

KC_KERNEL("outside/rope/bf16", cpu) { return rope::contract().launch([](const kc::Buffers& b) { rope::rotate_all(b); }); }

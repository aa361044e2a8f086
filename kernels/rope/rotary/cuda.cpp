// Contracts of the CUDA RoPE (rope.cuh, launched by rope.cu): each served form at head dims 64 to
// 256, decode (a few tokens) and prompt (many) sizes; the q/k norm forms state the warp's chain.
#include "rope_cuda.hpp"

namespace {
using namespace kc::rope_cuda;

kc::Entry entry(const Form& f, const std::string& name, std::vector<int64_t> tokens, bool prompt = false) {
  return envelope(kc::rope::contract(f), f, name, std::move(tokens), prompt).launch([f, name](const kc::Buffers& b) {
    if (!kc::cu::rope_bf16(args_of(b, f), int(f.pairs), int(f.angles), int(f.norm), b.stream()))
      throw kc::Error("the CUDA RoPE serves no form " + name);
  });
}
}  // namespace

KC_KERNEL("rope/halves/bf16", cuda) { return entry({.pairs = Pairs::halves}, "rope/halves", {1, 7, 64}); }
KC_KERNEL("rope/halves/bf16/prompt", cuda) { return entry({.pairs = Pairs::halves}, "rope/halves", {512}, true); }
KC_KERNEL("rope/interleaved/bf16", cuda) { return entry({.pairs = Pairs::interleaved}, "rope/interleaved", {1, 7, 64}); }
KC_KERNEL("rope/halves_table/bf16", cuda) { return entry({.angles = Angles::table}, "rope/halves_table", {1, 7, 64}); }
KC_KERNEL("rope/halves_norm_before/bf16", cuda) { return entry({.norm = Norm::before}, "rope/halves_norm_before", {1, 7, 64}); }
KC_KERNEL("rope/halves_norm_after/bf16", cuda) { return entry({.norm = Norm::after}, "rope/halves_norm_after", {1, 7, 64}); }

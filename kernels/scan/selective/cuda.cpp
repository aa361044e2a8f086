// Contract of the CUDA selective scan (selective.cuh, launched by selective.cu): windows of 1 to 4096
// steps over 8 and 33 channels (a thread a channel, 32 a block: 33 reaches a ragged second block; 8
// give gate 4 eight sums at one step, so some replay misses on every seed; float64's tracking of
// 4096 steps on every channel bounds the envelope: the CUDA contract's second is kept), and the
// chunked form, which replaces the sequential one bit for bit. The contract: selective_contract.hpp.
#include "../../common/cuda_contract.hpp"
#include "selective_contract.hpp"

namespace {
void run(const kc::Buffers& b, int chunk) {
  kc::cu::scan_check_state(b);
  kc::cu::scan_selective(b.in<float>("x"), b.in<float>("dt"), b.in<float>("a"), b.in<float>("B"), b.in<float>("C"),
                         b.in<float>("h0"), b.out<float>("y"), b.out<float>("h"), int(b.shape()["steps"]),
                         int(b.shape()["channels"]), chunk, b.stream());
}
kc::Entry k_scan() { return kc::cu::scan_contract({1, 7, 64, 65, 4096}, {8, 33}); }
}  // namespace

KC_KERNEL("scan/selective/f32", cuda) {
  return k_scan().launch([](const kc::Buffers& b) { run(b, 0); });
}
KC_KERNEL("scan/selective_chunked/f32", cuda) {
  return k_scan()
      .replaces("scan/selective/f32", [](const kc::Buffers& b) { run(b, 0); })
      .launch([](const kc::Buffers& b) { run(b, kc::cu::kScanChunk); });
}

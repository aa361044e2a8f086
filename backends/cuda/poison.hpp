// Poison made on the device: the harness's pattern (core/src/exec.cpp's pattern(), a hash of run,
// stream and word) written over an output before each launch, bit for bit the host's, without a
// host buffer of the output's size or a copy of it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace kc::cuda {

// The kernel's name as the launch watch sees it (seen() leaves it out: it is the harness's).
inline constexpr const char* kPoisonSymbol = "kc_poison_pattern";
// Launches it on `stream` (a cudaStream_t) over n bytes at dst; "" or the launch's error.
std::string launch_pattern(void* stream, void* dst, size_t n, uint64_t run, uint64_t stream_id);

}  // namespace kc::cuda

// The hardware's e4m3 decode against the software one the block-scaled kernels use, on every one of
// the 65,536 e4m3 pairs: cvt.rn.f16x2.e4m3x2 (sm_89 on) on the GPU, bs::e4m3_f32 rounded to f16 on
// the host (exact: every e4m3 value is an f16 value). Prints each kind of difference with its
// codes; also how the decode that reads 0x7F / 0xFF as +-480 differs. Exit 0: the two agree on every
// value (NaN bits may differ and are counted); 1: a value differs; 2: no device, or below sm_89.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "kc/numeric.hpp"
#include "kernels/blockscaled/bs_decode.hpp"

__global__ void hw_decode(uint32_t* out, int* supported) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 65536) return;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  uint32_t d;
  const uint16_t a = uint16_t(i);
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(d) : "h"(a));
  out[i] = d;
  if (i == 0) *supported = 1;
#else
  if (i == 0) *supported = 0;
#endif
}

namespace {
uint16_t sw_f16(uint32_t code, bool nan_codes) {
  const float v = nan_codes ? kc::bs::e4m3_f32(code) : kc::bs::e4m3_f32_no_nan(code);
  return kc::to_f16(v).bits;
}
bool f16_nan(uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF); }
struct Tally {
  long same = 0, nan_bits = 0, nan_vs_number = 0, number_vs_number = 0;
  long printed = 0;
};
// Compares one half: the hardware's f16 bits against the software's, for the pair's code.
// Differences print (the first 12) where `what` names the comparison.
void compare(Tally& t, uint32_t pair, int half, uint16_t hw, uint16_t sw, const char* what = nullptr) {
  if (hw == sw) return void(++t.same);
  const char* kind;
  if (f16_nan(hw) && f16_nan(sw)) ++t.nan_bits, kind = "both NaN, other bits";
  else if (f16_nan(hw) != f16_nan(sw)) ++t.nan_vs_number, kind = "NaN against a number";
  else ++t.number_vs_number, kind = "numbers differ";
  if (what && t.printed++ < 12)
    std::printf("  %s: pair 0x%04x %s byte 0x%02x: hardware f16 0x%04x (%g), software 0x%04x (%g): %s\n", what, pair,
                half ? "high" : "low", (pair >> (8 * half)) & 0xFF, hw, double(kc::from_f16(kc::f16{hw})), sw,
                double(kc::from_f16(kc::f16{sw})), kind);
}
void report(const Tally& t, const char* what) {
  std::printf("%s: %ld halves equal, %ld NaN with other bits, %ld NaN against a number, %ld numbers differ\n", what,
              t.same, t.nan_bits, t.nan_vs_number, t.number_vs_number);
}
}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("e4m3-decode-check: no CUDA device\n");
    return 2;
  }
  uint32_t* d_out;
  int* d_sup;
  cudaMalloc(&d_out, 65536 * sizeof(uint32_t));
  cudaMalloc(&d_sup, sizeof(int));
  cudaMemset(d_sup, 0xFF, sizeof(int));
  hw_decode<<<256, 256>>>(d_out, d_sup);
  std::vector<uint32_t> hw(65536);
  int sup = -1;
  if (cudaDeviceSynchronize() != cudaSuccess || cudaMemcpy(hw.data(), d_out, hw.size() * 4, cudaMemcpyDeviceToHost) ||
      cudaMemcpy(&sup, d_sup, sizeof(int), cudaMemcpyDeviceToHost)) {
    std::printf("e4m3-decode-check: the kernel failed: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 2;
  }
  if (sup != 1) {
    std::printf("e4m3-decode-check: this device's image has no cvt from e4m3x2 (sm_89 on)\n");
    return 2;
  }
  // cvt puts the pair's high byte in the high half (PTX ISA); the swapped reading is tallied too,
  // so a wrong assumption shows as itself rather than as 65,280 differing values.
  Tally t, swapped, naive;
  for (uint32_t p = 0; p < 65536; ++p) {
    const uint16_t lo = uint16_t(hw[p] & 0xFFFF), hi = uint16_t(hw[p] >> 16);
    compare(t, p, 0, lo, sw_f16(p & 0xFF, true), "software");
    compare(t, p, 1, hi, sw_f16(p >> 8, true), "software");
    compare(swapped, p, 0, lo, sw_f16(p >> 8, true));
    compare(swapped, p, 1, hi, sw_f16(p & 0xFF, true));
    compare(naive, p, 0, lo, sw_f16(p & 0xFF, false));
    compare(naive, p, 1, hi, sw_f16(p >> 8, false));
  }
  long naive_pairs = 0;
  for (uint32_t p = 0; p < 65536; ++p) {
    const uint16_t lo = uint16_t(hw[p] & 0xFFFF), hi = uint16_t(hw[p] >> 16);
    naive_pairs += lo != sw_f16(p & 0xFF, false) || hi != sw_f16(p >> 8, false);
  }
  report(t, "hardware vs software decode (NaN codes NaN)");
  report(swapped, "the same with the pair's bytes swapped");
  report(naive, "hardware vs the decode reading 0x7F/0xFF as +-480");
  std::printf("pairs where that decode differs from the hardware: %ld (1,020 pairs hold 0x7F or 0xFF)\n", naive_pairs);
  return t.nan_vs_number + t.number_vs_number == 0 ? 0 : 1;
}

// The dense and affine float64 references on a CUDA device (kc/ref_device.hpp): the CPU's sums, op
// for op, on the current device. Each returns "" when y and mag hold the answer, else why not.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "kc/ref_device.hpp"

namespace kc::cuda_ref {

std::string dense(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag);
std::string affine(const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K, double* y, double* mag);
// The same with y and mag kept on the device for a check there (RefResident).
std::string dense_kept(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, std::unique_ptr<RefResident>& out);
std::string affine_kept(const bf16* x, const RefAffineW& w, int64_t M, int64_t N, int64_t K,
                        std::unique_ptr<RefResident>& out);

}  // namespace kc::cuda_ref

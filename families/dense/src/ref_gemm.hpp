// The dense and affine float64 references as cache-blocked GEMMs (internal to core). They evaluate
// the same formula, in the same order, as the plain loops they replace: each output's value and
// magnitude are sums in double over k ascending (the affine form: per group, then the group's scale
// and bias), so they equal those loops bit for bit (tests/dense, tests/affine check it on ragged
// sizes). Only the work is arranged for speed: bf16 inputs widened to double panels once per block,
// register-blocked micro-kernels (AVX-512, AVX2+FMA or portable, picked at run time for the CPU
// the binary runs on), blocks spread over every core by kc::parallel_for.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "kc/ref_device.hpp"
#include "kc/types.hpp"

namespace kc {
struct Fill;
}

namespace kc::fam {

// y[m*N + n] = sum_k x[m*K + k] * w[n*K + k] and mag[m*N + n] = sum_k |x[m*K + k] * w[n*K + k]|,
// in double, k ascending. x is [M x K], w is [N x K], both bf16 row-major.
void ref_dense(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag);

// MLX's affine form (kc/families/affine.hpp): per group g of `group` columns,
//   y += s[n,g] * (sum_{k in g} x q) + b[n,g] * (sum_{k in g} x)
//   mag += |s[n,g]| * (sum_{k in g} |x| q) + |b[n,g]| * (sum_{k in g} |x|)
// each inner sum in double over k ascending, groups ascending. q: [N x wpr] words of `bits`-bit
// codes packed as affine::pack_row packs them; s, b: [N x K/group] bf16. K % group == 0.
using AffineW = RefAffineW;  // kc/ref_device.hpp: a device reference takes the same weights
void ref_affine(const bf16* x, const AffineW& w, int64_t M, int64_t N, int64_t K, double* y, double* mag);

// The same on the CPU alone (ref_dense and ref_affine give problems of kRefDeviceMacs or more to the
// run's reference device, if any: kc/ref_device.hpp).
void ref_dense_cpu(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag);
void ref_affine_cpu(const bf16* x, const AffineW& w, int64_t M, int64_t N, int64_t K, double* y, double* mag);

// True when the run's reference device took an M x N x K problem (call it, "" = done); false leaves
// it to the CPU: no device, a small problem, or the call failed (its reason kept for
// take_ref_fallback()).
bool ref_device_took(int64_t M, int64_t N, int64_t K, const std::function<std::string(const RefDevice&)>& call);

// True when the run's reference device computed an M x N x K problem and keeps its answers for the
// thread's ResidentScope, under `out` (the host output buffer's bytes; call it, "" = done): a random
// fill's reference inside such a scope (gate 3) then leaves want and mag empty. False leaves it to
// ref_dense or ref_affine: no scope, another fill, no device, a small problem, or no such form there.
bool ref_resident_took(const void* out, const Fill& f, int64_t M, int64_t N, int64_t K,
                       const std::function<std::string(const RefDevice&, std::unique_ptr<RefResident>&)>& call);

// Which micro-kernels run: "avx512", "avx2" or "portable" (the best this CPU has, unless forced).
enum class RefIsa { best, portable, avx2, avx512 };
const char* ref_isa_name();
// Forces a kernel set (tests use it to check each set this CPU can run); returns false, changing
// nothing, when the CPU lacks it. RefIsa::best restores the default.
bool force_ref_isa(RefIsa isa);

}  // namespace kc::fam

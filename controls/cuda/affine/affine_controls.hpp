// What the affine family's CUDA controls' device unit (affine_controls.cu) exports to their
// registrations (cuda.cpp): a launcher a control (launch_qmv at 4 bits, groups of 64, fp32 out, with
// its planted fault), each on the harness's stream. Host code.
#pragma once

namespace kc::affine_ctl {

// bf16 x [M x K], codes q, scales s and biases b of W [N x K], fp32 y [M x N].
void first_scale_launch(const void* x, const void* q, const void* s, const void* b, float* y, int M, int N, int K,
                        void* stream);
void fold_scale_launch(const void* x, const void* q, const void* s, const void* b, float* y, int M, int N, int K,
                       void* stream);
void reversed_nibbles_launch(const void* x, const void* q, const void* s, const void* b, float* y, int M, int N, int K,
                             void* stream);

}  // namespace kc::affine_ctl

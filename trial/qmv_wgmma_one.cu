// Trial driver for ncu (qmv_wgmma.cuh): the served affine decode and the wgmma trial at one shape
// (4 bits, group 64), three launches each.
#include <cstdio>
#include <cstdlib>
#include "qmv_wgmma.cuh"
int main(int argc, char** argv) {
  const int M = argc > 1 ? atoi(argv[1]) : 1, N = argc > 2 ? atoi(argv[2]) : 14336, K = argc > 3 ? atoi(argv[3]) : 4096;
  void *x, *q, *s, *b, *y;
  cudaMalloc(&x, size_t(M) * K * 2); cudaMalloc(&q, size_t(N) * K / 2); cudaMalloc(&s, size_t(N) * K / 64 * 2);
  cudaMalloc(&b, size_t(N) * K / 64 * 2); cudaMalloc(&y, size_t(M) * N * 2);
  cudaMemset(x, 0, size_t(M) * K * 2); cudaMemset(q, 0x5a, size_t(N) * K / 2); cudaMemset(s, 0x3c, size_t(N) * K / 64 * 2);
  cudaMemset(b, 0x3c, size_t(N) * K / 64 * 2);
  for (int i = 0; i < 3; ++i) {
    kc::affine_cu::launch_qmv<4, 64, __nv_bfloat16>(x, q, s, b, (__nv_bfloat16*)y, M, N, K, 0);
    kc::qmv90::launch<4, 64, __nv_bfloat16>(x, q, s, b, (__nv_bfloat16*)y, M, N, K, 0);
  }
  const auto f = kc::qmv90::form<4, 64, __nv_bfloat16>(M, N, K);
  printf("nx %d parts %d: %s\n", f.nx, f.parts, cudaGetErrorString(cudaDeviceSynchronize()));
}

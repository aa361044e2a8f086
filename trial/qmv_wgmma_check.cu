// Trial check (qmv_wgmma.cuh): the wgmma affine decode against a float64 reference and the served
// mma.sync form, every width and group, ragged N and K, 1-32 rows, 1-8 parts of K.
#include <cstdio>
#include <cmath>
#include <vector>
#include <random>
#include "qmv_wgmma.cuh"

static uint16_t f2bf(float f) { uint32_t u; memcpy(&u, &f, 4); return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16); }
static double bf2d(uint16_t h) { uint32_t u = uint32_t(h) << 16; float f; memcpy(&f, &u, 4); return f; }

template <int B, int G> int check(int M, int N, int K, std::mt19937& rng) {
  const int wpr = K / 32 * B, Gn = K / G;
  std::vector<uint32_t> q(size_t(N) * wpr);
  std::vector<uint16_t> x(size_t(M) * K), s(size_t(N) * Gn), b(size_t(N) * Gn);
  for (auto& v : q) v = rng();
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : x) v = f2bf(u(rng));
  for (auto& v : s) v = f2bf(0.01f + 0.05f * std::fabs(u(rng)));
  for (auto& v : b) v = f2bf(0.2f * u(rng));
  auto code = [&](int n, int k) {  // MLX packing: BITS-bit codes from bit 0 of the row's words on
    const size_t bit = size_t(k) * B;
    const uint32_t* r = q.data() + size_t(n) * wpr;
    const uint64_t w = r[bit / 32] | (bit / 32 + 1 < size_t(wpr) ? uint64_t(r[bit / 32 + 1]) << 32 : 0);
    return uint32_t(w >> (bit % 32)) & ((1u << B) - 1);
  };
  std::vector<double> ref(size_t(M) * N), mag(size_t(M) * N);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) {
      const double w = bf2d(s[size_t(n) * Gn + k / G]) * code(n, k) + bf2d(b[size_t(n) * Gn + k / G]);
      for (int m = 0; m < M; ++m) {
        const double p = bf2d(x[size_t(m) * K + k]) * w;
        ref[size_t(m) * N + n] += p, mag[size_t(m) * N + n] += std::fabs(p);
      }
    }
  void *dx, *dq, *ds, *db; float *dy, *dy2;
  cudaMalloc(&dx, x.size() * 2); cudaMalloc(&dq, q.size() * 4); cudaMalloc(&ds, s.size() * 2); cudaMalloc(&db, b.size() * 2);
  cudaMalloc(&dy, size_t(M) * N * 4); cudaMalloc(&dy2, size_t(M) * N * 4);
  cudaMemcpy(dx, x.data(), x.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(dq, q.data(), q.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(ds, s.data(), s.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
  cudaMemset(dy, 0xff, size_t(M) * N * 4);
  kc::qmv90::launch<B, G, float>(dx, dq, ds, db, dy, M, N, K, 0);
  kc::affine_cu::launch_qmv<B, G, float>(dx, dq, ds, db, dy2, M, N, K, 0);
  cudaError_t e = cudaDeviceSynchronize();
  std::vector<float> y(size_t(M) * N), y2(size_t(M) * N);
  cudaMemcpy(y.data(), dy, y.size() * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(y2.data(), dy2, y2.size() * 4, cudaMemcpyDeviceToHost);
  cudaFree(dx); cudaFree(dq); cudaFree(ds); cudaFree(db); cudaFree(dy); cudaFree(dy2);
  double worst = 0, worst2 = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    const double d = std::fabs(y[i] - ref[i]) / (mag[i] + 1e-30), d2 = std::fabs(y2[i] - ref[i]) / (mag[i] + 1e-30);
    if (!(d <= worst)) worst = std::isnan(d) ? 1e9 : std::max(worst, d);
    worst2 = std::max(worst2, d2);
  }
  const auto f = kc::qmv90::form<B, G, float>(M, N, K);
  const bool ok = e == cudaSuccess && worst < 1e-5;
  std::printf("%s b%d g%-3d M=%-2d N=%-5d K=%-5d nx=%d C=%d  err/mag wgmma %.2e  served %.2e %s\n", ok ? "ok  " : "FAIL", B, G, M, N, K,
              f.nx, f.parts, worst, worst2, e == cudaSuccess ? "" : cudaGetErrorString(e));
  return ok ? 0 : 1;
}

template <int B, int G> int shapes(std::mt19937& rng) {
  int bad = 0;
  const int Ks[] = {G < 64 ? 64 : G, 5 * G, 1024 + G, 4096};
  for (int M : {1, 5, 8, 13, 32})
    for (int N : {64, 100, 1000})
      for (int K : Ks) bad += check<B, G>(M, N, K, rng);
  bad += check<B, G>(1, 4096, 4096, rng);
  bad += check<B, G>(32, 256, 14336, rng);
  return bad;
}

int main() {
  std::mt19937 rng(7);
  int bad = 0;
  bad += shapes<2, 32>(rng); bad += shapes<2, 64>(rng); bad += shapes<2, 128>(rng);
  bad += shapes<3, 32>(rng); bad += shapes<3, 64>(rng); bad += shapes<3, 128>(rng);
  bad += shapes<4, 32>(rng); bad += shapes<4, 64>(rng); bad += shapes<4, 128>(rng);
  bad += shapes<5, 32>(rng); bad += shapes<5, 64>(rng); bad += shapes<5, 128>(rng);
  bad += shapes<6, 32>(rng); bad += shapes<6, 64>(rng); bad += shapes<6, 128>(rng);
  bad += shapes<8, 32>(rng); bad += shapes<8, 64>(rng); bad += shapes<8, 128>(rng);
  std::printf("%d failed\n", bad);
  return bad ? 1 : 0;
}

// The decode GEMV's 17-32 row form in blocks of two W tiles (kc_gemv_bf16<4, 2>, which launch_gemv
// takes where those blocks fill the device) against one tile a block (kc_gemv_bf16<4, 1>, the form
// gemv_splitk is bit-equal to): the same bits at N where a block's second tile is partly or wholly
// past N, and at ragged K; no write past y. The contract's gate 3 runs the two-tile form at its
// served N and at one ragged shape its form search finds (17 x 12,287 x 8 on the H200), not at the
// edges of a block's second tile, so those are proved here.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/dense/gemv/gemv.cuh"

namespace {

using kc::dense_cu::kRowsW;

bool device_present() {
  int n = 0;
  const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  (void)cudaGetLastError();
  return ok;
}

// bf16 bits of +-[0.5, 2), from a hash of the index (fast enough for 10^8 of them).
std::vector<uint16_t> spread(size_t n, uint32_t seed) {
  std::vector<uint16_t> v(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t h = uint32_t(i) * 2654435761u ^ seed;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    v[i] = uint16_t((h & 0x8000u) | (0x3F00u + (h & 0xFFu)));
  }
  return v;
}

// y of both forms for one shape and output type, as raw bytes (then a guard past y's end, which
// must stay as filled).
template <class Out> void check(const void* x, const void* w, int M, int N, int K) {
  SCOPED_TRACE(testing::Message() << "M " << M << " N " << N << " K " << K << " out " << sizeof(Out) * 8 << "-bit");
  const size_t ny = size_t(M) * N, guard = 64;  // outputs, then guard elements
  void *y1 = nullptr, *y2 = nullptr;
  ASSERT_EQ(cudaMalloc(&y1, (ny + guard) * sizeof(Out)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&y2, (ny + guard) * sizeof(Out)), cudaSuccess);
  ASSERT_EQ(cudaMemset(y1, 0xA5, (ny + guard) * sizeof(Out)), cudaSuccess);
  ASSERT_EQ(cudaMemset(y2, 0x5A, (ny + guard) * sizeof(Out)), cudaSuccess);
  const auto* xx = static_cast<const uint4*>(x);
  const auto* ww = static_cast<const uint4*>(w);
  const int ty = (M + 31) / 32;
  kc_gemv_bf16<4, 1, Out><<<dim3((N + kRowsW - 1) / kRowsW, ty), 256>>>(xx, ww, static_cast<Out*>(y1), M, N, K);
  kc_gemv_bf16<4, 2, Out><<<dim3((N + 2 * kRowsW - 1) / (2 * kRowsW), ty), 256>>>(xx, ww, static_cast<Out*>(y2), M, N, K);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<uint8_t> h1((ny + guard) * sizeof(Out)), h2(h1.size());
  ASSERT_EQ(cudaMemcpy(h1.data(), y1, h1.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(h2.data(), y2, h2.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(y1), cudaFree(y2);

  size_t differ = 0, first = ny, nonzero = 0;
  for (size_t i = 0; i < ny; ++i) {
    Out a, b;
    std::memcpy(&a, h1.data() + i * sizeof(Out), sizeof(Out));
    std::memcpy(&b, h2.data() + i * sizeof(Out), sizeof(Out));
    if (std::memcmp(&a, &b, sizeof(Out)) != 0 && differ++ == 0) first = i;
    nonzero += float(a) != 0.f;
  }
  EXPECT_EQ(differ, 0u) << "first at m " << first / N << " n " << first % N;
  EXPECT_GT(nonzero, ny / 2) << "the outputs are mostly zero: the comparison would prove nothing";
  for (size_t i = ny * sizeof(Out); i < h2.size(); ++i) {
    ASSERT_EQ(h1[i], 0xA5) << "the one-tile form wrote past y";
    ASSERT_EQ(h2[i], 0x5A) << "the two-tile form wrote past y";
  }
}

TEST(GemvTiles, TwoTileBlocksEqualOneTileAtRaggedEdges) {
  if (!device_present()) GTEST_SKIP() << "no CUDA device: the two GEMV forms need one";
  // N: a whole last pair, a last pair whose second tile is wholly past N (8,464 = 529 tiles), and
  // ones cut inside either tile; K: one chunk, past the 1,024 the slices cover, a served size.
  for (int M : {17, 32})
    for (int N : {8448, 8464, 8470, 8487, 16383})
      for (int K : {64, 1032, 4096}) {
        const auto hx = spread(size_t(M) * K, 7), hw = spread(size_t(N) * K, uint32_t(N + K));
        void *x = nullptr, *w = nullptr;
        ASSERT_EQ(cudaMalloc(&x, hx.size() * 2), cudaSuccess);
        ASSERT_EQ(cudaMalloc(&w, hw.size() * 2), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(x, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
        ASSERT_EQ(cudaMemcpy(w, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
        check<__nv_bfloat16>(x, w, M, N, K);
        check<float>(x, w, M, N, K);
        cudaFree(x), cudaFree(w);
      }
}

}  // namespace

// The blocked float64 reference GEMMs, written once and compiled once per instruction set:
// ref_gemm.cpp includes this file inside a namespace that defines `struct Isa` (vector type V of W
// doubles, an MR x (NV*W) register tile, and ld/st/bcast/zero/add/mul/abs/fma_exact) under that
// set's target pragma. No include guard, no includes: it is a template body, not a header.
//
// Order of the sums, and why it is the plain loop's order: every output's accumulators start at 0,
// k runs ascending inside a micro-kernel and the K blocks run ascending, the accumulators passing
// through the outputs (doubles, unchanged) between blocks; fma_exact is only applied where the product is
// exact in double (bf16 x bf16: 16 significant bits; bf16 x an 8-bit code: at most 16), so a fused
// and an unfused multiply-add give the same double. Nothing else is fused (ref_gemm.cpp turns
// contraction off), so each output is bit-equal to the loop `for k: y += x*w; mag += |x*w|`.

constexpr int MR = Isa::MR, NV = Isa::NV, W = Isa::W, NR = NV * W;
// K block: a multiple of every affine group (32, 64, 128). For AVX-512 a block of x is MC rows
// (2*MC*KC doubles, 384 KiB), a block of w NC columns (NC*KC doubles, at most 512 KiB): together in
// a 1 MiB L2; a micro-panel of w (KC*NR doubles, 32 KiB) stays in L1 while the row panels stream
// past. A task is a chunk of rows by a block of columns; each w block is packed once a task and
// reused by all of its row blocks. (KC 256 over 128, MR 6 over 4: +10-20% on a Zen 5 core.)
constexpr int64_t KC = 256;
constexpr int64_t MC = (96 + MR - 1) / MR * MR;
constexpr int64_t NC_MAX = 256, NC_MIN = 128;
static_assert(NC_MIN % NR == 0 && NC_MAX % NC_MIN == 0);
using V = typename Isa::V;

// x rows [m0, m0 + rows), columns [k0, k0 + klen) into micro-panels of MR rows: per column the MR
// values, then their MR magnitudes. Rows past `rows` are 0 (their outputs are never written).
inline void pack_x(const bf16* x, int64_t K, int64_t m0, int64_t rows, int64_t k0, int64_t klen, double* out) {
  for (int64_t p = 0; p * MR < rows; ++p) {
    double* o = out + p * klen * 2 * MR;
    for (int r = 0; r < MR; ++r) {
      int64_t m = p * MR + r;
      if (m < rows) {
        const bf16* src = x + (m0 + m) * K + k0;
        for (int64_t k = 0; k < klen; ++k) {
          double v = wide(src[k]);
          o[k * 2 * MR + r] = v;
          o[k * 2 * MR + MR + r] = std::fabs(v);
        }
      } else {
        for (int64_t k = 0; k < klen; ++k) o[k * 2 * MR + r] = o[k * 2 * MR + MR + r] = 0;
      }
    }
  }
}

// w rows [n0, n0 + cols), columns [k0, k0 + klen) into micro-panels of NR: per column NR values.
inline void pack_w(const bf16* w, int64_t K, int64_t n0, int64_t cols, int64_t k0, int64_t klen, double* out) {
  for (int64_t p = 0; p * NR < cols; ++p) {
    double* o = out + p * klen * NR;
    for (int j = 0; j < NR; ++j) {
      int64_t n = p * NR + j;
      if (n < cols) {
        const bf16* src = w + (n0 + n) * K + k0;
        for (int64_t k = 0; k < klen; ++k) o[k * NR + j] = wide(src[k]);
      } else {
        for (int64_t k = 0; k < klen; ++k) o[k * NR + j] = 0;
      }
    }
  }
}

// One MR x NR tile over klen columns, added into y and mag (rows ldc apart).
inline void kern_dense(const double* a, const double* b, int64_t klen, double* y, double* mag, int64_t ldc) {
  V cv[MR][NV], cm[MR][NV];
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      cv[r][v] = Isa::ld(y + r * ldc + v * W);
      cm[r][v] = Isa::ld(mag + r * ldc + v * W);
    }
  for (int64_t k = 0; k < klen; ++k, a += 2 * MR, b += NR) {
    V bv[NV], bm[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      bv[v] = Isa::ld(b + v * W);
      bm[v] = Isa::abs(bv[v]);
    }
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r) {
      V xa = Isa::bcast(a[r]), xm = Isa::bcast(a[MR + r]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        cv[r][v] = Isa::fma_exact(xa, bv[v], cv[r][v]);
        cm[r][v] = Isa::fma_exact(xm, bm[v], cm[r][v]);
      }
    }
  }
#pragma GCC unroll 16
  for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      Isa::st(y + r * ldc + v * W, cv[r][v]);
      Isa::st(mag + r * ldc + v * W, cm[r][v]);
    }
}

// A task's shape: rows in chunks of mch (a multiple of MC), columns in blocks of nc, as large as
// keeps at least four tasks a thread (packing w once per chunk, x once per block).
struct Split {
  int64_t mch, nc, mt, nt;
};
inline Split split(int64_t M, int64_t N) {
  const int64_t want = 4 * int64_t(std::max(1u, std::thread::hardware_concurrency()));
  Split s{8 * MC, NC_MAX, 0, 0};
  auto count = [&] {
    s.mt = (M + s.mch - 1) / s.mch;
    s.nt = (N + s.nc - 1) / s.nc;
    return s.mt * s.nt;
  };
  while (count() < want && s.nc > NC_MIN) s.nc /= 2;
  while (count() < want && s.mch > MC) s.mch = std::max(MC, s.mch / 2 / MC * MC);
  return s;
}

// Runs tile(ip, jp, y, mag, ldc) for every MR x NR tile of the rows [m0, m0 + rows) and columns
// [n0, n0 + cols) of the outputs: in place where the tile is whole, through a zeroed-then-copied
// buffer at the ragged edges (the panels' padding rows and columns land there and are dropped).
template <class F>
inline void tiles(int64_t m0, int64_t rows, int64_t n0, int64_t cols, int64_t N, double* y, double* mag, double* edge,
                  bool first, F&& tile) {
  const int64_t mp = (rows + MR - 1) / MR, np = (cols + NR - 1) / NR;
  for (int64_t jp = 0; jp < np; ++jp)
    for (int64_t ip = 0; ip < mp; ++ip) {
      const int64_t r = std::min<int64_t>(MR, rows - ip * MR), c = std::min<int64_t>(NR, cols - jp * NR);
      double* ty = y + (m0 + ip * MR) * N + n0 + jp * NR;
      double* tm = mag + (m0 + ip * MR) * N + n0 + jp * NR;
      if (r == MR && c == NR) {
        tile(ip, jp, ty, tm, N);
        continue;
      }
      double* ey = edge;
      double* em = edge + MR * NR;
      std::fill(edge, edge + 2 * MR * NR, 0.0);
      if (!first)
        for (int64_t i = 0; i < r; ++i)
          for (int64_t j = 0; j < c; ++j) ey[i * NR + j] = ty[i * N + j], em[i * NR + j] = tm[i * N + j];
      tile(ip, jp, ey, em, NR);
      for (int64_t i = 0; i < r; ++i)
        for (int64_t j = 0; j < c; ++j) ty[i * N + j] = ey[i * NR + j], tm[i * N + j] = em[i * NR + j];
    }
}

// y and mag start at 0 (the plain loop's start); each K block adds into them.
void run_dense(const bf16* x, const bf16* w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  const Split sp = split(M, N);
  kc::parallel_for(sp.mt * sp.nt, [&](int64_t t0, int64_t t1) {
    std::vector<double> ap(size_t(MC * KC * 2)), bp(size_t(NC_MAX * KC)), edge(size_t(2 * MR * NR));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t c0 = t / sp.nt * sp.mch, n0 = t % sp.nt * sp.nc;
      const int64_t chunk = std::min(sp.mch, M - c0), cols = std::min(sp.nc, N - n0);
      for (int64_t m = c0; m < c0 + chunk; ++m)
        std::fill(y + m * N + n0, y + m * N + n0 + cols, 0.0), std::fill(mag + m * N + n0, mag + m * N + n0 + cols, 0.0);
      for (int64_t k0 = 0; k0 < K; k0 += KC) {
        const int64_t klen = std::min(KC, K - k0);
        pack_w(w, K, n0, cols, k0, klen, bp.data());
        for (int64_t m0 = c0; m0 < c0 + chunk; m0 += MC) {
          const int64_t rows = std::min(MC, c0 + chunk - m0);
          pack_x(x, K, m0, rows, k0, klen, ap.data());
          tiles(m0, rows, n0, cols, N, y, mag, edge.data(), k0 == 0,
                [&](int64_t ip, int64_t jp, double* ty, double* tm, int64_t ldc) {
                  kern_dense(ap.data() + ip * klen * 2 * MR, bp.data() + jp * klen * NR, klen, ty, tm, ldc);
                });
        }
      }
    }
  });
}

// Affine: per group of the packed x block, the group's sum of x and of |x| for each row (rows in
// MR-row micro-panels): gx[p][g] = MR sums of x, then MR sums of |x|, each over k ascending.
inline void group_sums_x(const double* ap, int64_t rows, int64_t klen, int64_t group, double* gx) {
  const int64_t ng = klen / group;
  for (int64_t p = 0; p * MR < rows; ++p)
    for (int64_t g = 0; g < ng; ++g) {
      const double* a = ap + p * klen * 2 * MR + g * group * 2 * MR;
      double* o = gx + (p * ng + g) * 2 * MR;
      for (int r = 0; r < MR; ++r) {
        double s = 0, m = 0;
        for (int64_t k = 0; k < group; ++k) s += a[k * 2 * MR + r], m += a[k * 2 * MR + MR + r];
        o[r] = s;
        o[MR + r] = m;
      }
    }
}

// Affine weights of rows [n0, n0 + cols), columns [k0, k0 + klen): the codes as doubles per
// micro-panel (per column NR codes), and per group gw[p][g] = NR scales, NR biases, then their
// magnitudes. Columns past `cols` are 0.
inline void pack_affine_w(const AffineW& w, int64_t K, int64_t n0, int64_t cols, int64_t k0, int64_t klen, double* out,
                          double* gw) {
  const int64_t G = K / w.group, ng = klen / w.group, g0 = k0 / w.group;
  for (int64_t p = 0; p * NR < cols; ++p) {
    double* o = out + p * klen * NR;
    double* og = gw + p * ng * 4 * NR;
    for (int j = 0; j < NR; ++j) {
      int64_t n = p * NR + j;
      if (n < cols) {
        const uint32_t* row = w.q + (n0 + n) * w.wpr;
        for (int64_t k = 0; k < klen; ++k) o[k * NR + j] = double(code(row, k0 + k, w.bits));
        for (int64_t g = 0; g < ng; ++g) {
          double s = wide(w.s[(n0 + n) * G + g0 + g]), b = wide(w.b[(n0 + n) * G + g0 + g]);
          double* t = og + g * 4 * NR;
          t[j] = s, t[NR + j] = b, t[2 * NR + j] = std::fabs(s), t[3 * NR + j] = std::fabs(b);
        }
      } else {
        for (int64_t k = 0; k < klen; ++k) o[k * NR + j] = 0;
        for (int64_t g = 0; g < ng; ++g)
          for (int i = 0; i < 4; ++i) og[g * 4 * NR + i * NR + j] = 0;
      }
    }
  }
}

// One MR x NR tile over ng groups: per group the sums of x q and |x| q (codes are >= 0) in
// registers, then y += s * (sum x q) + b * (sum x), mag += |s| * (sum |x| q) + |b| * (sum |x|).
inline void kern_affine(const double* a, const double* q, const double* gx, const double* gw, int64_t ng,
                        int64_t group, double* y, double* mag, int64_t ldc) {
  for (int64_t g = 0; g < ng; ++g, gx += 2 * MR, gw += 4 * NR) {
    V av[MR][NV], am[MR][NV];
#pragma GCC unroll 16
    for (int r = 0; r < MR; ++r)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) av[r][v] = am[r][v] = Isa::zero();
    for (int64_t k = 0; k < group; ++k, a += 2 * MR, q += NR) {
      V qv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) qv[v] = Isa::ld(q + v * W);
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        V xa = Isa::bcast(a[r]), xm = Isa::bcast(a[MR + r]);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) {
          av[r][v] = Isa::fma_exact(xa, qv[v], av[r][v]);
          am[r][v] = Isa::fma_exact(xm, qv[v], am[r][v]);
        }
      }
    }
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      V s = Isa::ld(gw + v * W), b = Isa::ld(gw + NR + v * W);
      V sa = Isa::ld(gw + 2 * NR + v * W), ba = Isa::ld(gw + 3 * NR + v * W);
#pragma GCC unroll 16
      for (int r = 0; r < MR; ++r) {
        double* cv = y + r * ldc + v * W;
        double* cm = mag + r * ldc + v * W;
        Isa::st(cv, Isa::add(Isa::ld(cv), Isa::add(Isa::mul(s, av[r][v]), Isa::mul(b, Isa::bcast(gx[r])))));
        Isa::st(cm, Isa::add(Isa::ld(cm), Isa::add(Isa::mul(sa, am[r][v]), Isa::mul(ba, Isa::bcast(gx[MR + r])))));
      }
    }
  }
}

void run_affine(const bf16* x, const AffineW& w, int64_t M, int64_t N, int64_t K, double* y, double* mag) {
  const Split sp = split(M, N);
  const int64_t gmax = KC / w.group;
  kc::parallel_for(sp.mt * sp.nt, [&](int64_t t0, int64_t t1) {
    std::vector<double> ap(size_t(MC * KC * 2)), bp(size_t(NC_MAX * KC)), edge(size_t(2 * MR * NR));
    std::vector<double> gx(size_t(MC * gmax * 2)), gw(size_t(NC_MAX * gmax * 4));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t c0 = t / sp.nt * sp.mch, n0 = t % sp.nt * sp.nc;
      const int64_t chunk = std::min(sp.mch, M - c0), cols = std::min(sp.nc, N - n0);
      for (int64_t m = c0; m < c0 + chunk; ++m)
        std::fill(y + m * N + n0, y + m * N + n0 + cols, 0.0), std::fill(mag + m * N + n0, mag + m * N + n0 + cols, 0.0);
      for (int64_t k0 = 0; k0 < K; k0 += KC) {
        const int64_t klen = std::min(KC, K - k0), ng = klen / w.group;
        pack_affine_w(w, K, n0, cols, k0, klen, bp.data(), gw.data());
        for (int64_t m0 = c0; m0 < c0 + chunk; m0 += MC) {
          const int64_t rows = std::min(MC, c0 + chunk - m0);
          pack_x(x, K, m0, rows, k0, klen, ap.data());
          group_sums_x(ap.data(), rows, klen, w.group, gx.data());
          tiles(m0, rows, n0, cols, N, y, mag, edge.data(), k0 == 0,
                [&](int64_t ip, int64_t jp, double* ty, double* tm, int64_t ldc) {
                  kern_affine(ap.data() + ip * klen * 2 * MR, bp.data() + jp * klen * NR, gx.data() + ip * ng * 2 * MR,
                              gw.data() + jp * ng * 4 * NR, ng, w.group, ty, tm, ldc);
                });
        }
      }
    }
  });
}

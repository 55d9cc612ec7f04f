// The nested-parallelism suite (seed 003 §VI-B, Fig. 5, Table II): each kernel written twice.
//   <name>_spmd:   one level of parallelism, one thread per outer iteration (the baseline:
//                  `target teams distribute parallel for` on the outer loop);
//   <name>_nested: occ::fj blocks — the master walks the block's outer iterations (`teams
//                  distribute`) and forks a parallel region over each inner loop.
// Some also have <name>_adaptive: the master forks one region per chunk of outer iterations
// whose threads each run whole (short) inner loops, i.e. the region entry is paid once per
// chunk instead of once per outer iteration — the cheaper entry for inner loops < 32.
// Every kernel has the same parameters (unused ones are null/0); host: occupant_apps::nested.
#include <occupant.cuh>

#define NEST_ARGS                                                                              \
  const float *fa, const float *fb, const int *ia, const int *ib, float *fout, int *iout,     \
      int outer, int inner, double *dacc

// The nested kernels' team: a 1 KiB shared data-sharing stack, no spill area.
#define NEST_TEAM                                                                              \
  __shared__ occ::fj::Team team;                                                               \
  __shared__ alignas(16) unsigned char fj_stack[1024];                                         \
  team.setup(fj_stack, sizeof fj_stack, nullptr, 0)

#define SPMD_LOOP(o) for (int o = blockIdx.x * blockDim.x + threadIdx.x; o < outer; o += gridDim.x * blockDim.x)
#define MASTER_LOOP(o) for (int o = blockIdx.x; o < outer; o += gridDim.x)

// ---- 1. backprop (bpnn_layerforward): 16 outputs, inner loop of 65536 with a reduction ----
__device__ __forceinline__ float squash(float x) { return 1.0f / (1.0f + __expf(-x)); }

extern "C" __global__ void backprop_spmd(NEST_ARGS) {
  SPMD_LOOP(j) {
    float s = 0.f;
    for (int i = 0; i < inner; ++i) s += fa[(size_t)i * outer + j] * fb[i];
    fout[j] = squash(s);
  }
}
// A const region returning each thread's partial sum: `parallel reduction(+: s)`, folded at
// the join (Master::parallel_sum) - no barrier besides fork and join, nothing copied back.
struct BackpropRegion {
  const float *w, *in;
  int j, n_out, n_in;
  __device__ float operator()(occ::fj::Thread& t) const {
    float s = 0.f;
    t.for_static_chunk_nowait(0, n_in, 1, [&](long long i) { s += w[i * n_out + j] * in[i]; });
    return s;
  }
};
extern "C" __global__ void backprop_nested(NEST_ARGS) {
  NEST_TEAM;
  occ::fj::run<BackpropRegion>(team, [&](occ::fj::Master<BackpropRegion>& m) {
    MASTER_LOOP(j) {
      BackpropRegion r{fa, fb, j, outer, inner};
      fout[j] = squash(m.parallel_sum(m.max_threads(), r));
    }
  });
}

// ---- 2. lud-like triangular: y[i] = sum_{j<i} a[i][j] * x[j] (inner 0..N-1) ----------------
extern "C" __global__ void lud_spmd(NEST_ARGS) {
  SPMD_LOOP(i) {
    float s = 0.f;
    for (int j = 0; j < i; ++j) s += fa[(size_t)i * inner + j] * fb[j];
    fout[i] = s;
  }
}
// A region with a shared member written in the region (copied back after the join): kept
// this way so that the suite also runs the shared-out path (parallel_if has no reduction).
struct LudRegion {
  const float *a, *x;
  int i, n;
  float sum;
  __device__ void operator()(occ::fj::Thread& t) {
    float s = 0.f;
    t.for_static_chunk_nowait(0, i, 1, [&](long long j) { s += a[(size_t)i * n + j] * x[j]; });
    s = t.reduce_sum(s);
    t.master([&] { sum = s; });
  }
};
extern "C" __global__ void lud_nested(NEST_ARGS) {
  NEST_TEAM;
  occ::fj::run<LudRegion>(team, [&](occ::fj::Master<LudRegion>& m) {
    MASTER_LOOP(i) {
      LudRegion r{fa, fb, i, inner, 0.f};
      m.parallel_if(i >= 32, m.max_threads(), r);  // short rows: the master alone
      fout[i] = r.sum;
    }
  });
}

// ---- 3. imghisto: per image, a 4096-bin histogram of 12-bit pixels (inner atomics) ---------
extern "C" __global__ void imghisto_spmd(NEST_ARGS) {
  SPMD_LOOP(b) {
    for (int p = 0; p < inner; ++p) atomicAdd(&iout[b * 4096 + ia[(size_t)b * inner + p]], 1);
  }
}
struct HistoRegion {
  const int* px;
  int* hist;
  int n;
  __device__ void operator()(occ::fj::Thread& t) const {
    t.for_static_chunk_nowait(0, n, 1, [&](long long p) { atomicAdd(&hist[px[p]], 1); });
  }
};
extern "C" __global__ void imghisto_nested(NEST_ARGS) {
  NEST_TEAM;
  occ::fj::run<HistoRegion>(team, [&](occ::fj::Master<HistoRegion>& m) {
    MASTER_LOOP(b) {
      HistoRegion r{ia + (size_t)b * inner, iout + b * 4096, inner};
      m.parallel(m.max_threads(), r);
    }
  });
}

// ---- 4. streamcluster-like: cost of each point to a centre, an outer atomic ----------------
extern "C" __global__ void streamcluster_spmd(NEST_ARGS) {
  SPMD_LOOP(i) {
    float s = 0.f;
    for (int d = 0; d < inner; ++d) {
      const float v = fa[(size_t)i * inner + d] - fb[d];
      s += v * v;
    }
    fout[i] = s;
    atomicAdd(dacc, (double)s);
  }
}
struct ClusterRegion {
  const float *p, *c;
  int dims;
  __device__ float operator()(occ::fj::Thread& t) const {
    float s = 0.f;
    t.for_static_chunk_nowait(0, dims, 1, [&](long long d) {
      const float v = p[d] - c[d];
      s += v * v;
    });
    return s;
  }
};
extern "C" __global__ void streamcluster_nested(NEST_ARGS) {
  NEST_TEAM;
  occ::fj::run<ClusterRegion>(team, [&](occ::fj::Master<ClusterRegion>& m) {
    MASTER_LOOP(i) {
      ClusterRegion r{fa + (size_t)i * inner, fb, inner};
      const float cost = m.parallel_sum(m.max_threads(), r);
      fout[i] = cost;
      atomicAdd(dacc, (double)cost);  // the outer atomic: once per point, by the master
    }
  });
}

// ---- 5. bfs-like: one level's neighbour scan over a CSR graph (short inner loops) ----------
// level(u): -1 unvisited, 0 the frontier, 1 visited; a frontier node marks its unvisited
// neighbours in iout (a constant store: the result does not depend on the order).
__device__ __forceinline__ int bfs_level(int u) {
  unsigned h = (unsigned)u * 2654435761u;
  return (int)((h >> 13) % 3u) - 1;
}
extern "C" __global__ void bfs_spmd(NEST_ARGS) {
  SPMD_LOOP(u) {
    if (bfs_level(u) != 0) continue;
    for (int e = ia[u]; e < ia[u + 1]; ++e) {
      const int v = ib[e];
      if (bfs_level(v) == -1) iout[v] = 1;
    }
  }
}
struct BfsRegion {
  const int* cols;
  int* next;
  int b, e;
  __device__ void operator()(occ::fj::Thread& t) const {
    t.for_static_chunk_nowait(b, e, 1, [&](long long k) {
      const int v = cols[k];
      if (bfs_level(v) == -1) next[v] = 1;
    });
  }
};
extern "C" __global__ void bfs_nested(NEST_ARGS) {
  NEST_TEAM;
  occ::fj::run<BfsRegion>(team, [&](occ::fj::Master<BfsRegion>& m) {
    MASTER_LOOP(u) {
      if (bfs_level(u) != 0) continue;
      BfsRegion r{ib, iout, ia[u], ia[u + 1]};
      m.parallel_if(r.e - r.b >= 32, m.max_threads(), r);
    }
  });
}
// Adaptive: one region per chunk of outer iterations (blockDim - 32 nodes); each worker
// thread scans one node's neighbours.
struct BfsChunk {
  const int *rows, *cols;
  int* next;
  int first, last;
  __device__ void operator()(occ::fj::Thread& t) const {
    t.for_static_chunk_nowait(first, last, 1, [&](long long u) {
      if (bfs_level((int)u) != 0) return;
      for (int e = rows[u]; e < rows[u + 1]; ++e) {
        const int v = cols[e];
        if (bfs_level(v) == -1) next[v] = 1;
      }
    });
  }
};
extern "C" __global__ void bfs_adaptive(NEST_ARGS) {
  NEST_TEAM;
  occ::fj::run<BfsChunk>(team, [&](occ::fj::Master<BfsChunk>& m) {
    const int chunk = (int)m.max_threads();
    for (int f = blockIdx.x * chunk; f < outer; f += gridDim.x * chunk) {
      BfsChunk r{ia, ib, iout, f, min(f + chunk, outer)};
      m.parallel(m.max_threads(), r);
    }
  });
}

// ---- 6. kmeans-like: nearest of 5 centres in 8 features (inner loop of 5) ------------------
__device__ __forceinline__ float km_dist(const float* p, const float* c) {
  float s = 0.f;
#pragma unroll
  for (int f = 0; f < 8; ++f) {
    const float v = p[f] - c[f];
    s += v * v;
  }
  return s;
}
extern "C" __global__ void kmeans_spmd(NEST_ARGS) {
  SPMD_LOOP(i) {
    int best = 0;
    float bd = km_dist(fa + (size_t)i * 8, fb);
    for (int c = 1; c < inner; ++c) {
      const float d = km_dist(fa + (size_t)i * 8, fb + c * 8);
      if (d < bd) { bd = d; best = c; }
    }
    iout[i] = best;
  }
}
struct KmeansRegion {
  const float *p, *cs;
  int k, best;
  __device__ void operator()(occ::fj::Thread& t) {
    // Each thread takes centres; the nearest is a min-reduction of (distance, index) packed
    // into a 64-bit key (non-negative floats order like their bits).
    unsigned long long key = ~0ull;
    t.for_static_nowait(0, k, [&](long long c) {
      const float d = km_dist(p, cs + c * 8);
      const unsigned long long kk =
          ((unsigned long long)__float_as_uint(d) << 32) | (unsigned long long)c;
      if (kk < key) key = kk;
    });
    key = t.reduce_min(key);
    t.master([&] { best = (int)(key & 0xffffffffu); });
  }
};
extern "C" __global__ void kmeans_nested(NEST_ARGS) {
  NEST_TEAM;
  occ::fj::run<KmeansRegion>(team, [&](occ::fj::Master<KmeansRegion>& m) {
    MASTER_LOOP(i) {
      KmeansRegion r{fa + (size_t)i * 8, fb, inner, 0};
      m.parallel_if(inner >= 32, inner, r);
      iout[i] = r.best;
    }
  });
}
struct KmeansChunk {
  const float *ps, *cs;
  int* member;
  int first, last, k;
  __device__ void operator()(occ::fj::Thread& t) const {
    t.for_static_chunk_nowait(first, last, 1, [&](long long i) {
      int best = 0;
      float bd = km_dist(ps + i * 8, cs);
      for (int c = 1; c < k; ++c) {
        const float d = km_dist(ps + i * 8, cs + c * 8);
        if (d < bd) { bd = d; best = c; }
      }
      member[i] = best;
    });
  }
};
extern "C" __global__ void kmeans_adaptive(NEST_ARGS) {
  NEST_TEAM;
  occ::fj::run<KmeansChunk>(team, [&](occ::fj::Master<KmeansChunk>& m) {
    const int chunk = (int)m.max_threads();
    for (int f = blockIdx.x * chunk; f < outer; f += gridDim.x * chunk) {
      KmeansChunk r{fa, fb, iout, f, min(f + chunk, outer), inner};
      m.parallel(m.max_threads(), r);
    }
  });
}

// ---- 7. particlefilter-like: a likelihood over 64 pixels per particle (inner reduction) ----
__device__ __forceinline__ float pf_term(int v) {
  const float a = (float)(v - 100), b = (float)(v - 228);
  return (a * a - b * b) / 50.0f;
}
extern "C" __global__ void particlefilter_spmd(NEST_ARGS) {
  SPMD_LOOP(i) {
    float s = 0.f;
    for (int j = 0; j < inner; ++j) s += pf_term(ia[(ib[i] + j * 97) & ((1 << 20) - 1)]);
    fout[i] = s / (float)inner;
  }
}
struct PfRegion {
  const int* img;
  int base, n;
  __device__ float operator()(occ::fj::Thread& t) const {
    float s = 0.f;
    t.for_static_chunk_nowait(0, n, 1, [&](long long j) {
      s += pf_term(img[(base + (int)j * 97) & ((1 << 20) - 1)]);
    });
    return s;
  }
};
extern "C" __global__ void particlefilter_nested(NEST_ARGS) {
  NEST_TEAM;
  occ::fj::run<PfRegion>(team, [&](occ::fj::Master<PfRegion>& m) {
    MASTER_LOOP(i) {
      PfRegion r{ia, ib[i], inner};
      fout[i] = m.parallel_sum(inner < (int)m.max_threads() ? inner : m.max_threads(), r) /
                (float)inner;
    }
  });
}
struct PfChunk {
  const int *img, *bases;
  float* out;
  int first, last, n;
  __device__ void operator()(occ::fj::Thread& t) const {
    t.for_static_chunk_nowait(first, last, 1, [&](long long i) {
      float s = 0.f;
      for (int j = 0; j < n; ++j) s += pf_term(img[(bases[i] + j * 97) & ((1 << 20) - 1)]);
      out[i] = s / (float)n;
    });
  }
};
extern "C" __global__ void particlefilter_adaptive(NEST_ARGS) {
  NEST_TEAM;
  occ::fj::run<PfChunk>(team, [&](occ::fj::Master<PfChunk>& m) {
    const int chunk = (int)m.max_threads();
    for (int f = blockIdx.x * chunk; f < outer; f += gridDim.x * chunk) {
      PfChunk r{ia, ib, fout, f, min(f + chunk, outer), inner};
      m.parallel(m.max_threads(), r);
    }
  });
}

// ---- 8. pbt-like: a large loop body (5x5 matrix products) per inner iteration -------------
__device__ float pbt_body(const float* seed, int o, int i) {
  float a[25], b[25];
#pragma unroll
  for (int k = 0; k < 25; ++k) {
    a[k] = seed[k] + 0.001f * (float)i;
    b[k] = seed[24 - k] - 0.002f * (float)(o & 7);
  }
  float s = 0.f;
  for (int rep = 0; rep < 4; ++rep) {
    float c[25];
#pragma unroll
    for (int r = 0; r < 5; ++r)
#pragma unroll
      for (int q = 0; q < 5; ++q) {
        float v = 0.f;
#pragma unroll
        for (int k = 0; k < 5; ++k) v += a[r * 5 + k] * b[k * 5 + q];
        c[r * 5 + q] = v * 0.2f;
      }
#pragma unroll
    for (int k = 0; k < 25; ++k) a[k] = c[k];
  }
#pragma unroll
  for (int k = 0; k < 25; ++k) s += a[k];
  return s;
}
extern "C" __global__ void pbt_spmd(NEST_ARGS) {
  SPMD_LOOP(o) {
    for (int i = 0; i < inner; ++i) fout[(size_t)o * inner + i] = pbt_body(fa + (o % 64) * 25, o, i);
  }
}
struct PbtRegion {
  const float* seed;
  float* out;
  int o, n;
  __device__ void operator()(occ::fj::Thread& t) const {
    t.for_static_chunk_nowait(0, n, 1, [&](long long i) { out[i] = pbt_body(seed, o, (int)i); });
  }
};
extern "C" __global__ void pbt_nested(NEST_ARGS) {
  NEST_TEAM;
  occ::fj::run<PbtRegion>(team, [&](occ::fj::Master<PbtRegion>& m) {
    MASTER_LOOP(o) {
      PbtRegion r{fa + (o % 64) * 25, fout + (size_t)o * inner, o, inner};
      m.parallel(m.max_threads(), r);
    }
  });
}

// ---- 9. haccmk-like: a short-range force on each particle from every other (reduction) ----
__device__ __forceinline__ float hacc_term(float xi, float xj, float mj) {
  const float r = xj - xi;
  const float r2 = r * r + 0.01f;
  return mj * r * rsqrtf(r2 * r2 * r2);
}
extern "C" __global__ void haccmk_spmd(NEST_ARGS) {
  SPMD_LOOP(i) {
    const float xi = fa[(size_t)i * 20 % inner];
    float s = 0.f;
    for (int j = 0; j < inner; ++j) s += hacc_term(xi, fa[j], fb[j]);
    fout[i] = s;
  }
}
struct HaccRegion {
  const float *x, *m;
  float xi;
  int n;
  __device__ float operator()(occ::fj::Thread& t) const {
    float s = 0.f;
    t.for_static_chunk_nowait(0, n, 1, [&](long long j) { s += hacc_term(xi, x[j], m[j]); });
    return s;
  }
};
extern "C" __global__ void haccmk_nested(NEST_ARGS) {
  NEST_TEAM;
  occ::fj::run<HaccRegion>(team, [&](occ::fj::Master<HaccRegion>& m) {
    MASTER_LOOP(i) {
      HaccRegion r{fa, fb, fa[(size_t)i * 20 % inner], inner};
      fout[i] = m.parallel_sum(m.max_threads(), r);
    }
  });
}

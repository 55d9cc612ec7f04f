#line 1 "bc.cu"
// occupant: fragment (compiled only after graph_apps.cu, as GRAPH_APPS_CU; tests/nvrtc_apps.rs compiles it)
// occupant-apps: bc, Brandes betweenness centrality from one source (Pannotia's two kernels as
// steps, as the CPU backend's apps/cpu/bc.rs). Compiled after graph_apps.cu in one program
// (GRAPH_APPS_CU): it uses that file's Graph, Grid, tile_edges / heavy_edges, flags and device
// loop, and is wrapped the same four ways (bc_step, bc_persistent, bc_occupancy,
// bc_cooperative).
//
// Step s while the forward phase runs expands BFS level s: every edge u -> v with level[u] == s
// and v at level s + 1 (found now, or already) adds sigma[u] to sigma[v] (f64 atomic add). The
// first step s whose predecessor s - 1 found nothing starts the backward phase: the deepest
// level is F = s - 1, and steps F + 1 ... 2F compute the dependencies of levels F - 1 ... 0,
// step s level l = 2F - s: for every edge u -> v with level[u] == l and level[v] == l + 1,
//   delta[u] += sigma[u] * (1 + delta[v]) * inv[v]          (Brandes: sigma[u] / sigma[v] * ...)
// (an f64 atomic add per edge of a light u, as in the forward steps; one per chunk and owner of
// a heavy u), where inv[v] = 1 / sigma[v] was stored in forward step level[v]. 2F + 1 steps in
// all (1 when the source has no successor).
//
// bcctl (its own 64 words): bcctl[s % 3] is set when step s found a new vertex (cleared in step
// s - 2, as the "changed" flags); bcctl[kBcEnd] = F + 1 once the forward phase has ended
// (0 before). ctl[s % 3] (the flag every loop reads) says whether another step follows: forward
// steps s > 0 always continue (into the backward phase at the latest), step 0 only if it found
// a vertex, backward steps while l > 0.

enum : u32 { kBcEnd = 32u };

struct BcForward {
  const u32* col;
  u32* level;
  double* sigma;
  double* inv;
  u32 s;
  bool found;
  /// Every tile vertex, once per forward step: a vertex of level s has its final path count
  /// now; its reciprocal (the backward steps' divisor) is stored here, one division per vertex
  /// instead of one per edge in the backward loop (which would cost the kernels 12 registers).
  __device__ void each(u32 u) const {
    if (load_volatile(level + u) == s) {
      ((volatile double*)inv)[u] = 1.0 / *(const volatile double*)(sigma + u);
    }
  }
  __device__ bool active(u32 u) const { return load_volatile(level + u) == s; }
  __device__ double value(u32 u) const { return *(const volatile double*)(sigma + u); }
  __device__ void edge(u32, u32 e, double su) {
    const u32 v = col[e];
    const u32 lv = load_volatile(level + v);
    if (lv == OCC_APP_INF) {
      ((volatile u32*)level)[v] = s + 1u;  // every writer writes the same value
      found = true;
    }
    if (lv == OCC_APP_INF || lv == s + 1u) atomicAdd(sigma + v, su);
  }
};

/// The backward step of level l: delta[u] = sigma[u] * (sum of term(e) over u's edges).
struct BcBackward {
  const u32* col;
  const u32* level;
  const double* sigma;
  const double* inv;
  const double* delta;
  u32 l;
  __device__ bool active(u32 u) const { return load_volatile(level + u) == l; }
  __device__ double scale(u32 u) const { return *(const volatile double*)(sigma + u); }
  /// (1 + delta[v]) / sigma[v] for a successor v (level l + 1), else 0.
  __device__ double term(u32 e) const {
    const u32 v = col[e];
    if (load_volatile(level + v) != l + 1u) return 0.0;
    return (1.0 + *(const volatile double*)(delta + v)) * *(const volatile double*)(inv + v);
  }
};

/// The backward step's edges of light vertices: every term, times sigma[u], added to
/// delta[u] (f64 atomic add: delta[u] starts at 0), warp-cooperatively as tile_edges.
struct BcBackwardEdge {
  BcBackward op;
  double* delta;
  __device__ bool active(u32 u) const { return op.active(u); }
  __device__ double value(u32 u) const { return op.scale(u); }
  __device__ void edge(u32 u, u32 e, double su) {
    const double t = op.term(e);
    if (t != 0.0) atomicAdd(delta + u, su * t);
  }
};

/// The same for heavy vertices: every chunk's partial sums (two owners at most), times
/// op.scale, are added to out[u] atomically (out[u] starts at 0).
template <class Op>
__device__ __forceinline__ void heavy_sums(const Graph& g, Grid gr, const Op& op, double* out) {
  if (g.nh == 0u) return;
  const u32 lane = lane_id();
  const u32 warp = gr.tid >> 5, nwarps = gr.nthreads >> 5;
  const u32 total = g.hoff[g.nh];
  const u32 chunks = (total + kChunk - 1u) / kChunk;
  for (u32 c = warp; c < chunks; c += nwarps) {
    const HeavyChunk h = heavy_chunk(g, c, total);
    const u32 u0 = h.u0, u1 = h.u1;
    const bool a0 = op.active(u0);
    const bool a1 = h.two && op.active(u1);
    if (!a0 && !a1) continue;
    const u32 s0 = g.off[u0], s1 = g.off[u1];
    double x0 = 0.0, x1 = 0.0;
    for (u32 k = h.first + lane; k < h.last; k += 32u) {
      if (k < h.end0) {
        if (a0) x0 += op.term(s0 + (k - h.base0));
      } else if (a1) {
        x1 += op.term(s1 + (k - h.end0));
      }
    }
#pragma unroll
    for (u32 s = 16u; s != 0u; s >>= 1) {
      x0 += __shfl_down_sync(OCC_APP_FULL, x0, s);
      x1 += __shfl_down_sync(OCC_APP_FULL, x1, s);
    }
    if (lane == 0u) {
      if (a0 && x0 != 0.0) atomicAdd(out + u0, op.scale(u0) * x0);
      if (a1 && x1 != 0.0) atomicAdd(out + u1, op.scale(u1) * x1);
    }
  }
}

/// One step of bc (forward or backward, decided from bcctl as the header says).
__device__ __forceinline__ void bc_phase(const Graph& g, Grid gr, u32* level, double* sigma,
                                         double* inv, double* delta, u32* bcctl, u32* ctl, u32 s) {
  clear_next(gr, ctl, s);
  clear_next(gr, bcctl, s);
  u32 end = load_volatile(bcctl + kBcEnd);
  if (end == 0u && s > 0u && load_volatile(bcctl + (s - 1u) % 3u) == 0u) {
    // Step s - 1 found nothing: every thread of this step concludes the same.
    end = s;
    if (gr.tid == 0u) ((volatile u32*)bcctl)[kBcEnd] = s;
  }
  if (end == 0u) {
    BcForward op = {g.col, level, sigma, inv, s, false};
    tile_edges<double>(g, gr, op);  // with op.each
    heavy_edges<double>(g, gr, op);
    flag_changed(bcctl, s % 3u, op.found);
    flag_changed(ctl, s % 3u, op.found || (s > 0u && gr.tid == 0u));
  } else {
    const u32 l = 2u * (end - 1u) - s;
    const BcBackward op = {g.col, level, sigma, inv, delta, l};
    BcBackwardEdge light = {op, delta};
    tile_edges<double>(g, gr, light);
    heavy_sums(g, gr, op, delta);
    if (l > 0u && gr.tid == 0u) ((volatile u32*)ctl)[s % 3u] = 1u;
  }
}

extern "C" __global__ void bc_step(GRAPH_PARAMS, u32* level, double* sigma, double* inv,
                                   double* delta, u32* bcctl, u32* ctl, u32 it_param) {
  MAKE_GRAPH;
  u32 it;
  if (!host_iteration(ctl, it_param, it)) return;
  bc_phase(g, launch_grid(), level, sigma, inv, delta, bcctl, ctl, it);
}

#ifndef OCC_APP_HOST_LOOP
#define P_BC                                                                             \
  (GRAPH_PARAMS, u32* level, double* sigma, double* inv, double* delta, u32* bcctl, u32* ctl, \
   u32 max_iterations)
#define O_BC                                                                            \
  (u32* barrier_state, GRAPH_PARAMS, u32* level, double* sigma, double* inv, double* delta, \
   u32* bcctl, u32* ctl, u32 max_iterations)
OCC_APP_KERNELS(bc, P_BC, O_BC, {
  MAKE_GRAPH;
  device_loop(s, ctl, max_iterations, 1u,
              [&](Grid gr, u32 it, u32) {
                bc_phase(g, gr, level, sigma, inv, delta, bcctl, ctl, it);
              },
              FlagClear{ctl});
})
#endif  // OCC_APP_HOST_LOOP

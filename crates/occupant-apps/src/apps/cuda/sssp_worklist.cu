#line 1 "sssp_worklist.cu"
// occupant: fragment (compiled only after graph_apps.cu, as GRAPH_APPS_CU; tests/nvrtc_apps.rs compiles it)
// occupant-apps: sssp-worklist, Lonestar-style SSSP (as the CPU backend's apps/cpu/worklist.rs).
// Compiled after graph_apps.cu in one program (GRAPH_APPS_CU), wrapped the same four ways
// (sssp_worklist_step, _persistent, _occupancy, _cooperative).
//
// Step s relaxes the out-edges of the vertices in its input worklist (step 0: the source) with
// the distances they have when read; a vertex v whose distance drops (atomicMin) is pushed into
// the output worklist once per step (q[(s + 1) % 2][v] swapped to s + 1), at a slot taken with
// one atomicAdd per warp and round (warp-aggregated). The run ends after the first step that
// pushed nothing.
//
// Lists: wl holds two lists of n vertices; step s reads list s % 2 and writes list (s + 1) % 2.
// Counts: the output count of step s is ctl[s % 3], i.e. the "changed" flag every loop reads
// (clear_next clears ctl[(s + 1) % 3] in step s, after its last read as step s - 2's output
// in step s - 1); step s > 0 reads its input count from ctl[(s - 1) % 3].
// Load balance as every app: a warp takes 32 list entries and expands the edges of the light
// ones cooperatively; heavy vertices (degree > heavy_deg) are pushed like the others but their
// edges are split over the grid in chunks: a chunk's vertex is in step s's list when
// q[s % 2][u] == s (written only in step s - 1, so the test is race-free).

/// Pushes v (where push) into list[count++] with one atomicAdd per warp. Every lane calls it.
__device__ __forceinline__ void warp_push(u32* list, u32* count, bool push, u32 v) {
  const u32 mask = __ballot_sync(OCC_APP_FULL, push);
  if (mask == 0u) return;
  const u32 lane = lane_id();
  const u32 leader = __ffs(mask) - 1u;
  u32 base = 0u;
  if (lane == leader) base = atomicAdd(count, __popc(mask));
  base = __shfl_sync(OCC_APP_FULL, base, leader);
  if (push) ((volatile u32*)list)[base + __popc(mask & ((1u << lane) - 1u))] = v;
}

struct WlRelax {
  const u32* col;
  const u32* wt;
  u64* dist;
  u32* q_next;  // q[(s + 1) % 2]
  u32 next;     // s + 1
  /// Relaxes edge e of a vertex at distance du; returns whether its target is to be pushed.
  __device__ bool relax(u32 e, u64 du, u32& v) const {
    v = col[e];
    const u64 nd = du + (u64)wt[e];
    if (nd >= *(const volatile u64*)(dist + v)) return false;
    if (atomicMin(dist + v, nd) <= nd) return false;
    return atomicExch(q_next + v, next) != next;
  }
};

__device__ __forceinline__ void sssp_worklist_phase(const Graph& g, Grid gr, u64* dist, u32* wl,
                                                    u32* q, u32 source, u32* ctl, u32 s) {
  clear_next(gr, ctl, s);
  const u32 lane = lane_id();
  const u32 warp = gr.tid >> 5, nwarps = gr.nthreads >> 5;
  const u32* in = wl + (size_t)(s & 1u) * g.n;
  u32* out = wl + (size_t)((s + 1u) & 1u) * g.n;
  u32* count = ctl + s % 3u;
  const u32* q_cur = q + (size_t)(s & 1u) * g.n;
  const WlRelax op = {g.col, g.wt, dist, q + (size_t)((s + 1u) & 1u) * g.n, s + 1u};
  u32 len;
  if (s == 0u) {
    len = source < g.n ? 1u : 0u;
  } else {
    len = 0u;
    if (lane == 0u) len = load_volatile(ctl + (s - 1u) % 3u);
    len = __shfl_sync(OCC_APP_FULL, len, 0);
  }
  // Light list entries, 32 per warp, edges expanded cooperatively (as tile_edges).
  const u32 tiles = (len + 31u) >> 5;
  for (u32 t = warp; t < tiles; t += nwarps) {
    const u32 i = (t << 5) + lane;
    u32 u = 0u, start = 0u, deg = 0u;
    u64 du = 0u;
    if (i < len) {
      u = s == 0u ? source : load_volatile(in + i);
      start = g.off[u];
      deg = g.off[u + 1u] - start;
      if (deg > g.heavy_deg) deg = 0u;
      else if (deg != 0u) du = *(const volatile u64*)(dist + u);
    }
    warp_expand<u64>(lane, start, deg, du, [&](u32, u32 e, u64 dj, bool valid) {
      u32 v = 0u;
      const bool push = valid && op.relax(e, dj, v);
      warp_push(out, count, push, v);
    });
  }
  // Heavy vertices in the list: their edges in chunks over every warp of the grid.
  if (g.nh == 0u || len == 0u) return;
  const u32 htotal = g.hoff[g.nh];
  const u32 chunks = (htotal + kChunk - 1u) / kChunk;
  for (u32 c = warp; c < chunks; c += nwarps) {
    const HeavyChunk h = heavy_chunk(g, c, htotal);
    const u32 u0 = h.u0, u1 = h.u1;
    const bool a0 = load_volatile(q_cur + u0) == s;
    const bool a1 = h.two && load_volatile(q_cur + u1) == s;
    if (!a0 && !a1) continue;
    const u64 d0 = a0 ? *(const volatile u64*)(dist + u0) : 0u;
    const u64 d1 = a1 ? *(const volatile u64*)(dist + u1) : 0u;
    const u32 s0 = g.off[u0], s1 = g.off[u1];
    for (u32 kb = h.first; kb < h.last; kb += 32u) {
      const u32 k = kb + lane;
      u32 v = 0u;
      bool push = false;
      if (k < h.last) {
        if (k < h.end0) {
          if (a0) push = op.relax(s0 + (k - h.base0), d0, v);
        } else if (a1) {
          push = op.relax(s1 + (k - h.end0), d1, v);
        }
      }
      warp_push(out, count, push, v);
    }
  }
}

extern "C" __global__ void sssp_worklist_step(GRAPH_PARAMS, u64* dist, u32* wl, u32* q,
                                              u32 source, u32* ctl, u32 it_param) {
  MAKE_GRAPH;
  u32 it;
  if (!host_iteration(ctl, it_param, it)) return;
  sssp_worklist_phase(g, launch_grid(), dist, wl, q, source, ctl, it);
}

#ifndef OCC_APP_HOST_LOOP
#define P_WL (GRAPH_PARAMS, u64* dist, u32* wl, u32* q, u32 source, u32* ctl, u32 max_iterations)
#define O_WL                                                                             \
  (u32* barrier_state, GRAPH_PARAMS, u64* dist, u32* wl, u32* q, u32 source, u32* ctl, \
   u32 max_iterations)
OCC_APP_KERNELS(sssp_worklist, P_WL, O_WL, {
  MAKE_GRAPH;
  device_loop(s, ctl, max_iterations, 1u,
              [&](Grid gr, u32 it, u32) {
                sssp_worklist_phase(g, gr, dist, wl, q, source, ctl, it);
              },
              FlagClear{ctl});
})
#endif  // OCC_APP_HOST_LOOP

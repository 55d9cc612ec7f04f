// occupant-apps: the CUDA graph applications (bfs, sssp, cc, pagerank, color, mis), one kernel body per
// phase, wrapped four ways (issue 10, "Variants"):
//   <app>_step*        one phase per launch, the host loop (multi-kernel), a replayed CUDA graph
//                      (graph: pass it = 0xffffffff, the iteration is read from ctl[kIter]) or
//                      the body of a CUDA graph WHILE node (graph-while, -DOCC_APP_GRAPH_WHILE),
//   <app>_persistent   occ::PersistentKernel: discovery + the device's default barrier,
//   <app>_occupancy    the occupancy API's grid and the same barrier without discovery,
//   <app>_cooperative  cuLaunchCooperativeKernel + cooperative_groups grid.sync()
//                      (only with -DOCC_APP_COOPERATIVE: it needs the CUDA toolkit's headers).
// With -DOCC_APP_HOST_LOOP only the host-loop kernels are compiled, without the occupant device
// library, so that their launches pay for no watchdog.
//
// Load balance (the same in every variant): vertices are processed in tiles of 32 by one warp,
// which expands the edges of its active vertices cooperatively (a warp prefix sum over the
// degrees, then 32 edges per round, each lane finding its edge's owner by a binary search over
// the prefix sums held in registers); vertices of degree > heavy_deg are left out of the tiles
// and their edges are split over every warp of the grid in chunks of kChunk edges. Warps take
// the chunks and then the tiles grid-stride (phase_edges: heavy first); a multi-kernel launch has
// one warp per tile. (pagerank's device
// loops take contiguous tile ranges of equal cost instead: see pr_phase0.)
//
// Iteration control: ctl[0..3] are "changed" flags, ctl[it % 3] is set in iteration it, read
// after the iteration's barrier (or launch), and ctl[(it + 1) % 3] is cleared during iteration
// it (after every read of it in iteration it - 2 and before any write in it + 1): one barrier
// per phase and no extra reset. ctl[kIter], ctl[kDone], ctl[kIters] (words 32-34): the graph
// variants' device-side iteration count (app_advance), and every device loop's iteration count.
// ctl[kClaim + it % 3] (words 64-66, a line of their own): the dynamic tiles' claim counters
// (claim_grid), cleared as the flags are.

typedef unsigned int u32;
typedef unsigned long long u64;

#define OCC_APP_FULL 0xffffffffu
#define OCC_APP_INF 0xffffffffu

// The iteration words sit on their own 128-byte line, away from the flags that every warp may
// write during a phase (the graph variant's kernels read kIter / kDone in every thread).
enum : u32 { kIter = 32, kDone = 33, kIters = 34, kClaim = 64, kCtlWords = 96 };
enum : u32 { kChunk = 256 };
struct Graph {
  const u32* off;   // n + 1 row offsets
  const u32* col;   // targets
  const u32* wt;    // weights (sssp) or unused
  const u32* hv;    // heavy vertices (degree > heavy_deg), nh of them
  const u32* hoff;  // nh + 1 prefix sums of their degrees
  const u32* hchunk;  // per chunk of kChunk heavy edge slots: the heavy vertex of its first slot
  u32 n;
  u32 nh;
  u32 heavy_deg;
};

struct Grid {
  u32 tid;       // global thread id among the participants
  u32 nthreads;  // participating threads (a multiple of 32)
  // True in the device loops, whose bfs/sssp/cc phases then take the tiles past the first sweep
  // in chunks claimed from a per-iteration counter on graphs with heavy vertices (claim_grid).
  bool dynamic = false;
  u32* claim = nullptr;  // this iteration's counter (set by the phase)
};

#define GRAPH_PARAMS \
  const u32 *off, const u32 *col, const u32 *wt, const u32 *hv, const u32 *hoff,             \
      const u32 *hchunk, u32 n, u32 nh, u32 heavy_deg
#define GRAPH_ARGS off, col, wt, hv, hoff, hchunk, n, nh, heavy_deg
#define MAKE_GRAPH const Graph g = make_graph(GRAPH_ARGS)

__device__ __forceinline__ Graph make_graph(GRAPH_PARAMS) {
  const Graph g = {off, col, wt, hv, hoff, hchunk, n, nh, heavy_deg};
  return g;
}

__device__ __forceinline__ u32 lane_id() { return threadIdx.x & 31u; }

__device__ __forceinline__ u32 load_volatile(const u32* p) { return *(const volatile u32*)p; }

__device__ __forceinline__ Grid launch_grid() {
  Grid g = {blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x};
  return g;
}

/// Sets ctl[slot] when any thread of the block saw a change: one store per block (bar.red.or),
/// so every thread of the block must call it. (One store per warp — 8448 stores to one line
/// per phase at full occupancy — made stencil cc 1.5x slower in every variant: 36 vs 24 ms on
/// an H100, bench/results/nvidia-h100/apps/i10-trace/run5-flag.)
__device__ __forceinline__ void flag_changed(u32* ctl, u32 slot, bool changed) {
  if (__syncthreads_or(changed) != 0 && threadIdx.x == 0u) ((volatile u32*)ctl)[slot] = 1u;
}

/// Clears the flag of the next iteration (global thread 0).
__device__ __forceinline__ void clear_next(Grid gr, u32* ctl, u32 it) {
  if (gr.tid == 0u) ((volatile u32*)ctl)[(it + 1u) % 3u] = 0u;
}

/// The Grid of iteration it's edge phase (bfs/sssp/cc, and colour/MIS's phase 0; one claimed
/// phase per iteration). Dynamic tiles (device loops, on graphs with heavy
/// vertices: skewed degrees, where tiles differ most in cost): iteration it claims from
/// ctl[kClaim + it % 3], and global thread 0 clears the next iteration's counter (as clear_next
/// clears its flag: last used two barriers ago, next used after this one). Measured on an H100
/// (bench/results/nvidia-h100/apps/i10-balance): chunks of 8 tiles beat grid-stride on rmat-22 and
/// ba-4M sssp / cc by 1-9 %; chunks of 1 cost 25-33 % (one counter's atomics); the graphs
/// without heavy vertices (grids, meshes: equal tiles, iterations of 8-50 us) keep grid-stride.
/// -DOCC_APP_STATIC_TILES: grid-stride everywhere.
__device__ __forceinline__ Grid claim_grid(const Graph& g, Grid gr, u32* ctl, u32 it) {
#ifndef OCC_APP_STATIC_TILES
  if (gr.dynamic && g.nh != 0u) {
    gr.claim = ctl + kClaim + it % 3u;
    if (gr.tid == 0u) ((volatile u32*)ctl)[kClaim + (it + 1u) % 3u] = 0u;
  }
#endif
  return gr;
}

#ifndef OCC_APP_CLAIM_TILES
#define OCC_APP_CLAIM_TILES 8
#endif
/// The warp's tile after t: with a claim counter, the first sweep's tile (warp) and then chunks
/// of OCC_APP_CLAIM_TILES tiles past the first nwarps claimed from it (`left`: tiles still to
/// take of the current chunk); otherwise grid-stride, or with -DOCC_APP_SERPENTINE sweep k
/// taking tile k * nwarps + warp, reversed on odd sweeps (a degree trend along the ids then
/// falls on every warp alike). Warp-uniform.
__device__ __forceinline__ u32 next_tile(const Grid& gr, u32 t, u32 warp, u32 nwarps, u32 sweep,
                                         u32& left) {
#ifndef OCC_APP_STATIC_TILES
  if (gr.claim != nullptr) {
    if (left != 0u) {
      --left;
      return t + 1u;
    }
    u32 c = 0u;
    if (lane_id() == 0u) c = atomicAdd(gr.claim, 1u);
    c = __shfl_sync(OCC_APP_FULL, c, 0);
    left = OCC_APP_CLAIM_TILES - 1u;
    return nwarps + c * OCC_APP_CLAIM_TILES;
  }
#endif
#ifdef OCC_APP_SERPENTINE
  return sweep * nwarps + ((sweep & 1u) != 0u ? nwarps - 1u - warp : warp);
#else
  (void)sweep;
  (void)left;
  return t + nwarps;
#endif
}

/// The edges of a warp's 32 entries (lane l holds the edges start .. start + deg of its entry,
/// with the value val), expanded cooperatively, 32 edges per round: every lane calls
/// f(j, e, val_j, valid) once per round, with j the entry owning edge e (found by a binary
/// search over the warp's exclusive prefix sum of the degrees) and valid false past the last
/// edge. Every lane of the warp must call it (the shuffles are warp-wide), and so may f.
template <class T, class F>
__device__ __forceinline__ void warp_expand(u32 lane, u32 start, u32 deg, T val, F&& f) {
  u32 incl = deg;
#pragma unroll
  for (u32 s = 1u; s < 32u; s <<= 1) {
    const u32 x = __shfl_up_sync(OCC_APP_FULL, incl, s);
    if (lane >= s) incl += x;
  }
  const u32 total = __shfl_sync(OCC_APP_FULL, incl, 31);
  const u32 excl = incl - deg;
  for (u32 base = 0u; base < total; base += 32u) {
    const u32 k = base + lane;
    u32 j = 0u;
#pragma unroll
    for (u32 s = 16u; s != 0u; s >>= 1) {
      const u32 e = __shfl_sync(OCC_APP_FULL, excl, j + s);
      if (e <= k) j += s;
    }
    const u32 ej = __shfl_sync(OCC_APP_FULL, excl, j);
    const u32 sj = __shfl_sync(OCC_APP_FULL, start, j);
    const T vj = __shfl_sync(OCC_APP_FULL, val, j);
    f(j, sj + (k - ej), vj, k < total);
  }
}

/// op.each(v), for the ops that have it (bc's forward step); nothing for the others.
template <class Op>
__device__ __forceinline__ auto tile_each(Op& op, u32 v, int) -> decltype(op.each(v), void()) {
  op.each(v);
}
template <class Op>
__device__ __forceinline__ void tile_each(Op&, u32, long) {}

/// Visits every edge (u, e) of every vertex u of tile t with active(u) and degree <= heavy_deg,
/// warp-cooperatively. Op: bool active(u32 u); T value(u32 u); void edge(u32 u, u32 e, T val);
/// optionally void each(u32 v), called first for every tile vertex v < n.
/// Every lane of the warp must call it (the shuffles are warp-wide).
template <class T, class Op>
__device__ __forceinline__ void one_tile(const Graph& g, u32 t, u32 lane, Op& op) {
  const u32 v = (t << 5) + lane;
  u32 start = 0u, deg = 0u;
  T val = T();
  if (v < g.n) {
    tile_each(op, v, 0);
    start = g.off[v];
    deg = g.off[v + 1u] - start;
    if (deg > g.heavy_deg || deg == 0u || !op.active(v)) {
      deg = 0u;
    } else {
      val = op.value(v);
    }
  }
  warp_expand<T>(lane, start, deg, val, [&](u32 j, u32 e, T vj, bool valid) {
    if (valid) op.edge((t << 5) + j, e, vj);
  });
}

/// one_tile for every tile of the graph, split over the grid's warps by next_tile.
template <class T, class Op>
__device__ __forceinline__ void tile_edges(const Graph& g, Grid gr, Op& op) {
  const u32 lane = lane_id();
  const u32 warp = gr.tid >> 5, nwarps = gr.nthreads >> 5;
  const u32 tiles = (g.n + 31u) >> 5;
  u32 left = 0u, sweep = 0u;
  for (u32 t = warp; t < tiles; t = next_tile(gr, t, warp, nwarps, ++sweep, left)) {
    one_tile<T>(g, t, lane, op);
  }
}

/// Chunk c of the heavy vertices' edge slots (kChunk slots each; total = hoff[nh]): slots
/// first .. last, owned by heavy vertex u0 below end0 and by u1 from there (a chunk spans at most
/// two heavy vertices: heavy_deg >= kChunk; u1 == u0 when two is false). Slot k < end0 is edge
/// off[u0] + (k - base0) of u0, slot k >= end0 edge off[u1] + (k - end0) of u1.
struct HeavyChunk {
  u32 first, last, base0, end0, u0, u1;
  bool two;
};

__device__ __forceinline__ HeavyChunk heavy_chunk(const Graph& g, u32 c, u32 total) {
  HeavyChunk h;
  h.first = c * kChunk;
  h.last = h.first + kChunk < total ? h.first + kChunk : total;
  // hchunk[c]: the heavy vertex holding edge slot c * kChunk (the last h with hoff[h] <= it).
  const u32 h0 = g.hchunk[c];
  h.base0 = g.hoff[h0];
  h.end0 = g.hoff[h0 + 1u];
  h.u0 = g.hv[h0];
  h.two = h.end0 < h.first + kChunk && h0 + 1u < g.nh;
  h.u1 = h.two ? g.hv[h0 + 1u] : h.u0;
  return h;
}

/// Visits the edges of chunk c of the heavy vertices u with active(u) (heavy_chunk).
/// Warp-uniform.
template <class T, class Op>
__device__ __forceinline__ void one_chunk(const Graph& g, u32 c, u32 total, u32 lane, Op& op) {
  const HeavyChunk h = heavy_chunk(g, c, total);
  const bool a0 = op.active(h.u0);
  const bool a1 = h.two && op.active(h.u1);
  if (!a0 && !a1) return;
  const T v0 = a0 ? op.value(h.u0) : T();
  const T v1 = a1 ? op.value(h.u1) : T();
  const u32 s0 = g.off[h.u0], s1 = g.off[h.u1];
  for (u32 k = h.first + lane; k < h.last; k += 32u) {
    if (k < h.end0) {
      if (a0) op.edge(h.u0, s0 + (k - h.base0), v0);
    } else if (a1) {
      op.edge(h.u1, s1 + (k - h.end0), v1);
    }
  }
}

/// The heavy vertices' chunks (one_chunk), spread grid-stride over every warp of the grid.
template <class T, class Op>
__device__ __forceinline__ void heavy_edges(const Graph& g, Grid gr, Op& op) {
  if (g.nh == 0u) return;
  const u32 lane = lane_id();
  const u32 warp = gr.tid >> 5, nwarps = gr.nthreads >> 5;
  const u32 total = g.hoff[g.nh];
  const u32 chunks = (total + kChunk - 1u) / kChunk;
  for (u32 c = warp; c < chunks; c += nwarps) one_chunk<T>(g, c, total, lane, op);
}

/// Every edge of a phase: the heavy vertices' chunks first, then the tiles (`tiles`: the Grid
/// the tiles are split by). Heavy first because the chunks are of equal cost and split evenly,
/// so the tiles (of very unequal cost on skewed degrees) end the phase, where a warp that drew
/// light tiles is not also left with its share of chunks: on an H100, rmat-22 sssp / cc and
/// ba-4M cc persistent went from 0.925 / 0.928 / 0.969 of the multi-kernel loop to 1.066 / 0.993
/// / 1.129 (bench/results/nvidia-h100/apps/i10-balance). -DOCC_APP_TILES_FIRST: the old order.
template <class T, class Op>
__device__ __forceinline__ void phase_edges(const Graph& g, Grid gr, Grid tiles, Op& op) {
#ifdef OCC_APP_TILES_FIRST
  tile_edges<T>(g, tiles, op);
  heavy_edges<T>(g, gr, op);
#else
  heavy_edges<T>(g, gr, op);
  tile_edges<T>(g, tiles, op);
#endif
}

/// A one-phase app's edges of iteration it: phase_edges, the tiles split by claim_grid.
/// Experiment -DOCC_APP_INTERLEAVE: the multi-kernel launch's order instead — warp slot w
/// (grid-stride over max(tiles, chunks) slots) takes tile w and then chunk w, as warp w of a
/// one-warp-per-tile launch does.
template <class T, class Op>
__device__ __forceinline__ void tile_and_heavy_edges(const Graph& g, Grid gr, u32* ctl, u32 it,
                                                     Op& op) {
#ifdef OCC_APP_INTERLEAVE
  (void)ctl;
  (void)it;
  const u32 lane = lane_id();
  const u32 warp = gr.tid >> 5, nwarps = gr.nthreads >> 5;
  const u32 tiles = (g.n + 31u) >> 5;
  const u32 total = g.nh == 0u ? 0u : g.hoff[g.nh];
  const u32 chunks = (total + kChunk - 1u) / kChunk;
  const u32 slots = tiles > chunks ? tiles : chunks;
  for (u32 w = warp; w < slots; w += nwarps) {
    if (w < tiles) one_tile<T>(g, w, lane, op);
    if (w < chunks) one_chunk<T>(g, w, total, lane, op);
  }
#else
  phase_edges<T>(g, gr, claim_grid(g, gr, ctl, it), op);
#endif
}

// ---------------------------------------------------------------------------------------------
// bfs: level-synchronous, top-down; iteration it expands the vertices of level it.

struct BfsEdge {
  const u32* col;
  u32* level;
  u32 it;
  bool changed;
  __device__ bool active(u32 u) const { return load_volatile(level + u) == it; }
  __device__ u32 value(u32) const { return 0u; }
  __device__ void edge(u32, u32 e, u32) {
    const u32 v = col[e];
    if (load_volatile(level + v) == OCC_APP_INF) {
      ((volatile u32*)level)[v] = it + 1u;  // every writer writes the same value
      changed = true;
    }
  }
};

__device__ __forceinline__ void bfs_phase(const Graph& g, Grid gr, u32* level, u32* ctl, u32 it) {
  clear_next(gr, ctl, it);
  BfsEdge op = {g.col, level, it, false};
  tile_and_heavy_edges<u32>(g, gr, ctl, it, op);
  flag_changed(ctl, it % 3u, op.changed);
}

// ---------------------------------------------------------------------------------------------
// sssp: Bellman-Ford in rounds; a vertex relaxes its out-edges in the round after its distance
// dropped (stamp[u] == it), every edge of such vertices each round.

struct SsspEdge {
  const u32* col;
  const u32* wt;
  u64* dist;
  u32* stamp;
  u32 it;
  bool changed;
  __device__ bool active(u32 u) const { return load_volatile(stamp + u) == it; }
  __device__ u64 value(u32 u) const { return *(const volatile u64*)(dist + u); }
  __device__ void edge(u32, u32 e, u64 du) {
    const u32 v = col[e];
    const u64 nd = du + (u64)wt[e];
    if (nd < *(const volatile u64*)(dist + v)) {
      const u64 old = atomicMin(dist + v, nd);
      if (nd < old) {
        ((volatile u32*)stamp)[v] = it + 1u;
        changed = true;
      }
    }
  }
};

__device__ __forceinline__ void sssp_phase(const Graph& g, Grid gr, u64* dist, u32* stamp, u32* ctl,
                                           u32 it) {
  clear_next(gr, ctl, it);
  SsspEdge op = {g.col, g.wt, dist, stamp, it, false};
  tile_and_heavy_edges<u64>(g, gr, ctl, it, op);
  flag_changed(ctl, it % 3u, op.changed);
}

// ---------------------------------------------------------------------------------------------
// cc: label propagation (smallest id), pushed along the edges of the undirected graph by the
// vertices whose label dropped in the previous round.

struct CcEdge {
  const u32* col;
  u32* label;
  u32* stamp;
  u32 it;
  bool changed;
  __device__ bool active(u32 u) const { return load_volatile(stamp + u) == it; }
  __device__ u32 value(u32 u) const { return load_volatile(label + u); }
  __device__ void edge(u32, u32 e, u32 lu) {
    const u32 v = col[e];
    if (lu < load_volatile(label + v)) {
      const u32 old = atomicMin(label + v, lu);
      if (lu < old) {
        ((volatile u32*)stamp)[v] = it + 1u;
        changed = true;
      }
    }
  }
};

__device__ __forceinline__ void cc_phase(const Graph& g, Grid gr, u32* label, u32* stamp, u32* ctl,
                                         u32 it) {
  clear_next(gr, ctl, it);
  CcEdge op = {g.col, label, stamp, it, false};
  tile_and_heavy_edges<u32>(g, gr, ctl, it, op);
  flag_changed(ctl, it % 3u, op.changed);
}

// ---------------------------------------------------------------------------------------------
// pagerank: Jacobi iteration r'(v) = base + d * sum_{u -> v} r(u) / deg(u), pulled over the
// transpose (g here). contrib[p][u] = r(u) / outdeg(u) for the ranks of parity p. Phase 0 of
// iteration it computes the tile vertices' new ranks and accumulates the heavy vertices' sums
// (acc, one double per heavy vertex); phase 1 finishes the heavy vertices. Every phase adds the
// ranks' changes |r' - r| to l1[it % 3] (l1[(it + 1) % 3] is cleared in phase 0, as the flags);
// the run stops after the first iteration whose L1 change is at most tol.

struct PrSum {
  const u32* col;
  const double* contrib;  // of the current ranks
  double* acc;            // heavy partial sums
  __device__ bool active(u32) const { return true; }
  __device__ u32 value(u32) const { return 0u; }
};

__device__ __forceinline__ double pr_update(u32 v, double sum, double* rank, double* contrib_next,
                                            const double* inv_deg, double base, double d) {
  const double r = base + d * sum;
  const double old = rank[v];
  rank[v] = r;
  contrib_next[v] = r * inv_deg[v];
  return fabs(r - old);
}

/// Adds the warp's changes to l1[slot] (one atomic per warp).
__device__ __forceinline__ void add_l1(double* l1, u32 slot, double delta) {
#pragma unroll
  for (u32 s = 16u; s != 0u; s >>= 1) delta += __shfl_down_sync(OCC_APP_FULL, delta, s);
  if (lane_id() == 0u && delta != 0.0) atomicAdd(l1 + slot, delta);
}

/// The smallest i in [0, n] with a[i] >= x, where a is non-decreasing and a[n] >= x, found by
/// the whole warp (every lane gets it): 32 probes per round, ceil(log32(n + 1)) dependent loads.
__device__ __forceinline__ u32 warp_lower_bound(const u64* a, u32 n, u64 x) {
  const u32 lane = lane_id();
  u32 lo = 0u, hi = n;  // the answer is in [lo, hi]
  while (hi - lo > 31u) {
    const u32 step = (hi - lo + 31u) >> 5;  // the 32 probes reach lo + 32 * step >= hi
    u32 p = lo + (lane + 1u) * step;
    if (p > hi) p = hi;
    const u32 ge = __ballot_sync(OCC_APP_FULL, a[p] >= x);  // lane 31 probes hi: never 0
    const u32 f = __ffs(ge) - 1u;
    const u32 top = lo + (f + 1u) * step;
    hi = top < hi ? top : hi;
    lo += f * step;  // a[lo + f * step] < x when f > 0 (probe f - 1 said so)
  }
  const u32 p = lo + lane;
  return lo + __ffs(__ballot_sync(OCC_APP_FULL, p <= hi && a[p] >= x)) - 1u;
}

/// Where warp v's share of pagerank's tiles before `end` begins, in tile cost (pr_phase0's split:
/// warp w takes [x(w), x(w + 1)); end = tiles, or where the claimed tail begins on graphs
/// with heavy vertices): the equal share of the tiles' cost tcost[end] and the heavy chunks
/// (tcost[tiles + 2] of them, tcost[tiles + 1] each) together, v * all / W, less the chunks of
/// the warps before v (grid-stride: warp u has chunks / W of them, one more if u < chunks % W),
/// clamped to [0, tcost[end]]. Non-decreasing in v (past chunks % W the share outgrows the
/// chunks; before, the clamp holds it at 0 while they do not fit), 0 at v = 0, tcost[end] at
/// v = W. Out of line and one end at a time: inlined, or both ends at once, its 64-bit values
/// pushed the device loops past 32 registers (ptxas spilled 16-64 bytes).
__device__ __noinline__ u64 pr_tile_x(const u64* tcost, u32 tiles, u32 end, u32 v, u32 nw) {
  const u64 tc = tcost[end], cc = tcost[tiles + 1u];
  const u32 chunks = (u32)tcost[tiles + 2u];
  const u64 share = (tc + cc * chunks) * v / nw;
  const u32 q = chunks / nw, r = chunks % nw;
  const u64 before = cc * ((u64)q * v + (v < r ? v : r));
  const u64 x = share > before ? share - before : 0ull;
  return x < tc ? x : tc;
}

// One tile t of phase 0 (pr_phase0's loops): the new ranks of its 32 vertices, the lanes'
// changes added to delta.
#define OCC_PR_TILE_BODY(t)                                                         \
    const u32 v = (t << 5) + lane;                                                  \
    u32 start = 0u, deg = 0u;                                                       \
    bool mine = false;                                                              \
    if (v < g.n) {                                                                  \
      start = g.off[v];                                                             \
      deg = g.off[v + 1u] - start;                                                  \
      mine = deg <= g.heavy_deg;                                                    \
      if (!mine) deg = 0u;                                                          \
    }                                                                               \
    u32 incl = deg;                                                                 \
_Pragma("unroll")                                                                   \
    for (u32 s = 1u; s < 32u; s <<= 1) {                                            \
      const u32 x = __shfl_up_sync(OCC_APP_FULL, incl, s);                          \
      if (lane >= s) incl += x;                                                     \
    }                                                                               \
    const u32 total = __shfl_sync(OCC_APP_FULL, incl, 31);                          \
    const u32 excl = incl - deg;                                                    \
    double sum = 0.0;                                                               \
    for (u32 base_k = 0u; base_k < total; base_k += 32u) {                          \
      const u32 k = base_k + lane;                                                  \
      u32 j = 0u;                                                                   \
_Pragma("unroll")                                                                   \
      for (u32 s = 16u; s != 0u; s >>= 1) {                                         \
        const u32 e = __shfl_sync(OCC_APP_FULL, excl, j + s);                       \
        if (e <= k) j += s;                                                         \
      }                                                                             \
      const u32 ej = __shfl_sync(OCC_APP_FULL, excl, j);                            \
      const u32 sj = __shfl_sync(OCC_APP_FULL, start, j);                           \
      double x = 0.0;                                                               \
      if (k < total) x = cur[g.col[sj + (k - ej)]];                                 \
      /* Segmented suffix sums: lane L ends with the sum of its segment from L on. */ \
_Pragma("unroll")                                                                   \
      for (u32 s = 1u; s < 32u; s <<= 1) {                                          \
        const double y = __shfl_down_sync(OCC_APP_FULL, x, s);                      \
        const u32 jj = __shfl_down_sync(OCC_APP_FULL, j, s);                        \
        if (lane + s < 32u && jj == j) x += y;                                      \
      }                                                                             \
      /* Owner lane: its segment in this round starts at max(excl, base_k). */      \
      const bool hit = deg != 0u && excl < base_k + 32u && excl + deg > base_k;     \
      const u32 head = (excl > base_k ? excl : base_k) - base_k;                    \
      const double part = __shfl_sync(OCC_APP_FULL, x, head & 31u);                 \
      if (hit) sum += part;                                                         \
    }                                                                               \
    if (v < g.n && mine) {                                                          \
      delta += pr_update(v, sum, rank, next, inv_deg, base, d);                     \
    }


#ifndef OCC_APP_PR_TAIL_MIN_COST
#define OCC_APP_PR_TAIL_MIN_COST 2048
#endif
/// Whether pagerank's device loops claim a tail of the tiles: as claim_grid hands out a
/// counter (on graphs with heavy vertices, unless -DOCC_APP_STATIC_TILES), and only where the
/// warps have at least OCC_APP_PR_TAIL_MIN_COST of light tile cost each (~edges; the
/// claims and their atomics on one counter cost ~40 us per iteration on R-MAT 20 on an H200,
/// bench/results/nvidia-h200/apps/2026-11-28-pr-tail/run5-threshold). Per warp at 8448
/// warps: R-MAT 18 235 (the tail made it 0.73x the host loop, 1.15-1.20x without), R-MAT 20
/// 1140 (0.90x / 1.05x), BA-2M 1975 (1.03x either way), BA-4M 3952 (0.94x without, 0.99-1.01x
/// with), R-MAT 22 3737 (1.016x / 1.027-1.039x). ctl: the loops'.
__device__ __forceinline__ bool pr_claims(const Graph& g, const u32* ctl, const u64* tcost,
                                          u32 tiles, u32 nwarps) {
#ifdef OCC_APP_STATIC_TILES
  return false;
#else
  return ctl != nullptr && g.nh != 0u &&
         tcost[tiles] >= (u64)nwarps * (u64)OCC_APP_PR_TAIL_MIN_COST;
#endif
}

/// Phase 0. The tiles go grid-stride (kSplit false: the host loop's launches, one tile per
/// warp, which the hardware's block scheduler balances; and coop_cuda's graph.cu, whose groups
/// come and go between phases) or, in the device loops (kSplit), in contiguous ranges of equal
/// cost:
/// tcost holds the prefix sums of the tiles' costs (tiles + 1 entries, DeviceGraph's
/// tile_cost_prefix: light edges plus a fixed cost per tile; then a heavy chunk's cost and the
/// number of chunks) and warp w of W takes the tiles from lower_bound(x(w)) to
/// lower_bound(x(w + 1)) (pr_tile_x): its equal share of the tiles and the heavy chunks
/// together, less the chunks it gets (grid-stride, before its tiles). The tiles' in-degrees
/// are skewed on power-law inputs (the low ids the heaviest, for R-MAT and Barabasi-Albert): a
/// grid-stride share left the warps with the heavy tiles the last to finish every iteration
/// (BA-4M on an H100: 0.93x the host loop), and taking tiles from a counter made 8448 warps
/// queue on one atomic several times per iteration (0.70x). Where pr_claims says so (heavy
/// vertices and enough work per warp; ctl: the loops' words, whose kClaim + it % 3 is the
/// iteration's counter, claim_grid) the static ranges cover the tiles before the first
/// PR_STATIC_PERCENT % of the cost only (tile_cost_prefix's claimed tail, after the
/// chunk count: its claims K and K + 1 tile boundaries); the warps claim the rest in pieces of
/// about equal cost once their tiles and chunks are done: the cost estimate misses where the
/// ranks sit in the caches, and a static split of every tile left BA-4M 6 % behind the host
/// loop on an H200.
template <bool kSplit = false>
__device__ __forceinline__ void pr_phase0(const Graph& g, Grid gr, double* rank, double* contrib,
                                          const double* inv_deg, double* acc, double* l1, u32 it,
                                          double base, double d, const u64* tcost = nullptr,
                                          u32* ctl = nullptr) {
  if (gr.tid == 0u) ((volatile double*)l1)[(it + 1u) % 3u] = 0.0;
  const double* cur = contrib + (size_t)(it & 1u) * g.n;
  double* next = contrib + (size_t)((it + 1u) & 1u) * g.n;
  const u32 lane = lane_id();
  const u32 warp = gr.tid >> 5, nwarps = gr.nthreads >> 5;
  const u32 tiles = (g.n + 31u) >> 5;
  double delta = 0.0;
  // Tiles: warp-cooperative pull with a segmented reduction per owner.
  u32 t = warp, t_end = tiles;
  const u32 t_step = kSplit ? 1u : nwarps;
  // The claimed tail's table (below), or nullptr where there is none.
  const u64* cuts = nullptr;
  if (kSplit) {
    // The static part: every tile without a claimed tail (pr_claims), else the tiles before it
    // (tcost[tiles + 4], its first boundary).
    u32 end = tiles;
    if (pr_claims(g, ctl, tcost, tiles, nwarps)) {
      cuts = tcost + tiles + 3u;
      end = (u32)cuts[1];
    }
    t = warp_lower_bound(tcost, end, pr_tile_x(tcost, tiles, end, warp, nwarps));
    t_end = warp_lower_bound(tcost, end, pr_tile_x(tcost, tiles, end, warp + 1u, nwarps));
  }
  // Heavy vertices first: partial sums of their chunks, two owners at most per chunk.
  if (g.nh != 0u) {
    const u32 htotal = g.hoff[g.nh];
    const u32 chunks = (htotal + kChunk - 1u) / kChunk;
    for (u32 c = warp; c < chunks; c += nwarps) {
      const u32 first = c * kChunk;
      const u32 h0 = g.hchunk[c];
      const u32 end0 = g.hoff[h0 + 1u];
      const u32 u0 = g.hv[h0];
      const u32 u1 = h0 + 1u < g.nh ? g.hv[h0 + 1u] : u0;
      const u32 s0 = g.off[u0], s1 = g.off[u1];
      const u32 last = first + kChunk < htotal ? first + kChunk : htotal;
      double x0 = 0.0, x1 = 0.0;
      for (u32 k = first + lane; k < last; k += 32u) {
        if (k < end0) x0 += cur[g.col[s0 + (k - g.hoff[h0])]];
        else x1 += cur[g.col[s1 + (k - end0)]];
      }
#pragma unroll
      for (u32 s = 16u; s != 0u; s >>= 1) {
        x0 += __shfl_down_sync(OCC_APP_FULL, x0, s);
        x1 += __shfl_down_sync(OCC_APP_FULL, x1, s);
      }
      if (lane == 0u) {
        atomicAdd(acc + h0, x0);
        if (last > end0) atomicAdd(acc + h0 + 1u, x1);
      }
    }
  }
  // Then the warp's tiles, and on graphs with heavy vertices the claimed tail: pieces of about
  // equal cost (tcost[tiles + 3] of them, between the tile boundaries after it) from this
  // iteration's counter, by the warps whose own tiles are done. One loop with one tile body
  // for both (a second tile loop pushed the kernels past 32 registers: ptxas spilled 32-48
  // bytes); the claim count is read again after each claim for the same reason.
#pragma unroll 1
  for (;; t += t_step) {
    if (t >= t_end) {
      if (!kSplit || cuts == nullptr) break;
      u32 c = 0u;
      // (ctl + kClaim + it % 3 is gr.claim; the pointer held across the tiles spilled.)
      if (lane == 0u) c = atomicAdd(ctl + kClaim + it % 3u, 1u);
      c = __shfl_sync(OCC_APP_FULL, c, 0);
      if (c >= (u32)*(const volatile u64*)cuts) break;
      t = (u32)cuts[c + 1u];
      t_end = (u32)cuts[c + 2u];
    }
    OCC_PR_TILE_BODY(t)
  }
  add_l1(l1, it % 3u, delta);
}

__device__ __forceinline__ void pr_phase1(const Graph& g, Grid gr, double* rank, double* contrib,
                                          const double* inv_deg, double* acc, double* l1, u32 it,
                                          double base, double d) {
  double* next = contrib + (size_t)((it + 1u) & 1u) * g.n;
  double delta = 0.0;
  for (u32 h = gr.tid; h < g.nh; h += gr.nthreads) {
    const double sum = acc[h];
    acc[h] = 0.0;
    delta += pr_update(g.hv[h], sum, rank, next, inv_deg, base, d);
  }
  add_l1(l1, it % 3u, delta);
}

// ---------------------------------------------------------------------------------------------
// color and mis: max-based (Jones-Plassmann) colouring and Luby's MIS over the shared random
// priorities (prep::priorities), round by round as the references: in round `it` an undecided
// vertex that no undecided neighbour beats (larger (priority, id)) wins. Phase 0 marks every
// undecided vertex with a beating undecided neighbour (lost[u] = it), phase 1 decides the
// others (colour `it` / in the set) and sets the flag while some vertex lost; mis's phase 2
// takes the undecided neighbours of the new members out. state: colour (undecided = INF), or
// mis 0 undecided / 1 in / 2 out.

enum : u32 { kMisUndecided = 0u, kMisIn = 1u, kMisOut = 2u };

__device__ __forceinline__ bool beats(u32 pu, u32 u, u32 pv, u32 v) {
  return pu > pv || (pu == pv && u > v);
}

struct LoseEdge {
  const u32* col;
  const u32* prio;
  const u32* state;
  u32* lost;
  u32 it;
  u32 und;
  __device__ bool active(u32 u) const { return load_volatile(state + u) == und; }
  __device__ u32 value(u32 u) const { return prio[u]; }
  __device__ void edge(u32 u, u32 e, u32 pu) {
    const u32 v = col[e];
    if (load_volatile(state + v) == und && beats(prio[v], v, pu, u)) {
      ((volatile u32*)lost)[u] = it;  // every writer writes the same value
    }
  }
};

__device__ __forceinline__ void lose_phase(const Graph& g, Grid gr, const u32* state,
                                           const u32* prio, u32* lost, u32* ctl, u32 it, u32 und) {
  clear_next(gr, ctl, it);
  LoseEdge op = {g.col, prio, state, lost, it, und};
  phase_edges<u32>(g, gr, claim_grid(g, gr, ctl, it), op);  // phase 0: one claim per iteration
}

/// Undecided vertices that did not lose take `win`; the flag says some vertex lost.
__device__ __forceinline__ void decide_phase(const Graph& g, Grid gr, u32* state, const u32* lost,
                                             u32* ctl, u32 it, u32 und, u32 win) {
  bool remaining = false;
  for (u32 v = gr.tid; v < g.n; v += gr.nthreads) {
    if (state[v] != und) continue;
    if (load_volatile(lost + v) == it) remaining = true;
    else state[v] = win;
  }
  flag_changed(ctl, it % 3u, remaining);
}

struct OutEdge {
  const u32* col;
  u32* state;
  __device__ bool active(u32 u) const { return load_volatile(state + u) == kMisUndecided; }
  __device__ u32 value(u32) const { return 0u; }
  __device__ void edge(u32 u, u32 e, u32) {
    if (load_volatile(state + col[e]) == kMisIn) ((volatile u32*)state)[u] = kMisOut;
  }
};

__device__ __forceinline__ void mis_out_phase(const Graph& g, Grid gr, u32* state) {
  OutEdge op = {g.col, state};
  phase_edges<u32>(g, gr, gr, op);
}

__device__ __forceinline__ void color_phase(const Graph& g, Grid gr, u32* color, const u32* prio,
                                            u32* lost, u32* ctl, u32 it, u32 p) {
  if (p == 0u) lose_phase(g, gr, color, prio, lost, ctl, it, OCC_APP_INF);
  else decide_phase(g, gr, color, lost, ctl, it, OCC_APP_INF, it);
}

__device__ __forceinline__ void mis_phase(const Graph& g, Grid gr, u32* state, const u32* prio,
                                          u32* lost, u32* ctl, u32 it, u32 p) {
  if (p == 0u) lose_phase(g, gr, state, prio, lost, ctl, it, kMisUndecided);
  else if (p == 1u) decide_phase(g, gr, state, lost, ctl, it, kMisUndecided, kMisIn);
  else mis_out_phase(g, gr, state);
}

// ---------------------------------------------------------------------------------------------
// The host-loop kernels (multi-kernel and graph variants) and app_advance (graph variant).

__device__ __forceinline__ bool host_iteration(u32* ctl, u32 it_param, u32& it) {
  if (it_param != OCC_APP_INF) {
    it = it_param;
    return true;
  }
  // Plain loads: kIter and kDone only change between kernels (app_advance).
  if (ctl[kDone] != 0u) return false;
  it = ctl[kIter];
  return true;
}

extern "C" __global__ void bfs_step(GRAPH_PARAMS, u32* level, u32* ctl, u32 it_param) {
  MAKE_GRAPH;
  u32 it;
  if (!host_iteration(ctl, it_param, it)) return;
  bfs_phase(g, launch_grid(), level, ctl, it);
}

extern "C" __global__ void sssp_step(GRAPH_PARAMS, u64* dist, u32* stamp, u32* ctl, u32 it_param) {
  MAKE_GRAPH;
  u32 it;
  if (!host_iteration(ctl, it_param, it)) return;
  sssp_phase(g, launch_grid(), dist, stamp, ctl, it);
}

extern "C" __global__ void cc_step(GRAPH_PARAMS, u32* label, u32* stamp, u32* ctl, u32 it_param) {
  MAKE_GRAPH;
  u32 it;
  if (!host_iteration(ctl, it_param, it)) return;
  cc_phase(g, launch_grid(), label, stamp, ctl, it);
}

extern "C" __global__ void pagerank_step0(GRAPH_PARAMS, double* rank, double* contrib,
                                          const double* inv_deg, double* acc, double* l1,
                                          const u64* tcost, u32* ctl, u32 it_param, double base,
                                          double d, double tol) {
  MAKE_GRAPH;
  u32 it;
  if (!host_iteration(ctl, it_param, it)) return;
  pr_phase0(g, launch_grid(), rank, contrib, inv_deg, acc, l1, it, base, d, nullptr);
}

extern "C" __global__ void pagerank_step1(GRAPH_PARAMS, double* rank, double* contrib,
                                          const double* inv_deg, double* acc, double* l1,
                                          const u64* tcost, u32* ctl, u32 it_param, double base,
                                          double d, double tol) {
  MAKE_GRAPH;
  u32 it;
  if (!host_iteration(ctl, it_param, it)) return;
  pr_phase1(g, launch_grid(), rank, contrib, inv_deg, acc, l1, it, base, d);
}

#define OCC_APP_CM_STEP(name, fn, phase)                                                     \
  extern "C" __global__ void name(GRAPH_PARAMS, u32* state, const u32* prio, u32* lost, u32* ctl,  \
                                  u32 it_param) {                                                  \
    MAKE_GRAPH;                                                                                    \
    u32 it;                                                                                        \
    if (!host_iteration(ctl, it_param, it)) return;                                                \
    fn(g, launch_grid(), state, prio, lost, ctl, it, phase);                                       \
  }
OCC_APP_CM_STEP(color_step0, color_phase, 0u)
OCC_APP_CM_STEP(color_step1, color_phase, 1u)
OCC_APP_CM_STEP(mis_step0, mis_phase, 0u)
OCC_APP_CM_STEP(mis_step1, mis_phase, 1u)
OCC_APP_CM_STEP(mis_step2, mis_phase, 2u)

/// Graph variant, one thread: ends the iteration ctl[kIter] (done when its flag is clear or
/// max_iterations is reached), else moves to the next.
__device__ __forceinline__ void advance(u32* ctl, u32 max_iterations, bool converged) {
  const u32 it = ctl[kIter];
  if (converged || it + 1u >= max_iterations) {
    ctl[kIters] = it + 1u;
    ctl[kDone] = 1u;
  } else {
    ctl[kIter] = it + 1u;
  }
}

extern "C" __global__ void app_advance(u32* ctl, u32 max_iterations) {
  if (threadIdx.x != 0u || blockIdx.x != 0u || ctl[kDone] != 0u) return;
  advance(ctl, max_iterations, ctl[ctl[kIter] % 3u] == 0u);
}

/// The same for pagerank: converged when the iteration's L1 change is at most tol.
extern "C" __global__ void pagerank_advance(u32* ctl, const double* l1, u32 max_iterations,
                                            double tol) {
  if (threadIdx.x != 0u || blockIdx.x != 0u || ctl[kDone] != 0u) return;
  advance(ctl, max_iterations, l1[ctl[kIter] % 3u] <= tol);
}

#ifdef OCC_APP_GRAPH_WHILE
// The graph-while variant (a CUDA graph WHILE conditional node; host: occupant::cuda::WhileGraph):
// the body is the iteration's phases and one of these, which ends the iteration as app_advance
// does and sets the node's condition: the body runs again iff the run is not done. Compiled only
// into the graph-while module (-DOCC_APP_GRAPH_WHILE): cudaGraphSetConditional is resolved by the
// driver at load, and a driver that could not would fail this module alone.
#include <graph_while.cuh>

extern "C" __global__ void app_advance_while(u32* ctl, u32 max_iterations,
                                             occ::GraphCondition cond) {
  if (threadIdx.x != 0u || blockIdx.x != 0u) return;
  if (ctl[kDone] == 0u) advance(ctl, max_iterations, ctl[ctl[kIter] % 3u] == 0u);
  occ::graph_continue(cond, ctl[kDone] == 0u);
}

extern "C" __global__ void pagerank_advance_while(u32* ctl, const double* l1, u32 max_iterations,
                                                  double tol, occ::GraphCondition cond) {
  if (threadIdx.x != 0u || blockIdx.x != 0u) return;
  if (ctl[kDone] == 0u) advance(ctl, max_iterations, l1[ctl[kIter] % 3u] <= tol);
  occ::graph_continue(cond, ctl[kDone] == 0u);
}
#endif  // OCC_APP_GRAPH_WHILE

#ifndef OCC_APP_HOST_LOOP
// ---------------------------------------------------------------------------------------------
// The device loops: one template per app over a Sync (group ids, threads, barrier), wrapped
// by the persistent, occupancy-API and cooperative kernels.

// The device loops run under __launch_bounds__(256, 8)'s 32 registers: occ::PersistentKernel
// keeps its barrier in shared memory (occ::SharedBarrier, as OccupancySync below), not in
// registers across the loop, which made ptxas spill 8-48 bytes of the phases.
#ifndef OCC_PERSISTENT_SHARED_BARRIER
#define OCC_PERSISTENT_SHARED_BARRIER 1
#endif
#include <occupant.cuh>

// -DOCC_APP_MIN_BLOCKS=k: the device-loop kernels ask for k resident blocks of 256 threads per SM
// (__launch_bounds__), capping their registers so that they reach the host-loop kernels'
// occupancy (without it ptxas gives the persistent kernels 34-39 registers and they lose a block
// or two per SM). The host sets it (AppPrograms: 8 on an H100); under that cap of 32 registers
// no device-loop kernel spills (tests/nvrtc_apps.rs checks it with ptxas): the barrier lives in
// shared memory (occ::SharedBarrier), not in registers across the loop.
#ifdef OCC_APP_MIN_BLOCKS
#define OCC_APP_BOUNDS __launch_bounds__(256, OCC_APP_MIN_BLOCKS)
#else
#define OCC_APP_BOUNDS
#endif

/// Runs `phases` phases per iteration, each followed by a barrier, until converged(it) (default:
/// the iteration's flag stayed clear) or max_iterations; records the iterations in ctl[kIters].
struct FlagClear {
  const u32* ctl;
  __device__ bool operator()(u32 it) const { return load_volatile(ctl + it % 3u) == 0u; }
};
#ifdef OCC_APP_TRACE
// Barrier trace (diagnostics, -DOCC_APP_TRACE): every block records %globaltimer as its last
// warp enters (lane 0 of each warp, atomicMax: a later run's times are larger) and as thread 0
// leaves the first barrier of iterations OCC_APP_TRACE_FROM .. + kTraceIters, by blockIdx
// (occupant_apps::apps::cuda::BarrierTrace reads it back).
#ifndef OCC_APP_TRACE_FROM
#define OCC_APP_TRACE_FROM 64
#endif
enum : u32 { kTraceIters = 64, kTraceBlocks = 4096 };
__device__ unsigned long long occ_app_trace[kTraceIters * 2u * kTraceBlocks];
__device__ __forceinline__ void trace_mark(u32 it, u32 p, u32 side) {
  const u32 i = it - (u32)OCC_APP_TRACE_FROM;
  const u32 who = side == 0u ? (threadIdx.x & 31u) : threadIdx.x;
  if (p == 0u && i < kTraceIters && who == 0u && blockIdx.x < kTraceBlocks) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    unsigned long long* slot = occ_app_trace + (i * 2u + side) * kTraceBlocks + blockIdx.x;
    if (side == 0u) atomicMax(slot, t);
    else *slot = t;
  }
}
#else
__device__ __forceinline__ void trace_mark(u32, u32, u32) {}
#endif

#ifdef OCC_APP_PAD_BYTES
// Experiment (-DOCC_APP_PAD_BYTES=n): a module global of n bytes, which changes where the driver
// places the module's globals (occ_persistent, the persistent variant's barrier, among them).
__device__ unsigned char occ_app_pad[OCC_APP_PAD_BYTES];
#define OCC_APP_TOUCH_PAD(it) \
  if ((it) == 0xffffffffu) occ_app_pad[threadIdx.x] = 1u;
#else
#define OCC_APP_TOUCH_PAD(it)
#endif

template <class Sync, class Phase, class Converged>
__device__ __forceinline__ void device_loop(Sync& s, u32* ctl, u32 max_iterations, u32 phases,
                                            Phase phase, Converged converged) {
  Grid gr = {s.thread_id(), s.num_threads()};
  gr.dynamic = true;  // claim_grid
  for (u32 it = 0u; it < max_iterations; ++it) {
    for (u32 p = 0u; p < phases; ++p) {
      phase(gr, it, p);
      trace_mark(it, p, 0u);
      if (!s.barrier()) return;
      trace_mark(it, p, 1u);
    }
    if (converged(it) || it + 1u == max_iterations) {
      OCC_APP_TOUCH_PAD(max_iterations)
      if (gr.tid == 0u) ctl[kIters] = it + 1u;
      return;
    }
  }
}

/// The occupancy-API variant's Sync: every launched block, the default barrier, no discovery.
/// The barrier lives in shared memory (occ::SharedBarrier), as occ::PersistentKernel's does, so
/// that the two variants differ only by discovery.
struct OccupancySync {
  occ::SharedBarrier<occ::PersistentBarrier> bar;
  __device__ static occ::Env grid_env() {
    occ::Env e;
    e.group_id = e.cluster_id = blockIdx.x;
    e.num_groups = e.num_clusters = gridDim.x;
    return e;
  }
  __device__ explicit OccupancySync(u32* state) : bar(state, grid_env()) {}
  __device__ u32 thread_id() const { return blockIdx.x * blockDim.x + threadIdx.x; }
  __device__ u32 num_threads() const { return gridDim.x * blockDim.x; }
  __device__ bool barrier() { return bar.wait(); }
};

#ifdef OCC_APP_COOPERATIVE
#include <cooperative_groups.h>
/// The cooperative variant's Sync: cooperative_groups' grid.sync().
struct CoopSync {
  __device__ u32 thread_id() const { return blockIdx.x * blockDim.x + threadIdx.x; }
  __device__ u32 num_threads() const { return gridDim.x * blockDim.x; }
  __device__ bool barrier() {
    cooperative_groups::this_grid().sync();
    return true;
  }
};
#define OCC_APP_COOP_KERNEL(name, params, ...)                          \
  extern "C" __global__ void OCC_APP_BOUNDS name##_cooperative params {\
    CoopSync s;                                                         \
    __VA_ARGS__                                                         \
  }
#else
#define OCC_APP_COOP_KERNEL(name, params, ...)
#endif

/// Defines <name>_persistent, <name>_occupancy (extra first parameter: the barrier state) and,
/// with the toolkit, <name>_cooperative, all running `body` with a Sync `s`.
#define OCC_APP_KERNELS(name, params, oparams, ...)                \
  extern "C" __global__ void OCC_APP_BOUNDS name##_persistent params { \
    occ::PersistentKernel s;                                             \
    if (!s.participating()) return;                                \
    __VA_ARGS__                                                    \
  }                                                                \
  extern "C" __global__ void OCC_APP_BOUNDS name##_occupancy oparams { \
    OccupancySync s(barrier_state);                                \
    __VA_ARGS__                                                    \
  }                                                                \
  OCC_APP_COOP_KERNEL(name, params, __VA_ARGS__)

#define P_BFS (GRAPH_PARAMS, u32* level, u32* ctl, u32 max_iterations)
#define O_BFS (u32* barrier_state, GRAPH_PARAMS, u32* level, u32* ctl, u32 max_iterations)
OCC_APP_KERNELS(bfs, P_BFS, O_BFS, {
  MAKE_GRAPH;
  device_loop(s, ctl, max_iterations, 1u,
              [&](Grid gr, u32 it, u32) { bfs_phase(g, gr, level, ctl, it); },
              FlagClear{ctl});
})

#define P_SSSP (GRAPH_PARAMS, u64* dist, u32* stamp, u32* ctl, u32 max_iterations)
#define O_SSSP (u32* barrier_state, GRAPH_PARAMS, u64* dist, u32* stamp, u32* ctl, u32 max_iterations)
OCC_APP_KERNELS(sssp, P_SSSP, O_SSSP, {
  MAKE_GRAPH;
  device_loop(s, ctl, max_iterations, 1u,
              [&](Grid gr, u32 it, u32) { sssp_phase(g, gr, dist, stamp, ctl, it); },
              FlagClear{ctl});
})

#define P_CC (GRAPH_PARAMS, u32* label, u32* stamp, u32* ctl, u32 max_iterations)
#define O_CC (u32* barrier_state, GRAPH_PARAMS, u32* label, u32* stamp, u32* ctl, u32 max_iterations)
OCC_APP_KERNELS(cc, P_CC, O_CC, {
  MAKE_GRAPH;
  device_loop(s, ctl, max_iterations, 1u,
              [&](Grid gr, u32 it, u32) { cc_phase(g, gr, label, stamp, ctl, it); },
              FlagClear{ctl});
})

#define P_PR                                                                                     \
  (GRAPH_PARAMS, double* rank, double* contrib, const double* inv_deg, double* acc, double* l1,   \
   const u64* tcost, u32* ctl, u32 max_iterations, double base, double d, double tol)
#define O_PR                                                                                     \
  (u32* barrier_state, GRAPH_PARAMS, double* rank, double* contrib, const double* inv_deg,        \
   double* acc, double* l1, const u64* tcost, u32* ctl, u32 max_iterations, double base,          \
   double d, double tol)
OCC_APP_KERNELS(pagerank, P_PR, O_PR, {
  MAKE_GRAPH;
  device_loop(s, ctl, max_iterations, nh != 0u ? 2u : 1u, [&](Grid gr, u32 it, u32 p) {
    if (p == 0u) {
      const Grid cg = claim_grid(g, gr, ctl, it);
      pr_phase0<true>(g, cg, rank, contrib, inv_deg, acc, l1, it, base, d, tcost, ctl);
    } else pr_phase1(g, gr, rank, contrib, inv_deg, acc, l1, it, base, d);
  }, [&](u32 it) { return *(const volatile double*)(l1 + it % 3u) <= tol; });
})

#define P_CM (GRAPH_PARAMS, u32* state, const u32* prio, u32* lost, u32* ctl, u32 max_iterations)
#define O_CM                                                                                     \
  (u32* barrier_state, GRAPH_PARAMS, u32* state, const u32* prio, u32* lost, u32* ctl,           \
   u32 max_iterations)
OCC_APP_KERNELS(color, P_CM, O_CM, {
  MAKE_GRAPH;
  device_loop(s, ctl, max_iterations, 2u,
              [&](Grid gr, u32 it, u32 p) { color_phase(g, gr, state, prio, lost, ctl, it, p); },
              FlagClear{ctl});
})
OCC_APP_KERNELS(mis, P_CM, O_CM, {
  MAKE_GRAPH;
  device_loop(s, ctl, max_iterations, 3u,
              [&](Grid gr, u32 it, u32 p) { mis_phase(g, gr, state, prio, lost, ctl, it, p); },
              FlagClear{ctl});
})

#endif  // OCC_APP_HOST_LOOP

// occupant: fragment (compiled only after the .cuh files its crate concatenates it with; tests/nvrtc_coop_apps.rs compiles it)
// Cooperative breadth-first search (occupant_apps::coop_cuda, App::Bfs): `rounds` BFS
// traversals, level-synchronous with a frontier queue — the frontier rounds of frontier.cuh in
// the phase loop of loop.cuh (every global barrier a resizing barrier; mode 0 persistent,
// 1 regular, 2 query).
#include <occupant.cuh>

namespace occ_app {

/// Claims `cnt` slots of the queue behind `out_len` for this thread; returns the first. On a
/// GPU one lane of the warp's active lanes does one atomicAdd for all of them (cnt <= 7: three
/// ballots give every lane its exclusive prefix): a level of a grid BFS pushes ~2000 vertices
/// through one counter, and same-address atomics queue at its L2 slice. Host stand-in: one
/// atomicAdd.
__device__ __forceinline__ unsigned claim_slots(unsigned* out_len, unsigned cnt) {
#ifdef __CUDA_ARCH__
  const unsigned active = __activemask();
  const unsigned b0 = __ballot_sync(active, cnt & 1u), b1 = __ballot_sync(active, cnt & 2u),
                 b2 = __ballot_sync(active, cnt & 4u);
  const unsigned total = __popc(b0) + 2u * __popc(b1) + 4u * __popc(b2);
  if (total == 0u) return 0u;
  const unsigned lane = threadIdx.x & 31u, below = (1u << lane) - 1u;
  const unsigned leader = __ffs(active) - 1u;
  unsigned base = 0u;
  if (lane == leader) base = atomicAdd(out_len, total);
  base = __shfl_sync(active, base, leader);
  return base + __popc(b0 & below) + 2u * __popc(b1 & below) + 4u * __popc(b2 & below);
#else
  return cnt == 0u ? 0u : atomicAdd(out_len, cnt);
#endif
}

/// mode bit: with OCC_APP_BODY_BIT, the batched expansion's loads keep their lines in L2.
#define OCC_BFS_KEEP 32u

/// L2 `evict_last` for the BFS's graph and distances (kernel mode bit 32, with the batched
/// expansion): with part of L2 set aside for persisting lines (Gpu::set_persisting_l2), lines
/// loaded under this policy stay while another kernel streams through L2 beside the BFS.
/// Host stand-in: plain loads.
__device__ __forceinline__ unsigned long long l2_keep_policy() {
#ifdef __CUDA_ARCH__
  unsigned long long p;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
#else
  return 0ull;
#endif
}
__device__ __forceinline__ unsigned ld_keep(const unsigned* a, unsigned long long p) {
#ifdef __CUDA_ARCH__
  unsigned v;
  asm("ld.global.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(v) : "l"(a), "l"(p));
  return v;
#else
  (void)p;
  return *a;
#endif
}
__device__ __forceinline__ unsigned ld_relaxed_keep(const unsigned* a, unsigned long long p) {
#ifdef __CUDA_ARCH__
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.L2::cache_hint.u32 %0, [%1], %2;"
               : "=r"(v)
               : "l"(a), "l"(p)
               : "memory");
  return v;
#else
  (void)p;
  return occ::ld_relaxed(a);
#endif
}

/// Set bits of a 4-bit mask.
__device__ __forceinline__ unsigned popc4(unsigned x) {
  return (x & 1u) + ((x >> 1u) & 1u) + ((x >> 2u) & 1u) + ((x >> 3u) & 1u);
}

/// BFS: an unreached neighbour gets level + 1 (first CAS wins) and joins the next frontier.
/// batch (kernel mode bit OCC_APP_BODY_BIT): the edges go four at a time — their four target
/// loads, then the four distance loads, then the CASes are independent and overlap, and one
/// claim_slots() per four edges (warp-aggregated) replaces an atomicAdd per pushed vertex: a
/// grid vertex's level costs ~6 dependent L2 round trips instead of ~4 per edge (~17). Same
/// result: the CAS decides who pushes a vertex, the claim only where it goes.
struct BfsEdge {
  const unsigned* offsets;
  const unsigned* targets;
  unsigned* dist;
  bool batch;
  bool keep;  // with batch: L2 evict_last loads (l2_keep_policy)
  __device__ void reset(unsigned) const {}
  __device__ void expand(unsigned v, unsigned level, unsigned* out, unsigned* out_len) const {
    if (batch && keep) {
      expand_batch<true>(v, level, out, out_len);
      return;
    }
    if (batch) {
      expand_batch<false>(v, level, out, out_len);
      return;
    }
    const unsigned e1 = offsets[v + 1u];
    for (unsigned e = offsets[v]; e < e1; ++e) {
      const unsigned u = targets[e];
      if (occ::ld_relaxed(&dist[u]) == OCC_BFS_INF &&
          atomicCAS(&dist[u], OCC_BFS_INF, level + 1u) == OCC_BFS_INF)
        out[atomicAdd(out_len, 1u)] = u;
    }
  }
  template <bool KEEP>
  __device__ void expand_batch(unsigned v, unsigned level, unsigned* out,
                               unsigned* out_len) const {
    const unsigned long long pol = KEEP ? l2_keep_policy() : 0ull;
    const unsigned e0 = KEEP ? ld_keep(&offsets[v], pol) : offsets[v];
    const unsigned e1 = KEEP ? ld_keep(&offsets[v + 1u], pol) : offsets[v + 1u];
    for (unsigned e = e0; e < e1; e += 4u) {
      unsigned u[4], d[4];
#pragma unroll
      for (unsigned k = 0u; k < 4u; ++k)
        u[k] = e + k < e1 ? (KEEP ? ld_keep(&targets[e + k], pol) : targets[e + k]) : OCC_BFS_INF;
#pragma unroll
      for (unsigned k = 0u; k < 4u; ++k)
        d[k] = u[k] == OCC_BFS_INF ? 0u
               : KEEP              ? ld_relaxed_keep(&dist[u[k]], pol)
                                   : occ::ld_relaxed(&dist[u[k]]);
      unsigned take = 0u;
#pragma unroll
      for (unsigned k = 0u; k < 4u; ++k)
        if (d[k] == OCC_BFS_INF && atomicCAS(&dist[u[k]], OCC_BFS_INF, level + 1u) == OCC_BFS_INF)
          take |= 1u << k;
      unsigned at = claim_slots(out_len, popc4(take));
#pragma unroll
      for (unsigned k = 0u; k < 4u; ++k)
        if (take & (1u << k)) out[at++] = u[k];
    }
  }
};

}  // namespace occ_app

extern "C" __global__ void coop_bfs(occ::coop::State* st, occ::coop::Mailbox* mb,
                                    const unsigned* offsets, const unsigned* targets, unsigned n,
                                    const unsigned* sources, unsigned num_sources, unsigned rounds,
                                    unsigned* dist, unsigned* fa, unsigned* fb, unsigned* lens,
                                    unsigned long long* checks, unsigned mode) {
  __shared__ occ::coop::Group g;
  if (!occ::coop::enter(g, st, mb)) return;
  occ_app::FrontierBody<occ_app::BfsEdge> body = {
      {offsets, targets, dist, (mode & OCC_APP_BODY_BIT) != 0u, (mode & OCC_BFS_KEEP) != 0u},
      n, sources, num_sources, rounds, dist, fa, fb, lens, checks};
  // lens[32..33]: the claim counters (OCC_APP_CLAIMS_NEAR: lens[4..5], the old layout).
  occ_app::phase_loop(g, mode, body, lens + ((mode & OCC_APP_CLAIMS_NEAR) != 0u ? 4 : 32));
}

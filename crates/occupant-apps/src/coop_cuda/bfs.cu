// occupant: fragment (compiled only after the .cuh files its crate concatenates it with; tests/nvrtc_coop_apps.rs compiles it)
// Cooperative breadth-first search (occupant_apps::coop_cuda, App::Bfs): `rounds` BFS
// traversals, level-synchronous with a frontier queue — the frontier rounds of frontier.cuh in
// the phase loop of loop.cuh (every global barrier a resizing barrier; mode 0 persistent,
// 1 regular, 2 query).
#include <occupant.cuh>

namespace occ_app {

/// BFS: an unreached neighbour gets level + 1 (first CAS wins) and joins the next frontier.
struct BfsEdge {
  const unsigned* offsets;
  const unsigned* targets;
  unsigned* dist;
  __device__ void reset(unsigned) const {}
  __device__ void expand(unsigned v, unsigned level, unsigned* out, unsigned* out_len) const {
    const unsigned e1 = offsets[v + 1u];
    for (unsigned e = offsets[v]; e < e1; ++e) {
      const unsigned u = targets[e];
      if (occ::ld_relaxed(&dist[u]) == OCC_BFS_INF &&
          atomicCAS(&dist[u], OCC_BFS_INF, level + 1u) == OCC_BFS_INF)
        out[atomicAdd(out_len, 1u)] = u;
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
      {offsets, targets, dist}, n, sources, num_sources, rounds, dist, fa, fb, lens, checks};
  occ_app::phase_loop(g, mode, body, lens + 4);  // lens[4..5]: the claim counters
}

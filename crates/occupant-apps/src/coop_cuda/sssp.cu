// occupant: fragment (compiled only after the .cuh files its crate concatenates it with; tests/nvrtc_coop_apps.rs compiles it)
// Cooperative single-source shortest paths (occupant_apps::coop_cuda, App::Sssp): `rounds`
// traversals, frontier-based Bellman-Ford (a vertex whose distance dropped is queued once per
// iteration: inq[v] = iteration + 1), weights u32 — the frontier rounds of frontier.cuh in the
// phase loop of loop.cuh (every global barrier a resizing barrier; mode 0 persistent,
// 1 regular, 2 query).
#include <occupant.cuh>

namespace occ_app {

/// SSSP: relax every out-edge; a neighbour whose distance dropped joins the next frontier once.
struct SsspEdge {
  const unsigned* offsets;
  const unsigned* targets;
  const unsigned* weights;
  unsigned* dist;
  unsigned* inq;
  __device__ void reset(unsigned v) const { inq[v] = 0u; }
  __device__ void expand(unsigned v, unsigned level, unsigned* out, unsigned* out_len) const {
    const unsigned dv = occ::ld_relaxed(&dist[v]);
    const unsigned e1 = offsets[v + 1u];
    for (unsigned e = offsets[v]; e < e1; ++e) {
      const unsigned u = targets[e];
      const unsigned nd = dv + weights[e];
      if (nd < occ::ld_relaxed(&dist[u]) && nd < atomicMin(&dist[u], nd) &&
          atomicExch(&inq[u], level + 1u) != level + 1u)
        out[atomicAdd(out_len, 1u)] = u;
    }
  }
};

}  // namespace occ_app

extern "C" __global__ void coop_sssp(occ::coop::State* st, occ::coop::Mailbox* mb,
                                     const unsigned* offsets, const unsigned* targets, unsigned n,
                                     const unsigned* sources, unsigned num_sources,
                                     unsigned rounds, unsigned* dist, unsigned* fa, unsigned* fb,
                                     unsigned* lens, unsigned long long* checks, unsigned mode,
                                     const unsigned* weights, unsigned* inq) {
  __shared__ occ::coop::Group g;
  if (!occ::coop::enter(g, st, mb)) return;
  occ_app::FrontierBody<occ_app::SsspEdge> body = {
      {offsets, targets, weights, dist, inq}, n, sources, num_sources, rounds, dist, fa, fb, lens,
      checks};
  // lens[32..33]: the claim counters (OCC_APP_CLAIMS_NEAR: lens[4..5], the old layout).
  occ_app::phase_loop(g, mode, body, lens + ((mode & OCC_APP_CLAIMS_NEAR) != 0u ? 4 : 32));
}

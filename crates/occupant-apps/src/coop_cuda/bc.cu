// occupant: fragment (compiled after graph.cu, as GRAPH_CU; tests/nvrtc_coop_apps.rs compiles it)
// Cooperative bc (occupant_apps::coop_cuda, GpuGraphApp): Brandes betweenness centrality from
// one source, the CUDA app's steps (apps/cuda/bc.cu: bc_phase, forward BFS levels with path
// counts, then the backward dependency steps) in the phase loop of loop.cuh through graph.cu's
// IterBody (one phase per iteration; every global barrier a resizing barrier).
//
// Every value a step hands to the next lives in global memory — level, sigma, inv, delta and
// the control words bcctl (found flags, kBcEnd = where the forward phase ended) and ctl (the
// "another step follows" flags IterBody reads) — and bc_phase distributes a step's vertices and
// edge chunks grid-stride over the interval's threads (Span), so a step is the same with any
// number of groups: groups killed or forked at a barrier change only who runs the next step.
// The loop words (round, phase, step) are the transmitted values. INIT writes what the host's
// BcState::reset writes, and clears bcctl's words (0..3 and kBcEnd) besides IterBody's ctl.
#include <occupant.cuh>

namespace occ_app {

struct BcApp {
  Graph g;
  u32* level;
  double* sigma;
  double* inv;
  double* delta;
  u32* bcctl;
  u32* ctl;
  u32 source;
  const double* expect;  // the reference scores
  double rel_tol;        // |got - expect| <= rel_tol * max(|expect|, 1), as verify()
  __device__ unsigned phases() const { return 1u; }
  __device__ void init(Grid gr) {
    for (u32 v = gr.tid; v < g.n; v += gr.nthreads) {
      level[v] = v == source ? 0u : OCC_APP_INF;
      sigma[v] = v == source ? 1.0 : 0.0;
      delta[v] = 0.0;
    }
    if (gr.tid == 0u) {
      for (u32 i = 0u; i < 3u; ++i) ((volatile u32*)bcctl)[i] = 0u;
      ((volatile u32*)bcctl)[kBcEnd] = 0u;
    }
  }
  __device__ void phase(Grid gr, u32 it, u32) {
    bc_phase(g, gr, level, sigma, inv, delta, bcctl, ctl, it);
  }
  __device__ bool converged(u32 it) const { return load_volatile(ctl + it % 3u) == 0u; }
  /// The source's score is 0 by definition (the reference's and the host's output); the
  /// kernel leaves its dependency in delta, so it is not compared.
  __device__ void check(Grid gr, u32* bad) {
    const u32 rounded = (g.n + 31u) & ~31u;
    for (u32 v = gr.tid; v < rounded; v += gr.nthreads) {
      bool wrong = false;
      if (v < g.n && v != source) {
        const double w = expect[v];
        const double tol = rel_tol * fmax(fabs(w), 1.0);
        wrong = !(fabs(delta[v] - w) <= tol);  // true for NaN
      }
      count_bad(bad, wrong);
    }
  }
};

}  // namespace occ_app

extern "C" __global__ void coop_bc(occ::coop::State* st, occ::coop::Mailbox* mb, GRAPH_PARAMS,
                                   u32* level, double* sigma, double* inv, double* delta,
                                   u32* bcctl, u32* ctl, u32 max_iterations, u32 rounds,
                                   u32 source, const double* expect, double rel_tol, u32* checks,
                                   u32* iters, u32 mode) {
  OCC_COOP_ENTER
  MAKE_GRAPH;
  occ_app::IterBody<occ_app::BcApp> body = {
      {g, level, sigma, inv, delta, bcctl, ctl, source, expect, rel_tol}, ctl, max_iterations,
      rounds, checks, iters};
  occ_app::phase_loop(grp, mode, body);
}

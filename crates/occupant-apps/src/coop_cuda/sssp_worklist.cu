// occupant: fragment (compiled after graph.cu, as GRAPH_CU; tests/nvrtc_coop_apps.rs compiles it)
// Cooperative sssp-worklist (occupant_apps::coop_cuda, GpuGraphApp): Lonestar-style SSSP, the
// CUDA app's steps (apps/cuda/sssp_worklist.cu: sssp_worklist_phase) in the phase loop of
// loop.cuh through graph.cu's IterBody (one phase per iteration; every global barrier a
// resizing barrier).
//
// The worklists swap by the step's parity, not by pointers a group holds: step s reads list
// s % 2, its length ctl[(s - 1) % 3] (written by step s - 1's pushes) and the stamps
// q[s % 2], and pushes into list (s + 1) % 2 at slots counted in ctl[s % 3] (cleared in step
// s - 1) — all in global memory, indexed by the transmitted step number, and distributed
// grid-stride over the interval's threads (Span). A step is therefore the same with any number
// of groups, and a group forked at a barrier finds the lists where the step number says.
// INIT writes what the host's WorklistState::reset writes (dist, both stamp arrays; the lists
// need none); IterBody clears ctl's counts.
#include <occupant.cuh>

namespace occ_app {

struct WorklistApp {
  Graph g;
  u64* dist;
  u32* wl;
  u32* q;
  u32 source;
  u32* ctl;
  const u64* expect;  // the reference distances (u64::MAX unreachable)
  __device__ unsigned phases() const { return 1u; }
  __device__ void init(Grid gr) {
    for (u32 v = gr.tid; v < g.n; v += gr.nthreads) {
      dist[v] = v == source ? 0ull : ~0ull;
      q[v] = v == source ? 0u : OCC_APP_INF;  // step 0's list holds the source
      q[(size_t)g.n + v] = OCC_APP_INF;
    }
  }
  __device__ void phase(Grid gr, u32 it, u32) {
    sssp_worklist_phase(g, gr, dist, wl, q, source, ctl, it);
  }
  __device__ bool converged(u32 it) const { return load_volatile(ctl + it % 3u) == 0u; }
  __device__ void check(Grid gr, u32* bad) {
    const u32 rounded = (g.n + 31u) & ~31u;
    for (u32 v = gr.tid; v < rounded; v += gr.nthreads)
      count_bad(bad, v < g.n && dist[v] != expect[v]);
  }
};

}  // namespace occ_app

extern "C" __global__ void coop_sssp_worklist(occ::coop::State* st, occ::coop::Mailbox* mb,
                                              GRAPH_PARAMS, u64* dist, u32* wl, u32* q,
                                              u32 source, u32* ctl, u32 max_iterations,
                                              u32 rounds, const u64* expect, u32* checks,
                                              u32* iters, u32 mode) {
  OCC_COOP_ENTER
  MAKE_GRAPH;
  occ_app::IterBody<occ_app::WorklistApp> body = {
      {g, dist, wl, q, source, ctl, expect}, ctl, max_iterations, rounds, checks, iters};
  occ_app::phase_loop(grp, mode, body);
}

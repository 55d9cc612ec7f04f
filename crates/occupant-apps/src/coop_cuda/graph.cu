// occupant: fragment (compiled only after the .cuh files its crate concatenates it with; tests/nvrtc_coop_apps.rs compiles it)
// Cooperative graph applications cc, pagerank, color and mis (occupant_apps::coop_cuda,
// GpuGraphApp): the phases of the CUDA graph apps (apps/cuda/graph_apps.cu, compiled before this
// file with -DOCC_APP_HOST_LOOP: cc_phase, pr_phase0/1, color_phase, mis_phase) in the phase
// loop of loop.cuh — every global barrier a resizing barrier (mode 1 regular, 2 query; mode 0
// the persistent baseline over a fixed grid).
//
// `rounds` runs of the app back to back, each: INIT (the state the host's reset writes, on the
// device), the app's iterations (`phases` barriers each) until its convergence test or
// max_iterations, CHECK (vertices whose result differs from the sequential reference `expect`
// counted into checks[round]; the iterations into iters[round]). State: w[0] round, w[1] phase
// of the iteration (or INIT / CHECK / NEXT), w[2] iteration. bc.cu and sssp_worklist.cu, compiled
// after this file, are two more apps of IterBody.
#include <occupant.cuh>

namespace occ_app {

enum : unsigned { kPhInit = 0xffffffffu, kPhCheck = 0xfffffffeu, kPhNext = 0xfffffffdu };

/// App: unsigned phases() const; void init(Grid); void phase(Grid, u32 it, u32 p);
/// bool converged(u32 it) const; void check(Grid, u32* bad).
template <class App>
struct IterBody {
  App app;
  u32* ctl;
  u32 max_iterations;
  u32 rounds;
  u32* checks;
  u32* iters;

  __device__ void first(unsigned* w) const {
    w[0] = 0u;
    w[1] = kPhInit;
    w[2] = 0u;
  }

  __device__ bool next(const occ::coop::Group& g, unsigned* w) const {
    if (w[1] == app.phases()) {
      const u32 it = w[2];
      if (app.converged(it) || it + 1u >= max_iterations) {
        if (g.id == 0u && threadIdx.x == 0u) iters[w[0]] = it + 1u;
        w[1] = kPhCheck;
      } else {
        w[2] = it + 1u;
        w[1] = 0u;
      }
    }
    if (w[1] == kPhNext) {
      ++w[0];
      w[1] = kPhInit;
      w[2] = 0u;
    }
    return w[0] < rounds;
  }

  __device__ void run(Span s, unsigned* w) {
    const Grid gr = {s.tid, s.nthreads};
    if (w[1] == kPhInit) {
      app.init(gr);
      if (gr.tid == 0u)
        for (u32 i = 0u; i < 3u; ++i) ((volatile u32*)ctl)[i] = 0u;
      w[1] = 0u;
      w[2] = 0u;
    } else if (w[1] == kPhCheck) {
      app.check(gr, checks + w[0]);
      w[1] = kPhNext;
    } else {
      app.phase(gr, w[2], w[1]);
      ++w[1];
    }
  }
};

/// Counts the warp's bad vertices into *bad (one atomic per warp).
__device__ __forceinline__ void count_bad(u32* bad, bool wrong) {
  const u32 b = __ballot_sync(OCC_APP_FULL, wrong);
  if (b != 0u && lane_id() == 0u) atomicAdd(bad, (u32)__popc(b));
}

/// Loops a check over the vertices so that every lane of a warp takes part in each ballot.
template <class Wrong>
__device__ __forceinline__ void check_all(const Graph& g, Grid gr, u32* bad, const Wrong& wrong) {
  const u32 rounded = (g.n + 31u) & ~31u;
  for (u32 v = gr.tid; v < rounded; v += gr.nthreads) count_bad(bad, v < g.n && wrong(v));
}

struct LabelWrong {
  const u32* got;
  const u32* expect;
  __device__ bool operator()(u32 v) const { return got[v] != expect[v]; }
};

struct CcApp {
  Graph g;
  u32* label;
  u32* stamp;
  u32* ctl;
  const u32* expect;
  __device__ unsigned phases() const { return 1u; }
  __device__ void init(Grid gr) {
    for (u32 v = gr.tid; v < g.n; v += gr.nthreads) {
      label[v] = v;
      stamp[v] = 0u;
    }
  }
  __device__ void phase(Grid gr, u32 it, u32) { cc_phase(g, gr, label, stamp, ctl, it); }
  __device__ bool converged(u32 it) const { return load_volatile(ctl + it % 3u) == 0u; }
  __device__ void check(Grid gr, u32* bad) { check_all(g, gr, bad, LabelWrong{label, expect}); }
};

/// color (undecided = OCC_APP_INF, `mis` false) and mis (0 undecided, 1 in, 2 out).
struct RoundsApp {
  Graph g;
  u32* state;
  const u32* prio;
  u32* lost;
  u32* ctl;
  const u32* expect;  // colour, or 1 for a member of the set
  bool mis;
  __device__ unsigned phases() const { return mis ? 3u : 2u; }
  __device__ void init(Grid gr) {
    for (u32 v = gr.tid; v < g.n; v += gr.nthreads) {
      state[v] = mis ? (u32)kMisUndecided : OCC_APP_INF;
      lost[v] = OCC_APP_INF;
    }
  }
  __device__ void phase(Grid gr, u32 it, u32 p) {
    if (mis) mis_phase(g, gr, state, prio, lost, ctl, it, p);
    else color_phase(g, gr, state, prio, lost, ctl, it, p);
  }
  __device__ bool converged(u32 it) const { return load_volatile(ctl + it % 3u) == 0u; }
  __device__ void check(Grid gr, u32* bad) {
    if (mis) {
      const Graph& gg = g;
      const u32 rounded = (gg.n + 31u) & ~31u;
      for (u32 v = gr.tid; v < rounded; v += gr.nthreads)
        count_bad(bad, v < gg.n && ((state[v] == (u32)kMisIn) != (expect[v] != 0u)));
    } else {
      check_all(g, gr, bad, LabelWrong{state, expect});
    }
  }
};

struct PageRankApp {
  Graph g;
  double* rank;
  double* contrib;
  const double* inv_deg;
  double* acc;
  double* l1;
  double base, d, tol;
  const double* expect;
  double check_tol;
  __device__ unsigned phases() const { return g.nh != 0u ? 2u : 1u; }
  __device__ void init(Grid gr) {
    const double r0 = 1.0 / (double)g.n;
    for (u32 v = gr.tid; v < g.n; v += gr.nthreads) {
      rank[v] = r0;
      contrib[v] = r0 * inv_deg[v];
      contrib[g.n + v] = 0.0;
    }
    for (u32 h = gr.tid; h < g.nh; h += gr.nthreads) acc[h] = 0.0;
    if (gr.tid == 0u)
      for (u32 i = 0u; i < 3u; ++i) ((volatile double*)l1)[i] = 0.0;
  }
  __device__ void phase(Grid gr, u32 it, u32 p) {
    if (p == 0u) pr_phase0(g, gr, rank, contrib, inv_deg, acc, l1, it, base, d);
    else pr_phase1(g, gr, rank, contrib, inv_deg, acc, l1, it, base, d);
  }
  __device__ bool converged(u32 it) const {
    return *(const volatile double*)(l1 + it % 3u) <= tol;
  }
  __device__ void check(Grid gr, u32* bad) {
    const u32 rounded = (g.n + 31u) & ~31u;
    for (u32 v = gr.tid; v < rounded; v += gr.nthreads)
      count_bad(bad, v < g.n && !(fabs(rank[v] - expect[v]) <= check_tol));
  }
};

}  // namespace occ_app

#define OCC_COOP_ENTER                    \
  __shared__ occ::coop::Group grp;        \
  if (!occ::coop::enter(grp, st, mb)) return;

extern "C" __global__ void coop_cc(occ::coop::State* st, occ::coop::Mailbox* mb, GRAPH_PARAMS,
                                   u32* label, u32* stamp, u32* ctl, u32 max_iterations,
                                   u32 rounds, const u32* expect, u32* checks, u32* iters,
                                   u32 mode) {
  OCC_COOP_ENTER
  MAKE_GRAPH;
  occ_app::IterBody<occ_app::CcApp> body = {{g, label, stamp, ctl, expect}, ctl, max_iterations,
                                            rounds, checks, iters};
  occ_app::phase_loop(grp, mode, body);
}

extern "C" __global__ void coop_color(occ::coop::State* st, occ::coop::Mailbox* mb, GRAPH_PARAMS,
                                      u32* state, const u32* prio, u32* lost, u32* ctl,
                                      u32 max_iterations, u32 rounds, const u32* expect,
                                      u32* checks, u32* iters, u32 mode) {
  OCC_COOP_ENTER
  MAKE_GRAPH;
  occ_app::IterBody<occ_app::RoundsApp> body = {
      {g, state, prio, lost, ctl, expect, false}, ctl, max_iterations, rounds, checks, iters};
  occ_app::phase_loop(grp, mode, body);
}

extern "C" __global__ void coop_mis(occ::coop::State* st, occ::coop::Mailbox* mb, GRAPH_PARAMS,
                                    u32* state, const u32* prio, u32* lost, u32* ctl,
                                    u32 max_iterations, u32 rounds, const u32* expect,
                                    u32* checks, u32* iters, u32 mode) {
  OCC_COOP_ENTER
  MAKE_GRAPH;
  occ_app::IterBody<occ_app::RoundsApp> body = {
      {g, state, prio, lost, ctl, expect, true}, ctl, max_iterations, rounds, checks, iters};
  occ_app::phase_loop(grp, mode, body);
}

extern "C" __global__ void coop_pagerank(occ::coop::State* st, occ::coop::Mailbox* mb,
                                         GRAPH_PARAMS, double* rank, double* contrib,
                                         const double* inv_deg, double* acc, double* l1,
                                         const u64* tcost, u32* ctl, u32 max_iterations,
                                         double base, double d, double tol,
                                         u32 rounds, const double* expect, double check_tol,
                                         u32* checks, u32* iters, u32 mode) {
  OCC_COOP_ENTER
  MAKE_GRAPH;
  // tcost (the device loops' tile ranges of equal cost) is not used: the cooperative kernel
  // keeps pr_phase0's grid-stride tiles, as its groups come and go between phases.
  (void)tcost;
  occ_app::IterBody<occ_app::PageRankApp> body = {
      {g, rank, contrib, inv_deg, acc, l1, base, d, tol, expect, check_tol}, ctl,
      max_iterations, rounds, checks, iters};
  occ_app::phase_loop(grp, mode, body);
}

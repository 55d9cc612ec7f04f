// The cooperative bc and sssp-worklist bodies (coop_cuda/bc.cu, sssp_worklist.cu through
// graph.cu's IterBody, over apps/cuda's bc_phase / sssp_worklist_phase) on CPU threads (simt.h:
// a CUDA thread per std::thread, warps of 32), every interval — INIT, each step, CHECK — run by
// a different number of one-warp groups with contiguous ids, as groups killed and forked at the
// resizing barriers would leave them: the threads of an interval start from thread 0's loop
// words of the last one (what a forked group receives), the state between intervals is only
// what the bodies keep in memory. Every round's CHECK counts the vertices that differ from the
// sequential reference (given by the Rust test).
//   graph_harness INPUT APP(bc|wl) ROUNDS MAX_WARPS SEED
// Input: n m source / off / col / wt / nh / hv / hoff / chunks / hchunk / bc scores / distances.
#include "simt.h"
#include "graph_kernels.cu"

#include <cstdio>
#include <stdexcept>
#include <type_traits>
#include <random>
#include <string>
#include <thread>
#include <vector>

template <class T>
static std::vector<T> read_vec(FILE* f, size_t k) {
  std::vector<T> v(k + 1);  // + 1: never empty
  for (size_t i = 0; i < k; ++i) {
    if constexpr (std::is_same_v<T, double>) {
      if (fscanf(f, "%lf", &v[i]) != 1) throw std::runtime_error("bad input");
    } else {
      unsigned long long x;
      if (fscanf(f, "%llu", &x) != 1) throw std::runtime_error("bad input");
      v[i] = (T)x;
    }
  }
  return v;
}

/// Runs one interval: `warps` one-warp groups, each thread from a copy of `w`; thread 0's words
/// come back in `w`. Returns next()'s answer.
template <class Body>
static bool interval(Body& body, unsigned* w, unsigned warps) {
  std::vector<SimWarp> ws(warps);
  std::vector<std::thread> ts;
  bool go = false;
  unsigned out[OCC_APP_WORDS];
  for (unsigned t = 0; t < warps * 32u; ++t) {
    ts.emplace_back([&, t] {
      threadIdx.x = t & 31u;
      sim_warp = &ws[t >> 5];
      Body b = body;
      unsigned lw[OCC_APP_WORDS];
      for (unsigned i = 0; i < OCC_APP_WORDS; ++i) lw[i] = w[i];
      const occ::coop::Group g = {t >> 5, warps, false};
      const bool more = b.next(g, lw);
      if (more) b.run(occ_app::Span{t, warps * 32u}, lw);
      if (t == 0u) {
        go = more;
        for (unsigned i = 0; i < OCC_APP_WORDS; ++i) out[i] = lw[i];
      }
    });
  }
  for (auto& th : ts) th.join();
  for (unsigned i = 0; i < OCC_APP_WORDS; ++i) w[i] = out[i];
  return go;
}

int main(int argc, char** argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: graph_harness INPUT bc|wl ROUNDS MAX_WARPS SEED\n");
    return 2;
  }
  FILE* f = fopen(argv[1], "r");
  if (!f) return 2;
  const std::string app = argv[2];
  const u32 rounds = (u32)std::stoul(argv[3]);
  const unsigned max_warps = (unsigned)std::stoul(argv[4]);
  std::mt19937 rng((unsigned)std::stoul(argv[5]));
  unsigned long long hdr[3];
  if (fscanf(f, "%llu %llu %llu", &hdr[0], &hdr[1], &hdr[2]) != 3) return 2;
  const u32 n = (u32)hdr[0], m = (u32)hdr[1], source = (u32)hdr[2];
  auto off = read_vec<u32>(f, n + 1), col = read_vec<u32>(f, m), wt = read_vec<u32>(f, m);
  const u32 nh = read_vec<u32>(f, 1)[0];
  auto hv = read_vec<u32>(f, nh), hoff = read_vec<u32>(f, nh + 1);
  const u32 chunks = read_vec<u32>(f, 1)[0];
  auto hchunk = read_vec<u32>(f, chunks);
  auto want_bc = read_vec<double>(f, n);
  auto want_dist = read_vec<u64>(f, n);
  fclose(f);
  const Graph g = {off.data(), col.data(), wt.data(), hv.data(), hoff.data(), hchunk.data(),
                   n, nh, 256u};
  std::vector<u32> ctl(kCtlWords, 0xdeadu), checks(rounds, 0u), iters(rounds, 0u);
  const u32 bound = app == "bc" ? 2u * n + 2u : n + 2u;  // CudaInput::bound()
  unsigned intervals = 0, changes = 0, last = 0;
  auto drive = [&](auto body) {
    unsigned w[OCC_APP_WORDS];
    body.first(w);
    for (;;) {
      const unsigned k = 1u + rng() % max_warps;
      changes += k != last;
      last = k;
      ++intervals;
      if (!interval(body, w, k)) break;
    }
  };
  if (app == "bc") {
    std::vector<u32> level(n + 1), bcctl(64, 0xdeadu);
    std::vector<double> sigma(n + 1, -1.0), inv(n + 1, -1.0), delta(n + 1, -1.0);
    drive(occ_app::IterBody<occ_app::BcApp>{
        {g, level.data(), sigma.data(), inv.data(), delta.data(), bcctl.data(), ctl.data(),
         source, want_bc.data(), 1e-9},
        ctl.data(), bound, rounds, checks.data(), iters.data()});
  } else {
    std::vector<u64> dist(n + 1, 12345u);
    std::vector<u32> wl(2 * n + 1, 0xdeadu), q(2 * n + 1, 7u);
    drive(occ_app::IterBody<occ_app::WorklistApp>{
        {g, dist.data(), wl.data(), q.data(), source, ctl.data(), want_dist.data()},
        ctl.data(), bound, rounds, checks.data(), iters.data()});
  }
  unsigned wrong = 0;
  for (u32 r = 0; r < rounds; ++r) {
    printf("round %u: %u steps, %u bad vertices\n", r, iters[r], checks[r]);
    wrong += checks[r] != 0u || iters[r] == 0u || iters[r] >= bound;
  }
  printf("%s: intervals=%u group_count_changes=%u wrong_rounds=%u\n", app.c_str(), intervals,
         changes, wrong);
  return wrong == 0u ? 0 : 1;
}

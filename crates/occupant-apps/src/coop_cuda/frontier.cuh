// occupant-apps coop_cuda: the rounds of the frontier traversals (BFS, SSSP) as one body of the
// phase loop (loop.cuh); the apps differ only in how a vertex is reset and expanded (an Edge
// struct). `rounds` traversals, round r from sources[r % num_sources]. State: w[0] = round,
// w[1] = phase.
//
// Phases of one round, one barrier interval each: INIT (dist[v] = INF, dist[src] = 0, frontier
// = {src}), levels 0, 1, ... (expand the frontier; the next one is level+1's queue), CHECK once
// a level's queue is empty (reached vertices and the sum of their distances into checks[2r],
// checks[2r+1]), then the next round. Every phase is one for_each_item (loop.cuh: static, or
// dynamic with the claim counters lens[32], lens[33]: a line apart from the queue lengths
// lens[0..2], which every group reads at the top of every interval and a level's pushes
// increment, while group 0 zeroes a claim counter in every interval).
#ifndef OCC_APP_COOP_FRONTIER
#define OCC_APP_COOP_FRONTIER
#include <occupant.cuh>

#define OCC_BFS_INF 0xffffffffu
#define OCC_BFS_INIT 0xffffffffu
#define OCC_BFS_CHECK 0xfffffffeu
#define OCC_BFS_NEXT 0xfffffffdu

namespace occ_app {

/// Edge: void reset(unsigned v) (INIT, besides dist); void expand(unsigned v, unsigned level,
/// unsigned* out, unsigned* out_len) (push the vertices v improves to the next frontier).
template <class Edge>
struct FrontierBody {
  Edge edge;
  unsigned n;
  const unsigned* sources;
  unsigned num_sources;
  unsigned rounds;
  unsigned* dist;
  unsigned* fa;
  unsigned* fb;
  unsigned* lens;
  unsigned long long* checks;

  __device__ void first(unsigned* w) const {
    w[0] = 0u;
    w[1] = OCC_BFS_INIT;
  }

  /// After a level: CHECK once its queue is empty; after CHECK: the next round.
  __device__ bool next(const occ::coop::Group&, unsigned* w) const {
    const unsigned phase = w[1];
    if (phase != OCC_BFS_INIT && phase != OCC_BFS_CHECK && phase != OCC_BFS_NEXT && phase > 0u &&
        occ::ld_relaxed(&lens[phase % 3u]) == 0u)
      w[1] = OCC_BFS_CHECK;
    if (w[1] == OCC_BFS_NEXT) {
      ++w[0];
      w[1] = OCC_BFS_INIT;
    }
    return w[0] < rounds;
  }

  __device__ void run(Span s, unsigned* w) {
    const unsigned round = w[0], phase = w[1];
    if (phase == OCC_BFS_INIT) {
      const unsigned src = sources[round % num_sources];
      for_each_item(s, n, [&](unsigned v) {
        dist[v] = v == src ? 0u : OCC_BFS_INF;
        edge.reset(v);
      });
      if (s.tid == 0u) {
        fa[0] = src;
        lens[0] = 1u;
        lens[1] = 0u;
        lens[2] = 0u;
      }
      w[1] = 0u;
    } else if (phase == OCC_BFS_CHECK) {
      unsigned long long reached = 0ull, sum = 0ull;
      for_each_item(s, n, [&](unsigned v) {
        const unsigned d = dist[v];
        if (d != OCC_BFS_INF) {
          ++reached;
          sum += d;
        }
      });
      if (reached != 0ull) {
        atomicAdd(&checks[2u * round], reached);
        atomicAdd(&checks[2u * round + 1u], sum);
      }
      w[1] = OCC_BFS_NEXT;
    } else {
      const unsigned level = phase;
      const unsigned* in = (level & 1u) ? fb : fa;
      unsigned* out = (level & 1u) ? fa : fb;
      const unsigned in_len = lens[level % 3u];
      if (s.tid == 0u) lens[(level + 2u) % 3u] = 0u;
      unsigned* out_len = &lens[(level + 1u) % 3u];
      for_each_item(s, in_len, [&](unsigned i) { edge.expand(in[i], level, out, out_len); });
      w[1] = level + 1u;
    }
  }
};

}  // namespace occ_app
#endif  // OCC_APP_COOP_FRONTIER

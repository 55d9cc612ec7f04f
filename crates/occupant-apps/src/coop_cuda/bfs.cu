// Cooperative breadth-first search (occupant_apps::coop_cuda): `rounds` BFS traversals, round r
// from sources[r % num_sources], level-synchronous with a frontier queue. Every global barrier
// is a resizing barrier (mode 1: regular variant, mode 2: query variant); mode 0 is the
// persistent baseline: the same kernel and barrier over a fixed grid, no scheduler. Transmitted:
// the round and the phase (thread 0 of group 0 sends them to forked groups), seed 000 Fig. 4.
//
// Phases of one round, one barrier interval each: INIT (dist[v] = INF, dist[src] = 0, frontier
// = {src}), levels 0, 1, ... (expand the frontier; the next one is level+1's queue), CHECK once
// a level's queue is empty (reached vertices and the sum of their distances into checks[2r],
// checks[2r+1]), then the next round. Work is distributed by participating id: thread
// g.id * blockDim.x + threadIdx.x of g.m * blockDim.x, fixed within an interval.
#include <occupant.cuh>

#define OCC_BFS_INF 0xffffffffu
#define OCC_BFS_INIT 0xffffffffu
#define OCC_BFS_CHECK 0xfffffffeu
#define OCC_BFS_NEXT 0xfffffffdu

extern "C" __global__ void coop_bfs(occ::coop::State* st, occ::coop::Mailbox* mb,
                                    const unsigned* offsets, const unsigned* targets, unsigned n,
                                    const unsigned* sources, unsigned num_sources, unsigned rounds,
                                    unsigned* dist, unsigned* fa, unsigned* fb, unsigned* lens,
                                    unsigned long long* checks, unsigned mode) {
  __shared__ occ::coop::Group g;
  if (!occ::coop::enter(g, st, mb)) return;
  unsigned round = 0u, phase = OCC_BFS_INIT;
  if (g.forked) {
    round = occ::coop::received<unsigned>(g, 0);
    phase = occ::coop::received<unsigned>(g, 1);
  }
  for (;;) {
    // The decision at the top of an interval (forked groups start here too).
    if (phase != OCC_BFS_INIT && phase != OCC_BFS_CHECK && phase != OCC_BFS_NEXT && phase > 0u &&
        occ::ld_relaxed(&lens[phase % 3u]) == 0u)
      phase = OCC_BFS_CHECK;
    if (phase == OCC_BFS_NEXT) {
      ++round;
      phase = OCC_BFS_INIT;
    }
    if (round >= rounds) break;
    const unsigned tid = g.id * blockDim.x + threadIdx.x;
    const unsigned stride = g.m * blockDim.x;
    const unsigned src = sources[round % num_sources];
    unsigned next;
    if (phase == OCC_BFS_INIT) {
      for (unsigned v = tid; v < n; v += stride) dist[v] = v == src ? 0u : OCC_BFS_INF;
      if (tid == 0u) {
        fa[0] = src;
        lens[0] = 1u;
        lens[1] = 0u;
        lens[2] = 0u;
      }
      next = 0u;
    } else if (phase == OCC_BFS_CHECK) {
      unsigned long long reached = 0ull, sum = 0ull;
      for (unsigned v = tid; v < n; v += stride) {
        const unsigned d = dist[v];
        if (d != OCC_BFS_INF) {
          ++reached;
          sum += d;
        }
      }
      if (reached != 0ull) {
        atomicAdd(&checks[2u * round], reached);
        atomicAdd(&checks[2u * round + 1u], sum);
      }
      next = OCC_BFS_NEXT;
    } else {
      const unsigned level = phase;
      const unsigned* in = (level & 1u) ? fb : fa;
      unsigned* out = (level & 1u) ? fa : fb;
      const unsigned in_len = lens[level % 3u];
      unsigned* out_len = &lens[(level + 1u) % 3u];
      if (tid == 0u) lens[(level + 2u) % 3u] = 0u;
      for (unsigned i = tid; i < in_len; i += stride) {
        const unsigned v = in[i];
        const unsigned e1 = offsets[v + 1u];
        for (unsigned e = offsets[v]; e < e1; ++e) {
          const unsigned u = targets[e];
          if (occ::ld_relaxed(&dist[u]) == OCC_BFS_INF && atomicCAS(&dist[u], OCC_BFS_INF, level + 1u) == OCC_BFS_INF)
            out[atomicAdd(out_len, 1u)] = u;
        }
      }
      next = level + 1u;
    }
    phase = next;
    occ::coop::transmit(g, 0, round);
    occ::coop::transmit(g, 1, phase);
    const bool go = mode == 0u   ? occ::coop::fixed_barrier(g)
                    : mode == 1u ? occ::coop::resizing_barrier(g, false)
                                 : occ::coop::resizing_barrier(g, true);
    if (!go) return;
  }
  occ::coop::leave(g);
}

// occupant: fragment (compiled only after the .cuh files its crate concatenates it with; tests/nvrtc_coop_apps.rs compiles it)
// Cooperative game-tree search by work stealing (occupant_apps::coop_cuda::GpuGame; the CUDA
// twin of occupant_apps::coop::game, seed 000 Table 1): connect four (7×6, bitboards as the CPU
// version's) searched to a fixed depth with negamax. A task is a node of the pool; a node above
// `split` plies that is not terminal is expanded (thread 0 allocates its children and pushes
// them), any other node is searched to the remaining depth by the whole block: the first
// b = min(3, remaining) plies are enumerated over the threads (7^b paths), each thread searches
// its path's position with alpha-beta (iteratively, the CPU version's move order), and thread 0
// combines the values back up the b plies (exact negamax). The host combines the nodes' values
// up the tree. `rounds` roots are searched in one launch (the host seeds them).
#include <occupant.cuh>

#define OCC_C4_WIN 10000
#define OCC_C4_NEG_INF (-2147483647)
#define OCC_C4_POS_INF 2147483647
#define OCC_C4_MAX_DEPTH 20u

namespace occ_app {

/// A position: the stones of the player to move, all stones, moves played.
struct C4 {
  unsigned long long mine;
  unsigned long long all;
  unsigned moves;
};

__device__ __forceinline__ bool c4_can_play(const C4& p, unsigned c) {
  return (p.all & (1ull << (c * 7u + 5u))) == 0ull;
}

__device__ __forceinline__ C4 c4_play(const C4& p, unsigned c) {
  C4 r;
  r.mine = p.mine ^ p.all;
  r.all = p.all | (p.all + (1ull << (c * 7u)));
  r.moves = p.moves + 1u;
  return r;
}

/// Whether the player who just moved has four in a row.
__device__ __forceinline__ bool c4_won_by_last(const C4& p) {
  const unsigned long long b = p.mine ^ p.all;
  const unsigned shifts[4] = {1u, 7u, 6u, 8u};
  for (unsigned i = 0u; i < 4u; ++i) {
    const unsigned s = shifts[i];
    const unsigned long long m = b & (b >> s);
    if ((m & (m >> (2u * s))) != 0ull) return true;
  }
  return false;
}

__device__ __forceinline__ bool c4_full(const C4& p) { return p.moves == 42u; }

/// Static evaluation for the player to move: stones in the centre columns.
__device__ __forceinline__ int c4_eval(const C4& p) {
  const unsigned long long theirs = p.mine ^ p.all;
  const int weight[7] = {1, 2, 3, 4, 3, 2, 1};
  int v = 0;
  for (unsigned c = 0u; c < 7u; ++c) {
    const unsigned long long col = 127ull << (c * 7u);
    v += weight[c] * (__popcll(p.mine & col) - __popcll(theirs & col));
  }
  return v;
}

__device__ __forceinline__ unsigned c4_order(unsigned i) {
  const unsigned order[7] = {3u, 2u, 4u, 1u, 5u, 0u, 6u};
  return order[i];
}

/// Negamax value of a non-terminal `root` searched `depth` >= 1 plies with alpha-beta (full
/// window: exact), as the CPU version's recursion, with an explicit stack.
__device__ int c4_alphabeta(const C4& root, unsigned depth) {
  struct Frame {
    C4 p;
    int alpha, beta, best;
    unsigned next, d;
  };
  Frame st[OCC_C4_MAX_DEPTH + 1u];
  int sp = 0;
  st[0].p = root;
  st[0].alpha = OCC_C4_NEG_INF;
  st[0].beta = OCC_C4_POS_INF;
  st[0].best = OCC_C4_NEG_INF;
  st[0].next = 0u;
  st[0].d = depth;
  int ret = 0;
  bool have = false;
  for (;;) {
    Frame& f = st[sp];
    if (have) {
      have = false;
      const int v = -ret;
      if (v > f.best) f.best = v;
      if (v > f.alpha) f.alpha = v;
      if (f.alpha >= f.beta) f.next = 7u;
    }
    while (f.next < 7u && !c4_can_play(f.p, c4_order(f.next))) ++f.next;
    if (f.next == 7u) {
      ret = f.best;
      if (sp == 0) return ret;
      --sp;
      have = true;
      continue;
    }
    const C4 c = c4_play(f.p, c4_order(f.next));
    ++f.next;
    const unsigned cd = f.d - 1u;
    if (c4_won_by_last(c)) {
      ret = -OCC_C4_WIN - (int)cd;
      have = true;
      continue;
    }
    if (cd == 0u || c4_full(c)) {
      ret = c4_eval(c);
      have = true;
      continue;
    }
    Frame& n = st[sp + 1];
    n.p = c;
    n.alpha = -f.beta;
    n.beta = -f.alpha;
    n.best = OCC_C4_NEG_INF;
    n.next = 0u;
    n.d = cd;
    ++sp;
  }
}

/// A node of the pool (48 bytes; host twin: coop_cuda::game::DeviceNode).
struct GameNode {
  unsigned long long mine;
  unsigned long long all;
  unsigned moves;
  unsigned ply;
  unsigned parent;    // 0xffffffff for a root
  unsigned col;       // the move from the parent
  int value;          // negamax value for the player to move (searched nodes)
  unsigned children;  // children pushed (expanded nodes)
  unsigned searched;  // 1 once `value` is set
  unsigned pad;
};

enum : unsigned char { kPathFull = 0u, kPathTerm = 1u, kPathInvalid = 2u };

struct Game {
  GameNode* nodes;
  unsigned node_cap;
  unsigned depth;
  unsigned split;

  /// Every thread: the exact negamax value of non-terminal `root` to `rem` >= 1 plies.
  __device__ int block_negamax(const C4& root, unsigned rem) {
    __shared__ int val[343];
    __shared__ unsigned char kind[343], lvl[343];
    __shared__ int nodeval[57];  // levels 0, 1, 2: offsets 0, 1, 8
    __shared__ int result;
    const unsigned b = rem < 3u ? rem : 3u;
    const unsigned leaves = b == 1u ? 7u : b == 2u ? 49u : 343u;
    for (unsigned i = threadIdx.x; i < leaves; i += blockDim.x) {
      C4 p = root;
      unsigned char k = kPathFull, l = (unsigned char)b;
      int v = 0;
      unsigned div = leaves / 7u;
      for (unsigned lev = 0u; lev < b; ++lev, div /= 7u) {
        const unsigned c = (i / (div == 0u ? 1u : div)) % 7u;
        if (!c4_can_play(p, c)) {
          k = kPathInvalid;
          l = (unsigned char)lev;
          break;
        }
        p = c4_play(p, c);
        const unsigned r = rem - (lev + 1u);
        if (c4_won_by_last(p)) {
          k = kPathTerm;
          l = (unsigned char)(lev + 1u);
          v = -OCC_C4_WIN - (int)r;
          break;
        }
        if (r == 0u || c4_full(p)) {
          k = kPathTerm;
          l = (unsigned char)(lev + 1u);
          v = c4_eval(p);
          break;
        }
      }
      if (k == kPathFull) v = c4_alphabeta(p, rem - b);
      val[i] = v;
      kind[i] = k;
      lvl[i] = l;
    }
    __syncthreads();
    if (threadIdx.x == 0u) {
      const unsigned off[3] = {0u, 1u, 8u};
      unsigned width = 1u;  // nodes at level l: 7^l
      for (unsigned l = 0u; l + 1u < b; ++l) width *= 7u;
      for (int l = (int)b - 1; l >= 0; --l) {
        unsigned below = 1u;  // leaves per child of a level-l node: 7^(b-l-1)
        for (unsigned x = (unsigned)l + 1u; x < b; ++x) below *= 7u;
        for (unsigned pref = 0u; pref < width; ++pref) {
          const unsigned first = pref * 7u * below;
          const bool gone = (kind[first] == kPathInvalid && lvl[first] < (unsigned)l) ||
                            (kind[first] == kPathTerm && lvl[first] <= (unsigned)l);
          if (gone) continue;
          int best = OCC_C4_NEG_INF;
          for (unsigned c = 0u; c < 7u; ++c) {
            const unsigned idx = (pref * 7u + c) * below;
            if (kind[idx] == kPathInvalid && lvl[idx] == (unsigned)l) continue;
            int v;
            if ((kind[idx] == kPathTerm && lvl[idx] == (unsigned)l + 1u) || (unsigned)l + 1u == b)
              v = val[idx];
            else
              v = nodeval[off[l + 1] + pref * 7u + c];
            if (-v > best) best = -v;
          }
          nodeval[off[l] + pref] = best;
        }
        width /= 7u;
      }
      result = nodeval[0];
    }
    __syncthreads();
    return result;
  }

  __device__ void process(occ::coop::Group& g, const Steal& s, unsigned ni) {
    __shared__ GameNode nd;
    __shared__ unsigned mode;  // 0 done, 1 search
    if (threadIdx.x == 0u) {
      nd = nodes[ni];
      C4 p = {nd.mine, nd.all, nd.moves};
      const unsigned rem = depth - nd.ply;
      mode = 0u;
      if (c4_won_by_last(p)) {
        nodes[ni].value = -OCC_C4_WIN - (int)rem;
        nodes[ni].searched = 1u;
      } else if (rem == 0u || c4_full(p)) {
        nodes[ni].value = c4_eval(p);
        nodes[ni].searched = 1u;
      } else if (nd.ply < split) {
        unsigned kids = 0u;
        for (unsigned i = 0u; i < 7u; ++i) {
          const unsigned c = c4_order(i);
          if (!c4_can_play(p, c)) continue;
          const unsigned k = atomicAdd(&s.ctr[kStealAlloc0], 1u);
          if (k >= node_cap) {
            s.error(kErrPoolFull);
            break;
          }
          const C4 q = c4_play(p, c);
          GameNode ch;
          ch.mine = q.mine;
          ch.all = q.all;
          ch.moves = q.moves;
          ch.ply = nd.ply + 1u;
          ch.parent = ni;
          ch.col = c;
          ch.value = 0;
          ch.children = 0u;
          ch.searched = 0u;
          ch.pad = 0u;
          nodes[k] = ch;
          ++kids;
          nodes[ni].children = kids;
          if (!s.push(g.id, k)) break;
        }
      } else {
        mode = 1u;
      }
    }
    __syncthreads();
    if (mode == 1u) {
      const C4 p = {nd.mine, nd.all, nd.moves};
      const int v = block_negamax(p, depth - nd.ply);
      if (threadIdx.x == 0u) {
        nodes[ni].value = v;
        nodes[ni].searched = 1u;
      }
    }
  }
};

}  // namespace occ_app

extern "C" __global__ void coop_game(occ::coop::State* st, occ::coop::Mailbox* mb,
                                     occ_app::GameNode* nodes, unsigned node_cap, unsigned depth,
                                     unsigned split, unsigned* ctr, unsigned* queues,
                                     unsigned* items, unsigned nq, unsigned qcap,
                                     unsigned long long idle_ns, unsigned mode) {
  __shared__ occ::coop::Group g;
  if (!occ::coop::enter(g, st, mb)) return;
  const occ_app::Steal s = {ctr, queues, items, nq, qcap};
  occ_app::Game app = {nodes, node_cap, depth, split};
  occ_app::steal_loop(g, mode, s, app, idle_ns);
}

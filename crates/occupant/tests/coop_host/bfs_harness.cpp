// The cooperative BFS and SSSP (occupant-apps src/coop_cuda/bfs.cu, sssp.cu) on CPU threads, one per group, while
// a scheduler thread takes 1, N/4, N/2, N-1 groups in turn and gives them back as new threads
// (occupant-apps tests/coop_bfs_protocol.rs). Checks every round's (reached, distance sum)
// against a sequential BFS / Dijkstra. Usage: bfs_harness MODE(1 regular | 2 query, + 4: the
// dynamic distribution, claim counters lens[32..33]) W H ROUNDS
// [APP(0 bfs | 1 sssp)]
#include <cstdlib>
#include <deque>
#include <queue>
#include <vector>
#include "bfs.cu"
#include "sssp.cu"
#include "scheduler.h"
using namespace occ;

int main(int argc, char** argv) {
  const unsigned mode = argc > 1 ? (unsigned)std::atoi(argv[1]) : 1u;
  const unsigned W = argc > 2 ? (unsigned)std::atoi(argv[2]) : 40u;
  const unsigned H = argc > 3 ? (unsigned)std::atoi(argv[3]) : 30u;
  const unsigned rounds = argc > 4 ? (unsigned)std::atoi(argv[4]) : 40u;
  const unsigned app = argc > 5 ? (unsigned)std::atoi(argv[5]) : 0u;
  const unsigned n = W * H, N = 12;
  auto weight = [](unsigned a, unsigned b) {
    const unsigned lo = a < b ? a : b, hi = a < b ? b : a;
    return (lo * 31u + hi * 17u) % 255u + 1u;
  };
  std::vector<std::vector<unsigned>> adj(n);
  for (unsigned y = 0; y < H; ++y)
    for (unsigned x = 0; x < W; ++x) {
      const unsigned v = y * W + x;
      if (x + 1 < W) { adj[v].push_back(v + 1); adj[v + 1].push_back(v); }
      if (y + 1 < H) { adj[v].push_back(v + W); adj[v + W].push_back(v); }
    }
  std::vector<unsigned> offsets(n + 1, 0u), targets, weights;
  for (unsigned v = 0; v < n; ++v) {
    offsets[v + 1] = offsets[v] + (unsigned)adj[v].size();
    for (unsigned u : adj[v]) {
      targets.push_back(u);
      weights.push_back(weight(v, u));
    }
  }
  std::vector<unsigned> sources = {0u, n / 2u, n - 1u, 7u % n};
  std::vector<unsigned> dist(n), fa(n), fb(n), lens(64, 0u), inq(n, 0u);
  std::vector<unsigned long long> checks(2 * rounds, 0ull);
  occ_host::Coop c = occ_host::make(N);
  coop::State* st = c.st;
  coop::Mailbox* mb = c.mb;
  auto group = [&] {
    if (app == 0u)
      coop_bfs(st, mb, offsets.data(), targets.data(), n, sources.data(), (unsigned)sources.size(),
               rounds, dist.data(), fa.data(), fb.data(), lens.data(), checks.data(), mode);
    else
      coop_sssp(st, mb, offsets.data(), targets.data(), n, sources.data(),
                (unsigned)sources.size(), rounds, dist.data(), fa.data(), fb.data(), lens.data(),
                checks.data(), mode, weights.data(), inq.data());
  };
  occ_host::run(c, group);
  unsigned wrong = 0;
  for (unsigned r = 0; r < rounds; ++r) {
    const unsigned src = sources[r % sources.size()];
    std::vector<unsigned long long> d(n, ~0ull);
    d[src] = 0ull;
    std::priority_queue<std::pair<unsigned long long, unsigned>,
                        std::vector<std::pair<unsigned long long, unsigned>>, std::greater<>>
        q;
    q.push({0ull, src});
    while (!q.empty()) {
      const auto [dv, v] = q.top();
      q.pop();
      if (dv > d[v]) continue;
      for (unsigned u : adj[v]) {
        const unsigned long long nd = dv + (app == 0u ? 1u : weight(v, u));
        if (nd < d[u]) { d[u] = nd; q.push({nd, u}); }
      }
    }
    unsigned long long reached = 0, sum = 0;
    for (unsigned v = 0; v < n; ++v)
      if (d[v] != ~0ull) { ++reached; sum += d[v]; }
    if (checks[2 * r] != reached || checks[2 * r + 1] != sum) ++wrong;
  }
  std::printf("app=%s mode=%u cycles=%u killed=%u forked=%u launched=%u wrong_rounds=%u aborted=%u\n", app ? "sssp" : "bfs", mode,
              c.cycles, mb->killed, mb->forked, c.launched, wrong, g_abort);
  return (wrong != 0u || g_abort != 0u) ? 1 : 0;
}

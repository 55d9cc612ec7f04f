// The cooperative BFS and SSSP (occupant-apps src/coop_cuda/bfs.cu, sssp.cu) on CPU threads, one per group, while
// a scheduler thread takes 1, N/4, N/2, N-1 groups in turn and gives them back as new threads
// (occupant-apps tests/coop_bfs_protocol.rs). Checks every round's (reached, distance sum)
// against a sequential BFS / Dijkstra. Usage: bfs_harness MODE(1 regular | 2 query) W H ROUNDS
// [APP(0 bfs | 1 sssp)]
#include <cstdlib>
#include <deque>
#include <queue>
#include <thread>
#include <vector>
#include "bfs.cu"
#include "sssp.cu"
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
  std::vector<unsigned> dist(n), fa(n), fb(n), lens(4, 0u), inq(n, 0u);
  std::vector<unsigned long long> checks(2 * rounds, 0ull);
  coop::State* st = (coop::State*)std::calloc(1, sizeof(coop::State));
  coop::Mailbox* mb = (coop::Mailbox*)std::calloc(1, sizeof(coop::Mailbox));
  unsigned* w = (unsigned*)st;
  w[0] = w[1] = w[3] = w[50] = w[51] = N;
  mb->target = mb->active = N;
  auto group = [&] {
    if (app == 0u)
      coop_bfs(st, mb, offsets.data(), targets.data(), n, sources.data(), (unsigned)sources.size(),
               rounds, dist.data(), fa.data(), fb.data(), lens.data(), checks.data(), mode);
    else
      coop_sssp(st, mb, offsets.data(), targets.data(), n, sources.data(),
                (unsigned)sources.size(), rounds, dist.data(), fa.data(), fb.data(), lens.data(),
                checks.data(), mode, weights.data(), inq.data());
  };
  auto ld = [](const unsigned* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); };
  std::vector<std::thread> ts;
  for (unsigned i = 0; i < N; ++i) ts.emplace_back(group);
  const unsigned shares[4] = {1u, N / 4u, N / 2u, N - 1u};
  unsigned cycles = 0, launched = 0;
  while (!ld(&mb->finished) && !aborted()) {
    auto t0 = globaltimer();
    while (ld(&mb->forked) + ld(&mb->joiners_exited) < launched && !ld(&mb->finished))
      if (globaltimer() - t0 > 3000000000ull) { std::printf("FAILED: join\n"); std::fflush(stdout); std::_Exit(1); }
    const unsigned active = ld(&mb->active), killed0 = ld(&mb->killed);
    const unsigned k = shares[cycles % 4u];
    const unsigned target = active > k ? active - k : 1u, want = active - target;
    __atomic_store_n(&mb->target, target, __ATOMIC_RELEASE);
    t0 = globaltimer();
    bool finished = false;
    while (ld(&mb->killed) - killed0 < want) {
      if (ld(&mb->finished)) { finished = true; break; }
      if (globaltimer() - t0 > 3000000000ull) { std::printf("FAILED: gather\n"); std::fflush(stdout); std::_Exit(1); }
      std::this_thread::yield();
    }
    if (finished) break;
    __atomic_store_n(&mb->target, N, __ATOMIC_RELEASE);
    for (unsigned i = 0; i < want; ++i) ts.emplace_back(group);
    launched += want;
    ++cycles;
  }
  for (auto& t : ts) t.join();
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
              cycles, mb->killed, mb->forked, launched, wrong, g_abort);
  return (wrong != 0u || g_abort != 0u) ? 1 : 0;
}

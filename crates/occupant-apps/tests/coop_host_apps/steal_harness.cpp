// The cooperative octree and game kernels (occupant-apps src/coop_cuda/octree.cu, game.cu, with
// steal.cuh) on CPU threads, one per group (occupant's host stand-ins for coop.cuh's includes),
// while a scheduler thread takes 1, N/4, N/2, N-1 groups in turn and gives them back as new
// threads (tests/coop_steal_protocol.rs, which seeds the inputs and checks the outputs against
// the sequential references). Usage:
//   steal_harness octree MODE N POINTS_FILE n ROUNDS MAX_POINTS MAX_DEPTH OUT_FILE
//   steal_harness game   MODE N ROOTS_FILE ROUNDS DEPTH SPLIT OUT_FILE
// MODE 0: persistent (no kills or forks), 1: cooperative. OUT_FILE: the 128 counter words, then
// the index array and the leaf records (octree) or the node pool (game), as u32 words.
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>
#include "occupant.cuh"
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline unsigned atomicOr(unsigned* p, unsigned v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
#include "octree.cu"
#include "game.cu"
using namespace occ;

static std::vector<unsigned> read_words(const char* path) {
  std::ifstream f(path, std::ios::binary);
  std::vector<char> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<unsigned> w(b.size() / 4);
  std::memcpy(w.data(), b.data(), w.size() * 4);
  return w;
}

static void write_words(const char* path, const std::vector<unsigned>& a, const unsigned* b, size_t nb,
                        const unsigned* c, size_t nc) {
  std::ofstream f(path, std::ios::binary);
  f.write((const char*)a.data(), a.size() * 4);
  f.write((const char*)b, nb * 4);
  if (nc) f.write((const char*)c, nc * 4);
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const std::string app = argv[1];
  const unsigned mode = (unsigned)std::atoi(argv[2]);
  const unsigned N = (unsigned)std::atoi(argv[3]);
  const unsigned qcap = 512u;
  std::vector<unsigned> ctr(128, 0u), queues(32u * N, 0u), items(qcap * N, 0u);
  auto seed = [&](unsigned tasks) {
    for (unsigned t = 0; t < tasks; ++t) {
      const unsigned k = t % N;
      items[k * qcap + queues[32u * k + 2u]] = t;
      queues[32u * k + 2u] += 1u;
    }
    ctr[0] = ctr[32] = ctr[64] = tasks;
  };
  coop::State* st = (coop::State*)std::calloc(1, sizeof(coop::State));
  coop::Mailbox* mb = (coop::Mailbox*)std::calloc(1, sizeof(coop::Mailbox));
  unsigned* w = (unsigned*)st;
  w[0] = w[1] = w[3] = w[50] = w[51] = N;
  mb->target = mb->active = N;
  const unsigned long long idle_ns = 2000000000ull;
  std::function<void()> group;
  std::vector<float> pts;
  std::vector<unsigned> ids, scratch, cells, leaves, nodes;
  const char* out = nullptr;
  if (app == "octree") {
    if (argc < 10) return 2;
    const std::vector<unsigned> pw = read_words(argv[4]);
    const unsigned n = (unsigned)std::atoi(argv[5]), rounds = (unsigned)std::atoi(argv[6]);
    const unsigned max_points = (unsigned)std::atoi(argv[7]), max_depth = (unsigned)std::atoi(argv[8]);
    out = argv[9];
    pts.resize(pw.size());
    std::memcpy(pts.data(), pw.data(), pw.size() * 4);
    ids.resize((size_t)n * rounds);
    for (unsigned r = 0; r < rounds; ++r)
      for (unsigned i = 0; i < n; ++i) ids[(size_t)r * n + i] = i;
    scratch.resize(ids.size());
    const unsigned cell_cap = rounds * (n + max_depth * n / (max_points + 1u) + 1u);
    cells.assign((size_t)cell_cap * 10u, 0u);
    for (unsigned r = 0; r < rounds; ++r) {
      float one = 1.0f;
      std::memcpy(&cells[r * 10u + 3u], &one, 4);
      cells[r * 10u + 5u] = r * n;
      cells[r * 10u + 6u] = n;
    }
    leaves.assign((size_t)n * rounds * 6u, 0u);
    seed(rounds);
    group = [&, cell_cap, n, rounds, max_points, max_depth] {
      coop_octree(st, mb, pts.data(), ids.data(), scratch.data(), (occ_app::OctCell*)cells.data(),
                  cell_cap, (occ_app::OctLeaf*)leaves.data(), n * rounds, max_points, max_depth,
                  ctr.data(), queues.data(), items.data(), N, qcap, idle_ns, mode);
    };
  } else if (app == "game") {
    if (argc < 9) return 2;
    const std::vector<unsigned> roots = read_words(argv[4]);
    const unsigned rounds = (unsigned)std::atoi(argv[5]), depth = (unsigned)std::atoi(argv[6]);
    const unsigned split = (unsigned)std::atoi(argv[7]);
    out = argv[8];
    unsigned per = 0u, p7 = 1u;
    for (unsigned l = 0; l <= split; ++l, p7 *= 7u) per += p7;
    const unsigned node_cap = per * rounds;
    nodes.assign((size_t)node_cap * 12u, 0u);
    std::memcpy(nodes.data(), roots.data(), roots.size() * 4);
    seed(rounds);
    group = [&, node_cap, depth, split] {
      coop_game(st, mb, (occ_app::GameNode*)nodes.data(), node_cap, depth, split, ctr.data(),
                queues.data(), items.data(), N, qcap, idle_ns, mode);
    };
  } else {
    return 2;
  }
  auto ld = [](const unsigned* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); };
  std::vector<std::thread> ts;
  for (unsigned i = 0; i < N; ++i) ts.emplace_back(group);
  const unsigned shares[4] = {1u, N / 4u, N / 2u, N - 1u};
  unsigned cycles = 0, launched = 0;
  while (mode != 0u && !ld(&mb->finished) && !aborted()) {
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
  if (app == "octree") write_words(out, ctr, ids.data(), ids.size(), leaves.data(), leaves.size());
  else write_words(out, ctr, nodes.data(), nodes.size(), nullptr, 0);
  std::printf("%s cycles=%u killed=%u forked=%u launched=%u tasks=%u error=%u pending=%u aborted=%u\n",
              app.c_str(), cycles, mb->killed, mb->forked, launched, ctr[67], ctr[66], ctr[0], g_abort);
  return (ctr[66] != 0u || ctr[0] != 0u || g_abort != 0u) ? 1 : 0;
}

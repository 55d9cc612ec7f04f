// coop.cuh's protocol on CPU threads (tests/coop_protocol.rs): N groups run `rounds` resizing-
// barrier intervals (the checks of coop_rounds in src/cuda/coop/kernels/coop_selftest.cu) while
// a scheduler thread takes 1, N/4, N/2, N-1 groups in turn and gives them back as new threads
// (joiners). Exit 0 and one line of counts when every interval had contiguous ids, the barrier
// ordered the data and the transmitted round arrived; exit 1 with the first failure otherwise.
// Usage: harness QUERY(0|1) ROUNDS
#include <cstdlib>
#include <thread>
#include <vector>
#include "coop.cuh"
using namespace occ;
static coop::State* st;
static coop::Mailbox* mb;
static unsigned R = 20000;
static const unsigned N = 12, STRIDE = 64;
static std::vector<unsigned> cnt, ms;
static std::vector<unsigned long long> idsum;
static unsigned data[2 * STRIDE];
static unsigned errors = 0;
static bool QUERY = false;
static unsigned ld(const unsigned* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

static void group() {
  coop::Group g;
  if (!coop::enter(g, st, mb)) return;
  unsigned r = g.forked ? coop::received<unsigned>(g, 0) : 0u;
  for (; r < R; ++r) {
    const unsigned m = g.m;
    if (g.id == 0u) __atomic_store_n(&ms[r], m, __ATOMIC_RELAXED);
    __atomic_fetch_add(&cnt[r], 1u, __ATOMIC_RELAXED);
    __atomic_fetch_add(&idsum[r], (unsigned long long)g.id, __ATOMIC_RELAXED);
    if (g.id >= m) __atomic_fetch_add(&errors, 1u, __ATOMIC_RELAXED);
    if (r > 0u) {
      const unsigned j = (g.id + 1u) % m;
      if (j < __atomic_load_n(&ms[r - 1u], __ATOMIC_RELAXED) &&
          __atomic_load_n(&data[((r - 1u) % 2u) * STRIDE + j], __ATOMIC_RELAXED) != r)
        __atomic_fetch_add(&errors, 1u, __ATOMIC_RELAXED);
    }
    __atomic_store_n(&data[(r % 2u) * STRIDE + g.id], r + 1u, __ATOMIC_RELAXED);
    const auto t0 = globaltimer();  // ~1 µs of work: shorter than the fake PCIe trip
    while (globaltimer() - t0 < 1000u) {
    }
    coop::transmit(g, 0, r + 1u);
    if (!coop::resizing_barrier(g, QUERY)) return;
  }
  coop::leave(g);
}

int main(int argc, char** argv) {
  QUERY = argc > 1 && std::atoi(argv[1]) != 0;
  if (argc > 2) R = (unsigned)std::atoi(argv[2]);
  cnt.assign(R, 0u);
  ms.assign(R, 0u);
  idsum.assign(R, 0ull);
  st = (coop::State*)std::calloc(1, sizeof(coop::State));
  mb = (coop::Mailbox*)std::calloc(1, sizeof(coop::Mailbox));
  unsigned* w = (unsigned*)st;  // as occupant::cuda::coop::Scheduler::start does
  w[0] = w[1] = w[3] = w[50] = w[51] = N;
  mb->target = mb->active = N;
  std::vector<std::thread> ts;
  for (unsigned i = 0; i < N; ++i) ts.emplace_back(group);
  const unsigned shares[4] = {1u, N / 4u, N / 2u, N - 1u};
  unsigned cycles = 0, launched = 0;
  auto fail = [&](const char* what) {
    std::printf("FAILED: %s (cycle %u)\n", what, cycles);
    std::fflush(stdout);
    std::_Exit(1);
  };
  while (!ld(&mb->finished) && !aborted()) {
    auto t0 = globaltimer();
    while (ld(&mb->forked) + ld(&mb->joiners_exited) < launched && !ld(&mb->finished))
      if (globaltimer() - t0 > 3000000000ull) fail("groups given back did not join");
    const unsigned active = ld(&mb->active), killed0 = ld(&mb->killed);
    const unsigned k = shares[cycles % 4u];
    const unsigned target = active > k ? active - k : 1u;
    const unsigned want = active - target;
    __atomic_store_n(&mb->target, target, __ATOMIC_RELEASE);
    t0 = globaltimer();
    bool finished = false;
    while (ld(&mb->killed) - killed0 < want) {
      if (ld(&mb->finished)) {
        finished = true;
        break;
      }
      if (globaltimer() - t0 > 3000000000ull) fail("the groups asked for were not gathered");
      std::this_thread::yield();
    }
    if (finished) break;
    __atomic_store_n(&mb->target, N, __ATOMIC_RELEASE);
    for (unsigned i = 0; i < want; ++i) ts.emplace_back(group);
    launched += want;
    ++cycles;
  }
  for (auto& t : ts) t.join();
  unsigned bad = 0;
  for (unsigned r = 0; r < R; ++r) {
    const unsigned long long m = ms[r];
    if (cnt[r] != m || idsum[r] != m * (m - 1ull) / 2ull) ++bad;
  }
  std::printf("query=%d cycles=%u killed=%u forked=%u joiners_exited=%u launched=%u errors=%u "
              "bad_rounds=%u aborted=%u\n",
              QUERY ? 1 : 0, cycles, mb->killed, mb->forked, mb->joiners_exited, launched, errors,
              bad, g_abort);
  return (bad != 0u || errors != 0u || g_abort != 0u || mb->forked + mb->joiners_exited != launched) ? 1 : 0;
}

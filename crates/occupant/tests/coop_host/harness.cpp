// coop.cuh's protocol on CPU threads (tests/coop_protocol.rs): N groups run `rounds` resizing-
// barrier intervals (the checks of coop_rounds in src/cuda/coop/kernels/coop_selftest.cu) while
// a scheduler thread takes 1, N/4, N/2, N-1 groups in turn and gives them back as new threads
// (joiners). Exit 0 and one line of counts when every interval had contiguous ids, the barrier
// ordered the data and the transmitted round arrived; exit 1 with the first failure otherwise.
// Usage: harness QUERY(0|1) ROUNDS
#include <cstdlib>
#include <vector>
#include "coop.cuh"
#include "scheduler.h"
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
  occ_host::Coop c = occ_host::make(N);
  st = c.st;
  mb = c.mb;
  occ_host::run(c, group);
  unsigned bad = 0;
  for (unsigned r = 0; r < R; ++r) {
    const unsigned long long m = ms[r];
    if (cnt[r] != m || idsum[r] != m * (m - 1ull) / 2ull) ++bad;
  }
  std::printf("query=%d cycles=%u killed=%u forked=%u joiners_exited=%u launched=%u errors=%u "
              "bad_rounds=%u aborted=%u\n",
              QUERY ? 1 : 0, c.cycles, mb->killed, mb->forked, mb->joiners_exited, c.launched, errors,
              bad, g_abort);
  return (bad != 0u || errors != 0u || g_abort != 0u || mb->forked + mb->joiners_exited != c.launched) ? 1 : 0;
}

// Host stand-in for occupant::cuda::coop::Scheduler, shared by the harnesses of tests/coop_host
// (harness.cpp, tasks_harness.cpp, bfs_harness.cpp): the state and mailbox as Scheduler::start
// initialises them, and the scheduler loop — take 1, N/4, N/2, N-1 groups in turn (lower the
// target, wait until that many were killed), then give them back as new threads
// (joiners), until the kernel's work is over. Every wait gives up after 3 s with one line
// "FAILED: ... (cycle C)" and exit status 1.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#include "coop.cuh"

namespace occ_host {

/// One cooperative "launch" on CPU threads: its state, mailbox and N.
struct Coop {
  occ::coop::State* st;
  occ::coop::Mailbox* mb;
  unsigned n;
  unsigned cycles = 0;    // kill/fork cycles completed
  unsigned launched = 0;  // joiner threads started
};

/// Zeroed state and mailbox, initialised like occupant::cuda::coop::Scheduler::start: limit,
/// initial and active (words 0, 1, 3) and the polled target (word 51) = N, words 50 = N too.
inline Coop make(unsigned n) {
  Coop c{(occ::coop::State*)std::calloc(1, sizeof(occ::coop::State)),
         (occ::coop::Mailbox*)std::calloc(1, sizeof(occ::coop::Mailbox)), n};
  unsigned* w = (unsigned*)c.st;
  w[0] = w[1] = w[3] = w[50] = w[51] = n;
  c.mb->target = c.mb->active = n;
  return c;
}

inline unsigned ld(const unsigned* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

[[noreturn]] inline void fail(const Coop& c, const char* what) {
  std::printf("FAILED: %s (cycle %u)\n", what, c.cycles);
  std::fflush(stdout);
  std::_Exit(1);
}

/// The new target where the device reads it: the mailbox and State::host_target (word 51;
/// the Scheduler copies it there by DMA).
inline void set_target(const Coop& c, unsigned t) {
  __atomic_store_n(&c.mb->target, t, __ATOMIC_RELEASE);
  __atomic_store_n(&((unsigned*)c.st)[51], t, __ATOMIC_RELEASE);
}

/// Starts N group threads running `group`, runs the scheduler loop until the work is over,
/// joins every thread. The groups given back run `group` too (as joiners).
template <class Group>
void run(Coop& c, Group group) {
  std::vector<std::thread> ts;
  for (unsigned i = 0; i < c.n; ++i) ts.emplace_back(group);
  const unsigned shares[4] = {1u, c.n / 4u, c.n / 2u, c.n - 1u};
  occ::coop::Mailbox* mb = c.mb;
  while (!ld(&mb->finished) && !occ::aborted()) {
    auto t0 = occ::globaltimer();
    while (ld(&mb->forked) + ld(&mb->joiners_exited) < c.launched && !ld(&mb->finished))
      if (occ::globaltimer() - t0 > 3000000000ull) fail(c, "groups given back did not join");
    const unsigned active = ld(&mb->active), killed0 = ld(&mb->killed);
    const unsigned k = shares[c.cycles % 4u];
    const unsigned target = active > k ? active - k : 1u;
    const unsigned want = active - target;
    set_target(c, target);
    t0 = occ::globaltimer();
    bool finished = false;
    while (ld(&mb->killed) - killed0 < want) {
      if (ld(&mb->finished)) {
        finished = true;
        break;
      }
      if (occ::globaltimer() - t0 > 3000000000ull) fail(c, "the groups asked for were not gathered");
      std::this_thread::yield();
    }
    if (finished) break;
    set_target(c, c.n);
    for (unsigned i = 0; i < want; ++i) ts.emplace_back(group);
    c.launched += want;
    ++c.cycles;
  }
  for (auto& t : ts) t.join();
}

}  // namespace occ_host

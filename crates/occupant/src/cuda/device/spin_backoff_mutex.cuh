// occupant device library: SpinBackoffMutex, seed 004 Alg. 2 with back-off.
// CPU twin: occupant::cpu::sync (spin mutex with back-off).
//
// State: one u32 word (0 free, 1 held), zeroed by the host. lock() first tries
// atom.acquire.gpu.exch (an uncontended acquisition costs one L2 round trip, as SpinMutex's);
// after a failure it is test-and-test-and-set: it polls the word with ld.relaxed.gpu while it is
// held (no atomic traffic on the line while it waits) and exchanges only when it reads it free;
// after each lost exchange it sleeps (__nanosleep) for a back-off that doubles from
// OCC_MUTEX_BACKOFF_MIN_NS to OCC_MUTEX_BACKOFF_MAX_NS and stays there. unlock():
// st.release.gpu(0).
//
// Why (H100, tests/gpu_mutex_lab.rs, bench/results/nvidia-h100/i11-primitives/): the spin lock's
// exchanges from every waiter queue behind the release store on the lock's L2 line, so at full
// occupancy (2112 blocks) it falls to 0.52 Mops/s; the seed's read-first loop with a back-off
// after every failed check cost a second round trip per uncontended acquisition (1.45 vs 1.80
// Mops/s at 1 block) and slept through hand-offs (1.18 at 2112). Exchange first, poll while
// held, back off only after a lost race: 1.81 at 1 block, 1.53 at 2112.
#pragma once

#include "poll.cuh"

#ifndef OCC_MUTEX_BACKOFF_MIN_NS
#define OCC_MUTEX_BACKOFF_MIN_NS 128
#endif
#ifndef OCC_MUTEX_BACKOFF_MAX_NS
#define OCC_MUTEX_BACKOFF_MAX_NS 2048
#endif

namespace occ {
namespace sync {

struct SpinBackoffMutex {
  static constexpr unsigned kPrim = Prim::SpinBackoffMutex;
  u32* word;
  __device__ explicit SpinBackoffMutex(u32* state) : word(state) {}
  __device__ __forceinline__ bool lock() {
    if (atomic_exch_acquire(word, 1u) == 0u) return true;
    u32* w = word;
    unsigned ns = OCC_MUTEX_BACKOFF_MIN_NS;
    return poll_until(kPrim, [w, &ns] {
      if (ld_relaxed(w) != 0u) return false;  // held: poll without atomics
      if (atomic_exch_acquire(w, 1u) == 0u) return true;
      __nanosleep(ns);  // lost the race to another waiter
      ns = ns < OCC_MUTEX_BACKOFF_MAX_NS ? 2u * ns : ns;
      return false;
    });
  }
  __device__ __forceinline__ void unlock() { st_release(word, 0u); }
};

}  // namespace sync
}  // namespace occ

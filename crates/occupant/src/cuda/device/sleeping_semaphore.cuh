// occupant device library: SleepingSemaphore, the fetch-and-add semaphore of seed 004 Alg. 5.
// At most two atomics per wait() or post(); a waiter beyond capacity takes a ticket and polls
// `turn` with plain acquire loads (with proportional back-off), never with atomics; post()
// never waits. CPU twin: occupant::cpu::sync (sleeping semaphore).
//
// State (state_words() = 128, zeroed by the host except `max`): count at [0], ticket at [32],
// turn at [64], max (the initial value) at [96] — four 128-byte lines.
// wait(): old = atom.acq_rel.gpu.add(count, 1); old < max: acquired;
//         else my = atom.relaxed.gpu.add(ticket, 1); poll until turn - my > 0 (ld.acquire.gpu).
// post(): old = atom.acq_rel.gpu.add(count, -1); old > max: atom.release.gpu.add(turn, 1).
#pragma once

#include "poll.cuh"

#ifndef OCC_SEM_TICKET_BACKOFF_NS
#define OCC_SEM_TICKET_BACKOFF_NS 128
#endif
#ifndef OCC_SEM_TICKET_BACKOFF_MAX_NS
#define OCC_SEM_TICKET_BACKOFF_MAX_NS 16384
#endif

namespace occ {
namespace sync {

struct SleepingSemaphore {
  static constexpr unsigned kPrim = Prim::SleepingSemaphore;
  u32* count;
  u32* ticket;
  u32* turn;
  u32 max;
  __device__ explicit SleepingSemaphore(u32* state)
      : count(state), ticket(state + 32), turn(state + 64), max(ld_relaxed(state + 96)) {}
  __device__ __forceinline__ bool wait() {
    const u32 old = atomic_add_acq_rel(count, 1u);
    if (old < max) return true;
    const u32 my = atomic_add_relaxed(ticket, 1u);
    u32* t = turn;
    return poll_until(kPrim, [t, my] {
      const u32 cur = ld_acquire(t);
      const int d = epoch_diff(cur, my);
      if (d > 0) return true;
      const u32 behind = (u32)(1 - d);  // how many turns we still need
      if (behind > 1u) {
        const unsigned long long ns = (unsigned long long)(behind - 1u) * OCC_SEM_TICKET_BACKOFF_NS;
        __nanosleep(ns > OCC_SEM_TICKET_BACKOFF_MAX_NS ? OCC_SEM_TICKET_BACKOFF_MAX_NS : (unsigned)ns);
      }
      return false;
    });
  }
  /// Never waits; always true (same signature as the spinning semaphores).
  __device__ __forceinline__ bool post() {
    const u32 old = atomic_add_acq_rel(count, 0xffffffffu);
    if (old > max) atomic_add_release(turn, 1u);
    return true;
  }
};

}  // namespace sync
}  // namespace occ

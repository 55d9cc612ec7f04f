// occupant device library: TicketBackoffMutex, seed 004 Alg. 3 with proportional back-off:
// a waiter that is k places from the head of the queue sleeps about k * OCC_TICKET_BACKOFF_NS
// (capped at OCC_TICKET_BACKOFF_MAX_NS) between polls, so only the next few waiters poll the
// `turn` line closely and the hand-off does not slow down as contention grows.
// CPU twin: occupant::cpu::sync (ticket mutex with back-off).
//
// State: as TicketMutex (ticket at state[0], turn at state[32]; state_words() = 64, zeroed).
#pragma once

#include "poll.cuh"

#ifndef OCC_TICKET_BACKOFF_NS
#define OCC_TICKET_BACKOFF_NS 128
#endif
#ifndef OCC_TICKET_BACKOFF_MAX_NS
#define OCC_TICKET_BACKOFF_MAX_NS 16384
#endif

namespace occ {
namespace sync {

struct TicketBackoffMutex {
  static constexpr unsigned kPrim = Prim::TicketBackoffMutex;
  u32* ticket;
  u32* turn;
  u32 my;
  __device__ explicit TicketBackoffMutex(u32* state) : ticket(state), turn(state + 32), my(0) {}
  __device__ __forceinline__ bool lock() {
    my = atomic_add_relaxed(ticket, 1u);
    u32* t = turn;
    const u32 m = my;
    return poll_until(kPrim, [t, m] {
      const u32 cur = ld_acquire(t);
      if (cur == m) return true;
      const u32 ahead = m - cur;  // waiters in front of us (wrapping)
      if (ahead > 1u) {
        const unsigned long long ns = (unsigned long long)(ahead - 1u) * OCC_TICKET_BACKOFF_NS;
        __nanosleep(ns > OCC_TICKET_BACKOFF_MAX_NS ? OCC_TICKET_BACKOFF_MAX_NS : (unsigned)ns);
      }
      return false;
    });
  }
  __device__ __forceinline__ void unlock() { st_release(turn, my + 1u); }
};

}  // namespace sync
}  // namespace occ

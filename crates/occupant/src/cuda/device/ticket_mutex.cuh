// occupant device library: TicketMutex, the fetch-and-add (FA) mutex of seed 004 Alg. 3 and the
// ticket lock of seed 001 §5.1. Fair: blocks enter in the order they took tickets.
// CPU twin: occupant::cpu::sync (ticket mutex).
//
// State: two u32 words, `ticket` at state[0] and `turn` at state[32] (separate 128-byte lines, so
// the pollers of `turn` do not slow the atomics on `ticket`); zeroed by the host
// (state_words() = 64). lock(): my = atom.relaxed.gpu.add(ticket, 1), then poll
// ld.acquire.gpu(turn) == my. unlock(): st.release.gpu(turn, my + 1) — no atomic.
#pragma once

#include "poll.cuh"

namespace occ {
namespace sync {

struct TicketMutex {
  static constexpr unsigned kPrim = Prim::TicketMutex;
  u32* ticket;
  u32* turn;
  u32 my;
  __device__ explicit TicketMutex(u32* state) : ticket(state), turn(state + 32), my(0) {}
  __device__ __forceinline__ bool lock() {
    my = atomic_add_relaxed(ticket, 1u);
    u32* t = turn;
    const u32 m = my;
    return poll_until(kPrim, [t, m] { return ld_acquire(t) == m; });
  }
  __device__ __forceinline__ void unlock() { st_release(turn, my + 1u); }
};

}  // namespace sync
}  // namespace occ

// occupant device library: SpinMutex, the test-and-set lock of seed 004 Alg. 2 (no back-off).
// CPU twin: occupant::cpu::sync (spin mutex).
//
// State: one u32 word in global memory, 0 = free, 1 = held; the host zeroes it (state_words() = 1,
// best on its own 128-byte line). lock() retries atom.acquire.gpu.exch(word, 1) until it returns 0,
// through occ::poll_until (bounded, watchdog-checked). unlock() is st.release.gpu(word, 0).
// Called by one thread (the block's representative); see mutex_block.cuh for block semantics.
#pragma once

#include "poll.cuh"

namespace occ {
namespace sync {

struct SpinMutex {
  static constexpr unsigned kPrim = Prim::SpinMutex;
  u32* word;
  __device__ explicit SpinMutex(u32* state) : word(state) {}
  /// Acquires; false if the launch was aborted (the caller must leave without unlocking).
  __device__ __forceinline__ bool lock() {
    u32* w = word;
    return poll_until(kPrim, [w] { return atomic_exch_acquire(w, 1u) == 0u; });
  }
  /// Releases (st.release.gpu): the critical section's writes are visible to the next holder.
  __device__ __forceinline__ void unlock() { st_release(word, 0u); }
};

}  // namespace sync
}  // namespace occ

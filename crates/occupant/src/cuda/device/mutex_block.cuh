// occupant device library: block semantics for mutexes (seed 004 §3). One representative thread
// (local id 0) performs the inter-block operation; the whole block waits at __syncthreads.
//
//   occ::TicketMutex m(state);
//   if (!occ::block_lock(m)) return;   // aborted by the watchdog: leave the kernel
//   ... critical section (any thread of the block) ...
//   occ::block_unlock(m);
#pragma once

#include "poll.cuh"

namespace occ {

/// Every thread of the block calls it; thread 0 locks; false (in every thread) if aborted.
template <class M>
__device__ __forceinline__ bool block_lock(M& m) {
  bool ok = true;
  if (local_linear_id() == 0u) ok = m.lock();
  return __syncthreads_and(ok) != 0;
}

/// Every thread of the block calls it; after the barrier thread 0 unlocks.
template <class M>
__device__ __forceinline__ void block_unlock(M& m) {
  __syncthreads();
  if (local_linear_id() == 0u) m.unlock();
}

}  // namespace occ

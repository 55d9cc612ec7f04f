// occupant device library: poll_until, the low-latency front end of occ::wait_until.
//
// occ::wait_until (watchdog.cuh) backs off with __nanosleep from the first failed check and
// reads occ_ctl on every round, so a waiter notices a flag up to ~2 L2 round trips plus a sleep
// after it was set. Barriers and lock hand-offs are latency-bound, so poll_until first spins
// without sleeping for at most OCC_FAST_SPIN_NS nanoseconds (checking the abort flag every 32
// rounds and %globaltimer every round), then hands the rest of the wait to occ::wait_until,
// which owns the deadline, the back-off and the Error::Deadlock record. Nothing can hang: the
// fast phase is bounded in time and the slow phase is the watchdog's.
//
// Tunable (define before including occupant headers): OCC_FAST_SPIN_NS (default 20000).
#pragma once

#include "memory.cuh"
#include "watchdog.cuh"

#ifndef OCC_FAST_SPIN_NS
#define OCC_FAST_SPIN_NS 20000
#endif

namespace occ {

/// Spins until cond() is true; true on success, false if the launch was aborted or this wait
/// expired (then the watchdog has recorded it). Tight spin for OCC_FAST_SPIN_NS, then
/// occ::wait_until. cond() performs its own ordering (typically ld_acquire).
template <class Cond>
__device__ __forceinline__ bool poll_until(unsigned primitive, Cond cond) {
  // The abort word is loaded before cond() so that both loads are in flight together: a wait
  // that is already satisfied costs one round trip, as without the check.
  const bool given_up = aborted();
  if (cond()) return true;
  if (given_up) return false;  // the launch was given up before this wait began: not a waiter
  const unsigned long long t0 = globaltimer();
  for (unsigned i = 1;; ++i) {
    if (cond()) return true;
    if ((i & 31u) == 0u && aborted()) {
      note_waiting();
      return false;
    }
    if (globaltimer() - t0 > (unsigned long long)OCC_FAST_SPIN_NS) break;
  }
  return wait_until(primitive, cond);
}

/// Waits until every flag flags[i], i = first, first + stride, ... < count, shows an epoch at
/// or after e. The flags are read with ld.relaxed.gpu four at a time (issued back to back, so a
/// round costs one L2 round trip, not one per flag); once all are seen, one fence.acq_rel.gpu
/// makes the wait an acquire of every flag. False if aborted or expired.
__device__ __forceinline__ bool poll_flags(unsigned primitive, const u32* flags, u32 first,
                                           u32 stride, u32 count, u32 e) {
  for (u32 base = first; base < count; base += 4u * stride) {
    const bool ok = poll_until(primitive, [=] {
      u32 v[4];
#pragma unroll
      for (u32 k = 0; k < 4u; ++k) {
        const u32 j = base + k * stride;
        v[k] = j < count ? ld_relaxed(flags + j) : e;
      }
      bool all = true;
#pragma unroll
      for (u32 k = 0; k < 4u; ++k) all &= (int)(v[k] - e) >= 0;
      return all;
    });
    if (!ok) return false;
  }
  fence_acq_rel();
  return true;
}

/// Signed distance a - b of two wrapping u32 epochs/tickets: >= 0 when a is at or after b.
__device__ __forceinline__ int epoch_diff(unsigned a, unsigned b) { return (int)(a - b); }

/// Linear id of the calling thread within its block.
__device__ __forceinline__ unsigned local_linear_id() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

/// Threads per block.
__device__ __forceinline__ unsigned local_count() { return blockDim.x * blockDim.y * blockDim.z; }

/// Blocks in the grid.
__device__ __forceinline__ unsigned grid_block_count() { return gridDim.x * gridDim.y * gridDim.z; }

}  // namespace occ

// occupant device library: SpinBackoffMutex, seed 004 Alg. 2 with back-off.
// CPU twin: occupant::cpu::sync (spin mutex with back-off).
//
// State: one u32 word (0 free, 1 held), zeroed by the host. lock() is test-and-test-and-set:
// it reads the word (ld.relaxed.gpu) and only when it is free tries atom.acquire.gpu.exch; after
// each failure it sleeps (__nanosleep) for a back-off that grows from OCC_MUTEX_BACKOFF_MIN_NS
// to OCC_MUTEX_BACKOFF_MAX_NS and then restarts at the minimum (the seed's I_min..I_max
// window), so waiters spread out instead of hammering the line. unlock(): st.release.gpu(0).
#pragma once

#include "poll.cuh"

#ifndef OCC_MUTEX_BACKOFF_MIN_NS
#define OCC_MUTEX_BACKOFF_MIN_NS 32
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
    u32* w = word;
    unsigned ns = OCC_MUTEX_BACKOFF_MIN_NS;
    return poll_until(kPrim, [w, &ns] {
      if (ld_relaxed(w) == 0u && atomic_exch_acquire(w, 1u) == 0u) return true;
      __nanosleep(ns);
      ns = ns >= OCC_MUTEX_BACKOFF_MAX_NS ? OCC_MUTEX_BACKOFF_MIN_NS : ns * 2u;
      return false;
    });
  }
  __device__ __forceinline__ void unlock() { st_release(word, 0u); }
};

}  // namespace sync
}  // namespace occ

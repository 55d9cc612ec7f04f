// occupant device library: SpinSemaphore and SpinBackoffSemaphore, seed 004 Alg. 4.
// CPU twin: occupant::cpu::sync (spin semaphore).
//
// State: one u32 word S, which the host sets to initial + 1 (state_words() = 1). S == 0 means
// "locked by a block that is updating it"; otherwise S - 1 permits are free.
// wait():  loop { V = atom.acquire.gpu.exch(S, 0);
//                 V > 1: st.release.gpu(S, V - 1), acquired;
//                 V == 1: st.release.gpu(S, 1) (full, put it back and retry);
//                 V == 0: someone else holds the word, retry }
// post():  loop { V = atom.acquire.gpu.exch(S, 0); V > 0: st.release.gpu(S, V + 1), done }
// The back-off variant sleeps between failed wait() rounds (not in post(), which must finish
// quickly, as in the seed). Each loop goes through occ::poll_until.
#pragma once

#include "poll.cuh"

#ifndef OCC_SEM_BACKOFF_MIN_NS
#define OCC_SEM_BACKOFF_MIN_NS 32
#endif
#ifndef OCC_SEM_BACKOFF_MAX_NS
#define OCC_SEM_BACKOFF_MAX_NS 2048
#endif

namespace occ {
namespace sync {

template <bool Backoff>
struct SpinSemaphoreT {
  static constexpr unsigned kPrim = Backoff ? Prim::SpinBackoffSemaphore : Prim::SpinSemaphore;
  u32* word;
  __device__ explicit SpinSemaphoreT(u32* state) : word(state) {}
  /// Takes one permit; false if the launch was aborted.
  __device__ __forceinline__ bool wait() {
    u32* s = word;
    unsigned ns = OCC_SEM_BACKOFF_MIN_NS;
    return poll_until(kPrim, [s, &ns] {
      const u32 v = atomic_exch_acquire(s, 0u);
      if (v > 1u) {
        st_release(s, v - 1u);
        return true;
      }
      if (v == 1u) st_release(s, 1u);
      if (Backoff) {
        __nanosleep(ns);
        ns = ns >= OCC_SEM_BACKOFF_MAX_NS ? OCC_SEM_BACKOFF_MIN_NS : ns * 2u;
      }
      return false;
    });
  }
  /// Returns one permit; false if the launch was aborted while the word was held by others.
  __device__ __forceinline__ bool post() {
    u32* s = word;
    return poll_until(kPrim, [s] {
      const u32 v = atomic_exch_acquire(s, 0u);
      if (v > 0u) {
        st_release(s, v + 1u);
        return true;
      }
      return false;
    });
  }
};

typedef SpinSemaphoreT<false> SpinSemaphore;
typedef SpinSemaphoreT<true> SpinBackoffSemaphore;

}  // namespace sync
}  // namespace occ

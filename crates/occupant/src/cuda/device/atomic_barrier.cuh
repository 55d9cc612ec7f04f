// occupant device library: AtomicBarrier, the sense-reversing centralised counter barrier
// (seed 004 §5), and NaiveBarrier, the same barrier over *all launched* blocks without discovery
// (the unsafe baseline: it deadlocks when not every block can be resident — the watchdog turns
// that into Error::Deadlock). CPU twin: occupant::cpu::sync (atomic barrier).
//
// Per barrier: __syncthreads; thread 0 flips its local sense s and does
//   old = atom.acq_rel.gpu.add(count, 1);
//   old == n - 1 (last): st.relaxed.gpu(count, 0); st.release.gpu(sense, s)
//   otherwise: poll ld.acquire.gpu(sense) == s
// then __syncthreads. The reset of `count` is ordered before the release of `sense`, so a block
// that has seen the new sense and arrives at the next barrier adds to the reset counter.
// State: 64 u32 words (count at [0], sense at [32], separate 128-byte lines), zeroed by the host.
#pragma once

#include "discovery.cuh"
#include "poll.cuh"

namespace occ {
namespace sync {

struct AtomicBarrier {
  u32* count;
  u32* sense_word;
  u32 n;
  u32 sense;
  unsigned prim;
  __device__ AtomicBarrier(u32* state, const Env& env)
      : count(state), sense_word(state + 32), n(env.num_groups), sense(0u), prim(Prim::AtomicBarrier) {}
  __device__ AtomicBarrier(u32* state, u32 blocks, unsigned primitive)
      : count(state), sense_word(state + 32), n(blocks), sense(0u), prim(primitive) {}
  __device__ __forceinline__ bool wait() {
    __syncthreads();
    sense ^= 1u;
    bool ok = true;
    if (local_linear_id() == 0u) {
      const u32 old = atomic_add_acq_rel(count, 1u);
      if (old == n - 1u) {
        st_relaxed(count, 0u);
        st_release(sense_word, sense);
      } else {
        u32* w = sense_word;
        const u32 s = sense;
        ok = poll_until(prim, [w, s] { return ld_acquire(w) == s; });
      }
    }
    return __syncthreads_and(ok) != 0;
  }
};

/// The unsafe baseline: an AtomicBarrier over every launched block (gridDim), no discovery.
struct NaiveBarrier : AtomicBarrier {
  __device__ explicit NaiveBarrier(u32* state)
      : AtomicBarrier(state, grid_block_count(), Prim::NaiveBarrier) {}
};

}  // namespace sync
}  // namespace occ

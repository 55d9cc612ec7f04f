// occupant device library: XfBarrier, the Xiao–Feng inter-block barrier with the acquire/release
// atomics of seed 001 §4.2, over the participating blocks. CPU twin: occupant::cpu::sync (xf).
//
// Master = participating block 0; slaves = the others. Per barrier (epoch e = 1, 2, ...):
//   slave:  __syncthreads; thread 0: st.release.gpu(arrive[id], e);
//           poll ld.acquire.gpu(go[id]) >= e; __syncthreads
//   master: thread t watches slaves t+1, t+1+blockDim, ... (several flags each when slaves
//           outnumber threads, read four at a time: occ::poll_flags): arrive[s] >= e;
//           __syncthreads;
//           thread t: fence.acq_rel.gpu, then st.relaxed.gpu(go[s], e) for its slaves;
//           __syncthreads
// Epoch-valued flags never need resetting. State: 2 * p_num_groups u32 words (arrive then go),
// zeroed by the host before the launch. Every thread of every participating block calls wait();
// false means the watchdog aborted the launch: leave the kernel.
#pragma once

#include "discovery.cuh"
#include "poll.cuh"

namespace occ {
namespace sync {

struct XfBarrier {
  u32* arrive;
  u32* go;
  u32 id;
  u32 n;
  u32 epoch;
  __device__ XfBarrier(u32* state, const Env& env)
      : arrive(state), go(state + env.num_groups), id(env.group_id), n(env.num_groups), epoch(0u) {}
  __device__ __forceinline__ bool wait() {
    ++epoch;
    const u32 e = epoch;
    const unsigned t = local_linear_id();
    bool ok = true;
    if (id != 0u) {
      __syncthreads();
      if (t == 0u) {
        st_release(arrive + id, e);
        u32* g = go + id;
        ok = poll_until(Prim::XfBarrier, [g, e] { return epoch_diff(ld_acquire(g), e) >= 0; });
      }
      return __syncthreads_and(ok) != 0;
    }
    const unsigned bd = local_count();
    ok = poll_flags(Prim::XfBarrier, arrive, t + 1u, bd, n, e);
    if (!__syncthreads_and(ok)) return false;
    fence_acq_rel();  // one release fence for all of this thread's go flags
    for (u32 s = t + 1u; s < n; s += bd) st_relaxed(go + s, e);
    __syncthreads();
    return true;
  }
};

}  // namespace sync
}  // namespace occ

// occupant device library: RelayRelaxedBarrier, the relay whose second hop carries no fence.
// A barrier-lab design (kernels lab_relay_relaxed_f<F>), not a library kind: measured on an
// H200 it LOST everywhere, by 12 % at one block to 70 % at 2112x128 (bench/results/
// nvidia-h200/i11-primitives/2026-11-28-s11-relay-relaxed-lab): there a fence costs ~200-290 ns
// but the read-back one more L2 round trip (~230 ns), and at full occupancy every block reading
// every leaf line queues on the lines the arrivals use. Kept so the finding can be re-measured
// (an H100's fences cost ~400-520 ns). No CPU twin (not a kind).
//
// Why: on sm_90 a release (the MEMBAR.GPU in front of a red/atom.release or fence.acq_rel) costs
// ~400-520 ns, a relaxed returned atomic ~100-150 ns (the lab's probes, bench/results/
// nvidia-h100/i11-primitives/: lab_p_fence, lab_p_atom_own). RelayBarrier pays two releases on
// its critical path: the leaf's last arriver's atom.acq_rel, then its red.release to the root.
// Here only the arrivals release. The root hop is a relaxed red, a doorbell that says "every
// leaf is complete" and orders nothing; each block then acquires from the leaves themselves:
// the lanes of its polling warp read every leaf line (one load each, in parallel; a line not yet
// complete is polled) and each lane ends with fence.acquire.gpu. A leaf read at or past its
// epoch's count returns the value of an RMW in the release sequence of every arrival of the
// epoch on that line (every later write to the line is an atomic add), so the load plus the
// fence is an acquire pattern that synchronises with every participant's release; the
// block-wide bar.red.and at the exit passes that on to the block's other threads.
//
//   arrive   thread 0: atom.release.gpu.add on its leaf (FAN_IN consecutive participants);
//            the leaf's last arriver: red.relaxed.gpu.add on each of r = min(leaves, LINES)
//            root lines (warp 0's lanes).
//   wait     lane 0 of the last warp polls root line g mod r (relaxed) for epoch * leaves;
//            then that warp's lanes read leaf lines lane, lane + 32, ... (relaxed, each polled
//            until at or past epoch * its participants), fence.acquire.gpu; __syncthreads_and.
//
// State: Relay's layout (32 root lines, then one line per leaf, up to OCC_RELAY_LEAVES).
// Bounded: every poll is pulse::poll_pipelined (the fast spin, then occ::wait_until).
#pragma once

#include "replica_barrier.cuh"

#ifndef OCC_RELAY_RELAXED_FAN_IN
#define OCC_RELAY_RELAXED_FAN_IN 64
#endif

namespace occ {
namespace pulse {

/// red.relaxed.gpu.global.add.u32: an add that orders nothing (a doorbell).
__device__ __forceinline__ void red_add_relaxed(u32* p, u32 v) {
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

}  // namespace pulse

namespace sync {

/// RelayRelaxedBarrierT<FAN_IN, LINES, EVERY> (kind relay_relaxed; see the top of this file).
template <unsigned FAN_IN = OCC_RELAY_RELAXED_FAN_IN, unsigned LINES = OCC_RELAY_LINES,
          unsigned EVERY = OCC_POLL_EVERY>
struct RelayRelaxedBarrierT {
  static_assert(FAN_IN >= 1u, "OCC_RELAY_RELAXED_FAN_IN: at least 1");
  static_assert(LINES >= 1u && LINES <= 32u, "root lines: 1 to 32 (lanes of warp 0)");
  u32* root;
  u32* leaf0;       // the first leaf line
  u32* leaf;        // this block's leaf line
  const u32* mine;  // root line g mod r, where this block polls
  u32 n;
  u32 fan;     // participants per leaf (the last leaf may have fewer)
  u32 k;       // participants in this block's leaf
  u32 leaves;  // leaves with a participant
  u32 r;
  u32 epoch;
  bool throttle;

  __device__ RelayRelaxedBarrierT(u32* state, const Env& env)
      : root(state), n(env.num_groups), epoch(0u) {
    fan = FAN_IN;
    if ((n + fan - 1u) / fan > (u32)OCC_RELAY_LEAVES) fan = (n + OCC_RELAY_LEAVES - 1u) / OCC_RELAY_LEAVES;
    leaves = n == 0u ? 1u : (n + fan - 1u) / fan;
    leaf0 = state + 32u * pulse::kLine;
    k = participants_in(env.group_id / fan);
    leaf = leaf0 + (env.group_id / fan) * pulse::kLine;
    r = leaves < LINES ? leaves : LINES;
    mine = root + (env.group_id % r) * pulse::kLine;
    throttle = pulse::throttle_for(leaves);
  }

  __device__ __forceinline__ u32 participants_in(u32 l) const {
    return (l + 1u) * fan <= n ? fan : n - l * fan;
  }

  __device__ __forceinline__ bool wait() {
    ++epoch;
    const u32 e = epoch;
    const unsigned t = local_linear_id();
    const unsigned nt = local_count();
    __syncthreads();
    if (t < 32u) {
      const unsigned mask = nt >= 32u ? 0xffffffffu : (1u << nt) - 1u;
      u32 last = 0u;
      if (t == 0u) last = atomic_add_release(leaf, 1u) + 1u == e * k ? 1u : 0u;
      last = __shfl_sync(mask, last, 0);
      if (last != 0u && t < r) pulse::red_add_relaxed(root + t * pulse::kLine, 1u);
    }
    bool ok = true;
    const unsigned p = pulse::poller_thread();
    if (t >= p) {
      // The polling warp (the last; lanes p .. nt-1).
      const unsigned lane = t - p;
      const unsigned width = nt - p < 32u ? nt - p : 32u;
      const unsigned mask = width >= 32u ? 0xffffffffu : (1u << width) - 1u;
      if (lane == 0u)
        ok = pulse::poll_pipelined<1u, 0u, EVERY, false>(Prim::RelayRelaxedBarrier, mine,
                                                          e * leaves, throttle);
      ok = __shfl_sync(mask, ok ? 1u : 0u, 0) != 0u;
      for (u32 l = lane; ok && l < leaves; l += width) {
        const u32* w = leaf0 + l * pulse::kLine;
        const u32 target = e * participants_in(l);
        if (epoch_diff(ld_relaxed(w), target) < 0)
          ok = pulse::poll_pipelined<1u, 0u, EVERY, false>(Prim::RelayRelaxedBarrier, w, target,
                                                            false);
      }
      pulse::fence_acquire();
    }
    return __syncthreads_and(ok) != 0;
  }
};

/// The barrier with the library's parameters.
using RelayRelaxedBarrier = RelayRelaxedBarrierT<>;

}  // namespace sync
}  // namespace occ

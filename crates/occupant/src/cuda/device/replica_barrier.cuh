// occupant device library: ReplicaBarrier and RelayBarrier, the barriers built past what
// cooperative_groups' grid.sync() does on sm_90. CPU twins: occupant::cpu::sync::ReplicaBarrier
// and RelayBarrier (tests/loom_replica_barrier.rs).
//
// What grid.sync() does (cooperative_groups/details/sync.h): __syncthreads; thread 0 of each
// block does __threadfence (MEMBAR.SC.GPU) and atomicAdd on ONE word (the last arriver's add
// flips its top bit), spins on that word with volatile loads, then __threadfence again and
// __syncthreads. Its cost: one hop between SMs (~0.6-0.7 us on an H100: a single block alone
// pays 614-740 ns per barrier for its own arrival and poll), the poll quantum (one load in
// flight: a block that just missed the flip waits for its next sample), a second full fence
// on the way out, and at full occupancy every arrival and every poll on one L2 line.
//
// Designs measured (bench/results/nvidia-h100/i11-primitives/, the barrier lab):
//   * Pipelined polling (several relaxed loads of the word in flight, staggered) LOST 5-10 %:
//     same-address loads from one SM are not sampled more often, they only add traffic.
//   * Replicated counters (each arrival a red on R lines, block g polls line g mod R) LOST
//     10-20 % at 132-264 blocks: every line still counts every arrival, and R reds per block
//     cost more than the pollers they spread.
//   * What paid: relaxed polls with the clock and abort flag checked every 16 polls, not every
//     poll (-60 ns), the poll in another warp than the arrival's release fence, and one
//     fence.acquire.gpu (CCTL.IVALL, no MEMBAR) instead of grid.sync's exit fence: Replica.
//   * Better still in the lab (Lean): the returned arrival, as grid.sync (the last arriver
//     needs no poll; the others poll only after their arrival, so polls do not queue in front
//     of arrivals) and, with more blocks than SMs, ~300 cycles before the first poll.
//   * Many blocks: a level of leaf counters (returned atomics, 32 blocks a leaf) under a root
//     counter replicated over 32 lines, so a line sees ~n/32 arrivals and n/32 pollers.
//
//   ReplicaBarrier (occ::Prim 26)  one hop; template ReplicaBarrierT<LINES, DEPTH, GAP, EVERY,
//                                  ATOM, DELAY, ADAPTIVE>; the library's: one line, red.release
//                                  arrival by warp 0, polled by the last warp (one load in
//                                  flight, clock every 16 polls). LINES > 1: a red on each of
//                                  LINES lines by warp 0's lanes, block g polls line g mod R.
//   LeanBarrier (occ::Prim 28)     ReplicaBarrierT with ATOM: one line, a returned
//                                  atom.acq_rel.gpu arrival by thread 0, which polls unless it
//                                  was last; OCC_LEAN_DELAY_CYCLES (300) before the first poll
//                                  when n > %nsmid.
//   RelayBarrier (occ::Prim 27)    leaf lines of OCC_RELAY_FAN_IN = 32 consecutive participants
//                                  (atom.acq_rel.gpu.add, returned: the leaf's last arriver
//                                  knows it is last) relay one red.release.gpu.add to each of
//                                  R = min(leaves, 32) root lines; block g polls root line
//                                  g mod R for epoch * leaves.
//
// Block semantics: every thread of every participating block calls wait(); wait() returns
// false, in every thread, when the watchdog aborted the launch (leave the kernel). Every wait
// is bounded: the fast spin checks the abort flag and %globaltimer, then hands over to
// occ::wait_until (deadline, Error::Deadlock). Monotone epoch counters (occ::epoch_diff), so
// nothing is reset between barriers. State: zeroed by the host before every launch
// (occupant::cuda::sync::BarrierKind::state_words): Replica 32 lines; Relay 32 root lines,
// then one line per leaf (up to OCC_RELAY_LEAVES = 480: 16384 words in all).
//
// Tunable (define before including): OCC_POLL_DEPTH (1) loads in flight, OCC_POLL_GAP_CYCLES
// (0) between their first issues, OCC_POLL_EVERY (16) polls between clock checks,
// OCC_REPLICA_LINES (1, at most 32), OCC_REPLICA_ATOM (false), OCC_REPLICA_DELAY_CYCLES (0),
// OCC_LEAN_DELAY_CYCLES (300), OCC_RELAY_LINES (32), OCC_RELAY_FAN_IN (64; the text above still
// says 32, the fan-in before bench/results/nvidia-h100/i11-barrier-fast).
#pragma once

#include "discovery.cuh"
#include "poll.cuh"

#ifndef OCC_POLL_DEPTH
#define OCC_POLL_DEPTH 1
#endif
#ifndef OCC_POLL_GAP_CYCLES
#define OCC_POLL_GAP_CYCLES 0
#endif
#ifndef OCC_REPLICA_LINES
#define OCC_REPLICA_LINES 1
#endif
#ifndef OCC_POLL_EVERY
#define OCC_POLL_EVERY 16
#endif
#ifndef OCC_REPLICA_ATOM
#define OCC_REPLICA_ATOM false
#endif
#ifndef OCC_REPLICA_DELAY_CYCLES
#define OCC_REPLICA_DELAY_CYCLES 0
#endif
#ifndef OCC_LEAN_DELAY_CYCLES
#define OCC_LEAN_DELAY_CYCLES 300
#endif
#ifndef OCC_RELAY_LINES
#define OCC_RELAY_LINES 32
#endif
#ifndef OCC_RELAY_FAN_IN
#define OCC_RELAY_FAN_IN 64  // measured 2213 vs 2282 ns (fan-in 32) at 2112x128 on an H100
#endif
#ifndef OCC_RELAY_LEAVES
#define OCC_RELAY_LEAVES 480
#endif
// relay_pause (RelayPauseBarrier): the relay whose poller waits before its first poll, past
// OCC_RELAY_PAUSE_FROM blocks per SM: a spin of OCC_RELAY_PAUSE_CYCLES up to
// OCC_RELAY_PAUSE_SPIN_TO blocks per SM, beyond that a __nanosleep(OCC_RELAY_PAUSE_NAP_NS)
// (there a spin takes the issue slots the SM's other blocks arrive with). Measured on an H200
// (bench/results/nvidia-h200/i11-primitives/2026-11-28-s12-relay-pace-lab, -relay-nap-lab):
// 1056x256 1877 -> 1672 ns, 1056x128 1828 -> 1503, 1320x128 1867 -> 1597, 1584x128 1919 ->
// 1738 (spin 2000); 2112x64 1947 -> 1853, 4224x32 2087 -> 2051 (nap 1000); a spin at 16 or
// more blocks per SM cost up to +34 %.
#ifndef OCC_RELAY_PAUSE_FROM
#define OCC_RELAY_PAUSE_FROM 4
#endif
#ifndef OCC_RELAY_PAUSE_SPIN_TO
#define OCC_RELAY_PAUSE_SPIN_TO 12
#endif
#ifndef OCC_RELAY_PAUSE_CYCLES
#define OCC_RELAY_PAUSE_CYCLES 2000
#endif
#ifndef OCC_RELAY_PAUSE_NAP_NS
#define OCC_RELAY_PAUSE_NAP_NS 1000
#endif
// Throttled polls (off by default: -DOCC_POLL_PAUSE_SHIFT=1 turns them on; occupant's
// PersistentProgram does, the apps do): after a poll that saw `missing` arrivals still to come,
// sleep min(missing << OCC_POLL_PAUSE_SHIFT, OCC_POLL_PAUSE_MAX_NS) ns (__nanosleep, which
// leaves the SM's issue slots to the blocks still working) before the next one, when that is at
// least OCC_POLL_PAUSE_MIN_NS (a sleep's wake-up is coarse: near the end, spin), and, with
// OCC_POLL_PAUSE_GATE (default 1), only in barriers with more waiters than the GPU has SMs
// (%nsmid; pulse::throttle_for chooses the loop at run time). Inside the apps, whose phases end
// with skewed arrivals, ~1000 early blocks polling the arrival line slow the stragglers'
// arrivals on it (bench/results/nvidia-h100/apps/kinds-dde2d39). Measured on an H100
// (bench/results/nvidia-h100/i11-primitives/misses-r1 .. r4), shift 1 gated: with skewed
// arrivals (a random delay < 3 us before each barrier) lean and lean_pause gain 13-18 % at full
// occupancy of 128 and 256 threads (lean 8095 -> 7040 ns at 2112x128, 5559 -> 4613 at 1056x256)
// and lose nothing at one block per SM; with every block arriving together it is not free:
// +8-12 ns at 132x128/256 (the two loops' code; an ungated throttle costs +37 ns there when
// arrivals are skewed), +10 ns lean_pause 132x1024, +19 ns lean 1056x256. Hence off for barriers
// in general and on for persistent kernels, whose blocks reach each barrier as their work ends.
#ifndef OCC_POLL_PAUSE_SHIFT
#define OCC_POLL_PAUSE_SHIFT -1
#endif
#ifndef OCC_POLL_PAUSE_MAX_NS
#define OCC_POLL_PAUSE_MAX_NS 1000
#endif
// Predicted pauses (experiment, off by default): sleep half the time the missing arrivals take
// at the rate seen since the wait began (at most OCC_POLL_PAUSE_MAX_NS; with no arrival yet,
// doubling from OCC_POLL_PAUSE_MIN_NS); replaces OCC_POLL_PAUSE_SHIFT's pause when set.
#ifndef OCC_POLL_PREDICT
#define OCC_POLL_PREDICT false
#endif
#ifndef OCC_LEAN_ARRIVE_RELEASE
#define OCC_LEAN_ARRIVE_RELEASE false
#endif
#ifndef OCC_POLL_PAUSE_MIN_NS
#define OCC_POLL_PAUSE_MIN_NS 64
#endif
#ifndef OCC_POLL_PAUSE_GATE
#define OCC_POLL_PAUSE_GATE 1
#endif
// Acquire polls (experiment, off by default): every poll an ld.acquire.gpu, as CUDA 13's
// grid.sync() polls, and no fence.acquire.gpu after the last; off: relaxed polls and one
// fence.acquire.gpu after the poll that saw the target. Measured on an H200 (bench/results/
// nvidia-h200/i11-primitives/2026-11-28-s11-poll-lab): a tie for Lean's kinds, 13-15 % slower
// for replica and 5-7 % for relay.
#ifndef OCC_POLL_ACQUIRE_LOADS
#define OCC_POLL_ACQUIRE_LOADS 0
#endif

namespace occ {
namespace pulse {

/// u32 words per 128-byte line.
constexpr u32 kLine = 32u;

/// fence.acquire.gpu (PTX 8.6, sm_90): after a relaxed load that observed a release, makes it
/// an acquire (the acquire pattern). Compiles to CCTL.IVALL: unlike fence.acq_rel it does not
/// wait for the loads still in flight.
__device__ __forceinline__ void fence_acquire() { asm volatile("fence.acquire.gpu;" ::: "memory"); }

/// red.release.gpu.global.add.u32: an arrival that does not wait for the old value.
__device__ __forceinline__ void red_add_release(u32* p, u32 v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/// Spins for about `cycles` SM clock cycles.
__device__ __forceinline__ void spin_cycles(unsigned cycles) {
  const long long c0 = clock64();
  while (clock64() - c0 < (long long)cycles) {
  }
}

/// The number of SMs (%nsmid).
__device__ __forceinline__ unsigned sm_count() {
  unsigned r;
  asm("mov.u32 %0, %%nsmid;" : "=r"(r));
  return r;
}

/// Whether a barrier of `waiters` (blocks, or leaves for the relay) throttles its polls: with
/// the throttle on (OCC_POLL_PAUSE_SHIFT >= 0), always when OCC_POLL_PAUSE_GATE is 0, else only
/// with more waiters than SMs (at one per SM or fewer the plain loop runs: measured on an
/// H100, even a throttle that never sleeps there cost 30-40 ns per barrier, the loop's code).
__device__ __forceinline__ bool throttle_for(u32 waiters) {
  return OCC_POLL_PAUSE_SHIFT >= 0 && (!OCC_POLL_PAUSE_GATE || waiters > sm_count());
}

/// Waits until *w is at or after `target` (epoch_diff), with DEPTH relaxed loads of *w in
/// flight, first issued GAP cycles apart (each reload is issued as soon as its load returned,
/// so the stagger persists); then fence.acquire.gpu. True on success; false if the launch was
/// aborted or the wait expired (recorded by the watchdog). Bounded: the fast spin lasts at
/// most OCC_FAST_SPIN_NS, then occ::wait_until owns the deadline. THROTTLE: the polls'
/// throttle (see OCC_POLL_PAUSE_SHIFT; poll_pipelined chooses the loop at run time).
template <unsigned DEPTH, unsigned GAP, unsigned EVERY, bool THROTTLE, bool ACQUIRE = true>
__device__ __forceinline__ bool poll_loop(unsigned prim, const u32* w, u32 target) {
  const bool given_up = aborted();
  // OCC_POLL_ACQUIRE_LOADS: each load acquires (then no fence after the last).
  constexpr bool kAcqLoads = ACQUIRE && OCC_POLL_ACQUIRE_LOADS != 0;
  u32 v[DEPTH];
  v[0] = kAcqLoads ? ld_acquire(w) : ld_relaxed(w);
#pragma unroll
  for (unsigned k = 1; k < DEPTH; ++k) {
    if (GAP != 0u) spin_cycles(GAP);
    v[k] = kAcqLoads ? ld_acquire(w) : ld_relaxed(w);
  }
  const unsigned long long t0 = globaltimer();
  // OCC_POLL_PREDICT: the arrivals seen since the first load, and when (SM clock).
  const u32 first = v[0];
  const long long first_at = OCC_POLL_PREDICT ? clock64() : 0;
  unsigned nap = 0u;
  for (unsigned i = 1;; ++i) {
#pragma unroll
    for (unsigned k = 0; k < DEPTH; ++k) {
      const int missing = epoch_diff(target, v[k]);
      if (missing <= 0) {
        if (ACQUIRE && !kAcqLoads) fence_acquire();
        return true;
      }
      if (OCC_POLL_PREDICT) {
        // Sleep about half the time the missing arrivals will take at the rate seen so far
        // (cycles / 4 ~ ns / 2 at ~2 GHz); with none seen yet, back off from the minimum.
        const int got = epoch_diff(v[k], first);
        unsigned ns;
        if (got > 0) {
          const long long rest = (long long)missing * (clock64() - first_at) / got;
          ns = rest >> 2 < (long long)OCC_POLL_PAUSE_MAX_NS ? (unsigned)(rest >> 2) : OCC_POLL_PAUSE_MAX_NS;
        } else {
          ns = nap == 0u ? OCC_POLL_PAUSE_MIN_NS : (nap * 2u < OCC_POLL_PAUSE_MAX_NS ? nap * 2u : OCC_POLL_PAUSE_MAX_NS);
        }
        nap = ns;
        if (ns >= OCC_POLL_PAUSE_MIN_NS) __nanosleep(ns);
      } else if (THROTTLE && OCC_POLL_PAUSE_SHIFT >= 0) {
        const unsigned ns = (unsigned)missing << (OCC_POLL_PAUSE_SHIFT >= 0 ? OCC_POLL_PAUSE_SHIFT : 0);
        if (ns >= OCC_POLL_PAUSE_MIN_NS) __nanosleep(ns < OCC_POLL_PAUSE_MAX_NS ? ns : OCC_POLL_PAUSE_MAX_NS);
      }
      v[k] = kAcqLoads ? ld_acquire(w) : ld_relaxed(w);
    }
    if (given_up) return false;  // given up before this wait began: not a waiter
    // The clock and the abort flag every EVERY rounds (EVERY = 1: the clock every round, the
    // flag every 8), so that the checks do not delay the next poll.
    if (i % EVERY != 0u) continue;
    if (((i / EVERY) & 7u) == 0u && aborted()) {
      note_waiting();
      return false;
    }
    if (globaltimer() - t0 > (unsigned long long)OCC_FAST_SPIN_NS) break;
  }
  return wait_until(prim, [w, target] { return epoch_diff(ld_acquire(w), target) >= 0; });
}

/// poll_loop with the throttle where `throttle` says (throttle_for(waiters)); ACQUIRE false:
/// without the closing fence.acquire.gpu on the fast path (a doorbell that orders nothing; the
/// slow path's loads still acquire). The default
/// throttles only when OCC_POLL_PAUSE_GATE is 0 (as every poll did before the gate). Both loops
/// inline: the throttled one out of line (__noinline__) cost 56-67 ns at 264x1024 and did not
/// remove the 10 ns at 132x128 (H100, bench/results/nvidia-h100/i11-primitives/misses-r4).
template <unsigned DEPTH, unsigned GAP, unsigned EVERY = 1u, bool ACQUIRE = true>
__device__ __forceinline__ bool poll_pipelined(unsigned prim, const u32* w, u32 target,
                                               bool throttle = OCC_POLL_PAUSE_SHIFT >= 0 &&
                                                               !OCC_POLL_PAUSE_GATE) {
  if (OCC_POLL_PAUSE_SHIFT >= 0 && throttle)
    return poll_loop<DEPTH, GAP, EVERY, true, ACQUIRE>(prim, w, target);
  return poll_loop<DEPTH, GAP, EVERY, false, ACQUIRE>(prim, w, target);
}

/// The polling thread of a block: lane 0 of its last warp (thread 0 in a one-warp block).
__device__ __forceinline__ unsigned poller_thread() {
  const unsigned n = local_count();
  return n > 32u ? ((n - 1u) / 32u) * 32u : 0u;
}

/// The replicated-counter arrival and pipelined wait shared by Replica and Relay: `arrive`
/// (uniform in warp 0) says whether this block adds one arrival to each of the `r` lines at
/// `lines`; then the block waits until `mine` (its line, g mod r) reaches `target`.
/// ATOM (one line only): thread 0 arrives with a returned atom.acq_rel.gpu.add and polls
/// itself, as grid.sync() does; the last arriver then skips the poll (its atom's acquire
/// half acquires every earlier arrival), and the other blocks' polls start only once their
/// arrival is done. `delay`: cycles to wait before the first poll (0: none).
template <unsigned DEPTH, unsigned GAP, unsigned EVERY, bool ATOM>
__device__ __forceinline__ bool replicated_wait(unsigned prim, u32* lines, u32 r, const u32* mine,
                                                bool arrive, u32 target, unsigned delay,
                                                bool throttle) {
  const unsigned t = local_linear_id();
  bool ok = true;
  if (ATOM) {
    if (t == 0u) {
      const u32 old = atomic_add_acq_rel(lines, 1u);
      if (epoch_diff(old + 1u, target) < 0) {
        if (delay != 0u) spin_cycles(delay);
        ok = poll_pipelined<DEPTH, GAP, EVERY>(prim, lines, target, throttle);
      }
    }
    return __syncthreads_and(ok) != 0;
  }
  if (arrive && t < r) red_add_release(lines + t * kLine, 1u);
  if (t == poller_thread()) {
    if (delay != 0u) spin_cycles(delay);
    ok = poll_pipelined<DEPTH, GAP, EVERY>(prim, mine, target, throttle);
  }
  return __syncthreads_and(ok) != 0;
}

}  // namespace pulse

namespace sync {

/// ReplicaBarrier (see the top of this file): one hop over R replicated counter lines.
/// State: 32 lines (1024 u32 words).
template <unsigned LINES = OCC_REPLICA_LINES, unsigned DEPTH = OCC_POLL_DEPTH,
          unsigned GAP = OCC_POLL_GAP_CYCLES, unsigned EVERY = OCC_POLL_EVERY,
          bool ATOM = OCC_REPLICA_ATOM, unsigned DELAY = OCC_REPLICA_DELAY_CYCLES,
          bool ADAPTIVE = true, unsigned PRIM = 0u>
struct ReplicaBarrierT {
  static_assert(LINES >= 1u && LINES <= 32u, "OCC_REPLICA_LINES: 1 to 32 (lanes of warp 0)");
  static_assert(!ATOM || LINES == 1u, "a returned arrival: one line");
  static_assert(DEPTH >= 1u && DEPTH <= 16u, "OCC_POLL_DEPTH: 1 to 16");
  u32* lines;
  const u32* mine;  // line g mod r, where this block polls
  u32 n;
  u32 r;
  u32 epoch;
  unsigned delay;  // cycles before the first poll
  bool throttle;   // the polls' throttle (pulse::throttle_for)

  __device__ ReplicaBarrierT(u32* state, const Env& env)
      : lines(state), n(env.num_groups), epoch(0u), throttle(pulse::throttle_for(env.num_groups)) {
    // ADAPTIVE: the delay only with more blocks than SMs, where polls would slow the arrivals
    // (measured on an H100: it pays from 264 blocks on and costs ~130 ns at 132).
    delay = (!ADAPTIVE || n > pulse::sm_count()) ? DELAY : 0u;
    r = n < LINES ? n : LINES;
    if (r == 0u) r = 1u;
    mine = lines + (env.group_id % r) * pulse::kLine;
  }

  __device__ __forceinline__ bool wait() {
    ++epoch;
    __syncthreads();
    // PRIM: the watchdog's id for the waits (0: Lean's with ATOM, else Replica's).
    const unsigned prim = PRIM != 0u ? PRIM : ATOM ? Prim::LeanBarrier : Prim::ReplicaBarrier;
    return pulse::replicated_wait<DEPTH, GAP, EVERY, ATOM>(prim, lines, r, mine, true, epoch * n,
                                                          delay, throttle);
  }
};

/// RelayBarrier (see the top of this file): leaf counters, then one hop over R replicated
/// root lines. State: 32 root lines, then OCC_RELAY_LEAVES leaf lines.
/// PACE: the relay_pause kind's wait before the first poll (see OCC_RELAY_PAUSE_FROM).
template <unsigned FAN_IN = OCC_RELAY_FAN_IN, unsigned LINES = OCC_RELAY_LINES,
          unsigned DEPTH = OCC_POLL_DEPTH, unsigned GAP = OCC_POLL_GAP_CYCLES,
          unsigned EVERY = OCC_POLL_EVERY, bool PACE = false>
struct RelayBarrierT {
  static_assert(FAN_IN >= 1u, "OCC_RELAY_FAN_IN: at least 1");
  static_assert(LINES >= 1u && LINES <= 32u, "OCC_REPLICA_LINES: 1 to 32 (lanes of warp 0)");
  u32* root;
  u32* leaf;        // this block's leaf line
  const u32* mine;  // root line g mod r, where this block polls
  u32 k;       // participants in this block's leaf
  u32 leaves;  // leaves with a participant
  u32 r;
  u32 epoch;
  bool throttle;  // the polls' throttle (pulse::throttle_for the leaves)
  bool pause;     // PACE: wait before the first poll (cleared by PersistentKernel's no_pause)
  u32 delay;      // PACE: spin cycles (0: __nanosleep(OCC_RELAY_PAUSE_NAP_NS) instead)

  __device__ RelayBarrierT(u32* state, const Env& env) : root(state), epoch(0u) {
    const u32 n = env.num_groups;
    // At most OCC_RELAY_LEAVES leaves: a larger grid widens the leaves.
    u32 fan = FAN_IN;
    if ((n + fan - 1u) / fan > (u32)OCC_RELAY_LEAVES) fan = (n + OCC_RELAY_LEAVES - 1u) / OCC_RELAY_LEAVES;
    leaves = n == 0u ? 1u : (n + fan - 1u) / fan;
    const u32 l = env.group_id / fan;
    k = (l + 1u) * fan <= n ? fan : n - l * fan;
    leaf = state + (32u + l) * pulse::kLine;
    r = leaves < LINES ? leaves : LINES;
    mine = root + (env.group_id % r) * pulse::kLine;
    throttle = pulse::throttle_for(leaves);
    const u32 sms = pulse::sm_count();
    const u32 per_sm = sms == 0u ? n : (n + sms - 1u) / sms;
    pause = PACE && per_sm >= (u32)OCC_RELAY_PAUSE_FROM;
    delay = per_sm <= (u32)OCC_RELAY_PAUSE_SPIN_TO ? (u32)OCC_RELAY_PAUSE_CYCLES : 0u;
  }

  __device__ __forceinline__ bool wait() {
    ++epoch;
    const u32 e = epoch;
    const unsigned t = local_linear_id();
    __syncthreads();
    if (t < 32u) {
      // Warp 0: lane 0 arrives at the leaf (returned: the last arriver relays); the warp
      // learns the answer by shuffle, so no block-wide barrier sits on the critical path.
      // __syncwarp orders lane 0's acquire before the other lanes' releases (causality).
      const unsigned nt = local_count();
      const unsigned mask = nt >= 32u ? 0xffffffffu : (1u << nt) - 1u;
      u32 last = 0u;
      if (t == 0u) last = atomic_add_acq_rel(leaf, 1u) + 1u == e * k ? 1u : 0u;
      last = __shfl_sync(mask, last, 0);
      __syncwarp(mask);
      if (last != 0u && t < r) pulse::red_add_release(root + t * pulse::kLine, 1u);
    }
    bool ok = true;
    if (t == pulse::poller_thread()) {
      if (PACE && pause) {
        if (delay != 0u)
          pulse::spin_cycles(delay);
        else
          __nanosleep(OCC_RELAY_PAUSE_NAP_NS);
      }
      ok = pulse::poll_pipelined<DEPTH, GAP, EVERY>(
          PACE ? Prim::RelayPauseBarrier : Prim::RelayBarrier, mine, e * leaves, throttle);
    }
    return __syncthreads_and(ok) != 0;
  }
};

/// LeanLinesBarrierT<K, DELAY, EVERY> (kind lean_lines): Lean with the arrivals spread over K
/// lines. Thread 0 of block g arrives with red.release.gpu.add on line g mod k (k = min(K, n));
/// lanes l < k of warp 0 then poll line l (ld.relaxed, the clock every EVERY polls) until it
/// reaches epoch * (the blocks of line l), each followed by fence.acquire.gpu, and the block
/// meets on bar.red.and. A line takes n / k arrivals and every block's poll of it, instead of
/// n and n: at 132 blocks of 1024 threads one line's 132 arrivals and pollers queue. Ordering:
/// a block's writes -> (bar.sync) thread 0 -> (red.release, a release sequence on its line)
/// the lane that polls that line in every block -> (fence.acquire, bar.red) every thread.
/// DELAY cycles before the first poll when n > %nsmid (as Lean). ATOM (lab): a returned
/// atom.acq_rel.gpu instead of the red, the polls after it returned. State: up to 32 lines.
#ifndef OCC_LEAN_LINES
#define OCC_LEAN_LINES 4
#endif
template <unsigned K = OCC_LEAN_LINES, unsigned DELAY = OCC_LEAN_DELAY_CYCLES,
          unsigned EVERY = OCC_POLL_EVERY, bool ATOM = false>
struct LeanLinesBarrierT {
  static_assert(K >= 1u && K <= 32u, "OCC_LEAN_LINES: 1 to 32 (lanes of warp 0)");
  u32* lines;
  u32* own;     // line g mod k
  u32 k;        // lines in use
  u32 polled;   // blocks arriving on the line this thread polls (lanes < k of warp 0)
  u32 epoch;
  unsigned delay;

  __device__ LeanLinesBarrierT(u32* state, const Env& env) : lines(state), epoch(0u) {
    const u32 n = env.num_groups;
    const u32 nt = local_count();  // a lane per line: at most the block's threads
    k = n < K ? n : K;
    if (k > nt) k = nt;
    if (k == 0u) k = 1u;
    own = lines + (env.group_id % k) * pulse::kLine;
    const u32 l = local_linear_id();
    polled = l < k ? (n - l + k - 1u) / k : 0u;
    delay = n > pulse::sm_count() ? DELAY : 0u;
  }

  __device__ __forceinline__ bool wait() {
    ++epoch;
    const unsigned t = local_linear_id();
    __syncthreads();
    bool ok = true;
    if (t == 0u) {
      if (ATOM) {
        // A returned atom.acq_rel.gpu: warp 0 polls only once the arrival is done.
        const u32 old = atomic_add_acq_rel(own, 1u);
        asm volatile("" ::"r"(old));
      } else {
        pulse::red_add_release(own, 1u);
      }
    }
    if (ATOM && t < 32u) {
      const unsigned nt = local_count();
      __syncwarp(nt >= 32u ? 0xffffffffu : (1u << nt) - 1u);
    }
    if (t < k) {
      if (delay != 0u) pulse::spin_cycles(delay);
      ok = pulse::poll_pipelined<1u, 0u, EVERY>(Prim::LeanLinesBarrier, lines + t * pulse::kLine,
                                                epoch * polled, pulse::throttle_for(polled));
    }
    return __syncthreads_and(ok) != 0;
  }
};

/// LeanBellBarrierT<DELAY, EVERY> (kind lean_bell): Lean whose waiters poll a line apart from
/// the arrivals (a doorbell), for phases whose blocks arrive skewed, where the early blocks'
/// polls of the arrival line slow the stragglers' arrivals on it. Thread 0 of each block
/// arrives with a returned atom.acq_rel.gpu.add on line 0; the last arriver (its atom acquired
/// every arrival) stores the epoch into line 1 (st.relaxed: a doorbell, no MEMBAR); the others
/// pause DELAY cycles when n > %nsmid, poll line 1 (relaxed, the clock every EVERY polls) until
/// it shows the epoch, then load line 0 until it shows every arrival (one round trip: it
/// already does) and fence.acquire.gpu: the acquire of every block's release on line 0 (its RMW
/// chain), so the doorbell itself orders nothing. The block meets on bar.red.and. One round trip
/// more than Lean for the pollers; nothing polls the arrival line while arrivals come.
/// State: 2 lines (64 u32 words).
template <unsigned DELAY = OCC_LEAN_DELAY_CYCLES, unsigned EVERY = OCC_POLL_EVERY>
struct LeanBellBarrierT {
  u32* line;  // arrivals
  u32* bell;  // the epoch of the last completed barrier
  u32 n;
  u32 epoch;
  unsigned delay;

  __device__ LeanBellBarrierT(u32* state, const Env& env)
      : line(state), bell(state + pulse::kLine), n(env.num_groups), epoch(0u) {
    delay = n > pulse::sm_count() ? DELAY : 0u;
  }

  __device__ __forceinline__ bool wait() {
    ++epoch;
    const u32 e = epoch;
    __syncthreads();
    bool ok = true;
    if (local_linear_id() == 0u) {
      const u32 target = e * n;
      const u32 old = atomic_add_acq_rel(line, 1u);
      if (epoch_diff(old + 1u, target) >= 0) {
        st_relaxed(bell, e);  // the last arriver rings
      } else {
        if (delay != 0u) pulse::spin_cycles(delay);
        ok = pulse::poll_pipelined<1u, 0u, EVERY>(Prim::LeanBellBarrier, bell, e, false) &&
             pulse::poll_pipelined<1u, 0u, EVERY>(Prim::LeanBellBarrier, line, target,
                                                  pulse::throttle_for(n));
      }
    }
    return __syncthreads_and(ok) != 0;
  }
};

/// LeanPauseBarrierT<DELAY, PB, EVERY> (kind lean_pause): Lean whose pause before the first
/// poll, past one block per SM, is max(DELAY, (arrivals still missing) << PB) cycles instead of
/// DELAY: the returned arrival says how many blocks are still to come, and an early arriver
/// keeps its polls off the line while they arrive (the lab's pb<s>, which won at full
/// occupancy: 1056x256 1718 ns against Lean's 1951, bench/results/nvidia-h100/i11-primitives/
/// last-run2). At one block per SM or fewer it is Lean. Same orderings as Lean (CPU twin:
/// occupant::cpu::sync::LeanBarrier; the pause orders nothing). State: one line.
template <unsigned DELAY = OCC_LEAN_DELAY_CYCLES, unsigned PB = 0u,
          unsigned EVERY = OCC_POLL_EVERY>
struct LeanPauseBarrierT {
  u32* line;
  u32 n;
  u32 epoch;
  bool pause;

  __device__ LeanPauseBarrierT(u32* state, const Env& env)
      : line(state), n(env.num_groups), epoch(0u), pause(env.num_groups > pulse::sm_count()) {}

  __device__ __forceinline__ bool wait() {
    ++epoch;
    __syncthreads();
    bool ok = true;
    if (local_linear_id() == 0u) {
      const u32 target = epoch * n;
      // OCC_LEAN_ARRIVE_RELEASE (experiment): grid.sync's arrival, atom.release, and the last
      // arriver's acquire as a fence after it (the acquire pattern).
      const u32 old = OCC_LEAN_ARRIVE_RELEASE ? atomic_add_release(line, 1u) : atomic_add_acq_rel(line, 1u);
      const int left = epoch_diff(target, old + 1u);
      if (OCC_LEAN_ARRIVE_RELEASE && left <= 0) pulse::fence_acquire();
      if (left > 0) {
        if (pause) {
          const unsigned d = (unsigned)left << PB;
          pulse::spin_cycles(d > DELAY ? d : DELAY);
        }
        ok = pulse::poll_pipelined<1u, 0u, EVERY>(Prim::LeanPauseBarrier, line, target,
                                                  pulse::throttle_for(n));
      }
    }
    return __syncthreads_and(ok) != 0;
  }
};

/// The barriers with the library's parameters (ReplicaBarrier: one line, a red arrival by
/// warp 0 and the poll by the last warp; LeanBarrier: one line, a returned arrival, a pause of
/// OCC_LEAN_DELAY_CYCLES before the first poll past one block per SM).
using ReplicaBarrier = ReplicaBarrierT<>;
using RelayBarrier = RelayBarrierT<>;
/// RelayPauseBarrier (kind relay_pause): the relay whose poller waits before its first poll
/// past OCC_RELAY_PAUSE_FROM blocks per SM (see there).
using RelayPauseBarrier = RelayBarrierT<OCC_RELAY_FAN_IN, OCC_RELAY_LINES, OCC_POLL_DEPTH,
                                        OCC_POLL_GAP_CYCLES, OCC_POLL_EVERY, true>;
using LeanBarrier = ReplicaBarrierT<1u, 1u, 0u, OCC_POLL_EVERY, true, OCC_LEAN_DELAY_CYCLES, true>;
/// LeanEagerBarrier (kind lean_eager): Lean without the pause before the first poll at any
/// number of blocks. Where the pause costs more than the polls it keeps off the line (an H200
/// at 2-3 blocks per SM: 264x384 lean 1111 ns, grid.sync 969; the persistent programs' probe
/// turns the pause off there), the shape table picks this kind for plain barriers. Same
/// orderings as Lean (CPU twin: occupant::cpu::sync::LeanBarrier). State: one line.
using LeanEagerBarrier =
    ReplicaBarrierT<1u, 1u, 0u, OCC_POLL_EVERY, true, 0u, false, Prim::LeanEagerBarrier>;
using LeanLinesBarrier = LeanLinesBarrierT<>;
using LeanBellBarrier = LeanBellBarrierT<>;
using LeanPauseBarrier = LeanPauseBarrierT<>;

}  // namespace sync
}  // namespace occ

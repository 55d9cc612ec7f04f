// Barrier test and benchmark kernels (host: occupant::cuda::sync::run, tests/gpu_sync.rs, tests/gpu_combining.rs).
//
// barrier_<kind>: occupancy discovery, then `rounds` rounds of message passing across the
// barrier: in round r participating block g writes ((r+1) << 32 | g) into buf[r & 1][g] (a plain
// store), waits at the barrier, and thread t reads the value of block (g + 1 + t) mod n (a plain
// load) and counts a violation unless it is exactly the value written in round r. Double
// buffering makes one barrier per round sufficient. With check = 0 the kernel only times
// `rounds` barriers. times[2g], times[2g+1]: %globaltimer before the first and after the last
// timed barrier of participant g. ids[native block] = p_group_id or 0xffffffff.
//
// Compiled twice: as is, and with -DOCC_CLUSTER_SIZE=k (k > 1) for a compile-time cluster
// launch; then discovery runs per cluster (hint in clusters).
#include <occupant.cuh>
#include <occupant_sync.cuh>

using occ::u32;
using occ::u64;

// Skewed arrivals (-DOCC_BENCH_SKEW_CYCLES=S, S > 0; host: run::BarrierOptions::skew_ns):
// before each timed barrier, thread 0 of participant g spins a seeded pseudo-random
// (g, round) number of SM cycles, uniform in [0, S), while the block's other threads wait at
// the barrier's entry: the arrivals of a persistent loop whose blocks finish their work at
// different times. Every kind (and grid.sync, kernels.rs) draws the same delays.
#ifndef OCC_BENCH_SKEW_CYCLES
#define OCC_BENCH_SKEW_CYCLES 0
#endif
#ifndef OCC_BENCH_SKEW_SEED
#define OCC_BENCH_SKEW_SEED 0x2545F491u
#endif
__device__ __forceinline__ unsigned bench_skew_cycles(u32 g, u32 r) {
  u32 h = g * 0x9E3779B1u ^ (r + 1u) * 0x85EBCA77u ^ (u32)OCC_BENCH_SKEW_SEED;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  h ^= h >> 15;
  return OCC_BENCH_SKEW_CYCLES > 0 ? h % (u32)(OCC_BENCH_SKEW_CYCLES > 0 ? OCC_BENCH_SKEW_CYCLES : 1) : 0u;
}

template <class B>
__device__ __forceinline__ void barrier_mp(u32 method, u32 hint, u32* bstate, u64* data,
                                           u32 rounds, u32 check, u32* violations, u32* ids,
                                           u64* times) {
  occ::Env env;
  const bool part = OCC_DISCOVER(env, method, hint);
  const unsigned t = occ::local_linear_id();
  if (t == 0u) ids[occ::block_linear_id()] = part ? env.group_id : 0xffffffffu;
  if (!part) return;
  B bar(bstate, env);
  const u32 n = env.num_groups;
  const u32 g = env.group_id;
  u64* buf0 = data;
  u64* buf1 = data + n;
  if (!bar.wait()) return;
  const u64 t0 = occ::globaltimer();
  u32 bad = 0u;
  for (u32 r = 0u; r < rounds; ++r) {
    u64* buf = (r & 1u) ? buf1 : buf0;
    if (check && t == 0u) buf[g] = ((u64)(r + 1u) << 32) | g;
#if OCC_BENCH_SKEW_CYCLES > 0
    if (t == 0u) occ::pulse::spin_cycles(bench_skew_cycles(g, r));
#endif
    if (!bar.wait()) return;
    if (check && t + 1u < n) {
      const u32 o = (g + 1u + t) % n;
      if (buf[o] != (((u64)(r + 1u) << 32) | o)) ++bad;
    }
  }
  const u64 t1 = occ::globaltimer();
  if (bad) atomicAdd(violations, bad);
  if (t == 0u) {
    times[2u * g] = t0;
    times[2u * g + 1u] = t1;
  }
}

#define OCC_BARRIER_KERNEL(NAME, TYPE)                                                       \
  extern "C" __global__ void OCC_KATTR NAME(u32 method, u32 hint, u32* bstate, u64* data,   \
                                            u32 rounds, u32 check, u32* violations, u32* ids, \
                                            u64* times) {                                    \
    barrier_mp<TYPE>(method, hint, bstate, data, rounds, check, violations, ids, times);     \
  }

#if defined(OCC_BARRIER_LAB) && !(defined(OCC_CLUSTER_SIZE) && OCC_CLUSTER_SIZE > 1)
// The barrier lab (compiled with -DOCC_BARRIER_LAB only; host: occupant::cuda::sync::bench):
// ReplicaBarrier and RelayBarrier with other parameters than the library's, to measure what
// each part buys: lab_replica_r<lines>_d<depth>_g<gap cycles>, lab_relay_f<fan-in>_r<lines>_
// d<depth>_g<gap>. Depth 1 is a plain poll (one load in flight); one line is grid.sync's
// structure (one counter for every arrival and every poll) with a red instead of atomicAdd.
#define OCC_LAB_REPLICA(R, D, G)                                                              \
  using LabReplica_r##R##_d##D##_g##G = occ::sync::ReplicaBarrierT<R, D, G, 1, false, 0>;    \
  OCC_BARRIER_KERNEL(lab_replica_r##R##_d##D##_g##G, LabReplica_r##R##_d##D##_g##G)
#define OCC_LAB_RELAY(F, R, D, G)                                                          \
  using LabRelay_f##F##_r##R##_d##D##_g##G = occ::sync::RelayBarrierT<F, R, D, G, 1>;      \
  OCC_BARRIER_KERNEL(lab_relay_f##F##_r##R##_d##D##_g##G, LabRelay_f##F##_r##R##_d##D##_g##G)
OCC_LAB_REPLICA(1, 1, 0)
OCC_LAB_REPLICA(1, 4, 160)
OCC_LAB_REPLICA(8, 1, 0)
OCC_LAB_REPLICA(32, 1, 0)
OCC_LAB_REPLICA(32, 4, 160)
OCC_LAB_REPLICA(32, 4, 300)
OCC_LAB_RELAY(16, 32, 1, 0)
OCC_LAB_RELAY(16, 32, 4, 160)
OCC_LAB_RELAY(32, 32, 4, 160)
// Run 2: timer/abort checks every 16 polls (e16), fewer lines, a returned arrival by the
// poller itself as grid.sync() (atom), a delay before the first poll (w<cycles>), wider leaves.
#define OCC_LAB_REPLICA2(NAME, R, D, G, E, A, W)                                   \
  using LabReplica_##NAME = occ::sync::ReplicaBarrierT<R, D, G, E, A, W, false>;  \
  OCC_BARRIER_KERNEL(lab_replica_##NAME, LabReplica_##NAME)
#define OCC_LAB_RELAY2(NAME, F, R, D, G, E)                                        \
  using LabRelay_##NAME = occ::sync::RelayBarrierT<F, R, D, G, E>;                \
  OCC_BARRIER_KERNEL(lab_relay_##NAME, LabRelay_##NAME)
OCC_LAB_REPLICA2(r1_d1_e16, 1, 1, 0, 16, false, 0)
OCC_LAB_REPLICA2(r2_d1_e16, 2, 1, 0, 16, false, 0)
OCC_LAB_REPLICA2(r4_d1_e16, 4, 1, 0, 16, false, 0)
OCC_LAB_REPLICA2(r1_d2_e16, 1, 2, 0, 16, false, 0)
OCC_LAB_REPLICA2(r1_d1_e16_w300, 1, 1, 0, 16, false, 300)
OCC_LAB_REPLICA2(r1_d1_e16_w800, 1, 1, 0, 16, false, 800)
OCC_LAB_REPLICA2(atom_d1_e1, 1, 1, 0, 1, true, 0)
OCC_LAB_REPLICA2(atom_d1_e16, 1, 1, 0, 16, true, 0)
OCC_LAB_REPLICA2(atom_d1_e16_w300, 1, 1, 0, 16, true, 300)
OCC_LAB_RELAY2(f16_r32_d1_e16, 16, 32, 1, 0, 16)
OCC_LAB_RELAY2(f32_r32_d1_e16, 32, 32, 1, 0, 16)
OCC_LAB_RELAY2(f64_r32_d1_e16, 64, 32, 1, 0, 16)
OCC_LAB_RELAY2(f16_r16_d1_e16, 16, 16, 1, 0, 16)
OCC_LAB_RELAY2(f32_r8_d1_e16, 32, 8, 1, 0, 16)
// Run 3: the returned arrival (now acq_rel) with other delays before the first poll.
OCC_LAB_REPLICA2(atom_d1_e16_w150, 1, 1, 0, 16, true, 150)
OCC_LAB_REPLICA2(atom_d1_e16_w600, 1, 1, 0, 16, true, 600)
OCC_LAB_REPLICA2(atom_d1_e64, 1, 1, 0, 64, true, 0)
// Run 4 (i11-barrier-fast): Lean with a shared flag and bar.sync instead of bar.red.and
// (w<cycles>: the pause past one block per SM), and with a proportional pause (pb<s>: the
// missing arrivals << s cycles).
#define OCC_LAB_LEAN(NAME, W, PB)                                   \
  using LabLean_##NAME = occ::sync::LeanFlagBarrierT<W, PB>;       \
  OCC_BARRIER_KERNEL(lab_lean_##NAME, LabLean_##NAME)
OCC_LAB_LEAN(flag, 300, -1)
OCC_LAB_LEAN(flag_w0, 0, -1)
OCC_LAB_LEAN(flag_w600, 600, -1)
OCC_LAB_LEAN(pb0, 0, 0)
OCC_LAB_LEAN(pb1, 0, 1)
OCC_LAB_LEAN(pb2, 0, 2)
OCC_LAB_LEAN(pb1_w300, 300, 1)
// Run 5 (i11-last-misses): Lean over K lines (LeanLinesBarrierT), every block polls every line.
#define OCC_LAB_LINES(K)                                              \
  using LabLines_k##K = occ::sync::LeanLinesBarrierT<K>;              \
  OCC_BARRIER_KERNEL(lab_lines_k##K, LabLines_k##K)
OCC_LAB_LINES(2)
OCC_LAB_LINES(4)
OCC_LAB_LINES(8)
OCC_LAB_LINES(16)
OCC_LAB_LINES(32)
using LabLinesAtom_k4 = occ::sync::LeanLinesBarrierT<4, OCC_LEAN_DELAY_CYCLES, OCC_POLL_EVERY, true>;
OCC_BARRIER_KERNEL(lab_lines_atom_k4, LabLinesAtom_k4)
using LabLinesAtom_k8 = occ::sync::LeanLinesBarrierT<8, OCC_LEAN_DELAY_CYCLES, OCC_POLL_EVERY, true>;
OCC_BARRIER_KERNEL(lab_lines_atom_k8, LabLinesAtom_k8)
// Run 6 (i11-misses): Lean's arrival made as grid.sync() makes it, at 132x1024 where Lean
// stays at 0.916-0.919x grid.sync(). MODE 0: atom.acq_rel.gpu (Lean); 1: fence.sc.gpu, then
// atom.relaxed (grid.sync's __threadfence + atomicAdd); 2: atom.release.gpu; 3: fence.acq_rel.gpu,
// then atom.relaxed. Modes 1-3: the last arriver's acquire is a fence.acquire.gpu after its
// atomic (the acquire pattern); the others' is the poll's. LAST: the arrival and the poll by
// lane 0 of the block's last warp instead of thread 0. Lean's exit (bar.red.and) and pause.
template <int MODE, bool LAST>
struct LabLeanArriveT {
  u32* line;
  u32 n;
  u32 epoch;
  unsigned delay;
  __device__ LabLeanArriveT(u32* state, const occ::Env& env)
      : line(state), n(env.num_groups), epoch(0u) {
    delay = n > occ::pulse::sm_count() ? OCC_LEAN_DELAY_CYCLES : 0u;
  }
  __device__ __forceinline__ bool wait() {
    ++epoch;
    __syncthreads();
    bool ok = true;
    const unsigned me = LAST ? occ::pulse::poller_thread() : 0u;
    if (occ::local_linear_id() == me) {
      const u32 target = epoch * n;
      u32 old;
      if (MODE == 0) {
        old = occ::atomic_add_acq_rel(line, 1u);
      } else if (MODE == 1) {
        occ::fence_sc();
        old = occ::atomic_add_relaxed(line, 1u);
      } else if (MODE == 2) {
        old = occ::atomic_add_release(line, 1u);
      } else {
        occ::fence_acq_rel();
        old = occ::atomic_add_relaxed(line, 1u);
      }
      const int left = occ::epoch_diff(target, old + 1u);
      if (left <= 0) {
        if (MODE != 0) occ::pulse::fence_acquire();
      } else {
        if (delay != 0u) occ::pulse::spin_cycles(delay);
        ok = occ::pulse::poll_pipelined<1u, 0u, OCC_POLL_EVERY>(
            occ::Prim::LeanBarrier, line, target, occ::pulse::throttle_for(n));
      }
    }
    return __syncthreads_and(ok) != 0;
  }
};
using LabLeanArrSc = LabLeanArriveT<1, false>;
using LabLeanArrRel = LabLeanArriveT<2, false>;
using LabLeanArrFence = LabLeanArriveT<3, false>;
using LabLeanLastWarp = LabLeanArriveT<0, true>;
using LabLeanArr0 = LabLeanArriveT<0, false>;
OCC_BARRIER_KERNEL(lab_lean_arr_sc, LabLeanArrSc)
OCC_BARRIER_KERNEL(lab_lean_arr_rel, LabLeanArrRel)
OCC_BARRIER_KERNEL(lab_lean_arr_fence, LabLeanArrFence)
OCC_BARRIER_KERNEL(lab_lean_last_warp, LabLeanLastWarp)
OCC_BARRIER_KERNEL(lab_lean_arr_acq_rel, LabLeanArr0)
// Run 7 (session 11): RelayRelaxedBarrier with other fan-ins (the leaves' arrivals still
// release; the root hop is a relaxed doorbell and every block acquires from the leaves).
#define OCC_LAB_RELAY_RELAXED(F)                                                       \
  using LabRelayRelaxed_f##F = occ::sync::RelayRelaxedBarrierT<F>;                     \
  OCC_BARRIER_KERNEL(lab_relay_relaxed_f##F, LabRelayRelaxed_f##F)
OCC_LAB_RELAY_RELAXED(16)
OCC_LAB_RELAY_RELAXED(32)
OCC_LAB_RELAY_RELAXED(64)
OCC_LAB_RELAY_RELAXED(128)
// Run 8 (session 11): Lean whose block-level entry does not wake the other warps: warp 0 waits
// at named barrier 1 (bar.sync) for the block's arrivals, the other warps only arrive there
// (bar.arrive, which synchronises with the bar.sync: their writes are ordered before thread 0's
// atom.acq_rel) and sleep until the exit vote at named barrier 2 (bar.red.and). Lean's poll;
// PAUSE: Lean's pause before the first poll past one block per SM (false: lean_eager).
// Measured on an H200: 14-25 ns SLOWER than lean_eager in every shape (bench/results/nvidia-h200/
// i11-primitives/2026-11-28-s11-lean-split-lab); kept as a negative.
template <bool PAUSE>
struct LabLeanSplitT {
  u32* line;
  u32 n;
  u32 epoch;
  unsigned delay;
  __device__ LabLeanSplitT(u32* state, const occ::Env& env)
      : line(state), n(env.num_groups), epoch(0u) {
    delay = PAUSE && n > occ::pulse::sm_count() ? OCC_LEAN_DELAY_CYCLES : 0u;
  }
  __device__ __forceinline__ bool wait() {
    ++epoch;
    const unsigned t = occ::local_linear_id();
    const unsigned count = (occ::local_count() + 31u) & ~31u;  // whole warps
    bool ok = true;
    if (t < 32u) {
      asm volatile("bar.sync 1, %0;" ::"r"(count) : "memory");
      if (t == 0u) {
        const u32 target = epoch * n;
        const u32 old = occ::atomic_add_acq_rel(line, 1u);
        if (occ::epoch_diff(target, old + 1u) > 0) {
          if (delay != 0u) occ::pulse::spin_cycles(delay);
          ok = occ::pulse::poll_pipelined<1u, 0u, OCC_POLL_EVERY>(
              occ::Prim::LeanBarrier, line, target, occ::pulse::throttle_for(n));
        }
      }
    } else {
      asm volatile("bar.arrive 1, %0;" ::"r"(count) : "memory");
    }
    unsigned all;
    asm volatile(
        "{ .reg .pred p, q; setp.ne.u32 p, %1, 0; bar.red.and.pred q, 2, %2, p; selp.u32 %0, 1, 0, q; }"
        : "=r"(all)
        : "r"(ok ? 1u : 0u), "r"(count)
        : "memory");
    return all != 0u;
  }
};
using LabLeanSplit = LabLeanSplitT<false>;
using LabLeanSplitPause = LabLeanSplitT<true>;
OCC_BARRIER_KERNEL(lab_lean_split, LabLeanSplit)
OCC_BARRIER_KERNEL(lab_lean_split_pause, LabLeanSplitPause)
// Run 9 (session 11): Lean's poll as grid.sync() (CUDA 13, cooperative_groups/details/sync.h)
// polls: every load an ld.acquire.gpu (ACQ; slower polls, less traffic on the arrival line),
// or relaxed loads GAP cycles apart; occ::poll_until's loop (the clock every poll) for all,
// so lab_lean_poll_rlx_g0 is the control.
template <bool ACQ, unsigned GAP>
struct LabLeanPollT {
  u32* line;
  u32 n;
  u32 epoch;
  __device__ LabLeanPollT(u32* state, const occ::Env& env)
      : line(state), n(env.num_groups), epoch(0u) {}
  __device__ __forceinline__ bool wait() {
    ++epoch;
    __syncthreads();
    bool ok = true;
    if (occ::local_linear_id() == 0u) {
      const u32 target = epoch * n;
      const u32 old = occ::atomic_add_acq_rel(line, 1u);
      if (occ::epoch_diff(target, old + 1u) > 0) {
        const u32* w = line;
        ok = occ::poll_until(occ::Prim::LeanBarrier, [w, target] {
          if (GAP != 0u) occ::pulse::spin_cycles(GAP);
          const u32 v = ACQ ? occ::ld_acquire(w) : occ::ld_relaxed(w);
          return occ::epoch_diff(v, target) >= 0;
        });
        if (!ACQ && ok) occ::pulse::fence_acquire();
      }
    }
    return __syncthreads_and(ok) != 0;
  }
};
#define OCC_LAB_LEAN_POLL(NAME, ACQ, GAP)                     \
  using LabLeanPoll_##NAME = LabLeanPollT<ACQ, GAP>;           \
  OCC_BARRIER_KERNEL(lab_lean_poll_##NAME, LabLeanPoll_##NAME)
OCC_LAB_LEAN_POLL(rlx_g0, false, 0)
OCC_LAB_LEAN_POLL(acq_g0, true, 0)
OCC_LAB_LEAN_POLL(rlx_g64, false, 64)
OCC_LAB_LEAN_POLL(rlx_g256, false, 256)
OCC_LAB_LEAN_POLL(acq_g64, true, 64)
// Run 10 (session 12): lean_eager whose block-level exit is not a block barrier. The probes
// say a bar.red.and costs 40-95 ns more than a bar.sync with every warp arriving together
// (lab_p_bar_red vs lab_p_sync on an H200, 128-1024 threads); here the other warps wait on
// shared memory instead: thread 0 publishes its result (st.release.cta of the epoch, or
// kFailed) and lane 0 of every other warp spins on it (ld.acquire.cta; SLEEP ns of __nanosleep
// between loads, 0: none), then the warp meets on __syncwarp and takes lane 0's word by
// shuffle. Ordering: other blocks' writes -> (thread 0's atom.acq_rel / poll, fence.acquire.gpu)
// thread 0 -> (st.release.cta, ld.acquire.cta) lane 0 of each warp -> (__syncwarp) its warp.
// SPIN_ENTRY: the entry too: each warp meets on __syncwarp, lane 0 of warps 1.. adds its warp
// to a shared counter (atom.release.cta) and thread 0 waits until every warp of this epoch
// has (ld.acquire.cta), instead of __syncthreads. The spins end because thread 0's global wait
// is bounded (the watchdog) and always publishes.
// Measured on an H200: ALL LOSE, by 25-300 % and far more at full occupancy (spinning warps
// take the issue slots of the warp that arrives and polls; bench/results/nvidia-h200/
// i11-primitives/2026-11-28-s12-spin-exit-lab); kept as negatives.
template <bool SPIN_ENTRY, unsigned SLEEP>
struct LabLeanSpinT {
  static constexpr u32 kFailed = 0xffffffffu;
  u32* line;
  u32 n;
  u32 epoch;
  u32 others;    // warps of the block but the first
  unsigned mask; // this thread's warp's lanes
  __device__ static __forceinline__ u32* words() {
    __shared__ u32 s[2];  // [0] entry arrivals (SPIN_ENTRY), [1] the exit word
    return s;
  }
  __device__ LabLeanSpinT(u32* state, const occ::Env& env)
      : line(state), n(env.num_groups), epoch(0u) {
    const unsigned nt = occ::local_count();
    const unsigned t = occ::local_linear_id();
    others = (nt + 31u) / 32u - 1u;
    const unsigned base = t & ~31u;
    const unsigned wn = nt - base >= 32u ? 32u : nt - base;
    mask = wn >= 32u ? 0xffffffffu : (1u << wn) - 1u;
    if (t == 0u) words()[0] = words()[1] = 0u;
    __syncthreads();
  }
  __device__ __forceinline__ bool wait() {
    ++epoch;
    const unsigned t = occ::local_linear_id();
    const unsigned lane = t & 31u;
    u32* s = words();
    if (SPIN_ENTRY) {
      __syncwarp(mask);
      if (lane == 0u && t != 0u) occ::atomic_add_release_cta(&s[0], 1u);
      if (t == 0u) {
        const u32 want = epoch * others;
        while (occ::epoch_diff(occ::ld_acquire_cta(&s[0]), want) < 0) {
        }
      }
    } else {
      __syncthreads();
    }
    u32 word = 0u;
    if (t == 0u) {
      const u32 target = epoch * n;
      bool ok = true;
      const u32 old = occ::atomic_add_acq_rel(line, 1u);
      if (occ::epoch_diff(target, old + 1u) > 0)
        ok = occ::pulse::poll_pipelined<1u, 0u, OCC_POLL_EVERY>(occ::Prim::LeanBarrier, line,
                                                                 target);
      word = ok ? epoch : kFailed;
      occ::st_release_cta(&s[1], word);
    } else if (lane == 0u) {
      for (;;) {
        word = occ::ld_acquire_cta(&s[1]);
        if (word == epoch || word == kFailed) break;
        if (SLEEP != 0u) __nanosleep(SLEEP);
      }
    }
    __syncwarp(mask);
    word = __shfl_sync(mask, word, 0);
    return word != kFailed;
  }
};
#define OCC_LAB_LEAN_SPIN(NAME, ENTRY, SLEEP)                  \
  using LabLeanSpin_##NAME = LabLeanSpinT<ENTRY, SLEEP>;       \
  OCC_BARRIER_KERNEL(lab_lean_spin_##NAME, LabLeanSpin_##NAME)
OCC_LAB_LEAN_SPIN(exit, false, 0)
OCC_LAB_LEAN_SPIN(exit_s32, false, 32)
OCC_LAB_LEAN_SPIN(both, true, 0)
// Run 11 (session 12): the relay whose waiters sample the release more often. A poller with one
// load in flight sees a release up to one L2 round trip late, so at full occupancy the blocks
// leave a barrier spread over about a round trip and the next barrier waits for the last;
// several loads of ONE word from one SM are merged and sample no more often (H100, run 1).
// Here the poller keeps K loads in flight to K DIFFERENT root lines (every root line reaches
// the target together: each leaf's last arriver releases to all of them), first issued GAP
// cycles apart, each reissued as it returns, so the release is seen within ~RT / K of landing.
// K = 1 is the relay's own poll (the control). Bounded as poll_loop: the clock every 16 rounds,
// the abort flag every 128, then occ::wait_until on the first line.
// Measured on an H200: EVERY K > 1 LOSES once more than one block polls (3-7 % at K = 2, up to
// 2.2x at K = 8 and 4224 blocks; the extra polls queue on the root lines ahead of the
// releases; bench/results/nvidia-h200/i11-primitives/2026-11-28-s12-relay-poll-lab); kept as
// negatives.
// DELAY (run 12): cycles before the first poll; PGAP: cycles between a poll that missed and the
// next (both keep polls off the root lines while the leaves' releases come).
// NAP (run 13): __nanosleep(NAP) ns before the first poll instead of a spin (a spin takes the
// issue slots of the other blocks on the SM: at 16 blocks per SM the spin's gain is lost).
template <unsigned K, unsigned GAP, unsigned DELAY = 0u, unsigned PGAP = 0u, unsigned NAP = 0u>
struct LabRelayPollT : occ::sync::RelayBarrierT<> {
  using Base = occ::sync::RelayBarrierT<>;
  const u32* polled[K];
  __device__ LabRelayPollT(u32* state, const occ::Env& env) : Base(state, env) {
    const u32 g = env.group_id;
#pragma unroll
    for (unsigned k = 0; k < K; ++k)
      polled[k] = root + ((g + k * ((r + K - 1u) / K)) % r) * occ::pulse::kLine;
  }
  __device__ __forceinline__ bool poll(u32 target) {
    if (DELAY != 0u) occ::pulse::spin_cycles(DELAY);
    if (NAP != 0u) __nanosleep(NAP);
    u32 v[K];
#pragma unroll
    for (unsigned k = 0; k < K; ++k) {
      if (k != 0u && GAP != 0u) occ::pulse::spin_cycles(GAP);
      v[k] = occ::ld_relaxed(polled[k]);
    }
    const unsigned long long t0 = occ::globaltimer();
    for (unsigned i = 1;; ++i) {
#pragma unroll
      for (unsigned k = 0; k < K; ++k) {
        if (occ::epoch_diff(v[k], target) >= 0) {
          occ::pulse::fence_acquire();
          return true;
        }
        if (PGAP != 0u) occ::pulse::spin_cycles(PGAP);
        v[k] = occ::ld_relaxed(polled[k]);
      }
      if (i % 16u != 0u) continue;
      if ((i % 128u) == 0u && occ::aborted()) {
        occ::note_waiting();
        return false;
      }
      if (occ::globaltimer() - t0 > (unsigned long long)OCC_FAST_SPIN_NS) break;
    }
    const u32* w = polled[0];
    return occ::wait_until(occ::Prim::RelayBarrier,
                           [w, target] { return occ::epoch_diff(occ::ld_acquire(w), target) >= 0; });
  }
  __device__ __forceinline__ bool wait() {
    ++epoch;
    const u32 e = epoch;
    const unsigned t = occ::local_linear_id();
    __syncthreads();
    if (t < 32u) {
      const unsigned nt = occ::local_count();
      const unsigned mask = nt >= 32u ? 0xffffffffu : (1u << nt) - 1u;
      u32 last = 0u;
      if (t == 0u) last = occ::atomic_add_acq_rel(leaf, 1u) + 1u == e * k ? 1u : 0u;
      last = __shfl_sync(mask, last, 0);
      __syncwarp(mask);
      if (last != 0u && t < r) occ::pulse::red_add_release(root + t * occ::pulse::kLine, 1u);
    }
    bool ok = true;
    if (t == occ::pulse::poller_thread()) ok = poll(e * leaves);
    return __syncthreads_and(ok) != 0;
  }
};
#define OCC_LAB_RELAY_POLL(K, GAP)                                      \
  using LabRelayPoll_k##K##_g##GAP = LabRelayPollT<K, GAP>;             \
  OCC_BARRIER_KERNEL(lab_relay_poll_k##K##_g##GAP, LabRelayPoll_k##K##_g##GAP)
OCC_LAB_RELAY_POLL(1, 0)
OCC_LAB_RELAY_POLL(2, 500)
OCC_LAB_RELAY_POLL(4, 250)
OCC_LAB_RELAY_POLL(8, 125)
OCC_LAB_RELAY_POLL(4, 0)
#define OCC_LAB_RELAY_PACE(NAME, DELAY, PGAP)                           \
  using LabRelayPace_##NAME = LabRelayPollT<1, 0, DELAY, PGAP>;         \
  OCC_BARRIER_KERNEL(lab_relay_pace_##NAME, LabRelayPace_##NAME)
OCC_LAB_RELAY_PACE(w500, 500, 0)
OCC_LAB_RELAY_PACE(w1000, 1000, 0)
OCC_LAB_RELAY_PACE(w2000, 2000, 0)
OCC_LAB_RELAY_PACE(g100, 0, 100)
OCC_LAB_RELAY_PACE(g300, 0, 300)
OCC_LAB_RELAY_PACE(w1000_g300, 1000, 300)
OCC_LAB_RELAY_PACE(w3000, 3000, 0)
#define OCC_LAB_RELAY_NAP(NS)                                           \
  using LabRelayNap_n##NS = LabRelayPollT<1, 0, 0, 0, NS>;              \
  OCC_BARRIER_KERNEL(lab_relay_nap_n##NS, LabRelayNap_n##NS)
OCC_LAB_RELAY_NAP(250)
OCC_LAB_RELAY_NAP(500)
OCC_LAB_RELAY_NAP(1000)
OCC_LAB_RELAY_NAP(1500)
// Lean (one hop) sleeping before its first poll: NS ns (__nanosleep), or with PROP the missing
// arrivals << PROP ns (the returned arrival says how many), when there are more blocks than SMs.
// Measured on an H200: beats lean_eager from 3 blocks per SM on but NEVER lean_pause (bench/
// results/nvidia-h200/i11-primitives/2026-11-28-s12-lean-nap-lab); kept as a negative.
template <unsigned NS, int PROP>
struct LabLeanNapT {
  u32* line;
  u32 n;
  u32 epoch;
  bool nap;
  __device__ LabLeanNapT(u32* state, const occ::Env& env)
      : line(state), n(env.num_groups), epoch(0u) {
    nap = n > occ::pulse::sm_count();
  }
  __device__ __forceinline__ bool wait() {
    ++epoch;
    __syncthreads();
    bool ok = true;
    if (occ::local_linear_id() == 0u) {
      const u32 target = epoch * n;
      const u32 old = occ::atomic_add_acq_rel(line, 1u);
      const int missing = occ::epoch_diff(target, old + 1u);
      if (missing > 0) {
        if (nap) {
          const unsigned ns = PROP >= 0 ? ((unsigned)missing << (PROP >= 0 ? PROP : 0)) : NS;
          if (ns != 0u) __nanosleep(ns);
        }
        ok = occ::pulse::poll_pipelined<1u, 0u, OCC_POLL_EVERY>(occ::Prim::LeanBarrier, line,
                                                                 target);
      }
    }
    return __syncthreads_and(ok) != 0;
  }
};
#define OCC_LAB_LEAN_NAP(NAME, NS, PROP)                   \
  using LabLeanNap_##NAME = LabLeanNapT<NS, PROP>;          \
  OCC_BARRIER_KERNEL(lab_lean_nap_##NAME, LabLeanNap_##NAME)
OCC_LAB_LEAN_NAP(n250, 250, -1)
OCC_LAB_LEAN_NAP(n500, 500, -1)
OCC_LAB_LEAN_NAP(p0, 0, 0)
OCC_LAB_LEAN_NAP(p1, 0, 1)
#endif
#if defined(OCC_BARRIER_LAB)
// Probes (run 4): not barriers. Thread 0 of every block does one operation per round between
// two bar.syncs, so that ns per round is the operation's cost with every block doing it.
// own: the block's own line (lines 32.. of the state), one: line 0 for every block.
template <int OP>
struct LabProbe {
  u32* one;
  u32* own;
  u32 count;
  unsigned peer;
  __device__ static __forceinline__ u32* word() {
    __shared__ u32 w;
    return &w;
  }
  __device__ LabProbe(u32* state, const occ::Env& env)
      : one(state), own(state + 32u * (32u + env.group_id % 480u)), count(0u) {
    if (occ::local_linear_id() == 0u) *word() = 0u;
    const unsigned cs = occ::cluster_size();
    peer = occ::cluster_map(word(), (occ::cluster_rank() + 1u) % cs);
    if (cs > 1u) occ::cluster_sync(); else __syncthreads();
  }
  __device__ ~LabProbe() {
    if (occ::cluster_size() > 1u) occ::cluster_sync();
  }
  __device__ __forceinline__ bool wait() {
    if (OP == 20) {  // the cluster barrier
      occ::cluster_arrive();
      occ::cluster_wait();
      return true;
    }
    if (OP == 21) {  // the cluster barrier, relaxed arrival
      occ::dsm::cluster_arrive_relaxed();
      occ::cluster_wait();
      return true;
    }
    __syncthreads();
    if (occ::local_linear_id() == 0u) {
      u32 v = 0u;
      switch (OP) {
        case 1: occ::fence_acq_rel(); break;
        case 2: occ::fence_sc(); break;
        case 3: occ::pulse::fence_acquire(); break;
        case 4: v = occ::atomic_add_relaxed(own, 1u); break;
        case 5: v = occ::atomic_add_acq_rel(own, 1u); break;
        case 6: v = occ::ld_relaxed(own); break;
        case 7: v = occ::atomic_add_relaxed(one, 1u); break;
        case 8: v = occ::ld_relaxed(one); break;
        case 9: {
          ++count;
          occ::pulse::red_add_release(own, 1u);
          const u32* w = own;
          const u32 c = count;
          v = occ::poll_until(occ::Prim::LeanBarrier,
                             [w, c] { return occ::epoch_diff(occ::ld_relaxed(w), c) >= 0; });
        } break;
        case 22: v = occ::ld_shared_cluster(peer); break;
        case 23: occ::dsm::fence_acq_rel_cluster(); break;
        default: break;
      }
      if (v == 0xfffffff7u) one[1] = v;  // a global store: the thread waits for v
    }
    if (OP == 10) return __syncthreads_and(1) != 0;
    __syncthreads();
    return true;
  }
};
#define OCC_LAB_PROBE(NAME, OP)                   \
  using LabProbe_##NAME = LabProbe<OP>;           \
  OCC_BARRIER_KERNEL(lab_p_##NAME, LabProbe_##NAME)
#if !(defined(OCC_CLUSTER_SIZE) && OCC_CLUSTER_SIZE > 1)
OCC_LAB_PROBE(sync, 0)
OCC_LAB_PROBE(fence, 1)
OCC_LAB_PROBE(fence_sc, 2)
OCC_LAB_PROBE(fence_acq, 3)
OCC_LAB_PROBE(atom_own, 4)
OCC_LAB_PROBE(atom_ar_own, 5)
OCC_LAB_PROBE(ld_own, 6)
OCC_LAB_PROBE(atom_one, 7)
OCC_LAB_PROBE(ld_one, 8)
OCC_LAB_PROBE(red_seen, 9)
OCC_LAB_PROBE(bar_red, 10)
#else
OCC_LAB_PROBE(csync, 20)
OCC_LAB_PROBE(csync_rlx, 21)
OCC_LAB_PROBE(ds_ld, 22)
OCC_LAB_PROBE(fence_cl, 23)
// ClusterLeanBarrier: the cluster's arrival and release through the hardware cluster barrier
// (hw) or distributed shared memory (ds).
using LabClHwHw = occ::sync::ClusterLeanBarrierT<true, true>;
using LabClHwDs = occ::sync::ClusterLeanBarrierT<true, false>;
using LabClDsDs = occ::sync::ClusterLeanBarrierT<false, false>;
using LabClDsHw = occ::sync::ClusterLeanBarrierT<false, true>;
OCC_BARRIER_KERNEL(lab_cl_hwhw, LabClHwHw)
OCC_BARRIER_KERNEL(lab_cl_hwds, LabClHwDs)
OCC_BARRIER_KERNEL(lab_cl_dsds, LabClDsDs)
OCC_BARRIER_KERNEL(lab_cl_dshw, LabClDsHw)
#endif
#else
OCC_BARRIER_KERNEL(barrier_hierarchical, occ::sync::HierarchicalBarrier)
#endif
#if !(defined(OCC_CLUSTER_SIZE) && OCC_CLUSTER_SIZE > 1) && !defined(OCC_BARRIER_LAB)
OCC_BARRIER_KERNEL(barrier_xf, occ::sync::XfBarrier)
OCC_BARRIER_KERNEL(barrier_atomic, occ::sync::AtomicBarrier)
OCC_BARRIER_KERNEL(barrier_tree, occ::sync::TreeBarrier)
OCC_BARRIER_KERNEL(barrier_gather, occ::sync::GatherBarrier)
OCC_BARRIER_KERNEL(barrier_spread, occ::sync::SpreadBarrier)
OCC_BARRIER_KERNEL(barrier_replica, occ::sync::ReplicaBarrier)
OCC_BARRIER_KERNEL(barrier_relay, occ::sync::RelayBarrier)
OCC_BARRIER_KERNEL(barrier_lean, occ::sync::LeanBarrier)
OCC_BARRIER_KERNEL(barrier_lean_bell, occ::sync::LeanBellBarrier)
OCC_BARRIER_KERNEL(barrier_lean_pause, occ::sync::LeanPauseBarrier)
OCC_BARRIER_KERNEL(barrier_lean_eager, occ::sync::LeanEagerBarrier)
OCC_BARRIER_KERNEL(barrier_relay_pause, occ::sync::RelayPauseBarrier)

// The unsafe baseline: a barrier over every launched block, without discovery. Launched with
// more blocks than can be resident it cannot complete; the watchdog ends it (Error::Deadlock).
extern "C" __global__ void barrier_naive(u32* bstate, u32 rounds, u64* times) {
  occ::sync::NaiveBarrier bar(bstate);
  if (!bar.wait()) return;
  const u64 t0 = occ::globaltimer();
  for (u32 r = 0u; r < rounds; ++r)
    if (!bar.wait()) return;
  const u64 t1 = occ::globaltimer();
  if (occ::local_linear_id() == 0u) {
    times[2u * occ::block_linear_id()] = t0;
    times[2u * occ::block_linear_id() + 1u] = t1;
  }
}
#endif

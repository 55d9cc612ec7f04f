// occupant device library: barriers built to beat cooperative_groups' grid.sync() in every
// launch shape. CPU twin: occupant::cpu::sync::TreeBarrier (tests/loom_tree_barrier.rs).
//
// Why: a barrier whose every arrival is an atomic on one word serialises the arrivals on one
// L2 line (2112 arrivals ~ 1.5 us on an H100), and one release word polled by every block
// queues every poll on one L2 slice; each hop between SMs costs ~0.5 us. These barriers put
// arrivals on many lines, keep the hops to two, and (Spread, Tree) give every group of pollers
// its own release line.
//
//   GatherBarrier (occ::Prim 17)  one hop, for few blocks: arrival red.release.gpu.add on bucket
//                                 line g mod B (B = min(n, threads per block, OCC_GATHER_LINES
//                                 = 32)); then thread k < B of EVERY block polls bucket k
//                                 (ld.acquire.gpu) until it holds the epoch times its share of
//                                 the participants. No second hop, no gatherer; the polls grow
//                                 as n * B, so it suits one block per SM, not full occupancy.
//   SpreadBarrier (occ::Prim 18)  two hops, for many blocks: the same arrival on B =
//                                 min(n, threads, OCC_COMBINE_LINES = 128) bucket lines; the
//                                 gatherer (participant 0) polls all B buckets at once, one
//                                 thread per bucket, __syncthreads, then thread k stores the
//                                 epoch to release line k (st.release.gpu, B lines 128 bytes
//                                 apart) and block g polls line g mod B: at most ceil(n / B)
//                                 pollers share a line (17 at 2112 blocks), so the release is
//                                 one parallel burst of stores and one round trip, not a queue
//                                 of 2112 loads on one L2 slice.
//   TreeBarrier (occ::Prim 16)    a combining tree whose leaves are SM-local: the blocks of one
//                                 SM (%smid, read once at construction) meet on their SM's
//                                 counter line (atom.acq_rel.gpu.add); the last of each SM
//                                 arrives at the root counter; the last at the root stores the
//                                 epoch to every SM's release line (fence.acq_rel.gpu, then
//                                 st.relaxed.gpu: a release pattern), where the SM's blocks poll.
//                                 The constructor registers each block on its SM's line and
//                                 synchronises once (the per-SM counts must be known).
//
// All three use monotone epoch counters (compared with occ::epoch_diff), so nothing is reset
// between barriers. Block semantics: every thread of every participating block calls wait();
// one thread per block (Gather: one per bucket; Spread's gatherer: one per bucket) touches
// inter-block state while the others wait at __syncthreads. wait() returns false, in every thread, when the watchdog
// aborted the launch: leave the kernel. State: zeroed by the host before every launch
// (occupant::cuda::sync::BarrierKind::state_words). A TreeBarrier's state serves one
// TreeBarrier object per launch (its constructor registers blocks).
//
// Tunable: OCC_GATHER_LINES (default 32) bucket lines of Gather; OCC_COMBINE_LINES (default
// 128) bucket/release lines of Spread;
// OCC_TREE_SMS (default 256) SM lines of the tree (%smid is folded modulo it).
#pragma once

#include "discovery.cuh"
#include "poll.cuh"

#ifndef OCC_COMBINE_LINES
#define OCC_COMBINE_LINES 128
#endif
#ifndef OCC_GATHER_LINES
#define OCC_GATHER_LINES 32
#endif
#ifndef OCC_TREE_SMS
#define OCC_TREE_SMS 256
#endif

namespace occ {

/// %smid: the SM the calling thread runs on (may change after a preemption, so the barriers
/// read it once and use it only as a grouping key, never for correctness).
__device__ __forceinline__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

namespace combining {

/// u32 words per 128-byte line.
constexpr u32 kLine = 32u;

/// red.release.gpu.global.add.u32: an arrival that does not wait for the old value.
__device__ __forceinline__ void red_add_release(u32* p, u32 v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/// Polls *w with ld.acquire.gpu until it is at or after `target`.
__device__ __forceinline__ bool poll_acquire_at_least(unsigned prim, const u32* w, u32 target) {
  return poll_until(prim, [w, target] { return epoch_diff(ld_acquire(w), target) >= 0; });
}

}  // namespace combining

namespace sync {

/// GatherBarrier (see the top of this file): one hop. State: OCC_GATHER_LINES bucket lines.
struct GatherBarrier {
  u32* arrive;
  u32 g;
  u32 n;
  u32 b;
  u32 epoch;

  __device__ GatherBarrier(u32* state, const Env& env)
      : arrive(state), g(env.group_id), n(env.num_groups), epoch(0u) {
    const u32 threads = local_count();
    u32 lines = n < threads ? n : threads;
    b = lines < (u32)OCC_GATHER_LINES ? lines : (u32)OCC_GATHER_LINES;
    if (b == 0u) b = 1u;
  }

  __device__ __forceinline__ bool wait() {
    using combining::kLine;
    ++epoch;
    const u32 e = epoch;
    const unsigned t = local_linear_id();
    __syncthreads();
    bool ok = true;
    if (t == 0u) combining::red_add_release(arrive + (g % b) * kLine, 1u);
    // Bucket k receives one arrival per barrier from every participant h with h mod b == k.
    if (t < b) {
      const u32 per = n / b + (t < n % b ? 1u : 0u);
      ok = combining::poll_acquire_at_least(Prim::GatherBarrier, arrive + t * kLine, e * per);
    }
    return __syncthreads_and(ok) != 0;
  }
};

/// SpreadBarrier (see the top of this file). State: 2 * OCC_COMBINE_LINES lines (bucket
/// lines, then release lines).
struct SpreadBarrier {
  u32* arrive;
  u32* release;
  u32 g;
  u32 n;
  u32 b;
  u32 epoch;

  __device__ SpreadBarrier(u32* state, const Env& env)
      : arrive(state),
        release(state + OCC_COMBINE_LINES * combining::kLine),
        g(env.group_id),
        n(env.num_groups),
        epoch(0u) {
    const u32 threads = local_count();
    u32 lines = n < threads ? n : threads;
    b = lines < (u32)OCC_COMBINE_LINES ? lines : (u32)OCC_COMBINE_LINES;
    if (b == 0u) b = 1u;
  }

  __device__ __forceinline__ bool wait() {
    using combining::kLine;
    ++epoch;
    const u32 e = epoch;
    const unsigned t = local_linear_id();
    __syncthreads();
    bool ok = true;
    if (g == 0u) {
      // The gatherer: thread k watches bucket k. Bucket k receives one arrival per barrier
      // from every participant h != 0 with h mod b == k.
      for (u32 k = t; k < b; k += local_count()) {
        const u32 per = n / b + (k < n % b ? 1u : 0u) - (k == 0u ? 1u : 0u);
        if (per != 0u)
          ok &= combining::poll_acquire_at_least(Prim::SpreadBarrier, arrive + k * kLine, e * per);
      }
      ok = __syncthreads_and(ok) != 0;
      if (!ok) return false;
      for (u32 k = t; k < b; k += local_count()) st_release(release + k * kLine, e);
      return true;
    }
    if (t == 0u) {
      combining::red_add_release(arrive + (g % b) * kLine, 1u);
      ok = combining::poll_acquire_at_least(Prim::SpreadBarrier, release + (g % b) * kLine, e);
    }
    return __syncthreads_and(ok) != 0;
  }
};

/// TreeBarrier: SM-local leaves, a root counter, one release line per SM.
/// State lines: [0] root, [1] registration barrier, [2] SMs in use, [3, 3+S) leaf counters by
/// SM index, [3+S, 3+2S) registration by %smid (word 0 blocks, word 1 index + 1),
/// [3+2S, 3+3S) release lines by SM index; S = OCC_TREE_SMS.
struct TreeBarrier {
  u32* base;
  u32 leaf;    // this block's SM index (0 .. sms-1)
  u32 k;       // participating blocks on this SM
  u32 sms;     // SMs with a participating block
  u32 epoch;
  bool ready;  // registration completed (false: the launch was aborted)

  /// Every thread of every participating block calls it: registers the block on its SM's line
  /// and waits until every participant has registered.
  __device__ TreeBarrier(u32* state, const Env& env)
      : base(state), leaf(0u), k(1u), sms(1u), epoch(0u), ready(false) {
    using combining::kLine;
    constexpr u32 S = OCC_TREE_SMS;
    __shared__ u32 s_reg[4];
    if (local_linear_id() == 0u) {
      u32* reg = base + (3u + S + smid() % S) * kLine;
      const u32 before = atomic_add_acq_rel(reg, 1u);
      if (before == 0u) {
        const u32 idx = atomic_add_relaxed(base + 2u * kLine, 1u);
        st_relaxed(reg + 1, idx + 1u);
      }
      atomic_add_release(base + kLine, 1u);
      bool ok = combining::poll_acquire_at_least(Prim::TreeBarrier, base + kLine, env.num_groups);
      // The first registrant of this SM wrote the index before its release; wait for it too.
      u32 idx1 = 0u;
      if (ok)
        ok = poll_until(Prim::TreeBarrier, [reg, &idx1] { return (idx1 = ld_acquire(reg + 1)) != 0u; });
      s_reg[0] = ok ? 1u : 0u;
      s_reg[1] = idx1 == 0u ? 0u : idx1 - 1u;
      s_reg[2] = ld_relaxed(reg);
      s_reg[3] = ld_relaxed(base + 2u * kLine);
    }
    __syncthreads();
    ready = s_reg[0] != 0u;
    leaf = s_reg[1];
    k = s_reg[2];
    sms = s_reg[3];
    __syncthreads();  // s_reg may be reused by another TreeBarrier
  }

  __device__ __forceinline__ bool wait() {
    using combining::kLine;
    constexpr u32 S = OCC_TREE_SMS;
    ++epoch;
    const u32 e = epoch;
    __syncthreads();
    bool ok = ready;
    if (ok && local_linear_id() == 0u) {
      u32* rel = base + (3u + 2u * S) * kLine;
      bool last = false;
      if (atomic_add_acq_rel(base + (3u + leaf) * kLine, 1u) + 1u == e * k) {
        last = atomic_add_acq_rel(base, 1u) + 1u == e * sms;
      }
      if (last) {
        fence_acq_rel();
        for (u32 j = 0u; j < sms; ++j) st_relaxed(rel + j * kLine, e);
      } else {
        ok = combining::poll_acquire_at_least(Prim::TreeBarrier, rel + leaf * kLine, e);
      }
    }
    return __syncthreads_and(ok) != 0;
  }
};

}  // namespace sync
}  // namespace occ

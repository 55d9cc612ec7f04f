// occupant device library: LazyCombiningMutex<Op>, a flat-combining (delegation) lock for grids
// of at most 3 blocks whose combiner keeps the role between its own calls (parked, as
// LazyCohortMutex parks its global lock). CPU twin: occupant::cpu::sync::LazyCombiningMutex
// (tests/loom_lazy_combining_mutex.rs).
//
// Why (issue 11, the mutex at 2 and 3 contending blocks): every lock whose unlock releases pays
// one fence.acq_rel.gpu (~340 ns on an H100) plus an L2 round trip (~142-250 ns) per turn, and
// a second block's request reaches a flat combiner only after its own release fence and two
// trips: at 2 blocks it rides in about every second turn, so no releasing design measured
// passes 2 Mops/s there (flat_combining 1.44-1.49, a small-grid variant with served numbers in
// the role word 1.44-1.55, spin_backoff 1.59-1.67; bench/results/nvidia-h100/i11-primitives/
// misses-r1). Here the block that holds the role keeps it: its own critical sections need
// neither the role atomic nor a fence (program order orders them), and each of its calls
// serves every request the others published, with one acquire fence and one release fence
// only when it served one. The others publish and wait, as in FlatCombiningMutex.
//
// THE HAZARD (as LazyCohortMutex): between two of its calls the holder still holds the role.
// A holder block that then waits for a block that waits in apply() (a grid barrier between
// critical sections, a flag the other block sets after its request) deadlocks; the watchdog
// reports it (Error::Deadlock). The holder releases the role in release(), in its destructor
// (when the object goes out of scope, e.g. at the end of the kernel) and after OCC_LAZY_HOLD
// calls in a row (0: never). Use it where the blocks' only waits between critical sections are
// on this lock, or call release() before such a wait.
//
// Op: as occ::sync::FlatCombiningMutex's (Arg and Result of at most 4 bytes).
//
// State (host zeroes it once; lazy_combining_state_words() = 224 u32 words, 7 lines):
//   line 0  the role word R (u64): bit 63 LOCK (a block holds the role), bits 21b..21b+20 the
//           number of block b's last served request (mod 2^21), b < 3
//   line 1+b  req[b] = seq << 32 | argument (block b's last published request)
//   line 4+b  res[b] = seq << 32 | result (the last request of b served by another block)
// All zero is a free lock with nothing pending. Between launches the state stays valid.
//
// Protocol of try_apply(arg), one thread per block:
//   Holder (the role is parked here): ld.relaxed the other slots (in flight while the own Op
//     runs), the own Op, then serve(): a slot (s, arg) is pending iff s == served + 1 (mod
//     2^21; a block publishes its next request only after its last one was served, so a stale
//     load shows a served number) -> fence.acquire.gpu, each pending Op, its served number
//     set, fence.acq_rel.gpu, st.relaxed res[b] = (s, result).
//   Not holding: ld.relaxed the other slots, then atom.relaxed.or(R, LOCK) (unless the last
//     request was served by another block: then publish first). Free -> fence.acquire.gpu, the
//     own Op, serve(), hold. Taken -> seq += 1; fence.acq_rel.gpu; st.relaxed(req[me], seq <<
//     32 | arg); poll res[me] and R: res[me] carries seq -> fence.acquire.gpu, the result; R
//     free -> atom.or: won -> fence.acquire.gpu, the own Op unless R says it was served (then
//     its result is on the way into res[me]), the slots loaded again, serve(), hold.
//   release(): fence.acq_rel.gpu, st.relaxed(R, served numbers) (LOCK clear).
// Exactly once: the served numbers change only under the role (taken by an atomic or, given
// up by the holder's store); the slot loads made before the role atomic are hints, safe by
// the numbering above. Ordering: requester's writes -> (fence; st req) -> (ld req;
// fence.acquire) holder's Op -> (fence; st res / st R) -> (ld; fence.acquire) requester / next
// holder. Fairness: each call of the holder serves every request published before its loads.
//
// Tunables: OCC_LAZY_HOLD (0: the holder keeps the role while it keeps calling).
#pragma once

#include "flat_combining_mutex.cuh"

#ifndef OCC_LAZY_HOLD
#define OCC_LAZY_HOLD 0
#endif

namespace occ {
namespace sync {

/// u32 words of state (host twin: MutexKind::LazyCombining.state_words()).
__host__ __device__ constexpr u32 lazy_combining_state_words() { return 7u * 32u; }

template <class Op, unsigned HOLD = OCC_LAZY_HOLD>
struct LazyCombiningMutexT {
  typedef typename Op::Arg Arg;
  typedef typename Op::Result Result;
  static constexpr unsigned kPrim = Prim::LazyCombiningMutex;
  static constexpr u64 kLock = 1ull << 63;
  static constexpr u32 kBits = 21u;
  static constexpr u32 kMask = (1u << kBits) - 1u;
  /// Blocks it serves at most.
  static constexpr u32 kCapacity = 3u;
  static_assert(sizeof(Arg) <= 4 && sizeof(Result) <= 4,
                "LazyCombiningMutex: Op::Arg and Op::Result of at most 4 bytes");

  u32* state;
  Op op;
  u32 me;
  u32 n;
  u32 seq;        // this block's last request number
  u32 held;       // calls in a row as the holder
  u64 w;          // the served numbers, while holding
  bool valid;
  bool delegated;  // the last request was served by another block
  bool holding;    // the role is parked here

  /// Binds the state (lazy_combining_state_words() words, zeroed before first use) and the
  /// critical section `op`. Reads the block's request number.
  __device__ LazyCombiningMutexT(u32* s, Op o)
      : state(s), op(o), me(block_linear_id()), n(0u), seq(0u), held(0u), w(0ull), valid(false),
        delegated(false), holding(false) {
    const u32 g = gridDim.x * gridDim.y * gridDim.z;
    n = g < kCapacity ? g : kCapacity;
    valid = me < kCapacity;
    if (valid) seq = (u32)(ld_relaxed(req(me)) >> 32);
  }

  /// Releases a role parked here.
  __device__ ~LazyCombiningMutexT() { release(); }
  // One object per block: a copy's destructor would release the original's role.
  LazyCombiningMutexT(const LazyCombiningMutexT&) = delete;
  LazyCombiningMutexT& operator=(const LazyCombiningMutexT&) = delete;

  /// Gives up the role if it is parked here (fence.acq_rel.gpu, then the unlock). Call it
  /// before this block waits for another block that may wait for this lock.
  __device__ __forceinline__ void release() {
    if (!holding) return;
    fence_acq_rel();
    st_relaxed(role(), w & ~kLock);
    holding = false;
    held = 0u;
  }

  /// Runs op(arg) under mutual exclusion with every other block's requests and stores its
  /// result in *result. False if the launch was aborted (or the block id is past the
  /// capacity: then the watchdog records the launch as failed).
  __device__ __forceinline__ bool try_apply(const Arg& arg, Result* result) {
    if (!valid) {
      expire(kPrim);
      return false;
    }
    const u32 o0 = me == 0u ? 1u : 0u;
    const u32 o1 = me == 2u ? 1u : 2u;
    u64 h0 = 0ull, h1 = 0ull;
    if (holding) {
      if (o0 < n) h0 = ld_relaxed(req(o0));
      if (o1 < n) h1 = ld_relaxed(req(o1));
      *result = op(arg);
      serve(o0, o1, h0, h1);
      if (HOLD != 0u && ++held >= HOLD) release();
      return true;
    }
    u64 old = kLock;
    if (!delegated) {
      if (o0 < n) h0 = ld_relaxed(req(o0));
      if (o1 < n) h1 = ld_relaxed(req(o1));
      old = flat::atomic_or_relaxed(role(), kLock);
    }
    u64 got = 0ull;
    bool served = false;
    if (!(old & kLock)) {
      flat::fence_acquire();  // the previous holder's release of R
      w = old;
      *result = op(arg);
    } else {
      ++seq;
      fence_acq_rel();  // the release of the caller's writes to the Op
      st_relaxed(req(me), ((u64)seq << 32) | pack(arg));
      bool combiner = false;
      u64* const mine = res(me);
      u64* const rw = role();
      const u32 want = seq;
      if (!poll_until(kPrim, [&] {
            const u64 r = ld_relaxed(mine);
            const u64 l = ld_relaxed(rw);
            if ((u32)(r >> 32) == want) {
              got = r;
              return true;
            }
            if (!(l & kLock)) {
              old = flat::atomic_or_relaxed(rw, kLock);
              if (!(old & kLock)) {
                combiner = true;
                return true;
              }
            }
            return false;
          }))
        return false;
      flat::fence_acquire();
      if (!combiner) {
        *result = unpack<Result>((u32)got);
        delegated = true;
        return true;
      }
      w = old;
      served = field(w, me) == (seq & kMask);
      if (!served) {
        *result = op(arg);
        w = with_field(w, me, seq);
      }
      if (o0 < n) h0 = ld_relaxed(req(o0));
      if (o1 < n) h1 = ld_relaxed(req(o1));
    }
    delegated = false;
    holding = true;
    held = 0u;
    serve(o0, o1, h0, h1);
    if (served) {
      // The previous holder served it before releasing: its result is on the way.
      u64* const mine = res(me);
      const u32 want = seq;
      if (!poll_until(kPrim, [&] {
            got = ld_relaxed(mine);
            return (u32)(got >> 32) == want;
          }))
        return false;
      flat::fence_acquire();
      *result = unpack<Result>((u32)got);
    }
    if (HOLD != 0u && ++held >= HOLD) release();
    return true;
  }

  /// Runs op(arg) under mutual exclusion and returns its result; `Result()` if the launch was
  /// aborted (use try_apply to tell).
  __device__ Result apply(const Arg& arg) {
    Result r = Result();
    try_apply(arg, &r);
    return r;
  }

 private:
  __device__ __forceinline__ u64* role() const { return reinterpret_cast<u64*>(state); }
  __device__ __forceinline__ u64* req(u32 b) const {
    return reinterpret_cast<u64*>(state + 32u * (1u + b));
  }
  __device__ __forceinline__ u64* res(u32 b) const {
    return reinterpret_cast<u64*>(state + 32u * (4u + b));
  }
  __device__ __forceinline__ static u32 field(u64 x, u32 b) {
    return (u32)(x >> (kBits * b)) & kMask;
  }
  __device__ __forceinline__ static u64 with_field(u64 x, u32 b, u32 v) {
    return (x & ~((u64)kMask << (kBits * b))) | ((u64)(v & kMask) << (kBits * b));
  }
  __device__ __forceinline__ static bool pending(u64 x, u32 b, u64 slot) {
    return (((u32)(slot >> 32)) & kMask) == ((field(x, b) + 1u) & kMask);
  }
  template <class T>
  __device__ __forceinline__ static u32 pack(const T& v) {
    u32 x = 0u;
    memcpy(&x, &v, sizeof(T));
    return x;
  }
  template <class T>
  __device__ __forceinline__ static T unpack(u32 x) {
    T v;
    memcpy(&v, &x, sizeof(T));
    return v;
  }
  /// Under the role: every request the slots h0, h1 show pending, one acquire and one release
  /// fence, then the results.
  __device__ __forceinline__ void serve(u32 o0, u32 o1, u64 h0, u64 h1) {
    const bool p0 = o0 < n && pending(w, o0, h0);
    const bool p1 = o1 < n && pending(w, o1, h1);
    if (!p0 && !p1) return;
    flat::fence_acquire();  // the acquire of the requests (the loads above)
    if (p0) {
      h0 = (h0 & 0xffffffff00000000ull) | pack(op(unpack<Arg>((u32)h0)));
      w = with_field(w, o0, (u32)(h0 >> 32));
    }
    if (p1) {
      h1 = (h1 & 0xffffffff00000000ull) | pack(op(unpack<Arg>((u32)h1)));
      w = with_field(w, o1, (u32)(h1 >> 32));
    }
    fence_acq_rel();  // the release of the results and of every Op so far
    if (p0) st_relaxed(res(o0), h0);
    if (p1) st_relaxed(res(o1), h1);
  }
};

/// The library's lazy small-grid combining lock.
template <class Op>
using LazyCombiningMutex = LazyCombiningMutexT<Op>;

}  // namespace sync
}  // namespace occ

// occupant device library: FlatCombiningMutex<Op>, a flat-combining (delegation) lock after
// Hendler, Incze, Shavit & Tzafrir (SPAA 2010): one request slot per block and a role word.
// CPU twin: occupant::cpu::sync::FlatCombiningMutex (tests/loom_flat_combining_mutex.rs).
//
// Why (issue 11, the mutex at 2-4 contending blocks): a lock whose unlock releases pays one
// fence.acq_rel.gpu (~340 ns on an H100) plus an atomic round trip (~142 ns) per critical
// section, ~2.07 Mops/s at most; CC-Synch (combining_mutex.cuh) runs several critical sections
// per fence from 4 blocks on, but at 2 blocks every request costs its block an exchange, a
// release fence and a poll of a node that changes hands every time (1.04 Mops/s). Here the
// block that holds the role (the combiner) runs its own critical section *without publishing
// it* (program order orders it), then every request published in the slots, then one fence for
// all of them. A block that finds the role taken publishes its request (one release fence, on
// its own time: the combiner does not wait for it) and waits for its result or for the role.
// So at 2 blocks a combiner's turn is one role atomic + one fence (+ one round trip when the
// other block's slot looks pending), and it serves the other block's request in the same turn
// whenever it is there.
//
// Op: as occ::sync::CombiningMutex's (typedef Arg, Result; Result operator()(const Arg&)),
// but Arg and Result are at most 4 bytes (they travel in the slot words).
//
// State (host zeroes it once; flat_combining_state_words(capacity) u32 words):
//   words 0-1 (u64)  role word R0: bit 63 LOCK (a block combines), bits 0..62 the served bit
//                    of blocks 0..62
//   words 32..159    served words (u64) of blocks 63.. (64 blocks each), read and written only
//                    by the combiner
//   then capacity u64  req[b] = seq << 32 | argument: block b's request number seq (its
//                    parity says pending: seq & 1 != served bit of b), written by block b
//   then capacity u64  res[b] = seq << 32 | result: the last request of b served by another
//                    block, written by the combiner
// All zero is a free lock with nothing pending. Between launches the state stays valid (each
// block reads its request number from req[b]).
//
// Protocol of try_apply(arg), one thread per block (the block's representative):
//   1. Unless the block's last request was served by another block (then the role is likely
//      taken: go to 2), old := atom.relaxed.gpu.or(R0, LOCK). Free (LOCK clear in old): this
//      block combines (3) with its own request unpublished.
//   2. seq += 1; fence.acq_rel.gpu (the release of the caller's writes to the Op);
//      st.relaxed.gpu(req[me], seq << 32 | arg). Poll (occ::poll_until) res[me] and R0
//      together with ld.relaxed: res[me] carries seq -> fence.acquire.gpu, the result; R0
//      free -> atom.or(R0, LOCK); won -> combine (3); if the own served bit says the request
//      was served meanwhile, its result is on the way into res[me]: poll it after the turn.
//   3. The turn: fence.acquire.gpu (the previous combiner's release of R0); the own Op; then
//      the slots of the other blocks, by grid size:
//        n <= 2: the other block's slot. On the role's first try its load is issued before the
//          atomic, as a hint only (not ordered after the atomic, it may be stale): a slot that
//          looks pending is loaded again after the acquire, and only what that load shows is
//          served. So a turn with nothing pending costs the atomic and the fence alone.
//        3 <= n <= 4: chunks of 2 slots; n >= 5: chunks of OCC_FLAT_CHUNK. Per chunk, loads
//          with ld.relaxed back to back, then fence.acquire.gpu (the acquire of each request's
//          release), each pending request run and its served bit flipped.
//      After each chunk with requests (and after the last one, when the served words of
//      blocks >= 63 are stored): fence.acq_rel.gpu, then st.relaxed res[b] per request served.
//      Finally st.relaxed(R0, served bits): the unlock, behind the last fence.
// Exactly once: the served bits change only under the role (LOCK is taken by an atomic or and
// cleared by the holder's store, which also writes the served bits it read under the role); a
// block has at most one request outstanding, so its slot's parity against its served bit says
// whether it waits. Ordering: requester's writes -> (fence; st req) -> (ld req; fence.acquire)
// combiner's Op -> (fence; st res / st R0) -> (ld; fence.acquire) requester / next combiner.
// Fairness: each turn serves every request it reads (a request published before the turn's
// scan of its chunk is served in that turn): a waiting block waits at most two turns while the
// role is held, and takes the role itself when it is free. Nothing is parked: every turn ends
// with the role released, so a block that returned from try_apply owes nothing to the others.
// Nothing waits without a deadline (step 2's poll; the combiner never waits). A waiter that
// gives up (the launch was aborted) returns false; the state is then not reusable.
//
// Measured (H100, tests/gpu_i11_last.rs, bench/results/nvidia-h100/i11-primitives/last-run3):
// 1.43 / 1.44 / 2.11 / 3.66 / 8.73 / 7.71 / 6.85 / 4.99 Mops/s at 1 / 2 / 4 / 8 / 16 / 132 / 528 /
// 2112 blocks (CC-Synch 0.71 / 1.07 / 1.69 / 2.96 / 3.21 / 2.94 / 2.90 / 2.83). At 1 to 4
// blocks a single thread's instructions are on the critical path (chunks of 8 cost 200-400 ns
// a turn more than chunks of 2, last-run2), hence the small-grid paths above.
//
// Tunables: OCC_FLAT_CAPACITY (4096 blocks, at most 4159), OCC_FLAT_CHUNK (8 slots per load
// round and at most per fence from 5 blocks on).
#pragma once

#include "poll.cuh"

#ifndef OCC_FLAT_CAPACITY
#define OCC_FLAT_CAPACITY 4096
#endif
#ifndef OCC_FLAT_CHUNK
#define OCC_FLAT_CHUNK 8
#endif

namespace occ {
namespace sync {

/// u32 words of state for `capacity` blocks (host twin: MutexKind::FlatCombining.state_words()).
__host__ __device__ constexpr u32 flat_combining_state_words(u32 capacity) {
  return 160u + 4u * capacity;
}

namespace flat {
__device__ __forceinline__ u64 atomic_or_relaxed(u64* p, u64 v) {
  u64 old;
  asm volatile("atom.relaxed.gpu.global.or.b64 %0, [%1], %2;" : "=l"(old) : "l"(p), "l"(v) : "memory");
  return old;
}
/// fence.acquire.gpu (CCTL.IVALL: no MEMBAR): after relaxed loads that observed releases.
__device__ __forceinline__ void fence_acquire() { asm volatile("fence.acquire.gpu;" ::: "memory"); }
}  // namespace flat

template <class Op, unsigned CHUNK = OCC_FLAT_CHUNK>
struct FlatCombiningMutexT {
  typedef typename Op::Arg Arg;
  typedef typename Op::Result Result;
  static constexpr unsigned kPrim = Prim::FlatCombiningMutex;
  static constexpr u64 kLock = 1ull << 63;
  static_assert(sizeof(Arg) <= 4 && sizeof(Result) <= 4,
                "FlatCombiningMutex: Op::Arg and Op::Result of at most 4 bytes");
  static_assert(CHUNK >= 2u && CHUNK <= 32u, "OCC_FLAT_CHUNK: 2 to 32");
  static_assert(OCC_FLAT_CAPACITY >= 1 && OCC_FLAT_CAPACITY <= 63 + 64 * 64,
                "OCC_FLAT_CAPACITY: at most 4159 blocks");

  u32* state;
  u32 capacity;
  Op op;
  u32 me;
  u32 n;     // slots scanned: the grid's blocks, at most the capacity
  u32 seq;   // this block's last request number
  bool valid;
  bool delegated;  // the last request was served by another block

  /// Binds the state (flat_combining_state_words(capacity) words, zeroed before first use)
  /// and the critical section `op`. Reads the block's request number.
  __device__ FlatCombiningMutexT(u32* s, Op o, u32 cap = OCC_FLAT_CAPACITY)
      : state(s), capacity(cap), op(o), me(block_linear_id()), n(0u), seq(0u), valid(false),
        delegated(false) {
    const u32 g = gridDim.x * gridDim.y * gridDim.z;
    n = g < capacity ? g : capacity;
    valid = me < capacity;
    if (valid) seq = (u32)(ld_relaxed(req(me)) >> 32);
  }

  /// Runs op(arg) under mutual exclusion with every other block's requests and stores its
  /// result in *result. False if the launch was aborted (or the block id is past the capacity:
  /// then the watchdog records the launch as failed).
  __device__ __forceinline__ bool try_apply(const Arg& arg, Result* result) {
    if (!valid) {
      expire(kPrim);
      return false;
    }
    u64 old = kLock;
    u64 hint = 0ull;  // n == 2: the other block's slot, loaded before the role atomic
    bool hinted = false;
    if (!delegated) {
      if (n == 2u) {
        hint = ld_relaxed(req(1u - me));
        hinted = true;
      }
      old = flat::atomic_or_relaxed(role(), kLock);
    }
    const bool direct = !(old & kLock);  // the role, with the own request unpublished
    bool served = false;                 // the own published request was served meanwhile
    u64 got = 0ull;
    u64* const mine = res(me);
    if (!direct) {
      // 2. Publish and wait for the result or the role.
      hinted = false;
      ++seq;
      fence_acq_rel();
      st_relaxed(req(me), ((u64)seq << 32) | pack(arg));
      bool combiner = false;
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
      if (!combiner) {
        flat::fence_acquire();
        *result = unpack<Result>((u32)got);
        delegated = true;
        return true;
      }
    }
    // 3. The turn.
    flat::fence_acquire();
    delegated = false;
    if (!direct) served = served_bit(old, me) == (seq & 1u);
    if (!served) *result = op(arg);
    u64 w0 = old & ~kLock;
    if (!direct && !served) {  // the own published request is served now
      if (me < 63u) {
        w0 ^= 1ull << me;
      } else {
        u64* w = extra((me - 63u) / 64u);
        st_relaxed(w, ld_relaxed(w) ^ (1ull << ((me - 63u) % 64u)));
      }
    }
    if (n <= 2u) {
      duo(w0, hinted, hint);
    } else if (n <= 4u) {
      chunks<2u>(w0);
    } else {
      chunks<CHUNK>(w0);
    }
    st_relaxed(role(), w0);  // unlock (LOCK clear), behind the turn's last fence
    if (served) {
      // Its result is stored behind the previous combiner's fence; it may not be visible yet.
      const u32 want = seq;
      if (!poll_until(kPrim, [&] {
            got = ld_relaxed(mine);
            return (u32)(got >> 32) == want;
          }))
        return false;
      flat::fence_acquire();
      *result = unpack<Result>((u32)got);
    }
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
  __device__ __forceinline__ u64* extra(u32 w) const {
    return reinterpret_cast<u64*>(state + 32u) + w;
  }
  __device__ __forceinline__ u64* req(u32 b) const {
    return reinterpret_cast<u64*>(state + 160u) + b;
  }
  __device__ __forceinline__ u64* res(u32 b) const {
    return reinterpret_cast<u64*>(state + 160u + 2u * capacity) + b;
  }
  /// b's served bit: in R0 (old) for b < 63, else in its served word (read under the role).
  __device__ __forceinline__ u32 served_bit(u64 old, u32 b) const {
    if (b < 63u) return (u32)(old >> b) & 1u;
    const u32 k = b - 63u;
    return (u32)(ld_relaxed(extra(k / 64u)) >> (k % 64u)) & 1u;
  }
  template <class T>
  __device__ __forceinline__ static u32 pack(const T& v) {
    u32 w = 0u;
    memcpy(&w, &v, sizeof(T));
    return w;
  }
  template <class T>
  __device__ __forceinline__ static T unpack(u32 w) {
    T v;
    memcpy(&v, &w, sizeof(T));
    return v;
  }

  /// The turn of a grid of at most 2 blocks: the other block's slot (`hint`, when given, was
  /// loaded before the role atomic: only a slot that looks pending is loaded again), one fence.
  __device__ __forceinline__ void duo(u64& w0, bool hinted, u64 hint) {
    if (n == 2u) {
      const u32 o = 1u - me;
      u64 sl = hinted ? hint : ld_relaxed(req(o));
      bool pend = (((u32)(sl >> 32)) ^ (u32)(w0 >> o)) & 1u;
      if (pend && hinted) {  // confirm after the acquire
        sl = ld_relaxed(req(o));
        pend = (((u32)(sl >> 32)) ^ (u32)(w0 >> o)) & 1u;
      }
      if (pend) {
        flat::fence_acquire();  // the acquire of the request
        const Result r = op(unpack<Arg>((u32)sl));
        w0 ^= 1ull << o;
        fence_acq_rel();  // the release of the result, of every Op so far and of the role
        st_relaxed(res(o), (sl & 0xffffffff00000000ull) | pack(r));
        return;
      }
    }
    fence_acq_rel();  // the release of the own Op and of the role
  }

  /// The turn over every other slot in chunks of C: loads back to back, the pending requests
  /// run (served bits flipped; blocks >= 63 in their served word, kept in a register while the
  /// scan is in it), one fence per chunk with requests and after the last, then the results.
  template <unsigned C>
  __device__ __forceinline__ void chunks(u64& w0) {
    u64 s[C];
    u32 xi = 0xffffffffu;  // the served word (of blocks >= 63) in xv
    u64 xv = 0ull;
    bool xdirty = false;
    for (u32 base = 0u;; base += C) {
#pragma unroll
      for (u32 i = 0u; i < C; ++i) {
        const u32 b = base + i;
        s[i] = (b < n && b != me) ? ld_relaxed(req(b)) : 0ull;
      }
      const bool last = base + C >= n;
      u32 pend = 0u;  // bit i: block base + i waits (its served bit is flipped at once)
      if (base + C <= 63u) {
        const u32 bits = (u32)(w0 >> base);
#pragma unroll
        for (u32 i = 0u; i < C; ++i) {
          const u32 b = base + i;
          if (b < n && b != me && ((((u32)(s[i] >> 32)) ^ (bits >> i)) & 1u)) pend |= 1u << i;
        }
        w0 ^= (u64)pend << base;
      } else {
#pragma unroll
        for (u32 i = 0u; i < C; ++i) {
          const u32 b = base + i;
          if (b >= n || b == me) continue;
          const u32 sq = (u32)(s[i] >> 32);
          if (b < 63u) {
            if ((sq ^ (u32)(w0 >> b)) & 1u) {
              pend |= 1u << i;
              w0 ^= 1ull << b;
            }
          } else {
            const u32 k = b - 63u;
            if (k / 64u != xi) {
              if (xdirty) st_relaxed(extra(xi), xv);
              xi = k / 64u;
              xv = ld_relaxed(extra(xi));
              xdirty = false;
            }
            if ((sq ^ (u32)(xv >> (k % 64u))) & 1u) {
              pend |= 1u << i;
              xv ^= 1ull << (k % 64u);
              xdirty = true;
            }
          }
        }
      }
      if (pend != 0u) {
        flat::fence_acquire();  // the acquire of the chunk's requests
#pragma unroll
        for (u32 i = 0u; i < C; ++i) {
          if (pend & (1u << i)) {
            const Result r = op(unpack<Arg>((u32)s[i]));
            s[i] = (s[i] & 0xffffffff00000000ull) | pack(r);
          }
        }
      }
      if (pend != 0u || last) {
        if (last && xdirty) st_relaxed(extra(xi), xv);
        fence_acq_rel();  // the release of the results, of every Op so far and of the role
#pragma unroll
        for (u32 i = 0u; i < C; ++i) {
          if (pend & (1u << i)) st_relaxed(res(base + i), s[i]);
        }
      }
      if (last) break;
    }
  }
};

/// The library's flat-combining lock.
template <class Op>
using FlatCombiningMutex = FlatCombiningMutexT<Op>;

}  // namespace sync
}  // namespace occ

// occupant device library: CombiningMutex<Op>, a combining (delegation) lock after CC-Synch
// (Fatourou & Kallimanis, PPoPP 2012). CPU twin: occupant::cpu::sync::CombiningMutex.
//
// A lock that hands off between blocks once per critical section is capped near 2 Mops/s on an
// H100 by the hand-off: the release fence before the unlocking store (fence.acq_rel.gpu, 340 ns
// whatever is outstanding) plus an L2 round trip (142-267 ns by where the lock's line lies;
// tests/gpu_mutex_lab.rs). A combining lock runs several critical sections per hand-off and
// per fence: every caller publishes its request (the Op's
// argument) in a node of a queue; the caller that finds itself at the head (the combiner) runs
// the pending requests of the others, in FIFO order, writes their results into their nodes and
// releases them, then hands the combiner role to the next waiter. The critical section is the
// functor Op, run by whichever block combines: it must act on data shared by the grid (global
// memory reached through the Op's members or its argument), and every block's Op must be an
// equal copy.
//
// Op: a class type with
//   typedef ... Arg;     trivially copyable, at most 64 bytes, alignment <= 16
//   typedef ... Result;  trivially copyable, at most 48 bytes, alignment <= 16
//   __device__ Result operator()(const Arg&);  (called directly: no function pointers)
//
// State (host zeroes it; MutexKind::Combining.state_words() words for OCC_COMBINING_CAPACITY):
//   line 0, word 0          tail: the reference of the queue's last node
//   lines 1 ... capacity+1  node k on line 1+k (128 bytes):
//                           words 0-1 (u64) status: tag << 1 | done (done 0 COMBINE: the
//                                     node's waiter combines next; 1 DONE: its request is
//                                     served) | a result of <= 4 bytes << 32
//                           words 2-3 (u64) link: tag << 22 | the reference of the node linked
//                                     after it | an argument of <= 4 bytes << 32
//                           words 4..15 a larger result (for the node's waiter), words 16..31
//                           a larger argument (of the node's owner, who links it next)
//   then capacity words     own[b]: 1 + the reference of the spare node block b owns (0: node
//                           b + 1 in its use 0)
// A node reference is tag << 13 | id: each use of a node gets the next (9-bit) tag, chosen by
// the block that owns the node when it swaps it into the queue, and every flag written during
// that use (its link, its status) carries the tag. A flag of an earlier use is therefore told
// apart: nodes are reused without a reset, and the tail exchange needs no ordering. All zero
// is a free lock: node 0 in use 0 is the queue's dummy with status {tag 0, COMBINE}, block b
// owns node b + 1. Between launches the state stays valid (each block's spare node is written
// back to own[b]), so the same state may be reused, by grids of any size up to the capacity.
//
// Protocol of apply(arg), by one thread per block (the block's representative):
//   1. spare := the next use of my node; a large argument into spare's words 16..;
//      cur := atom.relaxed.gpu.exch(tail, spare);
//      st.release.gpu.u64(cur.link, {tag(cur) << 22 | spare, a small argument}): the request
//      is published (one 64-bit store: the link and a small argument are read together), and
//      the caller's earlier writes are ordered before its Op; my node := cur.
//   2. poll (occ::poll_until: fast spin, then the watchdog's deadline) until
//      ld.acquire.gpu.u64(cur.status) carries tag(cur). DONE: the result is in it (small) or in
//      cur (large, written before the release that made it DONE). COMBINE: this block combines.
//   3. Combiner: run the own request; then, in batches of up to OCC_COMBINING_BATCH: walk the
//      links from spare with ld.acquire.gpu.u64 (one L2 round trip per request: the link and a
//      small argument in one load) until a link carries another use's tag (its request is not
//      yet published), the batch is full or the turn has served OCC_COMBINING_BOUND requests
//      (the own included). Then run the batch's requests (a large argument is in the node the
//      request linked), results kept (small) or stored plainly into the waited node (large);
//      one fence.acq_rel.gpu (the release of the results and of the Op's writes); one
//      st.relaxed.gpu.u64 {tag << 1 | DONE, small result} per request. The node that ended the
//      turn gets {tag << 1 | COMBINE} behind the last such fence: its waiter (whose request is
//      unserved, or not yet linked) combines next and sees every write of the turn.
// A request costs its block one exchange round trip and one release fence (CC-Synch as first
// built here reset the spare node and published it with an acq_rel exchange: two fences). H100,
// `occupant bench primitives` (bench/results/nvidia-h100/i11-primitives/mutex-fast-run2, empty
// Op): 0.70 / 1.04 / 2.01 / 2.97 / 3.20 / 2.84 Mops/s at 1 / 2 / 4 / 8 / 16 / 2112 blocks,
// against 0.58 / 1.12 / 1.87 / 2.84 / 3.52 / 2.97 before (4-10 % slower from 16 blocks up, not
// explained; 8 requests per fence would be 10-18 % faster there and 2-7 % slower at 1-8).
//
// Fairness: requests are served in the order their blocks swapped the tail (FIFO); a combiner
// serves at most OCC_COMBINING_BOUND requests a turn, then passes the role.
// Nothing waits without a deadline: the only wait is step 2's poll; the combiner never waits
// (a node whose link is not yet stored ends its turn). A waiter that gives up (the launch
// was aborted) returns false; the state is then not reusable (as with every other lock after an
// aborted launch).
//
// Tunables (define before including occupant headers): OCC_COMBINING_CAPACITY (4096 blocks, at
// most 8190), OCC_COMBINING_BOUND (64 requests per turn), OCC_COMBINING_BATCH (4 requests per
// fence; 4 keeps mutex_combining within 32 registers without spills, so 16 blocks of 128
// threads fit an SM).
#pragma once

#include "poll.cuh"

#ifndef OCC_COMBINING_CAPACITY
#define OCC_COMBINING_CAPACITY 4096
#endif
#ifndef OCC_COMBINING_BOUND
#define OCC_COMBINING_BOUND 64
#endif
#ifndef OCC_COMBINING_BATCH
#define OCC_COMBINING_BATCH 4
#endif

namespace occ {
namespace sync {

/// u32 words of state for `capacity` blocks (host twin: MutexKind::Combining.state_words()).
__host__ __device__ constexpr u32 combining_state_words(u32 capacity) {
  return 32u * (capacity + 2u) + capacity;
}

template <class Op>
struct CombiningMutex {
  typedef typename Op::Arg Arg;
  typedef typename Op::Result Result;
  static constexpr unsigned kPrim = Prim::CombiningMutex;
  static constexpr u32 kDone = 1u;  // status bit 0; 0 = COMBINE
  static constexpr u32 kIdBits = 13u;
  static constexpr u32 kIdMask = (1u << kIdBits) - 1u;
  static constexpr u32 kTagMask = 511u;
  static constexpr u32 kRefMask = (1u << 22) - 1u;
  /// Arguments and results of at most 4 bytes travel in the link / status word.
  static constexpr bool kSmallArg = sizeof(Arg) <= 4;
  static constexpr bool kSmallResult = sizeof(Result) <= 4;
  static_assert(sizeof(Arg) <= 64 && alignof(Arg) <= 16, "Op::Arg: at most 64 bytes, align 16");
  static_assert(sizeof(Result) <= 48 && alignof(Result) <= 16,
                "Op::Result: at most 48 bytes, align 16");
  static_assert(OCC_COMBINING_BOUND >= 1 && OCC_COMBINING_BATCH >= 1, "bound and batch >= 1");
  static_assert(OCC_COMBINING_CAPACITY >= 1 && OCC_COMBINING_CAPACITY <= 8190,
                "node ids are 13 bits: at most 8190 blocks");

  u32* state;
  u32 capacity;
  Op op;
  u32 mine;    // reference (last use) of the spare node this block owns
  bool valid;  // block id < capacity

  /// Binds the state (combining_state_words(capacity) words, zeroed before first use) and the
  /// critical section `op`. Reads the block's spare node (own[b], written back by apply).
  __device__ CombiningMutex(u32* s, Op o, u32 cap = OCC_COMBINING_CAPACITY)
      : state(s), capacity(cap), op(o), mine(0u), valid(false) {
    const u32 b = block_linear_id();
    valid = b < capacity;
    if (valid) {
      const u32 own = ld_relaxed(own_word(b));
      mine = own == 0u ? b + 1u : own - 1u;  // node b + 1 in use 0, or the stored reference
    }
  }

  /// Runs op(arg) under mutual exclusion with every other block's requests and stores its
  /// result in *result. False if the launch was aborted (or the block id is past the
  /// capacity: then the watchdog records the launch as failed); *result is then untouched.
  __device__ bool try_apply(const Arg& arg, Result* result) {
    if (!valid) {
      expire(kPrim);
      return false;
    }
    const u32 spare = next_use(mine);
    if (!kSmallArg) *reinterpret_cast<Arg*>(node(id_of(spare)) + 16) = arg;
    const u32 cur = atomic_exch_relaxed(state, spare);
    u64 link = (u64)((tag_of(cur) << 22) | spare);
    if (kSmallArg) link |= (u64)pack(arg) << 32;
    st_release(link_word(id_of(cur)), link);  // publishes the request
    mine = cur;
    st_relaxed(own_word(block_linear_id()), cur + 1u);
    u64* sw = status_word(id_of(cur));
    const u32 want = tag_of(cur);
    u64 status = 0ull;
    if (!poll_until(kPrim, [sw, want, &status] {
          status = ld_acquire(sw);
          return (((u32)status >> 1) & kTagMask) == want;
        }))
      return false;
    if ((u32)status & kDone) {
      *result = kSmallResult ? unpack<Result>((u32)(status >> 32))
                             : *reinterpret_cast<const Result*>(node(id_of(cur)) + 4);
      return true;
    }
    *result = op(arg);
    combine(spare);
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
  __device__ __forceinline__ u32* node(u32 id) const { return state + 32u * (1u + id); }
  __device__ __forceinline__ u64* status_word(u32 id) const {
    return reinterpret_cast<u64*>(node(id));
  }
  __device__ __forceinline__ u64* link_word(u32 id) const {
    return reinterpret_cast<u64*>(node(id) + 2);
  }
  __device__ __forceinline__ u32* own_word(u32 b) const {
    return state + 32u * (capacity + 2u) + b;
  }
  __device__ __forceinline__ static u32 id_of(u32 ref) { return ref & kIdMask; }
  __device__ __forceinline__ static u32 tag_of(u32 ref) { return (ref >> kIdBits) & kTagMask; }
  /// The reference of ref's node in its next use.
  __device__ __forceinline__ static u32 next_use(u32 ref) {
    return (((tag_of(ref) + 1u) & kTagMask) << kIdBits) | id_of(ref);
  }
  template <class T>
  __device__ __forceinline__ static u32 pack(const T& v) {
    u32 w = 0u;
    memcpy(&w, &v, sizeof(T) <= 4 ? sizeof(T) : 4);
    return w;
  }
  template <class T>
  __device__ __forceinline__ static T unpack(u32 w) {
    T v;
    memcpy(&v, &w, sizeof(T) <= 4 ? sizeof(T) : 4);
    return v;
  }

  /// The combiner's turn after its own request: the published requests from the waiter of
  /// `tmp` (the own spare) on, in batches, then the role to the node that ends it.
  __device__ void combine(u32 tmp) {
    u32 served = 1u;  // the own request
    u32 refs[OCC_COMBINING_BATCH];
    u32 args[OCC_COMBINING_BATCH];
    for (;;) {
      u32 n = 0u;
      bool end = false;
      while (n < (u32)OCC_COMBINING_BATCH) {
        if (served + n >= (u32)OCC_COMBINING_BOUND) {
          end = true;
          break;
        }
        const u64 l = ld_acquire(link_word(id_of(tmp)));  // the argument, if large
        if ((((u32)l >> 22) & kTagMask) != tag_of(tmp)) {  // another use: not yet published
          end = true;
          break;
        }
        refs[n] = tmp;
        args[n] = (u32)(l >> 32);
        ++n;
        tmp = (u32)l & kRefMask;
      }
#pragma unroll
      for (u32 i = 0u; i < (u32)OCC_COMBINING_BATCH; ++i) {
        if (i < n) {
          // refs[i]'s waiter linked refs[i + 1], its own spare: a large argument is there.
          // (the clamp keeps the unrolled index in bounds; i + 1 < n implies i + 1 < BATCH)
          const u32 next = i + 1u < (u32)OCC_COMBINING_BATCH ? i + 1u : i;
          const u32 linked = i + 1u < n ? refs[next] : tmp;
          const Arg a = kSmallArg ? unpack<Arg>(args[i])
                                  : *reinterpret_cast<const Arg*>(node(id_of(linked)) + 16);
          const Result r = op(a);
          if (kSmallResult) {
            args[i] = pack(r);  // the argument's register now holds the small result
          } else {
            *reinterpret_cast<Result*>(node(id_of(refs[i])) + 4) = r;
          }
        }
      }
      // The release of the batch's results and of every write of the Op so far (and, at the
      // end, of the turn to the next combiner).
      fence_acq_rel();
#pragma unroll
      for (u32 i = 0u; i < (u32)OCC_COMBINING_BATCH; ++i) {
        if (i < n) {
          st_relaxed(status_word(id_of(refs[i])),
                     (u64)((tag_of(refs[i]) << 1) | kDone) |
                         (kSmallResult ? (u64)args[i] << 32 : 0ull));
        }
      }
      served += n;
      if (end) break;
    }
    st_relaxed(status_word(id_of(tmp)), (u64)(tag_of(tmp) << 1));  // COMBINE
  }
};

/// The benchmark's and tests' critical section: a plain (non-atomic) read-modify-write of
/// counter[0] when `work` is set; returns the value before (Result = u32, Arg = u32 increment).
struct CounterOp {
  typedef u32 Arg;
  typedef u32 Result;
  u32* counter;
  u32 work;
  __device__ u32 operator()(const u32& add) const {
    if (!work) return 0u;
    const u32 v = counter[0];
    counter[0] = v + add;
    return v;
  }
};

}  // namespace sync
}  // namespace occ

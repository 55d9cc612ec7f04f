// occupant device library: CombiningMutex<Op>, a combining (delegation) lock after CC-Synch
// (Fatourou & Kallimanis, PPoPP 2012). CPU twin: occupant::cpu::sync::CombiningMutex.
//
// A lock that hands off between blocks once per critical section is capped near 1.9 Mops/s on
// an H100 by the hand-off (a release store plus the next holder's L2 miss). A combining lock
// runs several critical sections per hand-off: every caller publishes its request (the Op's
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
//   line 0, word 0          tail: the id of the queue's last node
//   lines 1 ... capacity+1  node k on line 1+k (128 bytes):
//                           words 0-1 (u64) status (0 COMBINE: the owner combines next;
//                                     1 WAIT; 2 DONE) | a result of <= 4 bytes << 32
//                           words 2-3 (u64) link: id + 1 of the node linked after it (0 none)
//                                     | an argument of <= 4 bytes << 32
//                           words 4..15 a larger result, words 16..31 a larger argument
//   then capacity words     own[b]: id + 1 of the spare node block b owns (0: node b + 1)
// All zero is a free lock: node 0 is the queue's dummy with status COMBINE, block b owns node
// b + 1. Between launches the state stays valid (each block's spare node is written back to
// own[b]), so the same state may be reused, by grids of any size up to the capacity.
//
// Protocol of apply(arg), by one thread per block (the block's representative):
//   1. spare := my node; spare.status := WAIT, spare.link := 0 (st.relaxed.gpu);
//      cur := atom.acq_rel.gpu.exch(tail, spare)  (publishes spare's fields, reads cur's);
//      a large argument into cur's words 16..; st.release.gpu.u64(cur.link, {spare + 1, a small
//      argument}): the request is published (one 64-bit store: the link and a small argument
//      are read together); my node := cur (spare now belongs to the queue).
//   2. poll (occ::poll_until: fast spin, then the watchdog's deadline) until
//      ld.acquire.gpu.u64(cur.status) != WAIT. DONE: the result is in it (small) or in cur
//      (large, written before the release that made it DONE). COMBINE: this block combines.
//   3. Combiner: run the own request; then, in batches of up to OCC_COMBINING_BATCH: walk the
//      links with ld.acquire.gpu.u64 (one L2 round trip per request: the link and a small
//      argument in one load) until a node is unpublished (link 0), the batch is full or the
//      turn has served OCC_COMBINING_BOUND requests (the own included). Each link load must be
//      an acquire, not relaxed with one fence after the batch: the next node's link was reset
//      by its owner before its tail exchange, and only the acquire chain orders that reset
//      before the next load (a relaxed load could read the node's link of an earlier use; the
//      loom model of the CPU twin finds it). Then run the batch's requests (large arguments
//      all loaded after the walk, in parallel), results stored plainly (large) or kept
//      (small); one fence.acq_rel.gpu (the
//      release of the results and of the Op's writes); one st.relaxed.gpu.u64 {DONE, small
//      result} per request. The node that ended the turn gets {COMBINE} behind the last such
//      fence: its owner (whose request is unserved, or not yet linked) combines next and sees
//      every write of the turn (it reads its status with ld.acquire.gpu).
//
// Fairness: requests are served in the order their blocks swapped the tail (FIFO); a combiner
// serves at most OCC_COMBINING_BOUND requests a turn, then passes the role.
// Nothing waits without a deadline: the only wait is step 2's poll; the combiner never waits
// (a node whose link is not yet stored ends its turn). A waiter that gives up (the launch
// was aborted) returns false; the state is then not reusable (as with every other lock after an
// aborted launch).
//
// Tunables (define before including occupant headers): OCC_COMBINING_CAPACITY (4096 blocks),
// OCC_COMBINING_BOUND (64 requests per turn), OCC_COMBINING_BATCH (4 requests per fence pair;
// 4 keeps mutex_combining within 32 registers without spills, so 16 blocks of 128 threads fit
// an SM).
// NOT YET MEASURED ON A GPU.
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
  static constexpr u32 kCombine = 0u;
  static constexpr u32 kWait = 1u;
  static constexpr u32 kDone = 2u;
  /// Arguments and results of at most 4 bytes travel in the link / status word.
  static constexpr bool kSmallArg = sizeof(Arg) <= 4;
  static constexpr bool kSmallResult = sizeof(Result) <= 4;
  static_assert(sizeof(Arg) <= 64 && alignof(Arg) <= 16, "Op::Arg: at most 64 bytes, align 16");
  static_assert(sizeof(Result) <= 48 && alignof(Result) <= 16,
                "Op::Result: at most 48 bytes, align 16");
  static_assert(OCC_COMBINING_BOUND >= 1 && OCC_COMBINING_BATCH >= 1, "bound and batch >= 1");

  u32* state;
  u32 capacity;
  Op op;
  u32 mine;    // id of the spare node this block owns
  bool valid;  // block id < capacity

  /// Binds the state (combining_state_words(capacity) words, zeroed before first use) and the
  /// critical section `op`. Reads the block's spare node (own[b], written back by apply).
  __device__ CombiningMutex(u32* s, Op o, u32 cap = OCC_COMBINING_CAPACITY)
      : state(s), capacity(cap), op(o), mine(0u), valid(false) {
    const u32 b = block_linear_id();
    valid = b < capacity;
    if (valid) {
      const u32 own = ld_relaxed(own_word(b));
      mine = own == 0u ? b + 1u : own - 1u;
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
    const u32 spare = mine;
    st_relaxed(status_word(spare), (u64)kWait);
    st_relaxed(link_word(spare), 0ull);
    const u32 cur = atomic_exch_acq_rel(state, spare);
    u64 link = (u64)(spare + 1u);
    if (kSmallArg) {
      link |= (u64)pack(arg) << 32;
    } else {
      *reinterpret_cast<Arg*>(node(cur) + 16) = arg;
    }
    st_release(link_word(cur), link);  // publishes the request
    mine = cur;
    st_relaxed(own_word(block_linear_id()), cur + 1u);
    u64* sw = status_word(cur);
    u64 status = kWait;
    if (!poll_until(kPrim, [sw, &status] { return (u32)(status = ld_acquire(sw)) != kWait; }))
      return false;
    if ((u32)status == kDone) {
      *result = kSmallResult ? unpack<Result>((u32)(status >> 32))
                             : *reinterpret_cast<const Result*>(node(cur) + 4);
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

  /// The combiner's turn after its own request: the published requests from node `first`
  /// (the own request's successor) on, in batches, then the role to the node that ends it.
  __device__ void combine(u32 first) {
    u32 tmp = first;
    u32 served = 1u;  // the own request
    u32 ids[OCC_COMBINING_BATCH];
    u32 args[OCC_COMBINING_BATCH];
    for (;;) {
      u32 n = 0u;
      bool end = false;
      while (n < (u32)OCC_COMBINING_BATCH) {
        if (served + n >= (u32)OCC_COMBINING_BOUND) {
          end = true;
          break;
        }
        const u64 l = ld_acquire(link_word(tmp));  // see step 3 of the protocol
        if ((u32)l == 0u) {  // not yet published: its owner combines next
          end = true;
          break;
        }
        ids[n] = tmp;
        args[n] = (u32)(l >> 32);
        ++n;
        tmp = (u32)l - 1u;
      }
#pragma unroll
      for (u32 i = 0u; i < (u32)OCC_COMBINING_BATCH; ++i) {
        if (i < n) {
          const Arg a = kSmallArg ? unpack<Arg>(args[i])
                                  : *reinterpret_cast<const Arg*>(node(ids[i]) + 16);
          const Result r = op(a);
          if (kSmallResult) {
            args[i] = pack(r);  // the argument's register now holds the small result
          } else {
            *reinterpret_cast<Result*>(node(ids[i]) + 4) = r;
          }
        }
      }
      // The release of the batch's results and of every write of the Op so far (and, at the
      // end, of the turn to the next combiner).
      fence_acq_rel();
#pragma unroll
      for (u32 i = 0u; i < (u32)OCC_COMBINING_BATCH; ++i) {
        if (i < n) {
          st_relaxed(status_word(ids[i]), (u64)kDone | (kSmallResult ? (u64)args[i] << 32 : 0ull));
        }
      }
      served += n;
      if (end) break;
    }
    st_relaxed(status_word(tmp), (u64)kCombine);
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

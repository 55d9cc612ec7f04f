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
//                           word 0 status (0 COMBINE: the owner combines next; 1 WAIT; 2 DONE)
//                           word 1 next (id + 1 of the node linked after it, 0 none)
//                           words 4..15 the result, words 16..31 the request's argument
//   then capacity words     own[b]: id + 1 of the spare node block b owns (0: node b + 1)
// All zero is a free lock: node 0 is the queue's dummy with status COMBINE, block b owns node
// b + 1. Between launches the state stays valid (each block's spare node is written back to
// own[b]), so the same state may be reused, by grids of any size up to the capacity.
//
// Protocol of apply(arg), by one thread per block (the block's representative):
//   1. spare := my node; spare.status := WAIT, spare.next := 0 (relaxed stores);
//      cur := atom.acq_rel.gpu.exch(tail, spare)  (publishes spare's fields, reads cur's);
//      cur.arg := arg (plain); st.release.gpu(cur.next, spare + 1)  -- the request is published;
//      my node := cur (spare now belongs to the queue; cur becomes mine once served).
//   2. poll (occ::poll_until: fast spin, then the watchdog's deadline) until
//      ld.acquire.gpu(cur.status) != WAIT. DONE: the result is in cur (written before the
//      release that made it DONE): return it. COMBINE: this block combines.
//   3. Combiner: run the own request; then walk: tmp := next of the node just served. While
//      tmp.next != 0 (ld.acquire.gpu: tmp's argument is visible) and fewer than
//      OCC_COMBINING_BOUND requests were served this turn: result := Op(tmp.arg), stored plainly
//      in tmp; remember tmp; tmp := tmp.next. Results are handed back in batches of up to
//      OCC_COMBINING_BATCH: one fence.acq_rel.gpu, then st.relaxed.gpu(status, DONE) for each
//      (the fence makes every relaxed flag store a release of the results and of the Op's
//      writes). Finally tmp.status := COMBINE behind the same kind of fence: tmp's owner (whose
//      request is not yet served, or not yet linked) combines next, and sees every write of
//      this turn (it reads its status with ld.acquire.gpu).
//
// Fairness: requests are served in the order their blocks swapped the tail (FIFO); a combiner
// serves at most OCC_COMBINING_BOUND requests a turn (its own included), then passes the role.
// Nothing waits without a deadline: the only wait is step 2's poll; the combiner never waits
// (a node whose next link is not yet stored ends its turn). A waiter that gives up (the launch
// was aborted) returns false; the state is then not reusable (as with every other lock after an
// aborted launch).
//
// Tunables (define before including occupant headers): OCC_COMBINING_CAPACITY (4096 blocks),
// OCC_COMBINING_BOUND (64 requests per turn), OCC_COMBINING_BATCH (8 results per fence).
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
#define OCC_COMBINING_BATCH 8
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
  static constexpr u32 kWait = 1u;
  static constexpr u32 kDone = 2u;
  static constexpr u32 kCombine = 0u;
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

  __device__ __forceinline__ u32* node(u32 id) const { return state + 32u * (1u + id); }
  __device__ __forceinline__ u32* own_word(u32 b) const {
    return state + 32u * (capacity + 2u) + b;
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
    u32* sp = node(spare);
    st_relaxed(sp, kWait);
    st_relaxed(sp + 1, 0u);
    const u32 cur = atomic_exch_acq_rel(state, spare);
    u32* cp = node(cur);
    *reinterpret_cast<Arg*>(cp + 16) = arg;
    st_release(cp + 1, spare + 1u);  // publishes the argument
    mine = cur;
    st_relaxed(own_word(block_linear_id()), cur + 1u);
    u32 status = kWait;
    if (!poll_until(kPrim, [cp, &status] { return (status = ld_acquire(cp)) != kWait; }))
      return false;
    if (status == kDone) {
      *result = *reinterpret_cast<const Result*>(cp + 4);
      return true;
    }
    combine(cp, result);
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
  /// The combiner's turn: the own request (in node cp), then up to OCC_COMBINING_BOUND - 1
  /// published requests of others, then the role to the next node.
  __device__ void combine(u32* cp, Result* own) {
    *own = op(*reinterpret_cast<const Arg*>(cp + 16));
    u32 tmp = ld_relaxed(cp + 1) - 1u;  // set by this block: cur.next
    u32 batch[OCC_COMBINING_BATCH];
    u32 n = 0u;
    for (u32 served = 1u; served < (u32)OCC_COMBINING_BOUND; ++served) {
      u32* tp = node(tmp);
      const u32 next = ld_acquire(tp + 1);
      if (next == 0u) break;  // not yet published: its owner combines next
      *reinterpret_cast<Result*>(tp + 4) = op(*reinterpret_cast<const Arg*>(tp + 16));
      batch[n++] = tmp;
      if (n == (u32)OCC_COMBINING_BATCH) {
        hand_back(batch, n);
        n = 0u;
      }
      tmp = next - 1u;
    }
    // The rest of the batch, and the next combiner (its request is unserved or unpublished),
    // behind one fence that orders every write of the turn before the stores.
    hand_back(batch, n);
    st_relaxed(node(tmp), kCombine);
  }

  /// Releases the served nodes batch[0..n): one fence.acq_rel.gpu (also when n is 0: the
  /// combiner's hand-off that follows relies on it), then one relaxed DONE store each.
  __device__ __forceinline__ void hand_back(const u32* batch, u32 n) {
    fence_acq_rel();
    for (u32 i = 0u; i < n; ++i) st_relaxed(node(batch[i]), kDone);
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

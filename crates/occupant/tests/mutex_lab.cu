// The mutex lab (tests/gpu_mutex_lab.rs): what one lock/unlock pair and one hand-off are made
// of, and lock designs side by side at every contention.
//
// lab_costs: thread 0 of block 0 times `iters` of each operation (dependent chains where the
// operation returns a value) into out[k] (total ns), %smid into out[63], and an L2 atomic
// round trip to `lines` different lines (4 KiB + 128 B apart) into out[64 + j].
// lab_lock_<v>: the bench's mutex_run (one representative thread per block, `iters`
// lock/unlock pairs, `work` = a plain read-modify-write of counter[0] inside) for each lock
// variant v; times[2b], times[2b+1]: %globaltimer around the loop.
#include <occupant.cuh>
#include <occupant_sync.cuh>

using occ::u32;
using occ::u64;

__device__ __forceinline__ u32 lab_smid() {
  u32 r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

__device__ __forceinline__ void fence_rel_cluster() {
  asm volatile("fence.acq_rel.cluster;" ::: "memory");
}

extern "C" __global__ void lab_costs(u32* g, u32 iters, u64* out, u32 lines) {
  if (blockIdx.x != 0u || threadIdx.x != 0u) return;
  u32* w = g;          // the lock word
  u32* ld = g + 32;    // a line for loads
  u32* st = g + 64;    // a line for stores
  u32* cs = g + 96;    // the critical section's counter
  u32 v = 0u;
  u64 t;
#define LAB_TIME(K, BODY)                                 \
  t = occ::globaltimer();                                 \
  for (u32 i = 0u; i < iters; ++i) { BODY; }              \
  out[K] = occ::globaltimer() - t;
  // 0 atom.relaxed.gpu.exch round trip (chain)
  LAB_TIME(0, v = occ::atomic_exch_relaxed(w + (v >> 31), 0u))
  // 1 atom.acquire.gpu.exch round trip (+ CCTL.IVALL)
  LAB_TIME(1, v = occ::atomic_exch_acquire(w + (v >> 31), 0u))
  // 2 ld.relaxed.gpu round trip (chain)
  LAB_TIME(2, v = occ::ld_relaxed(ld + (v >> 31)))
  // 3 fence.acq_rel.gpu alone (MEMBAR.ALL.GPU, nothing outstanding)
  LAB_TIME(3, occ::fence_acq_rel())
  // 4 st.relaxed.gpu + fence.acq_rel.gpu (the store's acknowledgement)
  LAB_TIME(4, occ::st_relaxed(st, i); occ::fence_acq_rel())
  // 5 st.release.gpu back to back
  LAB_TIME(5, occ::st_release(st, i))
  // 6 the raw spin pair: atom.acquire.gpu.exch(w, 1) == 0, st.release.gpu(w, 0)
  LAB_TIME(6, v += occ::atomic_exch_acquire(w, 1u); occ::st_release(w, 0u))
  // 7 the same without the acquire's CCTL.IVALL (relaxed exchange)
  LAB_TIME(7, v += occ::atomic_exch_relaxed(w, 1u); occ::st_release(w, 0u))
  // 8 unlock by atom.release.gpu.exch (result unused)
  LAB_TIME(8, v += occ::atomic_exch_acquire(w, 1u); occ::atomic_exch_release(w, 0u))
  // 9 lock by atom.acquire.gpu.cas(0 -> 1)
  LAB_TIME(9, v += occ::atomic_cas_acquire(w, 0u, 1u); occ::st_release(w, 0u))
  // 10 unlock with fence.sc.gpu + st.relaxed (MEMBAR.SC)
  LAB_TIME(10, v += occ::atomic_exch_acquire(w, 1u); occ::fence_sc(); occ::st_relaxed(w, 0u))
  // 11 the library's SpinMutex (poll_until front end: the abort flag's load beside the exch)
  {
    occ::sync::SpinMutex m(w);
    LAB_TIME(11, v += m.lock() ? 0u : 1u; m.unlock())
  }
  // 12 raw pair with a critical section: plain ld + st of the counter (the tests' work = 1)
  LAB_TIME(12, v += occ::atomic_exch_acquire(w, 1u);
           { volatile u32* c = cs; *c = *c + 1u; } occ::st_release(w, 0u))
  // 13 %globaltimer read (chain through the loop)
  LAB_TIME(13, v += (u32)occ::globaltimer())
  // 14 ld.acquire.gpu round trip (chain)
  LAB_TIME(14, v = occ::ld_acquire(ld + (v >> 31)))
  // 15 fence.acq_rel.cluster alone
  LAB_TIME(15, fence_rel_cluster())
  // 16 raw pair, unlock st.relaxed (no fence: NOT a lock, the fence's share of the pair)
  LAB_TIME(16, v += occ::atomic_exch_acquire(w, 1u); occ::st_relaxed(w, 0u))
  // 17 raw pair, lock ld.relaxed test first (test-and-test-and-set, 2 round trips)
  LAB_TIME(17, v += occ::ld_relaxed(w); v += occ::atomic_exch_acquire(w + (v >> 31), 1u);
           occ::st_release(w, 0u))
  // 18 fence then relaxed store then load of the same word (store visibility + load)
  LAB_TIME(18, occ::st_release(st, i); v = occ::ld_relaxed(st + (v >> 31)))
  // 19 atom.relaxed.gpu.add round trip (chain)
  LAB_TIME(19, v = occ::atomic_add_relaxed(w + 1 + (v >> 31), 1u))
#undef LAB_TIME
  out[62] = v;
  out[63] = lab_smid();
  // Atomic round trip by address: 4 KiB + 128 B apart (different L2 slices / partitions).
  for (u32 j = 0u; j < lines; ++j) {
    u32* a = g + 1024u + j * (1024u + 32u);
    t = occ::globaltimer();
    for (u32 i = 0u; i < 256u; ++i) v = occ::atomic_exch_relaxed(a + (v >> 31), 0u);
    out[64u + j] = (occ::globaltimer() - t) / 256u;
  }
  g[100] = v;
}

namespace lab {

/// The library's SpinMutex without the abort flag's load on the first try: the exchange
/// alone; only a failed first try enters occ::poll_until.
struct LeanSpin {
  u32* w;
  __device__ explicit LeanSpin(u32* s) : w(s) {}
  __device__ __forceinline__ bool lock() {
    if (occ::atomic_exch_acquire(w, 1u) == 0u) return true;
    u32* p = w;
    return occ::poll_until(occ::Prim::SpinMutex,
                           [p] { return occ::atomic_exch_acquire(p, 1u) == 0u; });
  }
  __device__ __forceinline__ void unlock() { occ::st_release(w, 0u); }
};

/// Test-and-test-and-set with the exchange first: while held, waiters poll with ld.relaxed
/// and exchange only when they see it free.
struct LeanTtas {
  u32* w;
  __device__ explicit LeanTtas(u32* s) : w(s) {}
  __device__ __forceinline__ bool lock() {
    if (occ::atomic_exch_acquire(w, 1u) == 0u) return true;
    u32* p = w;
    return occ::poll_until(occ::Prim::SpinMutex, [p] {
      return occ::ld_relaxed(p) == 0u && occ::atomic_exch_acquire(p, 1u) == 0u;
    });
  }
  __device__ __forceinline__ void unlock() { occ::st_release(w, 0u); }
};

/// LeanTtas with a back-off after every failed exchange (128 ns doubling to 2 us).
struct LeanTtasBackoff {
  u32* w;
  __device__ explicit LeanTtasBackoff(u32* s) : w(s) {}
  __device__ __forceinline__ bool lock() {
    if (occ::atomic_exch_acquire(w, 1u) == 0u) return true;
    u32* p = w;
    u32 ns = 128u;
    return occ::poll_until(occ::Prim::SpinMutex, [p, &ns] {
      if (occ::ld_relaxed(p) != 0u) return false;
      if (occ::atomic_exch_acquire(p, 1u) == 0u) return true;
      __nanosleep(ns);
      ns = ns < 2048u ? 2u * ns : ns;
      return false;
    });
  }
  __device__ __forceinline__ void unlock() { occ::st_release(w, 0u); }
};

/// LeanSpin with a back-off after every failed exchange (64 ns doubling to 1 us).
struct LeanSpinBackoff {
  u32* w;
  __device__ explicit LeanSpinBackoff(u32* s) : w(s) {}
  __device__ __forceinline__ bool lock() {
    if (occ::atomic_exch_acquire(w, 1u) == 0u) return true;
    u32* p = w;
    u32 ns = 64u;
    return occ::poll_until(occ::Prim::SpinMutex, [p, &ns] {
      if (occ::atomic_exch_acquire(p, 1u) == 0u) return true;
      __nanosleep(ns);
      ns = ns < 1024u ? 2u * ns : ns;
      return false;
    });
  }
  __device__ __forceinline__ void unlock() { occ::st_release(w, 0u); }
};

/// A ticket lock whose pollers far from the head sleep in proportion to their distance.
struct LeanTicket {
  u32* ticket;
  u32* turn;
  u32 my;
  __device__ explicit LeanTicket(u32* s) : ticket(s), turn(s + 32), my(0u) {}
  __device__ __forceinline__ bool lock() {
    my = occ::atomic_add_relaxed(ticket, 1u);
    u32* t = turn;
    const u32 m = my;
    return occ::poll_until(occ::Prim::TicketMutex, [t, m] {
      const u32 d = m - occ::ld_acquire(t);
      if (d == 0u) return true;
      if (d > 1u) __nanosleep(d > 64u ? 64u * 128u : d * 128u);
      return false;
    });
  }
  __device__ __forceinline__ void unlock() { occ::st_release(turn, my + 1u); }
};

}  // namespace lab

namespace lab {

/// A ticket lock that stays with its holder (biased/sticky, for measurement only): unlock()
/// keeps the lock parked in the block (no fence, no store) for up to K critical sections in a
/// row; at the K-th it reads the ticket counter (one L2 round trip) and releases only if another
/// block took a ticket. A waiter waits at most K of the holder's critical sections plus a
/// hand-off -- but only while the holder keeps calling lock()/unlock(): a holder that parks and
/// then waits for a waiter deadlocks (the hazard LazyCohortMutex documents). finish() releases
/// a parked lock (the kernel calls it after its loop).
template <unsigned K>
struct Sticky {
  u32* ticket;
  u32* turn;
  u32 gt, n;
  bool parked;
  __device__ explicit Sticky(u32* s) : ticket(s), turn(s + 32), gt(0u), n(0u), parked(false) {}
  __device__ __forceinline__ bool lock() {
    if (parked) {
      parked = false;
      return true;
    }
    const u32 t = occ::atomic_add_relaxed(ticket, 1u);
    u32* tu = turn;
    if (!occ::poll_until(occ::Prim::TicketMutex, [tu, t] { return occ::ld_acquire(tu) == t; }))
      return false;
    gt = t;
    n = 0u;
    return true;
  }
  __device__ __forceinline__ void unlock() {
    if (++n < K || occ::ld_relaxed(ticket) == gt + 1u) {
      if (n >= K) n = 0u;
      parked = true;
      return;
    }
    occ::st_release(turn, gt + 1u);
  }
  __device__ __forceinline__ void finish() {
    if (parked) occ::st_release(turn, gt + 1u);
    parked = false;
  }
};

}  // namespace lab

template <class M>
__device__ __forceinline__ void lab_sticky_run(u32* state, u32* counter, u32 iters, u32 work,
                                               u64* times) {
  if (occ::local_linear_id() != 0u) return;
  M m(state);
  const u64 t0 = occ::globaltimer();
  for (u32 i = 0u; i < iters; ++i) {
    if (!m.lock()) return;
    if (work) {
      volatile u32* c = counter;
      *c = *c + 1u;
    }
    m.unlock();
  }
  m.finish();
  const u64 t1 = occ::globaltimer();
  times[2u * occ::block_linear_id()] = t0;
  times[2u * occ::block_linear_id() + 1u] = t1;
}

extern "C" __global__ void lab_lock_sticky32(u32* state, u32* counter, u32 iters, u32 work,
                                             u64* times) {
  lab_sticky_run<lab::Sticky<32u>>(state, counter, iters, work, times);
}

template <class M>
__device__ __forceinline__ void lab_run(u32* state, u32* counter, u32 iters, u32 work,
                                        u64* times) {
  if (occ::local_linear_id() != 0u) return;
  M m(state);
  const u64 t0 = occ::globaltimer();
  for (u32 i = 0u; i < iters; ++i) {
    if (!m.lock()) return;
    if (work) {
      volatile u32* c = counter;
      *c = *c + 1u;
    }
    m.unlock();
  }
  const u64 t1 = occ::globaltimer();
  times[2u * occ::block_linear_id()] = t0;
  times[2u * occ::block_linear_id() + 1u] = t1;
}

#define LAB_LOCK(NAME, TYPE)                                                                   \
  extern "C" __global__ void NAME(u32* state, u32* counter, u32 iters, u32 work, u64* times) { \
    lab_run<TYPE>(state, counter, iters, work, times);                                         \
  }

LAB_LOCK(lab_lock_spin, occ::sync::SpinMutex)
LAB_LOCK(lab_lock_lean_spin, lab::LeanSpin)
LAB_LOCK(lab_lock_lean_ttas, lab::LeanTtas)
LAB_LOCK(lab_lock_lean_ttas_backoff, lab::LeanTtasBackoff)
LAB_LOCK(lab_lock_lean_spin_backoff, lab::LeanSpinBackoff)
LAB_LOCK(lab_lock_lean_ticket, lab::LeanTicket)

// ---- the combining lock as first built (CC-Synch with node resets, commit 5ec182f) ---------
namespace occ {
namespace sync {
namespace lab_orig {
template <class Op>
struct CcSynchOrig {
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
  __device__ CcSynchOrig(u32* s, Op o, u32 cap = OCC_COMBINING_CAPACITY)
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

}  // namespace lab_orig
}  // namespace sync
}  // namespace occ

// ---- combining variants --------------------------------------------------------------------
// lab_comb_cc: CC-Synch as first built (occ::sync::lab_orig::CcSynchOrig, baseline);
// lab_comb_lib: the library's CombiningMutex<CounterOp>.
// lab_comb_lean<R, B>: CC-Synch with use tags instead of node resets. A node reference is
// ref = tag << 13 | id (9-bit tag, 13-bit id); the tail holds the last node's ref. Each use of
// a node gets the next tag (chosen by its owner when it swaps the node in), and every word
// written during a use carries that use's tag, so stale words of an earlier use are told apart:
// no reset before the swap, so the tail exchange is relaxed (no release fence), and a request
// costs one exchange round trip plus its publication (st.release when R, the caller's earlier
// writes ordered before the Op; st.relaxed when !R, only the argument travels).
//   status u64 (node words 0-1): low = tag << 1 | done, high = result
//   link   u64 (node words 2-3): low = tag << 22 | next ref, high = argument
// All zero: node 0 with tag 0 is the queue (status {tag 0, COMBINE}); block b owns node b + 1
// (own[b] = 0) with last tag 0. The combiner batches B requests per fence. P (peek): read the
// status once before publishing; a block that combines next skips the publication. Peek is
// wrong, kept to document it: a use without a link store leaves the link of a use 512 tags
// earlier in place, which a combiner takes for published once the 9-bit tag wraps (H100,
// bench/results/nvidia-h100/i11-primitives/mutex-fast-run1: 19999 of 20000 increments at 1
// block); the other variants store every use's link.
namespace lab {

constexpr u32 kIdBits = 13u, kIdMask = (1u << kIdBits) - 1u, kTagMask = 511u;
constexpr u32 kRefMask = (1u << 22) - 1u;

template <bool R, int B, bool P = false, unsigned Pace = 0u>
struct LeanCombining {
  u32* state;
  occ::sync::CounterOp op;
  u32 mine;  // ref of the node this block owns (its last tag)
  u32 capacity;
  __device__ LeanCombining(u32* s, occ::sync::CounterOp o, u32 cap = 4096u)
      : state(s), op(o), capacity(cap) {
    const u32 b = occ::block_linear_id();
    const u32 own = occ::ld_relaxed(own_word(b));
    mine = own == 0u ? b + 1u : own - 1u;
  }
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

  __device__ bool try_apply(u32 arg, u32* result) {
    const u32 spare = (((tag_of(mine) + 1u) & kTagMask) << kIdBits) | id_of(mine);
    // Pace 1: a release fence before the exchange (the first-built lock's timing, without its
    // resets); Pace > 1: __nanosleep(Pace) before it.
    if (Pace == 1u) occ::fence_acq_rel();
    if (Pace > 1u) __nanosleep(Pace);
    const u32 cur = occ::atomic_exch_relaxed(state, spare);
    if (P) {
      // Peek: a block that combines next publishes nothing (nobody reads its link).
      const u64 s0 = occ::ld_acquire(status_word(id_of(cur)));
      if ((((u32)s0 >> 1) & kTagMask) == tag_of(cur) && ((u32)s0 & 1u) == 0u) {
        mine = cur;
        occ::st_relaxed(own_word(occ::block_linear_id()), cur + 1u);
        *result = op(arg);
        combine(spare);
        return true;
      }
    }
    const u64 link = ((u64)arg << 32) | ((u64)tag_of(cur) << 22) | (u64)spare;
    if (R) {
      occ::st_release(link_word(id_of(cur)), link);
    } else {
      occ::st_relaxed(link_word(id_of(cur)), link);
    }
    mine = cur;
    occ::st_relaxed(own_word(occ::block_linear_id()), cur + 1u);
    u64* sw = status_word(id_of(cur));
    const u32 want = tag_of(cur);
    u64 s = 0ull;
    if (!occ::poll_until(occ::Prim::CombiningMutex, [sw, want, &s] {
          s = occ::ld_acquire(sw);
          return (((u32)s >> 1) & kTagMask) == want;
        }))
      return false;
    if ((u32)s & 1u) {
      *result = (u32)(s >> 32);
      return true;
    }
    *result = op(arg);
    combine(spare);
    return true;
  }

  __device__ void combine(u32 tmp) {
    u32 served = 1u;
    u32 refs[B];
    u32 vals[B];
    for (;;) {
      u32 n = 0u;
      bool end = false;
      while (n < (u32)B) {
        if (served + n >= (u32)OCC_COMBINING_BOUND) {
          end = true;
          break;
        }
        const u64 l = occ::ld_acquire(link_word(id_of(tmp)));
        if ((((u32)l >> 22) & kTagMask) != tag_of(tmp)) {
          end = true;
          break;
        }
        refs[n] = tmp;
        vals[n] = (u32)(l >> 32);
        ++n;
        tmp = (u32)l & kRefMask;
      }
#pragma unroll
      for (u32 i = 0u; i < (u32)B; ++i)
        if (i < n) vals[i] = op(vals[i]);
      occ::fence_acq_rel();
#pragma unroll
      for (u32 i = 0u; i < (u32)B; ++i)
        if (i < n)
          occ::st_relaxed(status_word(id_of(refs[i])),
                          ((u64)vals[i] << 32) | (u64)(tag_of(refs[i]) << 1) | 1ull);
      served += n;
      if (end) break;
    }
    occ::st_relaxed(status_word(id_of(tmp)), (u64)(tag_of(tmp) << 1));
  }
};

}  // namespace lab

template <class M>
__device__ __forceinline__ void lab_comb_run(u32* state, u32* counter, u32 iters, u32 work,
                                             u64* times) {
  if (occ::local_linear_id() != 0u) return;
  M m(state, occ::sync::CounterOp{counter, work});
  const u64 t0 = occ::globaltimer();
  u32 before = 0u;
  for (u32 i = 0u; i < iters; ++i)
    if (!m.try_apply(1u, &before)) return;
  const u64 t1 = occ::globaltimer();
  times[2u * occ::block_linear_id()] = t0;
  times[2u * occ::block_linear_id() + 1u] = t1;
}

#define LAB_COMB(NAME, ...)                                                                    \
  extern "C" __global__ void NAME(u32* state, u32* counter, u32 iters, u32 work, u64* times) { \
    lab_comb_run<__VA_ARGS__>(state, counter, iters, work, times);                             \
  }

LAB_COMB(lab_comb_cc, occ::sync::lab_orig::CcSynchOrig<occ::sync::CounterOp>)
LAB_COMB(lab_comb_lib, occ::sync::CombiningMutex<occ::sync::CounterOp>)
LAB_COMB(lab_comb_lean_r4, lab::LeanCombining<true, 4>)
LAB_COMB(lab_comb_lean_r8, lab::LeanCombining<true, 8>)
LAB_COMB(lab_comb_lean_norel4, lab::LeanCombining<false, 4>)
// LAB_COMB(lab_comb_lean_peek4, lab::LeanCombining<true, 4, true>)  (loses updates, see above)
LAB_COMB(lab_comb_lean_fence4, lab::LeanCombining<true, 4, false, 1u>)
LAB_COMB(lab_comb_lean_sleep4, lab::LeanCombining<true, 4, false, 400u>)
LAB_COMB(lab_comb_lean_r16, lab::LeanCombining<true, 16>)
// Run 3 (i11-last-misses): the flat-combining lock (flat_combining_mutex.cuh) with chunks of 2,
// 4 and 8 (the library's) slots from 5 blocks on.
LAB_COMB(lab_flat, occ::sync::FlatCombiningMutexT<occ::sync::CounterOp, 8u>)
LAB_COMB(lab_flat_c4, occ::sync::FlatCombiningMutexT<occ::sync::CounterOp, 4u>)
LAB_COMB(lab_flat_c2, occ::sync::FlatCombiningMutexT<occ::sync::CounterOp, 2u>)

// ---- Run 4 (i11-misses): the small-grid combining lock (at most 3 blocks) -----------------
// lab::Duo<PATIENCE, LATE, HINT>: flat combining for grids of at most 3 blocks whose role word
// carries every block's SERVED SEQUENCE NUMBER (21 bits each) instead of a parity bit, so a slot
// loaded before the role atomic (a hint, possibly stale) needs no second load after the acquire:
// a request (s, arg) is pending iff s == served + 1 (mod 2^21), and a request number names one
// argument. State (lines): 0 the role word R (LOCK = bit 63), 1..3 req[b] = seq << 32 | arg,
// 4..6 res[b] = seq << 32 | result. HINT: the other slots are loaded beside the role atomic
// (else after the acquire). LATE: a turn whose hints showed nothing pending loads the slots
// again after the own Op (one more round trip, catches a request published during the turn).
// PATIENCE: a waiter takes a free role only after seeing it free in PATIENCE polls in a row.
namespace lab {
template <unsigned PATIENCE, bool LATE, bool HINT>
struct Duo {
  typedef occ::u32 Arg;
  typedef occ::u32 Result;
  static constexpr u64 kLock = 1ull << 63;
  static constexpr u32 kBits = 21u;
  static constexpr u32 kMask = (1u << kBits) - 1u;
  u32* state;
  occ::sync::CounterOp op;
  u32 me, n, seq;
  bool delegated;
  __device__ Duo(u32* s, occ::sync::CounterOp o)
      : state(s), op(o), me(occ::block_linear_id()), n(0u), seq(0u), delegated(false) {
    const u32 g = gridDim.x * gridDim.y * gridDim.z;
    n = g < 3u ? g : 3u;
    seq = (u32)(occ::ld_relaxed(req(me)) >> 32);
  }
  __device__ __forceinline__ u64* role() const { return reinterpret_cast<u64*>(state); }
  __device__ __forceinline__ u64* req(u32 b) const {
    return reinterpret_cast<u64*>(state + 32u * (1u + b));
  }
  __device__ __forceinline__ u64* res(u32 b) const {
    return reinterpret_cast<u64*>(state + 32u * (4u + b));
  }
  __device__ __forceinline__ static u32 field(u64 w, u32 b) {
    return (u32)(w >> (kBits * b)) & kMask;
  }
  __device__ __forceinline__ static u64 with_field(u64 w, u32 b, u32 v) {
    return (w & ~((u64)kMask << (kBits * b))) | ((u64)(v & kMask) << (kBits * b));
  }
  __device__ __forceinline__ bool try_apply(const Arg& arg, Result* result) {
    if (me >= 3u) {
      occ::expire(occ::Prim::FlatCombiningMutex);
      return false;
    }
    const u32 o0 = me == 0u ? 1u : 0u;
    const u32 o1 = me == 2u ? 1u : 2u;
    u64 h0 = 0ull, h1 = 0ull;
    bool hinted = false;
    u64 old = kLock;
    if (!delegated) {
      if (HINT) {
        if (o0 < n) h0 = occ::ld_relaxed(req(o0));
        if (o1 < n) h1 = occ::ld_relaxed(req(o1));
        hinted = true;
      }
      old = occ::sync::flat::atomic_or_relaxed(role(), kLock);
    }
    const bool direct = !(old & kLock);
    u64 got = 0ull;
    if (!direct) {
      hinted = false;
      ++seq;
      occ::fence_acq_rel();
      occ::st_relaxed(req(me), ((u64)seq << 32) | arg);
      bool combiner = false;
      u64* const mine = res(me);
      u64* const rw = role();
      const u32 want = seq;
      u32 free_seen = 0u;
      if (!occ::poll_until(occ::Prim::FlatCombiningMutex, [&] {
            const u64 r = occ::ld_relaxed(mine);
            const u64 l = occ::ld_relaxed(rw);
            if ((u32)(r >> 32) == want) {
              got = r;
              return true;
            }
            if (l & kLock) {
              free_seen = 0u;
            } else if (++free_seen >= PATIENCE) {
              old = occ::sync::flat::atomic_or_relaxed(rw, kLock);
              if (!(old & kLock)) {
                combiner = true;
                return true;
              }
              free_seen = 0u;
            }
            return false;
          }))
        return false;
      if (!combiner) {
        occ::sync::flat::fence_acquire();
        *result = (u32)got;
        delegated = true;
        return true;
      }
    }
    occ::sync::flat::fence_acquire();
    delegated = false;
    u64 w = old & ~kLock;
    const bool served = !direct && field(w, me) == (seq & kMask);
    if (!served) {
      *result = op(arg);
      if (!direct) w = with_field(w, me, seq);
    }
    if (!hinted) {
      if (o0 < n) h0 = occ::ld_relaxed(req(o0));
      if (o1 < n) h1 = occ::ld_relaxed(req(o1));
    }
    bool p0 = o0 < n && (((u32)(h0 >> 32)) & kMask) == ((field(w, o0) + 1u) & kMask);
    bool p1 = o1 < n && (((u32)(h1 >> 32)) & kMask) == ((field(w, o1) + 1u) & kMask);
    if (LATE && hinted && !p0 && !p1) {
      if (o0 < n) h0 = occ::ld_relaxed(req(o0));
      if (o1 < n) h1 = occ::ld_relaxed(req(o1));
      p0 = o0 < n && (((u32)(h0 >> 32)) & kMask) == ((field(w, o0) + 1u) & kMask);
      p1 = o1 < n && (((u32)(h1 >> 32)) & kMask) == ((field(w, o1) + 1u) & kMask);
    }
    if (p0 || p1) {
      occ::sync::flat::fence_acquire();  // the acquire of the requests (loads above)
      if (p0) {
        h0 = (h0 & 0xffffffff00000000ull) | op((u32)h0);
        w = with_field(w, o0, (u32)(h0 >> 32));
      }
      if (p1) {
        h1 = (h1 & 0xffffffff00000000ull) | op((u32)h1);
        w = with_field(w, o1, (u32)(h1 >> 32));
      }
    }
    occ::fence_acq_rel();  // the release of every Op of the turn and of the role
    if (p0) occ::st_relaxed(res(o0), h0);
    if (p1) occ::st_relaxed(res(o1), h1);
    occ::st_relaxed(role(), w);
    if (served) {
      u64* const mine = res(me);
      const u32 want = seq;
      if (!occ::poll_until(occ::Prim::FlatCombiningMutex, [&] {
            got = occ::ld_relaxed(mine);
            return (u32)(got >> 32) == want;
          }))
        return false;
      occ::sync::flat::fence_acquire();
      *result = (u32)got;
    }
    return true;
  }
};
}  // namespace lab

LAB_COMB(lab_duo_p1, lab::Duo<1u, false, true>)
LAB_COMB(lab_duo_p1_late, lab::Duo<1u, true, true>)
LAB_COMB(lab_duo_p1_nohint, lab::Duo<1u, false, false>)
LAB_COMB(lab_duo_p4, lab::Duo<4u, false, true>)
LAB_COMB(lab_duo_p4_late, lab::Duo<4u, true, true>)

// ---- Run 5 (i11-misses): the lazy small-grid combining lock -------------------------------
// lab::LazyDuo<HOLD>: Duo whose combiner KEEPS the role between its own calls (parked, no
// fence and no role atomic for its own critical sections), serving in each call every request
// the others published (one acquire fence, one release fence per call that served any); it
// releases the role (fence, then the served numbers with LOCK clear) after HOLD calls in a row
// (HOLD = 0: never) and in its destructor. The others publish and wait for their result or for
// a free role. Parks like LazyCohortMutex: a holder that waits between calls for a block that
// waits for the lock deadlocks (the watchdog reports it). Statistics (counter[4 + b]: turns
// as combiner, counter[8 + b]: requests of others served) for the lab's readout.
namespace lab {
template <unsigned HOLD>
struct LazyDuo {
  typedef occ::u32 Arg;
  typedef occ::u32 Result;
  static constexpr u64 kLock = 1ull << 63;
  static constexpr u32 kBits = 21u;
  static constexpr u32 kMask = (1u << kBits) - 1u;
  u32* state;
  occ::sync::CounterOp op;
  u32 me, n, seq;
  bool delegated;
  bool holding;  // the role is parked here
  u64 w;         // the served numbers while holding
  u32 held;      // calls in a row as the holder
  u32 turns, others;
  __device__ LazyDuo(u32* s, occ::sync::CounterOp o)
      : state(s), op(o), me(occ::block_linear_id()), n(0u), seq(0u), delegated(false),
        holding(false), w(0ull), held(0u), turns(0u), others(0u) {
    const u32 g = gridDim.x * gridDim.y * gridDim.z;
    n = g < 3u ? g : 3u;
    seq = (u32)(occ::ld_relaxed(req(me)) >> 32);
  }
  __device__ ~LazyDuo() {
    if (holding) release();
    if (op.counter != nullptr && me < 4u) {
      atomicAdd(op.counter + 4u + me, turns);
      atomicAdd(op.counter + 8u + me, others);
    }
  }
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
  __device__ __forceinline__ void release() {
    occ::fence_acq_rel();
    occ::st_relaxed(role(), w & ~kLock);
    holding = false;
    held = 0u;
  }
  /// Under the role: serve what the slots h0, h1 show pending; true if any.
  __device__ __forceinline__ bool serve(u32 o0, u32 o1, u64 h0, u64 h1) {
    const bool p0 = o0 < n && (((u32)(h0 >> 32)) & kMask) == ((field(w, o0) + 1u) & kMask);
    const bool p1 = o1 < n && (((u32)(h1 >> 32)) & kMask) == ((field(w, o1) + 1u) & kMask);
    if (!p0 && !p1) return false;
    occ::sync::flat::fence_acquire();
    if (p0) {
      h0 = (h0 & 0xffffffff00000000ull) | op((u32)h0);
      w = with_field(w, o0, (u32)(h0 >> 32));
    }
    if (p1) {
      h1 = (h1 & 0xffffffff00000000ull) | op((u32)h1);
      w = with_field(w, o1, (u32)(h1 >> 32));
    }
    occ::fence_acq_rel();  // the release of the results and of every Op so far
    if (p0) occ::st_relaxed(res(o0), h0);
    if (p1) occ::st_relaxed(res(o1), h1);
    others += (p0 ? 1u : 0u) + (p1 ? 1u : 0u);
    return true;
  }
  __device__ __forceinline__ bool try_apply(const Arg& arg, Result* result) {
    if (me >= 3u) {
      occ::expire(occ::Prim::FlatCombiningMutex);
      return false;
    }
    const u32 o0 = me == 0u ? 1u : 0u;
    const u32 o1 = me == 2u ? 1u : 2u;
    u64 h0 = 0ull, h1 = 0ull;
    if (holding) {
      // The role is here: the slots' loads in flight while the own Op runs.
      if (o0 < n) h0 = occ::ld_relaxed(req(o0));
      if (o1 < n) h1 = occ::ld_relaxed(req(o1));
      *result = op(arg);
      ++turns;
      serve(o0, o1, h0, h1);
      if (HOLD != 0u && ++held >= HOLD) release();
      return true;
    }
    u64 old = kLock;
    if (!delegated) {
      if (o0 < n) h0 = occ::ld_relaxed(req(o0));
      if (o1 < n) h1 = occ::ld_relaxed(req(o1));
      old = occ::sync::flat::atomic_or_relaxed(role(), kLock);
    }
    u64 got = 0ull;
    bool served = false;
    if (!(old & kLock)) {
      occ::sync::flat::fence_acquire();
      w = old;
      *result = op(arg);
    } else {
      ++seq;
      occ::fence_acq_rel();
      occ::st_relaxed(req(me), ((u64)seq << 32) | arg);
      bool combiner = false;
      u64* const mine = res(me);
      u64* const rw = role();
      const u32 want = seq;
      if (!occ::poll_until(occ::Prim::FlatCombiningMutex, [&] {
            const u64 r = occ::ld_relaxed(mine);
            const u64 l = occ::ld_relaxed(rw);
            if ((u32)(r >> 32) == want) {
              got = r;
              return true;
            }
            if (!(l & kLock)) {
              old = occ::sync::flat::atomic_or_relaxed(rw, kLock);
              if (!(old & kLock)) {
                combiner = true;
                return true;
              }
            }
            return false;
          }))
        return false;
      occ::sync::flat::fence_acquire();
      if (!combiner) {
        *result = (u32)got;
        delegated = true;
        return true;
      }
      w = old;
      served = field(w, me) == (seq & kMask);
      if (!served) {
        *result = op(arg);
        w = with_field(w, me, seq);
      }
      if (o0 < n) h0 = occ::ld_relaxed(req(o0));
      if (o1 < n) h1 = occ::ld_relaxed(req(o1));
    }
    delegated = false;
    holding = true;
    held = 0u;
    ++turns;
    serve(o0, o1, h0, h1);
    if (served) {
      // The previous holder served it before releasing: its result is on the way.
      u64* const mine = res(me);
      const u32 want = seq;
      if (!occ::poll_until(occ::Prim::FlatCombiningMutex, [&] {
            got = occ::ld_relaxed(mine);
            return (u32)(got >> 32) == want;
          }))
        return false;
      occ::sync::flat::fence_acquire();
      *result = (u32)got;
    }
    if (HOLD != 0u && ++held >= HOLD) release();
    return true;
  }
};
}  // namespace lab

LAB_COMB(lab_lazy_duo, lab::LazyDuo<0u>)
LAB_COMB(lab_lazy_duo_h64, lab::LazyDuo<64u>)
LAB_COMB(lab_lazy_duo_h8, lab::LazyDuo<8u>)

// occupant device library: fork-join parallel regions inside a block through warp
// specialisation (seed 003, "fork-join-warp-specialization", §V). CPU twin:
// occupant::cpu::forkjoin (same names, same semantics). Guide: docs/FORKJOIN.md.
//
// A block of 32 * (W + 1) threads (1 <= W <= 31) is split into W worker warps and one master
// warp, the last. Lane 0 of the master warp runs the serial code; the other 31 lanes of the
// master warp leave at once (the seed's requirement: a named barrier counts a warp when all its
// non-exited threads arrive). The worker warps wait in a pool on named barrier 0. When the
// master reaches a parallel region it writes the region's id and payload into shared memory and
// arrives at barrier 0 (bar.arrive: it does not wait), which releases the pool; the warps that
// the region needs run it, the others go straight back to the pool. At the end of the region
// the active warps arrive at barrier 1 (the join) on which the master waits: only the warps
// actually used take part in it.
//
//   named barrier  participants                      used for
//   -------------  --------------------------------  -------------------------------------------
//   0 (POOL)       every warp of the block            fork (and termination)
//   1 (JOIN)       the active warps + master          implicit barrier at the end of a region
//   2 (TEAM)       the active warps                   user barrier, for/single/reduction barriers
//
// Regions are C++ callables (struct with `operator()(occ::fj::Thread&)`, or a lambda whose type
// is named with decltype) listed as template arguments of occ::fj::run; the master's
// `m.parallel(n, body)` copies `body` (its captured values) onto the team's data-sharing stack
// and publishes the index of its type in the list: the workers dispatch on that small id with a
// switch over the list (direct, inlinable calls; no function pointer on the hot path), call the
// copy, and after the join the master copies it back, so members written in the region are
// seen by the serial code ("values shared in and out").
//
//   #include <occupant.cuh>
//   struct Scale {                       // a region: its members are the shared variables
//     float* x; float a; int n; float sum;
//     __device__ void operator()(occ::fj::Thread& t) {
//       float s = 0.f;
//       t.for_static(0, n, [&](int i) { x[i] *= a; s += x[i]; });   // worksharing + barrier
//       s = t.reduce_sum(s);                                          // every thread gets it
//       t.master([&] { sum = s; });                                   // written back to serial
//     }
//   };
//   extern "C" __global__ void k(float* x, int n, float* out) {
//     __shared__ occ::fj::Team team;
//     __shared__ alignas(16) unsigned char stack[1024];
//     team.setup(stack, sizeof stack, nullptr, 0);                   // no global spill area
//     occ::fj::run<Scale>(team, [&](auto& m) {                        // serial code: one thread
//       Scale r{x, 2.0f, n, 0.f};
//       m.parallel(m.max_threads(), r);                               // fork ... join
//       out[blockIdx.x] = r.sum;
//     });
//   }
//
// Constructs (on occ::fj::Thread, inside a region): thread_num(), num_threads(), level(),
// barrier(), for_static(lo, hi, f) / for_static_chunk(lo, hi, chunk, f) / for_dynamic(lo, hi,
// chunk, f) (each with an implicit barrier; *_nowait without), reduce_sum/min/max(v) for int,
// unsigned, long long, unsigned long long, float and double (warp shuffles then shared memory;
// every thread gets the result), single(f) (thread 0 runs f, then a barrier), master(f) (thread
// 0, no barrier), parallel(n, body) (nested: runs serially in the calling thread with a team of
// one, as OpenMP's default). On occ::fj::Master (serial code): parallel(n, body),
// parallel_if(cond, n, body) (the OpenMP `if` clause: when false the master runs the body
// itself as a team of one - no fork, for small trip counts), push<T>(count) / mark() /
// release(mark) (the data-sharing stack: shared memory first, the global spill area when full),
// max_threads(), spilled_bytes().
//
// Debug mode: define OCC_FJ_DEBUG 1 before including. The team barrier becomes a software
// barrier in shared memory whose waits go through occ::wait_until (a thread that never arrives
// ends the launch with Error::Deadlock, primitive ForkJoin, instead of hanging); the number of
// barriers each thread passed is compared at the join, and constructs used where they cannot
// be (a barrier in serial code, a push inside a region, a region id not in the list) are
// recorded the same way (occ::expire(ForkJoin)). Without it they are undefined behaviour.
#pragma once

#include "memory.cuh"
#include "watchdog.cuh"

#ifndef OCC_FJ_DEBUG
#define OCC_FJ_DEBUG 0
#endif

namespace occ {
namespace fj {

/// Named barrier ids (hardware has 16 per CTA). __syncthreads() is barrier 0 with every thread
/// of the block: never call it once occ::fj::run has begun.
enum : unsigned { POOL_BARRIER = 0u, JOIN_BARRIER = 1u, TEAM_BARRIER = 2u };

/// Most worker warps in a team (a block of 1024 threads: 31 workers + the master warp).
enum : unsigned { MAX_WORKER_WARPS = 31u, WARP = 32u };

/// `barrier.sync id, threads` (non-aligned: threads of a warp may arrive from different places;
/// a warp counts when all its non-exited threads arrived). Also a memory fence among the
/// participants (the PTX memory model: arrive/sync synchronise with sync).
__device__ __forceinline__ void named_sync(unsigned id, unsigned threads) {
  asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/// `barrier.arrive id, threads`: arrives without waiting (release for the waiters).
__device__ __forceinline__ void named_arrive(unsigned id, unsigned threads) {
  asm volatile("barrier.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/// Cycle counter of the SM (clock64), for the benchmarks.
__device__ __forceinline__ long long cycles() { return clock64(); }

/// The team's shared state. Declare it `__shared__` in the kernel and call setup() before run().
struct Team {
  // Published by the master before a fork (read by the workers after barrier 0).
  unsigned region;        // 1 + index of the region type; 0 terminates the pool
  unsigned nthreads;      // threads of the region
  unsigned active_warps;  // ceil(nthreads / 32)
  unsigned gen;           // regions forked so far (tells the end of a region to partial warps)
  void* payload;          // the region object, on the data-sharing stack
  // Worksharing / reductions inside a region.
  unsigned long long ending;        // (gen << 32) | index of the last team barrier of region gen
  unsigned long long dyn_next[2];   // dynamic schedule counters (double-buffered)
  unsigned long long red[2][MAX_WORKER_WARPS + 1];  // per-warp partials (double-buffered)
  // Data-sharing stack: shared memory first, then the global spill area.
  unsigned char* stack;
  unsigned stack_bytes;
  unsigned sp;            // bytes used in `stack`
  unsigned char* spill;   // this block's slice of the global spill area (may be null)
  unsigned spill_bytes;
  unsigned spill_sp;
  unsigned spilled;       // high-water mark of spilled bytes (for tests / reports)
  unsigned workers;       // W * 32
  // Debug mode: the software team barrier and the arrival checks.
  unsigned dbg_count, dbg_sense, dbg_min, dbg_max, dbg_errors;

  /// Sets the data-sharing stack (shared memory, 16-byte aligned) and this block's global spill
  /// area (may be null / 0). Call from every thread before run() (same values: benign).
  __device__ void setup(unsigned char* shared_stack, unsigned shared_bytes,
                        unsigned char* global_spill, unsigned global_bytes) {
    stack = shared_stack;
    stack_bytes = shared_bytes;
    spill = global_spill;
    spill_bytes = global_bytes;
  }
};

/// Records a misuse or a failed wait of the fork-join runtime (debug mode and size errors).
__device__ __noinline__ void fail(Team& team) {
  atomicAdd(&team.dbg_errors, 1u);
  expire(ForkJoin);
}

/// One thread of a parallel region (or the team of one of a serialised region).
class Thread {
 public:
  __device__ Thread(Team& team, unsigned tid, unsigned nthreads, unsigned level)
      : team_(team), tid_(tid), n_(nthreads), level_(level), warps_((nthreads + 31u) / 32u),
        loops_(0), reds_(0), bars_(0) {}

  /// This thread's number in the region, 0 .. num_threads() - 1 (omp_get_thread_num).
  __device__ __forceinline__ unsigned thread_num() const { return tid_; }
  /// Threads in the region (omp_get_num_threads).
  __device__ __forceinline__ unsigned num_threads() const { return n_; }
  /// Nesting level: 1 in a region forked by the master, 2+ in serialised nested regions.
  __device__ __forceinline__ unsigned level() const { return level_; }
  /// Barriers this thread passed in the region (the debug mode compares them at the join).
  __device__ __forceinline__ unsigned barriers_passed() const { return bars_; }

  /// User barrier: named barrier 2 over the region's active warps only.
  __device__ __forceinline__ void barrier() {
    ++bars_;
    if (n_ == 1u) return;
#if OCC_FJ_DEBUG
    debug_barrier();
#else
    named_sync(TEAM_BARRIER, warps_ * WARP);
#endif
  }

  /// Worksharing loop, static schedule (OpenMP's default: one contiguous block of
  /// ceil((hi - lo) / n) iterations per thread), then the implicit barrier.
  template <class F>
  __device__ __forceinline__ void for_static(long long lo, long long hi, F&& f) {
    for_static_nowait(lo, hi, f);
    barrier();
  }
  /// for_static without the implicit barrier (`nowait`).
  template <class F>
  __device__ __forceinline__ void for_static_nowait(long long lo, long long hi, F&& f) {
    if (hi <= lo) return;
    const long long count = hi - lo;
    const long long per = (count + n_ - 1) / n_;
    long long b = lo + per * tid_;
    long long e = b + per < hi ? b + per : hi;
    for (long long i = b; i < e; ++i) f(i);
  }
  /// Static schedule with chunks of `chunk` iterations dealt round-robin (`schedule(static,
  /// chunk)`; chunk 1 gives coalesced accesses), then the implicit barrier.
  template <class F>
  __device__ __forceinline__ void for_static_chunk(long long lo, long long hi, long long chunk,
                                                   F&& f) {
    for_static_chunk_nowait(lo, hi, chunk, f);
    barrier();
  }
  /// for_static_chunk without the implicit barrier.
  template <class F>
  __device__ __forceinline__ void for_static_chunk_nowait(long long lo, long long hi,
                                                          long long chunk, F&& f) {
    if (chunk < 1) chunk = 1;
    const long long stride = chunk * n_;
    for (long long b = lo + chunk * tid_; b < hi; b += stride) {
      const long long e = b + chunk < hi ? b + chunk : hi;
      for (long long i = b; i < e; ++i) f(i);
    }
  }
  /// Dynamic schedule: threads take chunks of `chunk` iterations from a shared counter
  /// (atom.shared), then the implicit barrier (always: it is what makes the counter reusable).
  template <class F>
  __device__ void for_dynamic(long long lo, long long hi, long long chunk, F&& f) {
    if (chunk < 1) chunk = 1;
    if (n_ == 1u) {
      for (long long i = lo; i < hi; ++i) f(i);
      return;
    }
    const unsigned k = loops_++ & 1u;
    // Counter k^1 was last used by the loop before this one, which every thread has left
    // (its end barrier); the next loop uses it. Every thread writes the same 0.
    team_.dyn_next[k ^ 1u] = 0ull;
    for (;;) {
      const unsigned long long got =
          atomicAdd(&team_.dyn_next[k], (unsigned long long)chunk);
      const long long b = lo + (long long)got;
      if (b >= hi) break;
      const long long e = b + chunk < hi ? b + chunk : hi;
      for (long long i = b; i < e; ++i) f(i);
    }
    barrier();
  }

  /// `single`: thread 0 runs f (OpenMP allows any one thread), then the implicit barrier.
  template <class F>
  __device__ __forceinline__ void single(F&& f) {
    if (tid_ == 0u) f();
    barrier();
  }
  /// `single nowait`.
  template <class F>
  __device__ __forceinline__ void single_nowait(F&& f) {
    if (tid_ == 0u) f();
  }
  /// `master`: thread 0 runs f; no barrier.
  template <class F>
  __device__ __forceinline__ void master(F&& f) {
    if (tid_ == 0u) f();
  }

  /// Sum of v over the region's threads; every thread gets the result (one team barrier).
  template <class T>
  __device__ __forceinline__ T reduce_sum(T v) {
    return reduce(v, [](T a, T b) { return a + b; });
  }
  /// Minimum of v over the region's threads; every thread gets it.
  template <class T>
  __device__ __forceinline__ T reduce_min(T v) {
    return reduce(v, [](T a, T b) { return b < a ? b : a; });
  }
  /// Maximum of v over the region's threads; every thread gets it.
  template <class T>
  __device__ __forceinline__ T reduce_max(T v) {
    return reduce(v, [](T a, T b) { return a < b ? b : a; });
  }

  /// Reduction with an associative, commutative `op`: shuffles within each warp, the warps'
  /// partials in shared memory (double-buffered so one barrier suffices), every thread
  /// combines them. T at most 8 bytes.
  template <class T, class Op>
  __device__ T reduce(T v, Op op) {
    static_assert(sizeof(T) <= 8, "occ::fj reductions take values of at most 8 bytes");
    if (n_ == 1u) return v;
    const unsigned lane = tid_ & 31u, warp = tid_ >> 5;
    const unsigned in_warp = (warp + 1u) * 32u <= n_ ? 32u : n_ - warp * 32u;
    const unsigned mask = in_warp == 32u ? 0xffffffffu : (1u << in_warp) - 1u;
#pragma unroll
    for (unsigned d = 16u; d >= 1u; d >>= 1) {
      const T o = __shfl_down_sync(mask, v, d);
      if (lane + d < in_warp) v = op(v, o);
    }
    const unsigned k = reds_++ & 1u;
    T* slots = reinterpret_cast<T*>(&team_.red[k][0]);
    if (lane == 0u) slots[warp * (8u / sizeof(T))] = v;
    barrier();
    T r = slots[0];
    for (unsigned w = 1; w < warps_; ++w) r = op(r, slots[w * (8u / sizeof(T))]);
    return r;
  }

  /// A nested region: runs serially in this thread as a team of one (OpenMP's default of one
  /// thread for nested regions); `body` gets its own Thread (level() + 1).
  template <class B>
  __device__ __forceinline__ void parallel(unsigned /*num_threads*/, B&& body) {
    Thread inner(team_, 0u, 1u, level_ + 1u);
    body(inner);
  }

  __device__ __forceinline__ Team& team() { return team_; }

 private:
  __device__ void debug_barrier() {
    // Sense-reversing counter barrier over exactly n_ threads: each thread arrives once.
    const unsigned sense = ld_relaxed_cta(&team_.dbg_sense);
    if (atomic_add_acq_rel_cta(&team_.dbg_count, 1u) == n_ - 1u) {
      st_relaxed_cta(&team_.dbg_count, 0u);
      st_release_cta(&team_.dbg_sense, sense ^ 1u);
    } else if (!wait_until(ForkJoin, [&] { return ld_acquire_cta(&team_.dbg_sense) != sense; })) {
      atomicAdd(&team_.dbg_errors, 1u);
    }
  }

  Team& team_;
  unsigned tid_, n_, level_, warps_;
  unsigned loops_, reds_, bars_;
};

namespace detail {

template <unsigned I, class... Rs>
struct Dispatch {
  __device__ static __forceinline__ bool call(unsigned, void*, Thread&) { return false; }
};
template <unsigned I, class R, class... Rs>
struct Dispatch<I, R, Rs...> {
  __device__ static __forceinline__ bool call(unsigned id, void* p, Thread& t) {
    if (id == I) {
      (*static_cast<R*>(p))(t);
      return true;
    }
    return Dispatch<I + 1u, Rs...>::call(id, p, t);
  }
};

template <class A, class B>
struct Same {
  static constexpr bool value = false;
};
template <class A>
struct Same<A, A> {
  static constexpr bool value = true;
};

template <class T, class... Rs>
struct IndexOf {
  static constexpr unsigned value = 0u;
  static constexpr bool found = false;
};
template <class T, class R, class... Rs>
struct IndexOf<T, R, Rs...> {
  static constexpr bool same = Same<T, R>::value;
  static constexpr bool found = same || IndexOf<T, Rs...>::found;
  static constexpr unsigned value = same ? 0u : 1u + IndexOf<T, Rs...>::value;
};

/// Copies a region object word by word (regions must be trivially copyable; lambdas have no
/// copy assignment, hence no `=`).
template <class R>
__device__ __forceinline__ void copy_region(R* dst, const R* src) {
  memcpy(static_cast<void*>(dst), static_cast<const void*>(src), sizeof(R));
}

template <class T>
struct Plain {
  typedef T type;
};
template <class T>
struct Plain<T&> {
  typedef T type;
};
template <class T>
struct Plain<const T> {
  typedef T type;
};
template <class T>
struct Plain<const T&> {
  typedef T type;
};

}  // namespace detail

/// The serial code's handle (lane 0 of the master warp). `Regions...` are the region types
/// that parallel() may fork.
template <class... Regions>
class Master {
 public:
  __device__ explicit Master(Team& team) : team_(team) {}

  /// Worker threads in the pool (32 * worker warps): the most a region can have.
  __device__ __forceinline__ unsigned max_threads() const { return team_.workers; }
  /// Most bytes the data-sharing stack ever had in the global spill area.
  __device__ __forceinline__ unsigned spilled_bytes() const { return team_.spilled; }

  /// Allocates `count` T on the data-sharing stack, visible to every thread of the block:
  /// in shared memory while it fits, then in this block's global spill area; null (and an
  /// occ::expire(ForkJoin) record) when both are full. Free with release(mark()).
  template <class T>
  __device__ T* push(unsigned count = 1u) {
    const unsigned bytes = (unsigned)((sizeof(T) * count + 15u) & ~15ull);
    if (team_.sp + bytes <= team_.stack_bytes) {
      T* p = reinterpret_cast<T*>(team_.stack + team_.sp);
      team_.sp += bytes;
      return p;
    }
    if (team_.spill != nullptr && team_.spill_sp + bytes <= team_.spill_bytes) {
      T* p = reinterpret_cast<T*>(team_.spill + team_.spill_sp);
      team_.spill_sp += bytes;
      if (team_.spill_sp > team_.spilled) team_.spilled = team_.spill_sp;
      return p;
    }
    fail(team_);
    return nullptr;
  }
  /// The stack's current top (shared and spill), for release().
  __device__ __forceinline__ unsigned long long mark() const {
    return ((unsigned long long)team_.spill_sp << 32) | team_.sp;
  }
  /// Frees everything pushed since `m` was taken.
  __device__ __forceinline__ void release(unsigned long long m) {
    team_.sp = (unsigned)m;
    team_.spill_sp = (unsigned)(m >> 32);
  }

  /// Forks a region of `num_threads` threads (clamped to 1 .. max_threads()) running a copy of
  /// `body`, waits for its end (the implicit barrier), and copies the region object back into
  /// `body`. Returns false when the region could not run (the stack was full, or the debug
  /// mode found an error: then occ_ctl holds a ForkJoin record).
  template <class B>
  __device__ bool parallel(unsigned num_threads, B&& body) {
    typedef typename detail::Plain<B>::type R;
    static_assert(detail::IndexOf<R, Regions...>::found,
                  "occ::fj: this region type is not in occ::fj::run<...>'s list");
    const unsigned id = 1u + detail::IndexOf<R, Regions...>::value;
    if (num_threads < 1u) num_threads = 1u;
    if (num_threads > team_.workers) num_threads = team_.workers;
    const unsigned long long m = mark();
    R* copy = push<R>(1u);
    if (copy == nullptr) return false;
    detail::copy_region(copy, &body);
    const unsigned warps = (num_threads + 31u) / 32u;
    team_.region = id;
    team_.nthreads = num_threads;
    team_.active_warps = warps;
    team_.payload = copy;
    team_.gen += 1u;
    team_.dyn_next[0] = 0ull;
    team_.dyn_next[1] = 0ull;
#if OCC_FJ_DEBUG
    team_.dbg_min = 0xffffffffu;
    team_.dbg_max = 0u;
    const unsigned errors_before = team_.dbg_errors;
#endif
    named_arrive(POOL_BARRIER, team_.workers + WARP);  // fork: release the pool
    named_sync(JOIN_BARRIER, warps * WARP + WARP);     // join: the active warps only
    detail::copy_region(&body, copy);
    release(m);
#if OCC_FJ_DEBUG
    if (team_.dbg_min != team_.dbg_max || team_.dbg_errors != errors_before) {
      fail(team_);
      return false;
    }
#endif
    return true;
  }

  /// The `if` clause: when `cond` is false the master runs `body` itself as a team of one
  /// (no fork, no barrier: the cheap path for small trip counts); otherwise parallel().
  template <class B>
  __device__ __forceinline__ bool parallel_if(bool cond, unsigned num_threads, B&& body) {
    if (cond) return parallel(num_threads, static_cast<B&&>(body));
    // The same copy in / copy out through the data-sharing stack as a forked region, so the
    // body sees its members in block-visible memory (atomics on them stay legal).
    typedef typename detail::Plain<B>::type R;
    const unsigned long long m = mark();
    R* copy = push<R>(1u);
    if (copy == nullptr) return false;
    detail::copy_region(copy, &body);
    Thread solo(team_, 0u, 1u, 1u);
    (*copy)(solo);
    detail::copy_region(&body, copy);
    release(m);
    return true;
  }

  /// Debug mode: a barrier in serial code is a misuse (recorded); otherwise nothing.
  __device__ __forceinline__ void barrier() {
#if OCC_FJ_DEBUG
    fail(team_);
#endif
  }

 private:
  Team& team_;
};

namespace detail {

/// The worker loop of seed 003's Pseudocode 1 (WorkerFn), one per worker thread.
template <class... Regions>
__device__ void worker_loop(Team& team, unsigned tid) {
  const unsigned warp = tid >> 5;
  const unsigned pool = blockDim.x;  // (not team.workers: the master may not have written it yet)
  for (;;) {
    named_sync(POOL_BARRIER, pool);  // wait for work (acquires the master's writes)
    const unsigned id = team.region;
    if (id == 0u) return;           // termination
    const unsigned warps = team.active_warps;
    if (warp >= warps) continue;    // not needed: back to the pool at once
    const unsigned n = team.nthreads;
    const unsigned gen = team.gen;
    if (tid < n) {
      Thread t(team, tid, n, 1u);
      const bool known = Dispatch<1u, Regions...>::call(id, team.payload, t);
#if OCC_FJ_DEBUG
      if (!known) fail(team);
      atomicMin(&team.dbg_min, t.barriers_passed());
      atomicMax(&team.dbg_max, t.barriers_passed());
#else
      (void)known;
#endif
#if !OCC_FJ_DEBUG
      if ((n & 31u) != 0u) {
        // A partial last warp: its idle lanes wait at the team barrier (below) and pass it
        // once per user barrier; tell them the region ended with one more team barrier.
        // (gen, index of this final barrier): idle lanes compare it with their own count of
        // passes, so an early look (after a user barrier) cannot mistake it for the end.
        if (tid == 0u) {
          const unsigned long long e =
              ((unsigned long long)gen << 32) | (unsigned long long)(t.barriers_passed() + 1u);
          st_relaxed_cta(&team.ending, e);
        }
        named_sync(TEAM_BARRIER, warps * WARP);
      }
#endif
    } else {
      // Idle lanes of the partial last warp (tid >= n): pass team barriers until the region
      // ends, so that the active lanes of this warp see it arrive at each of theirs. (The
      // debug mode's software barrier counts threads, not warps: idle lanes take no part.)
#if !OCC_FJ_DEBUG
      for (unsigned passes = 1u;; ++passes) {
        named_sync(TEAM_BARRIER, warps * WARP);
        const unsigned long long e = ld_relaxed_cta(&team.ending);
        if (e == (((unsigned long long)gen << 32) | passes)) break;
      }
#endif
    }
    named_arrive(JOIN_BARRIER, warps * WARP + WARP);  // the implicit barrier at the end
  }
}

}  // namespace detail

/// The kernel entry of a fork-join block (seed 003's TARGET): the last warp is the master, the
/// others are the worker pool. Launch with blockDim = (32 * (W + 1), 1, 1), 1 <= W <= 31, and
/// call it as the kernel's last statement, from every thread. `serial(m)` runs on lane 0 of the
/// master warp with an occ::fj::Master<Regions...>& m; the other master lanes return at once.
/// Returns (in every thread) when the serial code has returned and the pool has ended.
template <class... Regions, class Serial>
__device__ void run(Team& team, Serial&& serial) {
  const unsigned tid = threadIdx.x;
  const unsigned master_warp = blockDim.x / 32u - 1u;
  if (tid >> 5 == master_warp) {
    if ((tid & 31u) != 0u) return;  // the seed: one SIMT thread of the master warp
    team.workers = master_warp * WARP;
    team.region = 0u;
    team.gen = 0u;
    team.ending = 0ull;
    team.sp = 0u;
    team.spill_sp = 0u;
    team.spilled = 0u;
    team.dbg_count = 0u;
    team.dbg_sense = 0u;
    team.dbg_errors = 0u;
    if (blockDim.x % 32u != 0u || master_warp < 1u || master_warp > MAX_WORKER_WARPS ||
        blockDim.y != 1u || blockDim.z != 1u) {
      fail(team);  // a shape the runtime cannot serve: record it; the pool is released below
    } else {
      Master<Regions...> m(team);
      serial(m);
    }
    team.region = 0u;
    named_arrive(POOL_BARRIER, blockDim.x);  // terminate the pool
    return;
  }
  if (blockDim.x % 32u != 0u || master_warp > MAX_WORKER_WARPS) return;
  detail::worker_loop<Regions...>(team, tid);
}

}  // namespace fj
}  // namespace occ

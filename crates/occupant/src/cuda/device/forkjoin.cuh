// occupant device library: fork-join parallel regions inside a block through warp
// specialisation (seed 003, "fork-join-warp-specialization", §V). CPU twin:
// occupant::cpu::forkjoin (same names, same semantics). Guide: docs/FORKJOIN.md.
//
// A block of 32 * (W + 1) threads (1 <= W <= 31) is split into W worker warps and one master
// warp, the last. Lane 0 of the master warp runs the serial code; the other 31 lanes of the
// master warp run no user code but meet lane 0 at every fork and join, in one non-inlined
// function whose barrier instructions the whole master warp executes together, converged
// (detail::master_warp_fork_join; lanes 1-31 stay in its loop, lane 0 enters it per fork): no
// thread of a counted warp has exited (with lanes 1-31 exited, a join was measured returning
// before its region ended) and the master's barriers avoid the divergent-barrier path
// (~120-195 cycles per region on an H100). A block of 32 * W + 1 threads is also accepted
// (experimental, docs/FORKJOIN.md "Shape"): its master warp is the one thread that runs the
// serial code, on the same path (nothing to converge at a fork, nothing exited). The worker warps wait in a pool on named barrier 0. When the master reaches
// a parallel region it writes the fork descriptor with a const region object packed after its
// first 8 bytes (16-byte stores: one for a region of up to 8 bytes) into one of two descriptor
// slots in shared memory and syncs on barrier 0 (the pool is already there), which releases the
// pool; every worker loads the slot's words that the largest packed region of the run's list
// needs in one round of shared loads, the warps that the region needs run it, the others go
// straight back to the pool. At the end of
// the region the active warps sync on barrier 1 (the join) with the master warp. A region costs
// the master a few shared stores, a call and two barrier.sync; a worker one barrier.sync, one
// round of shared loads and the join. Every hand-off is a barrier.sync on both sides
// (barrier.arrive was measured slower here, and racecheck does not order it).
//
//   named barrier  participants                      used for
//   -------------  --------------------------------  -------------------------------------------
//   0 (POOL)       every warp of the block            fork (and termination)
//   1 (JOIN)       the active warps + master warp     implicit barrier at the end of a region
//   2 (TEAM)       the active warps                   user barrier, for/single/reduction barriers
//
// Regions are C++ callables (struct with `operator()(occ::fj::Thread&)`, or a lambda whose type
// is named with decltype) listed as template arguments of occ::fj::run; the workers dispatch on
// the index of the region's type in that list with a switch (direct, inlinable calls; no
// function pointer on the hot path). Data sharing follows the callable's constness:
// - a region whose operator() is const (every non-mutable lambda) cannot change its members:
//   each worker gets its own copy of them in registers, loaded with the descriptor (OpenMP's
//   firstprivate; what a by-value capture means), and nothing is copied back;
// - a region whose operator() is not const shares its members: the threads run on one copy in
//   shared memory (atomics on members are legal), and after the join the master copies it back
//   into `body`, so members written in the region are seen by the serial code.
// A region object of up to INLINE_BYTES travels inside the descriptor slot; a larger one goes
// on the data-sharing stack (shared memory, then the global spill area), the slot holding its
// address. Regions must be trivially copyable.
//
//   #include <occupant.cuh>
//   struct Scale {                       // a region: its members are shared variables
//     float* x; float a; int n; float sum;
//     __device__ void operator()(occ::fj::Thread& t) {
//       float s = 0.f;
//       t.for_static(0, n, [&](int i) { x[i] *= a; s += x[i]; });   // worksharing + barrier
//       s = t.reduce_sum(s);                                          // every thread gets it
//       t.master([&] { sum = s; });                                   // written back to serial
//     }
//   };
//   struct Dot {                         // a const region returning a value per thread
//     const float* x; int n;
//     __device__ float operator()(occ::fj::Thread& t) const {
//       float s = 0.f;
//       t.for_static_nowait(0, n, [&](int i) { s += x[i] * x[i]; });  // the join is the barrier
//       return s;
//     }
//   };
//   extern "C" __global__ void k(float* x, int n, float* out) {
//     __shared__ occ::fj::Team team;
//     __shared__ alignas(16) unsigned char stack[1024];
//     team.setup(stack, sizeof stack, nullptr, 0);                   // no global spill area
//     occ::fj::run<Scale, Dot>(team, [&](occ::fj::Master<Scale, Dot>& m) {  // serial code
//       Scale r{x, 2.0f, n, 0.f};
//       m.parallel(m.max_threads(), r);                               // fork ... join
//       out[blockIdx.x] = r.sum + m.parallel_sum(m.max_threads(), Dot{x, n});
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
// parallel_sum/min/max(n, body) (OpenMP's `parallel reduction(op: x)`: body returns each
// thread's value; each warp folds its lanes with shuffles into one shared slot, and the master
// folds the slots after the join - no barrier besides fork and join), parallel_if(cond, n,
// body) (the OpenMP `if` clause: when false the master runs the body itself as a team of one -
// no fork, for small trip counts), push<T>(count) / mark() / release(mark) (the data-sharing
// stack: shared memory first, the global spill area when full), max_threads(),
// spilled_bytes(). `parallel for` is a region whose body is a *_nowait loop: the join is the
// loop's implicit barrier (OpenMP's combined construct has one barrier, at its end).
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
// OCC_FJ_LONE_INLINE (opt-in, measured: docs/FORKJOIN.md "Shape"): in a block of 32 W + 1
// threads (a one-thread master warp) the master thread runs its fork and join barriers inline
// (no call, no warp sync), then loads a shared word and branches on it, so that nothing after
// the join - a clock64 read included, which may otherwise execute before an inline
// barrier.sync has completed - runs before the join completed. A runtime test of the shape:
// blocks of 32 (W + 1) threads pay it (+33 cycles per region measured), hence opt-in.
#ifndef OCC_FJ_LONE_INLINE
#define OCC_FJ_LONE_INLINE 0
#endif

namespace occ {
namespace fj {

/// Named barrier ids (hardware has 16 per CTA). __syncthreads() is barrier 0 with every thread
/// of the block: never call it once occ::fj::run has begun.
enum : unsigned { POOL_BARRIER = 0u, JOIN_BARRIER = 1u, TEAM_BARRIER = 2u };

/// Most worker warps in a team (a block of 1024 threads: 31 workers + the master warp).
enum : unsigned { MAX_WORKER_WARPS = 31u, WARP = 32u };

/// Bytes of a region object that travel inside the fork descriptor (a larger one goes on the
/// data-sharing stack).
enum : unsigned { INLINE_BYTES = 64u };

/// What the join does with the values a region's threads return (parallel_sum/min/max).
enum : unsigned { RED_NONE = 0u, RED_SUM = 1u, RED_MIN = 2u, RED_MAX = 3u };

/// `barrier.sync id, threads` (non-aligned: threads of a warp may arrive from different places;
/// a warp counts when all its non-exited threads arrived). Also a memory fence among the
/// participants (the PTX memory model: a barrier.sync synchronises its participants, so their
/// shared and global accesses before it happen before those after it - no extra fence).
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
  /// A fork descriptor. The master writes slot (fork number & 1) before a fork; the workers
  /// read it after barrier 0. A warp that the region does not need reads its slot and goes
  /// back to the pool without joining, so the master may already be writing the next fork's
  /// slot meanwhile - the other one. It cannot get two forks ahead: the next fork's barrier 0
  /// waits for that warp.
  struct alignas(16) Slot {
    /// x: (reduction << 16) | (1 + index of the region type), 0 terminates the pool;
    /// y: threads of the region (0 when terminating); z, w: the first 8 bytes of a const
    /// region object that travels in the slot (detail::Packs), or the region object's address
    /// when it is on the stack (low, high word).
    uint4 head;
    /// The rest of a const region object that travels in the slot (it starts at byte 8 of
    /// the slot, right after x and y): the workers load it into registers with the header, in
    /// one round of 16-byte loads - one load for a region of up to 8 bytes.
    uint4 body[INLINE_BYTES / 16u];
    /// A non-const region object that fits: the region's threads share this copy (kept apart
    /// from `body`, which every worker loads after the fork while such a region may already
    /// be writing its members); also a const one that does not pack (aligned to 16).
    uint4 mut[INLINE_BYTES / 16u];
  } slot[2];
  /// Per-warp partials of parallel_sum/min/max (lane 0 of each active warp writes its warp's,
  /// the master folds them after the join), in buffer (fork number & 1): a buffer the master
  /// read after a join is written again two forks later, never right after the next fork
  /// barrier (compute-sanitizer racecheck reported that write-after-read across the single
  /// barrier between them when the master warp arrives at it split, lane 0 apart from 1-31).
  alignas(16) unsigned long long part[2][MAX_WORKER_WARPS + 1u];
  unsigned gen;             // forks before the serial code (the Master counts in a register)
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
  /// area (may be null / 0). Call from every thread before run(); only the master thread (lane
  /// 0 of the last warp, the one that reads them) stores.
  __device__ void setup(unsigned char* shared_stack, unsigned shared_bytes,
                        unsigned char* global_spill, unsigned global_bytes) {
    if (threadIdx.x != ((blockDim.x - 1u) & ~(WARP - 1u))) return;  // the master thread
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

/// `parallel_sum`'s operator (also usable with Thread::reduce).
struct Sum {
  enum : unsigned { id = RED_SUM };
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};
/// `parallel_min`'s operator.
struct Min {
  enum : unsigned { id = RED_MIN };
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const { return b < a ? b : a; }
};
/// `parallel_max`'s operator.
struct Max {
  enum : unsigned { id = RED_MAX };
  template <class T>
  __device__ __forceinline__ T operator()(T a, T b) const { return a < b ? b : a; }
};
namespace detail {

template <class T>
struct IsInt32 {
  static constexpr bool value = false;
};
template <>
struct IsInt32<int> {
  static constexpr bool value = true;
};
template <>
struct IsInt32<unsigned> {
  static constexpr bool value = true;
};

/// The reduction an operator is (RED_NONE for a user's operator).
template <class Op>
struct OpId {
  static constexpr unsigned value = RED_NONE;
};
template <>
struct OpId<Sum> {
  static constexpr unsigned value = RED_SUM;
};
template <>
struct OpId<Min> {
  static constexpr unsigned value = RED_MIN;
};
template <>
struct OpId<Max> {
  static constexpr unsigned value = RED_MAX;
};

/// Folds v over the first `in_warp` lanes of the calling warp with `op`; lane 0 holds the
/// result (every lane, for a whole warp). A whole warp of 32-bit integers uses one redux.sync
/// (sm_80+); other whole warps a butterfly of full-mask shuffles; a partial warp shuffles
/// under the mask of its active lanes.
template <class Op, class T>
__device__ __forceinline__ T warp_fold(Op op, T v, unsigned lane, unsigned in_warp) {
  if (in_warp == 32u) {
    if constexpr (IsInt32<T>::value && OpId<Op>::value == RED_SUM) {
      return (T)__reduce_add_sync(0xffffffffu, v);
    } else if constexpr (IsInt32<T>::value && OpId<Op>::value == RED_MIN) {
      return (T)__reduce_min_sync(0xffffffffu, v);
    } else if constexpr (IsInt32<T>::value && OpId<Op>::value == RED_MAX) {
      return (T)__reduce_max_sync(0xffffffffu, v);
    } else {
#pragma unroll
      for (unsigned d = 16u; d >= 1u; d >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, d));
      return v;
    }
  }
  const unsigned mask = (1u << in_warp) - 1u;
#pragma unroll
  for (unsigned d = 16u; d >= 1u; d >>= 1) {
    const T o = __shfl_down_sync(mask, v, d);
    if (lane + d < in_warp) v = op(v, o);
  }
  return v;
}

}  // namespace detail

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
  /// Dynamic worksharing loops this thread ran in the region (the runtime resets the counter
  /// the last one used, after the region).
  __device__ __forceinline__ unsigned dynamic_loops() const { return loops_; }

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
    if (count <= (long long)n_) {
      // At most one iteration per thread (no division): thread i runs iteration i.
      if ((long long)tid_ < count) f(lo + (long long)tid_);
      return;
    }
    if (count <= 0x7fffffffLL) {
      // 32-bit bounds: a 64-bit division is a long emulated sequence on the GPU.
      const unsigned c = (unsigned)count;
      const unsigned per32 = (c + n_ - 1u) / n_;
      const unsigned b32 = per32 * tid_;
      const unsigned e32 = b32 + per32 < c ? b32 + per32 : c;
      for (unsigned i = b32; i < e32; ++i) f(lo + (long long)i);
      return;
    }
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
    // Both counters are 0 when a region starts (thread 0 resets the one the region's last
    // dynamic loop used, after that loop's barrier: detail::worker_loop). Counter k^1 was last
    // used by the loop before this one, which every thread has left (its end barrier); the
    // next loop uses it (after this loop's end barrier). One writer.
    if (tid_ == 0u) team_.dyn_next[k ^ 1u] = 0ull;
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
    return reduce(v, Sum());
  }
  /// Minimum of v over the region's threads; every thread gets it.
  template <class T>
  __device__ __forceinline__ T reduce_min(T v) {
    return reduce(v, Min());
  }
  /// Maximum of v over the region's threads; every thread gets it.
  template <class T>
  __device__ __forceinline__ T reduce_max(T v) {
    return reduce(v, Max());
  }

  /// Reduction with an associative, commutative `op`: shuffles within each warp, the warps'
  /// partials in shared memory (double-buffered so one barrier suffices), then every warp
  /// loads the partials into its lanes and folds them with shuffles (no sequential loop over
  /// the warps). T at most 8 bytes.
  template <class T, class Op>
  __device__ T reduce(T v, Op op) {
    static_assert(sizeof(T) <= 8, "occ::fj reductions take values of at most 8 bytes");
    if (n_ == 1u) return v;
    const unsigned lane = tid_ & 31u, warp = tid_ >> 5;
    const unsigned in_warp = (warp + 1u) * 32u <= n_ ? 32u : n_ - warp * 32u;
    const unsigned mask = in_warp == 32u ? 0xffffffffu : (1u << in_warp) - 1u;
    v = detail::warp_fold(op, v, lane, in_warp);
    const unsigned k = reds_++ & 1u;
    T* slots = reinterpret_cast<T*>(&team_.red[k][0]);
    if (lane == 0u) slots[warp * (8u / sizeof(T))] = v;
    barrier();
    // Lane l folds partials l, l + in_warp, ... (a partial warp has fewer lanes than there may
    // be partials), then a shuffle tree over the first min(in_warp, warps_) lanes.
    T r = lane < warps_ ? slots[lane * (8u / sizeof(T))] : v;
    for (unsigned w = lane + in_warp; w < warps_; w += in_warp) {
      r = op(r, slots[w * (8u / sizeof(T))]);
    }
    const unsigned held = in_warp < warps_ ? in_warp : warps_;
    if (held > 1u) {
#pragma unroll
      for (unsigned d = 16u; d >= 1u; d >>= 1) {
        const T o = __shfl_down_sync(mask, r, d);
        if (lane + d < held) r = op(r, o);
      }
    }
    return __shfl_sync(mask, r, 0);
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

template <class T>
__device__ T&& declval() noexcept;

template <class... Ts>
struct VoidT {
  typedef void type;
};

/// Whether `const R&` can be called with a Thread& (a const region: its members cannot change).
template <class R, class = void>
struct ConstCall {
  static constexpr bool value = false;
};
template <class R>
struct ConstCall<R, typename VoidT<decltype(declval<const R&>()(declval<Thread&>()))>::type> {
  static constexpr bool value = true;
};

/// What a region's threads return (void, or the value that parallel_sum/min/max fold).
template <class R>
struct Result {
  typedef decltype(declval<R&>()(declval<Thread&>())) type;
};

template <class T>
struct IsVoid {
  static constexpr bool value = false;
};
template <>
struct IsVoid<void> {
  static constexpr bool value = true;
};

/// Whether a region object travels inside the descriptor slot.
template <class R>
struct Fits {
  static constexpr bool value = sizeof(R) <= INLINE_BYTES && alignof(R) <= 16u;
};

/// A const region object packed after the slot header's x and y (bytes 8 .. 8 + sizeof(R) of
/// the slot): what a worker loads with the header, in the same 16-byte words.
template <class R>
struct Packed {
  unsigned x, y;
  R r;
  __device__ __forceinline__ Packed(unsigned a, unsigned b, const R& q) : x(a), y(b), r(q) {}
};

/// Whether a region object travels packed in the slot (const, at most INLINE_BYTES + 8 bytes,
/// aligned to at most 8: it then starts at byte 8). Other const regions go on the stack.
template <class R>
struct Packs {
  static constexpr bool value = sizeof(R) <= INLINE_BYTES + 8u && alignof(R) <= 8u &&
                                sizeof(Packed<R>) <= 16u + INLINE_BYTES;
};

/// A packed region object with its header as 16-byte words.
template <class R>
union PackedWords {
  uint4 w[(sizeof(Packed<R>) + 15u) / 16u];
  Packed<R> p;
  __device__ __forceinline__ PackedWords(unsigned x, unsigned y, const R& r) : p(x, y, r) {}
  __device__ __forceinline__ explicit PackedWords(const uint4* src) : w() {
#pragma unroll
    for (unsigned i = 0; i < (sizeof(Packed<R>) + 15u) / 16u; ++i) w[i] = src[i];
  }
};

/// A region object as 16-byte words (for one-instruction-per-16-bytes copies into and out of
/// the descriptor slot and into a worker's registers).
template <class R>
union Words {
  uint4 w[(sizeof(R) + 15u) / 16u];
  R r;
  __device__ __forceinline__ explicit Words(const R& x) : r(x) {}
  __device__ __forceinline__ explicit Words(const uint4* src) : w() {
#pragma unroll
    for (unsigned i = 0; i < (sizeof(R) + 15u) / 16u; ++i) w[i] = src[i];
  }
};

/// Copies a region object (regions must be trivially copyable; lambdas have no copy
/// assignment, hence no `=`).
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

/// A descriptor slot as a worker loaded it: its first `N` 16-byte words (the header, with the
/// largest packed const region of the run's list after its x and y), issued together right
/// after the fork barrier. `ld.volatile`: with plain `ld.shared` ptxas sank the
/// object's loads below the branch on the region id (a second, dependent shared round trip on
/// every fork; a volatile load is neither dropped nor moved off a path) - but then every load
/// is paid by every worker warp on every fork (loading all 80 bytes: +140 cycles per region
/// with 31 worker warps on an H100), hence only the words some region needs.
struct Loaded {
  uint4 w[1u + INLINE_BYTES / 16u];  // w[0]: the header (x, y, then a packed region or address)
};

template <unsigned N>
__device__ __forceinline__ void load_slot(unsigned a, Loaded& l) {
#pragma unroll
  for (unsigned i = 0; i < N; ++i) {
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(l.w[i].x), "=r"(l.w[i].y), "=r"(l.w[i].z), "=r"(l.w[i].w)
                 : "r"(a + 16u * i));
  }
}

/// Folds v over the active lanes of this thread's warp with `op`; lane 0 writes the warp's
/// partial for the master (read after the join: no barrier of its own).
template <class Op, class T>
__device__ __forceinline__ void warp_partial(Team& team, unsigned buf, const Thread& t, Op op,
                                             T v) {
  static_assert(sizeof(T) <= 8, "occ::fj reductions take values of at most 8 bytes");
  const unsigned n = t.num_threads(), tid = t.thread_num();
  const unsigned lane = tid & 31u, warp = tid >> 5;
  const unsigned in_warp = (warp + 1u) * 32u <= n ? 32u : n - warp * 32u;
  v = warp_fold(op, v, lane, in_warp);
  if (lane == 0u) reinterpret_cast<T*>(team.part[buf])[warp] = v;
}

/// Calls a region and, for one that returns a value, contributes it to the join's reduction.
template <class F>
__device__ __forceinline__ void invoke(Team& team, Thread& t, unsigned red, unsigned buf, F& f) {
  typedef decltype(f(t)) Ret;
  if constexpr (IsVoid<Ret>::value) {
    f(t);
  } else {
    const Ret v = f(t);
    if (red == RED_SUM) {
      warp_partial(team, buf, t, Sum(), v);
    } else if (red == RED_MIN) {
      warp_partial(team, buf, t, Min(), v);
    } else if (red == RED_MAX) {
      warp_partial(team, buf, t, Max(), v);
    }
  }
}

/// Runs region R from the loaded slot: a const region on a private copy in registers, a
/// non-const one on the shared copy (inline in the slot, or on the stack).
template <class R>
__device__ __forceinline__ void run_region(Team& team, Team::Slot& s, const Loaded& l,
                                           Thread& t, unsigned red, unsigned buf) {
  if constexpr (ConstCall<R>::value && Packs<R>::value) {
    const PackedWords<R> u(l.w);
    invoke(team, t, red, buf, u.p.r);
  } else if constexpr (Fits<R>::value) {
    // In the slot's shared words: a non-const region (its threads share this copy), or a
    // const one that does not pack (aligned to 16).
    if constexpr (ConstCall<R>::value) {
      invoke(team, t, red, buf, *reinterpret_cast<const R*>(&s.mut[0]));
    } else {
      invoke(team, t, red, buf, *reinterpret_cast<R*>(&s.mut[0]));
    }
  } else {
    R* p = reinterpret_cast<R*>(((unsigned long long)l.w[0].w << 32) | l.w[0].z);
    if constexpr (ConstCall<R>::value) {
      invoke(team, t, red, buf, *static_cast<const R*>(p));
    } else {
      invoke(team, t, red, buf, *p);
    }
  }
}

/// 16-byte words of the slot a worker loads on every fork: the header, with the largest
/// packed const region of a run's list.
template <class... Rs>
struct LoadWords {
  static constexpr unsigned value = 1u;
};
template <class R, class... Rs>
struct LoadWords<R, Rs...> {
  static constexpr unsigned own =
      ConstCall<R>::value && Packs<R>::value ? (unsigned)((sizeof(Packed<R>) + 15u) / 16u) : 1u;
  static constexpr unsigned rest = LoadWords<Rs...>::value;
  static constexpr unsigned value = own > rest ? own : rest;
};

/// The end of a region in one of its threads: the counter of the region's last dynamic loop
/// is reset for the next region (thread 0; every thread left that loop: its barrier; the join
/// and the next fork order this store before its use), the debug mode's arrival counts, the
/// end of a partial last warp's region for its idle lanes, and the join. Inlined into each
/// region's case of the dispatch, so that what a region cannot need (no dynamic loop, no
/// barrier count) folds away and each case runs straight to its join.
__device__ __forceinline__ void region_end(Team& team, Thread& t, unsigned forks) {
  const unsigned tid = t.thread_num(), n = t.num_threads();
  if (tid == 0u && t.dynamic_loops() != 0u) {
    team.dyn_next[(t.dynamic_loops() - 1u) & 1u] = 0ull;
  }
#if OCC_FJ_DEBUG
  atomicMin(&team.dbg_min, t.barriers_passed());
  atomicMax(&team.dbg_max, t.barriers_passed());
#else
  if ((n & 31u) != 0u) {
    // A partial last warp: its idle lanes wait at the team barrier (worker_loop) and pass it
    // once per user barrier; tell them the region ended with one more team barrier.
    // (fork number, index of this final barrier): idle lanes compare it with their own
    // count of passes, so an early look (after a user barrier) cannot mistake it for the
    // end. (barrier.red.popc would carry this flag without a shared word, but it is illegal
    // when the threads of a warp reach it from different places - measured on the H100:
    // "illegal instruction", synccheck "divergent threads" - and here they must.)
    if (tid == 0u) {
      const unsigned long long e =
          ((unsigned long long)forks << 32) | (unsigned long long)(t.barriers_passed() + 1u);
      st_relaxed_cta(&team.ending, e);
    }
    named_sync(TEAM_BARRIER, (n + 31u) & ~31u);
  }
#endif
  // The implicit barrier at the end: barrier.sync (not arrive) so that the hand-off of the
  // region's writes to the master is a sync on both sides (compute-sanitizer racecheck does
  // not order a barrier.arrive before the waiters' reads: it reported every parallel_sum
  // partial when the workers arrived here, scripts/forkjoin-cost-probe.cu). The master is
  // already waiting, so this costs the workers nothing.
  named_sync(JOIN_BARRIER, ((n + 31u) & ~31u) + WARP);
}

template <unsigned I, class... Rs>
struct Dispatch {
  __device__ static __forceinline__ bool call(unsigned, unsigned, unsigned, Team&, Team::Slot&,
                                              const Loaded&, Thread&) {
    return false;
  }
};
/// Runs the region whose index in the run's list is `id` - 1, then its end (region_end, the
/// join included); false for an id not in the list (nothing run).
template <unsigned I, class R, class... Rs>
struct Dispatch<I, R, Rs...> {
  __device__ static __forceinline__ bool call(unsigned id, unsigned red, unsigned forks,
                                              Team& team, Team::Slot& s, const Loaded& l,
                                              Thread& t) {
    if (id == I) {
      run_region<R>(team, s, l, t, red, forks & 1u);
      region_end(team, t, forks);
      return true;
    }
    return Dispatch<I + 1u, Rs...>::call(id, red, forks, team, s, l, t);
  }
};

/// v[0] = fold of v[0 .. 2H) as a tree (levels as template recursion: a loop over the levels
/// was not unrolled for 32 values, and the array went to local memory).
template <unsigned H>
struct Tree {
  template <class T, class Op>
  __device__ static __forceinline__ void fold(T* v, Op op) {
#pragma unroll
    for (unsigned i = 0; i < H; ++i) v[i] = op(v[i], v[i + H]);
    Tree<H / 2u>::fold(v, op);
  }
};
template <>
struct Tree<0u> {
  template <class T, class Op>
  __device__ static __forceinline__ void fold(T*, Op) {}
};

/// N partials (4- or 8-byte T) loaded with unconditional 16-byte shared loads, issued together,
/// the slots past `warps` replaced by `fill`, folded as a tree.
template <unsigned N, class Op, class T>
__device__ __forceinline__ T fold_block(const T* p, unsigned warps, Op op, T fill) {
  union {
    uint4 w[N * sizeof(T) / 16u];
    T t[N];
  } u;
  const uint4* q = reinterpret_cast<const uint4*>(p);
#pragma unroll
  for (unsigned i = 0; i < N * sizeof(T) / 16u; ++i) u.w[i] = q[i];
  T v[N];
#pragma unroll
  for (unsigned i = 0; i < N; ++i) v[i] = i < warps ? u.t[i] : fill;
  Tree<N / 2u>::fold(v, op);
  return v[0];
}

/// The master's fold of the warps' partials after the join (`fill` pads: the operator's
/// identity, or a partial for the idempotent min and max). Up to 8 warps: 2 or 4 loads of 16
/// bytes; more: 8 or 16, all issued together (the partial array is 16-byte aligned).
template <class Op, class T>
__device__ __forceinline__ T fold_partials(const Team& team, unsigned buf, unsigned warps, Op op,
                                           T fill) {
  const T* p = reinterpret_cast<const T*>(team.part[buf]);
  if constexpr (sizeof(T) == 4u || sizeof(T) == 8u) {
    if (warps <= 8u) return fold_block<8u>(p, warps, op, fill);
    return fold_block<32u>(p, warps, op, fill);
  } else {
    T acc = p[0];
    for (unsigned w = 1u; w < warps; ++w) acc = op(acc, p[w]);
    return acc;
  }
}

}  // namespace detail

namespace detail {
__device__ __noinline__ void master_warp_fork_join(unsigned slots, unsigned gen, unsigned pool,
                                                     bool follow);
__device__ __forceinline__ unsigned shared_address(const void* p);
}  // namespace detail

/// The serial code's handle (lane 0 of the master warp). `Regions...` are the region types
/// that parallel() may fork.
template <class... Regions>
class Master {
 public:
  /// Takes the team's stack bounds and counters (set by setup() and run()) into registers:
  /// only this thread changes them, so the fork path reads no shared word for its own state.
  __device__ explicit Master(Team& team)
      : team_(team), stack_(team.stack), spill_(team.spill), stack_bytes_(team.stack_bytes),
        spill_bytes_(team.spill_bytes), sp_(team.sp), spill_sp_(team.spill_sp), gen_(team.gen),
        workers_(team.workers), slots_(detail::shared_address(&team.slot[0])) {
#if OCC_FJ_LONE_INLINE
    lone_ = blockDim.x % WARP == 1u;
#endif
  }

  /// Worker threads in the pool (32 * worker warps): the most a region can have.
  __device__ __forceinline__ unsigned max_threads() const { return workers_; }
  /// Forks so far (the next fork's descriptor slot is (forks() + 1) & 1).
  __device__ __forceinline__ unsigned forks() const { return gen_; }
  /// Most bytes the data-sharing stack ever had in the global spill area.
  __device__ __forceinline__ unsigned spilled_bytes() const { return team_.spilled; }

  /// Allocates `count` T on the data-sharing stack, visible to every thread of the block:
  /// in shared memory while it fits, then in this block's global spill area; null (and an
  /// occ::expire(ForkJoin) record) when both are full. Free with release(mark()).
  template <class T>
  __device__ T* push(unsigned count = 1u) {
    const unsigned bytes = (unsigned)((sizeof(T) * count + 15u) & ~15ull);
    if (sp_ + bytes <= stack_bytes_) {
      T* p = reinterpret_cast<T*>(stack_ + sp_);
      sp_ += bytes;
      return p;
    }
    if (spill_ != nullptr && spill_sp_ + bytes <= spill_bytes_) {
      T* p = reinterpret_cast<T*>(spill_ + spill_sp_);
      spill_sp_ += bytes;
      if (spill_sp_ > team_.spilled) team_.spilled = spill_sp_;
      return p;
    }
    fail(team_);
    return nullptr;
  }
  /// The stack's current top (shared and spill), for release().
  __device__ __forceinline__ unsigned long long mark() const {
    return ((unsigned long long)spill_sp_ << 32) | sp_;
  }
  /// Frees everything pushed since `m` was taken.
  __device__ __forceinline__ void release(unsigned long long m) {
    sp_ = (unsigned)m;
    spill_sp_ = (unsigned)(m >> 32);
  }

  /// Forks a region of `num_threads` threads (clamped to 1 .. max_threads()) running `body`
  /// (see the file comment for how its members are shared), and waits for its end (the
  /// implicit barrier). Returns false when the region could not run (the stack was full, or the
  /// debug mode found an error: then occ_ctl holds a ForkJoin record).
  template <class B>
  __device__ __forceinline__ bool parallel(unsigned num_threads, B&& body) {
    return fork(num_threads, body, RED_NONE) != 0u;
  }

  /// `parallel reduction(+: x)`: forks a region whose body returns each thread's value and
  /// returns their sum (0 when the region could not run). The warps fold their lanes with
  /// shuffles into one shared slot each; the master folds the slots after the join.
  template <class B>
  __device__ __forceinline__ typename detail::Result<typename detail::Plain<B>::type>::type
  parallel_sum(unsigned num_threads, B&& body) {
    return reduce_region(num_threads, body, Sum());
  }
  /// `parallel reduction(min: x)`: the smallest value the region's threads return.
  template <class B>
  __device__ __forceinline__ typename detail::Result<typename detail::Plain<B>::type>::type
  parallel_min(unsigned num_threads, B&& body) {
    return reduce_region(num_threads, body, Min());
  }
  /// `parallel reduction(max: x)`: the largest value the region's threads return.
  template <class B>
  __device__ __forceinline__ typename detail::Result<typename detail::Plain<B>::type>::type
  parallel_max(unsigned num_threads, B&& body) {
    return reduce_region(num_threads, body, Max());
  }

  /// The `if` clause: when `cond` is false the master runs `body` itself as a team of one
  /// (no fork, no barrier: the cheap path for small trip counts); otherwise parallel().
  template <class B>
  __device__ __forceinline__ bool parallel_if(bool cond, unsigned num_threads, B&& body) {
    if (cond) return parallel(num_threads, body);
    typedef typename detail::Plain<B>::type R;
    Thread solo(team_, 0u, 1u, 1u);
    if constexpr (detail::ConstCall<R>::value) {
      static_cast<const R&>(body)(solo);  // a const region: the same values as a private copy
      return true;
    } else {
      // The same copy in / copy out through the data-sharing stack as a forked region, so the
      // body sees its members in block-visible memory (atomics on them stay legal).
      const unsigned long long m = mark();
      R* copy = push<R>(1u);
      if (copy == nullptr) return false;
      detail::copy_region(copy, &body);
      (*copy)(solo);
      detail::copy_region(&body, copy);
      release(m);
      return true;
    }
  }

  /// Debug mode: a barrier in serial code is a misuse (recorded); otherwise nothing.
  __device__ __forceinline__ void barrier() {
#if OCC_FJ_DEBUG
    fail(team_);
#endif
  }

 private:
  template <class B, class Op>
  __device__ __forceinline__ typename detail::Result<typename detail::Plain<B>::type>::type
  reduce_region(unsigned num_threads, B& body, Op op) {
    typedef typename detail::Result<typename detail::Plain<B>::type>::type T;
    static_assert(!detail::IsVoid<T>::value,
                  "occ::fj: parallel_sum/min/max need a region whose operator() returns a value");
    const unsigned warps = fork(num_threads, body, Op::id);
    if (warps == 0u) return T(0);
    // After the join every active warp's partial is in team.part[fork & 1] (barrier 1 ordered
    // it).
    const unsigned buf = gen_ & 1u;
    // Padding: 0 for a sum; for min and max (idempotent) warp 0's partial, which is in the fold.
    const T fill = Op::id == RED_SUM ? T(0) : *reinterpret_cast<const T*>(team_.part[buf]);
    return detail::fold_partials(team_, buf, warps, op, fill);
  }

  /// Fork and join; returns the region's warps (0: it could not run).
  template <class B>
  __device__ unsigned fork(unsigned num_threads, B& body, unsigned red) {
    typedef typename detail::Plain<B>::type R;
    static_assert(detail::IndexOf<R, Regions...>::found,
                  "occ::fj: this region type is not in occ::fj::run<...>'s list");
    const unsigned id = 1u + detail::IndexOf<R, Regions...>::value;
    if (num_threads < 1u) num_threads = 1u;
    if (num_threads > workers_) num_threads = workers_;
    const unsigned warps = (num_threads + 31u) / 32u;
    const unsigned gen = gen_ + 1u;
    Team::Slot& s = team_.slot[gen & 1u];
    // Publish: the descriptor with a const region packed after its x and y (16-byte stores:
    // one for a region of up to 8 bytes), or the descriptor (one 16-byte store) and the region
    // object (16-byte stores into the slot's shared words, or a copy on the stack). No fence:
    // barrier 0 orders them for the workers.
    const unsigned long long m = mark();
    R* copy = nullptr;
    const unsigned x = id | (red << 16);
    if constexpr (detail::ConstCall<R>::value && detail::Packs<R>::value) {
      const detail::PackedWords<R> u(x, num_threads, body);
      s.head = u.w[0];
#pragma unroll
      for (unsigned i = 1; i < (sizeof(detail::Packed<R>) + 15u) / 16u; ++i) s.body[i - 1u] = u.w[i];
    } else {
      if constexpr (detail::Fits<R>::value) {  // non-const, or const aligned to 16
        const detail::Words<R> u(body);
#pragma unroll
        for (unsigned i = 0; i < (sizeof(R) + 15u) / 16u; ++i) s.mut[i] = u.w[i];
      } else {
        copy = push<R>(1u);
        if (copy == nullptr) return 0u;
        detail::copy_region(copy, &body);
      }
      const unsigned long long at = (unsigned long long)copy;
      s.head = make_uint4(x, num_threads, (unsigned)at, (unsigned)(at >> 32));
    }
    gen_ = gen;
#if OCC_FJ_DEBUG
    team_.dbg_min = 0xffffffffu;
    team_.dbg_max = 0u;
    const unsigned errors_before = team_.dbg_errors;
#endif
    // Fork: barrier.sync, not arrive. The pool is already waiting (the previous region's warps
    // went back to it right after the join), so waiting costs the master next to nothing, and
    // the hand-off is a barrier.sync on both sides.
    // Fork and join, with the master warp's lanes 1-31 at the same instructions (see
    // detail::master_warp_fork_join): join = the active warps + the master warp.
    // (A one-thread master warp's own two inlined barrier.sync looked wrong - a join "returned"
    // before a region of 1000 team barriers ended - but only the timer was: a clock64 read
    // right after an inline barrier.sync runs before the barrier completes, while loads after
    // it are ordered (branch i8-fj-floor, the cost probe's jointime rows; docs/FORKJOIN.md,
    // "Shape"). OCC_FJ_LONE_INLINE is that path.)
#if OCC_FJ_LONE_INLINE
    if (lone_) {
      // The master warp is this thread: its own barriers, inline. Then a load of the slot's
      // first word and a branch on it: nothing after this can run before the join completed
      // (the barrier orders the load; the branch waits for the load).
      named_sync(POOL_BARRIER, workers_ + WARP);
      named_sync(JOIN_BARRIER, warps * WARP + WARP);
      const unsigned at = slots_ + (gen & 1u) * (unsigned)sizeof(Team::Slot);
      unsigned v;
      asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(at) : "memory");
      if (v == 0u) __trap();  // the slot holds this region's id (>= 1)
    } else {
      detail::master_warp_fork_join(slots_, gen, workers_ + WARP, false);
    }
#else
    detail::master_warp_fork_join(slots_, gen, workers_ + WARP, false);
#endif
    if constexpr (!detail::ConstCall<R>::value) {
      // Shared members: copy the region's copy back (a const region cannot have changed).
      if constexpr (detail::Fits<R>::value) {  // (non-const: in the slot's shared words)
        const detail::Words<R> u(&s.mut[0]);
        detail::copy_region(&body, &u.r);
      } else {
        detail::copy_region(&body, copy);
      }
    }
    release(m);
#if OCC_FJ_DEBUG
    if (team_.dbg_min != team_.dbg_max || team_.dbg_errors != errors_before) {
      fail(team_);
      return 0u;
    }
#endif
    return warps;
  }

  Team& team_;
  unsigned char* stack_;
  unsigned char* spill_;
  unsigned stack_bytes_, spill_bytes_, sp_, spill_sp_, gen_, workers_;
  unsigned slots_;  // shared-window address of team.slot[0] (the master warp's loads)
#if OCC_FJ_LONE_INLINE
  bool lone_;  // a one-thread master warp (blocks of 32 W + 1 threads)
#endif
};

namespace detail {

/// The worker loop of seed 003's Pseudocode 1 (WorkerFn), one per worker thread.
template <class... Regions>
__device__ void worker_loop(Team& team, unsigned tid) {
  const unsigned warp = tid >> 5;
  // Every warp, counted whole (not team.workers: the master may not have written it yet).
  const unsigned pool = (blockDim.x + WARP - 1u) & ~(WARP - 1u);
  // The slots' shared address, once, kept in a register (an opaque copy: otherwise ptxas
  // recomputes it after each fork barrier, an S2R of the CTA's shared window on every fork's
  // path before the descriptor loads).
  unsigned slots;
  asm volatile("mov.u32 %0, %1;"
               : "=r"(slots)
               : "r"((unsigned)__cvta_generic_to_shared(&team.slot[0])));
  for (unsigned forks = 1u;; ++forks) {
    // This fork's slot address, computed before the barrier (opaque copy: ptxas otherwise
    // puts the arithmetic after it, on the path to the descriptor loads).
    unsigned at;
    asm volatile("mov.u32 %0, %1;"
                 : "=r"(at)
                 : "r"(slots + (forks & 1u) * (unsigned)sizeof(Team::Slot)));
    named_sync(POOL_BARRIER, pool);  // wait for work (orders the master's writes before)
    Team::Slot& s = team.slot[forks & 1u];
    Loaded l;
    load_slot<LoadWords<Regions...>::value>(at, l);
    const unsigned id = l.w[0].x & 0xffffu;
    const unsigned n = l.w[0].y;     // 0 in a terminating descriptor (id 0)
    const unsigned warps = (n + 31u) / 32u;
    // The region's id for its threads, 0 for the others: a select (made opaque, so that the
    // compiler does not turn it back into a branch on tid < n), so that a thread of the region
    // reaches its case through the compare chain alone and each case runs straight to its
    // join. A thread not in the region falls through every compare.
    unsigned key;
    asm volatile("mov.u32 %0, %1;" : "=r"(key) : "r"(tid < n ? id : 0u));
    Thread t(team, tid, n, 1u);
    // (A switch on the id - a jump table or a tree of compares, as NVVM chooses - was
    // measured slower: +90 cycles per region for the 1st type, +26 for the 6th.)
    if (Dispatch<1u, Regions...>::call(key, l.w[0].x >> 16, forks, team, s, l, t)) continue;
    if (tid < n) {
#if OCC_FJ_DEBUG
      fail(team);  // a region id not in the list
#endif
      region_end(team, t, forks);
      continue;
    }
    if (id == 0u) return;         // termination
    if (warp >= warps) continue;  // not needed: back to the pool at once
    // Idle lanes of the partial last warp (tid >= n): pass team barriers until the region
    // ends, so that the active lanes of this warp see it arrive at each of theirs. (The
    // debug mode's software barrier counts threads, not warps: idle lanes take no part.)
#if !OCC_FJ_DEBUG
    for (unsigned passes = 1u;; ++passes) {
      named_sync(TEAM_BARRIER, warps * WARP);
      const unsigned long long e = ld_relaxed_cta(&team.ending);
      if (e == (((unsigned long long)forks << 32) | passes)) break;
    }
#endif
    named_sync(JOIN_BARRIER, warps * WARP + WARP);  // the join (see region_end)
  }
}

/// The shared-window address of p (kept opaque: ptxas otherwise re-derives it, with an S2R of
/// the CTA's shared window, next to every use).
__device__ __forceinline__ unsigned shared_address(const void* p) {
  unsigned a;
  asm volatile("mov.u32 %0, %1;" : "=r"(a) : "r"((unsigned)__cvta_generic_to_shared(p)));
  return a;
}

/// The master warp's side of forks and joins, run by all 32 lanes of the master warp at the
/// same instructions: lane 0 calls it from Master::fork for one fork (`follow` false) and
/// returns after the join; lanes 1-31 call it once from master_lanes (`follow` true) and stay
/// in its loop until the pool terminates. `gen` is the fork's number (its slot is gen & 1).
/// Not inlined, so that lane 0 and lanes 1-31 reach one copy of these instructions: the warp
/// sync brings the two halves of the warp together, and the warp arrives at each barrier
/// converged. (With lane 0 and lanes 1-31 reaching their own barrier instructions, every
/// master barrier took the compiler's divergent path - `WARPSYNC.COLLECTIVE` around `BAR.SYNC`
/// - measured at ~195 cycles per fork + join with one worker warp, ~120 with 31, on an H100;
/// letting lanes 1-31 exit instead is not an option: the same probe saw the join of a region
/// with team barriers return before the region ended.) The join's thread count comes from the
/// slot's header, loaded by the whole warp after the fork barrier (lane 0 wrote it before):
/// no shuffle before the fork barrier, and the load is off the critical path (the region's
/// warps load the same header and run the region before they reach the join). A header of 0
/// terminates the pool: no join.
__device__ __noinline__ void master_warp_fork_join(unsigned slots, unsigned gen, unsigned pool,
                                                   bool follow) {
  for (;;) {
    __syncwarp();
    const unsigned at = slots + (gen & 1u) * (unsigned)sizeof(Team::Slot);
    named_sync(POOL_BARRIER, pool);  // fork: the pool is waiting there
    unsigned id, n;
    asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(id), "=r"(n) : "r"(at));
    if (id == 0u) return;  // termination
    named_sync(JOIN_BARRIER, ((n + 31u) & ~31u) + WARP);  // join: the region's warps + this warp
    if (!follow) return;
    ++gen;
  }
}

/// Lanes 1-31 of the master warp: they pass every fork and join barrier beside lane 0 (which
/// runs the serial code), so that the master warp arrives at each with all its threads.
__device__ __forceinline__ void master_lanes(Team& team, unsigned pool) {
  master_warp_fork_join(shared_address(&team.slot[0]), 1u, pool, true);
}

}  // namespace detail

/// The kernel entry of a fork-join block (seed 003's TARGET): the last warp is the master, the
/// others are the worker pool. Launch with blockDim = (32 * (W + 1), 1, 1) or (32 * W + 1, 1,
/// 1) (a one-thread master warp), 1 <= W <= 31, and call it as the kernel's last statement,
/// from every thread. `serial(m)` runs on lane 0 of the master warp with an
/// occ::fj::Master<Regions...>& m (name the type: NVRTC 13.0 rejects a generic `[&](auto& m)`
/// lambda at kernel scope); the other master lanes, if any, follow the forks and joins
/// (waiting at a warp sync meanwhile: no full-mask warp collective in serial code).
/// Returns (in every thread) when the serial code has returned and the pool has ended.
template <class... Regions, class Serial>
__device__ void run(Team& team, Serial&& serial) {
  const unsigned rem = blockDim.x % WARP;
  if ((rem != 0u && rem != 1u) || blockDim.x < 2u * WARP - 31u * rem ||
      blockDim.x > (MAX_WORKER_WARPS + 1u) * WARP || blockDim.y != 1u || blockDim.z != 1u) {
    // A shape the runtime cannot serve: one thread records it, nobody waits on anything.
    if (threadIdx.x == 0u && threadIdx.y == 0u && threadIdx.z == 0u) expire(ForkJoin);
    return;
  }
  const unsigned tid = threadIdx.x;
  const unsigned master_warp = (blockDim.x - 1u) / WARP;
  const unsigned pool = (blockDim.x + WARP - 1u) & ~(WARP - 1u);  // every warp, counted whole
  if (tid >> 5 == master_warp) {
    if ((tid & 31u) != 0u) {
      detail::master_lanes(team, pool);
      return;
    }
    team.workers = master_warp * WARP;
    team.slot[0].head = make_uint4(0u, 0u, 0u, 0u);
    team.slot[1].head = make_uint4(0u, 0u, 0u, 0u);
    team.gen = 0u;
    team.ending = 0ull;
    team.dyn_next[0] = 0ull;
    team.dyn_next[1] = 0ull;
    team.sp = 0u;
    team.spill_sp = 0u;
    team.spilled = 0u;
    team.dbg_count = 0u;
    team.dbg_sense = 0u;
    team.dbg_errors = 0u;
    Master<Regions...> m(team);
    serial(m);
    // The next fork's slot says: terminate (id 0, no threads).
    team.slot[(m.forks() + 1u) & 1u].head = make_uint4(0u, 0u, 0u, 0u);
    // Terminate the pool and lanes 1-31.
    detail::master_warp_fork_join(detail::shared_address(&team.slot[0]), m.forks() + 1u, pool,
                                  false);
    return;
  }
  detail::worker_loop<Regions...>(team, tid);
}

}  // namespace fj
}  // namespace occ

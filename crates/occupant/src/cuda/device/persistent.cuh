// occupant device library: occ::PersistentKernel, the one object a persistent kernel needs —
// occupancy discovery (discovery.cuh) and the device's default inter-block barrier, bundled.
// CPU twin: occupant::cpu (persistent API). Host side: occupant::cuda::PersistentProgram.
//
//   extern "C" __global__ void k(unsigned* data, unsigned n) {
//     occ::PersistentKernel p;              // discovery: every thread of every block
//     if (!p.participating()) return;       // non-participants leave at once
//     for (unsigned it = 0; it < 100; ++it) {
//       for (unsigned i = p.thread_id(); i < n; i += p.num_threads()) data[i] += 1;
//       if (!p.barrier()) return;           // false: the watchdog aborted the launch
//     }
//   }
//
// Launch it with PersistentProgram::launch (host): it compiles the program with the device's
// default barrier (its machine abstraction; -DOCC_PERSISTENT_BARRIER=<occ::Prim id>), launches in
// discovery mode with the hardware bound on resident blocks, zeroes the state below and writes
// the occupancy API's bound as the discovery hint before every launch, and reports the
// participants and the time. Nothing is passed as a kernel argument and no device type name is
// formatted into the source.
//
// State: the module global `occ_persistent` (C linkage): the hint, the barrier's placement, then
// the barrier's words
// (XF: arrive + go per group; atomic: 64 words; hierarchical: 32 words; gather / spread 8192;
// replica / lean 1024; lean_bell 64; lean_pause / lean_eager 32; relay / relay_pause 16384; not tree, whose 24672 words do not fit), at most
// OCC_PERSISTENT_MAX_GROUPS participating blocks (the host checks the grid against it).
//
// Placement (OCC_PERSISTENT_PLACEMENTS = K > 1, set by PersistentProgram): the barrier's words
// start `offset` words into `barrier`, one of K candidate places OCC_PERSISTENT_PLACEMENT_STRIDE
// words apart, the first one stride in (never on the line after the header: there stencil cc
// ran 5 % slower on an H100 in every module load, which no bare-barrier probe showed). How fast
// one line takes ~1000 arrivals and polls depends on where its physical address falls in the L2
// (docs/PERSISTENT.md "Where the barrier lives"), so the host times a short barrier loop,
// occ_persistent_placement_probe, at each candidate before the first launch and keeps the
// fastest (and `no_pause` where the barrier's pause before its first poll costs).
#pragma once

#include "atomic_barrier.cuh"
#include "combining_barrier.cuh"
#include "discovery.cuh"
#include "hierarchical_barrier.cuh"
#include "replica_barrier.cuh"
#include "xf_barrier.cuh"

#ifndef OCC_PERSISTENT_BARRIER
#define OCC_PERSISTENT_BARRIER 4  // occ::Prim id: 2 XfBarrier, 3 AtomicBarrier, 4 Hierarchical
#endif
#ifndef OCC_PERSISTENT_MAX_GROUPS
#define OCC_PERSISTENT_MAX_GROUPS 8192
#endif
#ifndef OCC_PERSISTENT_PLACEMENTS
#define OCC_PERSISTENT_PLACEMENTS 1
#endif
// 0 (default): PersistentKernel holds its barrier object in every thread's registers, as a raw
// barrier kind does. 1: in shared memory (occ::SharedBarrier), for kernels whose registers are
// capped (__launch_bounds__) and would spill with it — at 150-730 ns more per barrier (H100:
// 132x1024 lean 1032 -> 1431 ns, 1056x256 lean_pause 1694 -> 1870, 2112x128 relay 2123 -> 2854;
// crates/occupant/examples/barrier_wrapper_lab.rs).
#ifndef OCC_PERSISTENT_SHARED_BARRIER
#define OCC_PERSISTENT_SHARED_BARRIER 0
#endif
#ifndef OCC_PERSISTENT_PLACEMENT_STRIDE
#define OCC_PERSISTENT_PLACEMENT_STRIDE 9248  // words: 36 KiB + 128 bytes
#endif

namespace occ {

/// The layout of `occ_persistent` (host mirror: occupant::cuda::persistent).
struct __align__(128) PersistentState {
  u32 hint;    // the occupancy API's bound on resident blocks (0 = none); written by the host
  u32 offset;  // words from barrier[0] to the barrier's state (the chosen placement); host
  u32 no_pause;  // 1: no pause before the first poll (the probe found it faster); host
  u32 pad[29];
  u32 barrier[2 * OCC_PERSISTENT_MAX_GROUPS +
              (OCC_PERSISTENT_PLACEMENTS > 1 ? OCC_PERSISTENT_PLACEMENTS : 0) *
                  OCC_PERSISTENT_PLACEMENT_STRIDE];
};

}  // namespace occ

extern "C" {
__device__ occ::PersistentState occ_persistent;
}

namespace occ {

#if OCC_PERSISTENT_BARRIER == 2
typedef sync::XfBarrier PersistentBarrier;
#elif OCC_PERSISTENT_BARRIER == 3
typedef sync::AtomicBarrier PersistentBarrier;
#elif OCC_PERSISTENT_BARRIER == 17
typedef sync::GatherBarrier PersistentBarrier;  // 8192 words
#elif OCC_PERSISTENT_BARRIER == 18
typedef sync::SpreadBarrier PersistentBarrier;  // 8192 words
#elif OCC_PERSISTENT_BARRIER == 26
typedef sync::ReplicaBarrier PersistentBarrier;  // 1024 words
#elif OCC_PERSISTENT_BARRIER == 27
typedef sync::RelayBarrier PersistentBarrier;  // 16384 words (OCC_RELAY_LEAVES = 480)
#elif OCC_PERSISTENT_BARRIER == 28
typedef sync::LeanBarrier PersistentBarrier;  // 1024 words
#elif OCC_PERSISTENT_BARRIER == 32
typedef sync::LeanBellBarrier PersistentBarrier;  // 64 words
#elif OCC_PERSISTENT_BARRIER == 33
typedef sync::LeanPauseBarrier PersistentBarrier;  // 32 words
#elif OCC_PERSISTENT_BARRIER == 35
typedef sync::LeanEagerBarrier PersistentBarrier;  // 32 words
#elif OCC_PERSISTENT_BARRIER == 37
typedef sync::RelayPauseBarrier PersistentBarrier;  // 16384 words, as relay
#elif OCC_PERSISTENT_BARRIER == 4
typedef sync::HierarchicalBarrier PersistentBarrier;
#else
#error "OCC_PERSISTENT_BARRIER: occ::PersistentKernel holds state for kinds 2, 3, 4, 17, 18, 26, 27, 28, 32, 33, 35, 37"
#endif

namespace detail {
/// Turns off a barrier's pause before its first poll (the probe's choice where it is faster:
/// on an H200 at 2-3 blocks per SM; docs/PERSISTENT.md): `delay` (lean, replica, lean_bell)
/// or `pause` (lean_pause, relay_pause); nothing for kinds without one.
template <class B>
__device__ __forceinline__ auto clear_delay(B& b, int) -> decltype(b.delay, void()) {
  b.delay = 0u;
}
template <class B>
__device__ __forceinline__ void clear_delay(B&, long) {}
template <class B>
__device__ __forceinline__ auto clear_pause_flag(B& b, int) -> decltype(b.pause, void()) {
  b.pause = false;
}
template <class B>
__device__ __forceinline__ void clear_pause_flag(B&, long) {}
template <class B>
__device__ __forceinline__ void no_pause(B& b) {
  clear_delay(b, 0);
  clear_pause_flag(b, 0);
}
}  // namespace detail

/// A barrier object kept in shared memory, one copy per block, instead of in every thread's
/// registers: wait() loads it after a block barrier, runs B::wait() on that copy and thread 0
/// writes the copy back (the next wait() reads it only after its own block barrier). So nothing
/// of the barrier is live in registers between two barriers — the phase body gets them all
/// (under `__launch_bounds__(256, 8)`'s 32 registers, a barrier held in registers across the
/// loop made ptxas spill 8–48 bytes of the phase's values). B must be trivially copyable in
/// effect: its destructor runs for thread 0's constructed value and never for the shared copy
/// (the kinds PersistentKernel uses have no work in theirs without clusters). Construct it in
/// every thread of the block (thread 0 constructs B); one per kernel.
template <class B>
class SharedBarrier {
  struct alignas(B) Raw {
    unsigned char bytes[sizeof(B)];
  };
  __device__ static Raw& slot() {
    __shared__ Raw s;
    return s;
  }

 public:
  __device__ SharedBarrier(u32* state, const Env& env, bool no_pause = false) {
    if (local_linear_id() == 0u) {
      B b(state, env);
      if (no_pause) detail::no_pause(b);
      memcpy(slot().bytes, &b, sizeof(B));
    }
    __syncthreads();
  }
  /// B::wait() on the block's copy: every thread of the block calls it.
  __device__ __forceinline__ bool wait() {
    __syncthreads();  // every thread is here and sees the last write-back
    Raw r = slot();
    const bool ok = reinterpret_cast<B*>(r.bytes)->wait();
    if (local_linear_id() == 0u) slot() = r;
    return ok;
  }
};

/// Discovery plus the default barrier. Construct it first thing in the kernel, in every thread
/// of every block; leave at once when !participating().
///
/// The participating environment lives in shared memory. The barrier object lives in each
/// thread's registers (as fast as the raw kind: 5-11 registers across the loop), or with
/// -DOCC_PERSISTENT_SHARED_BARRIER=1 in shared memory too, so that nothing of it occupies
/// registers across the kernel's loop (for register-capped kernels; 150-730 ns more per
/// barrier).
class PersistentKernel {
  __device__ static Env& env_slot() {
    __shared__ Env e;
    return e;
  }
  bool participating_;
#if OCC_PERSISTENT_SHARED_BARRIER
  SharedBarrier<PersistentBarrier> barrier_;
#else
  PersistentBarrier barrier_;  // per thread, in registers (every thread constructs it)
#endif

  __device__ static bool discover_into_shared() {
    Env env;
    const bool ok = discover(env, Quiescent, ld_relaxed(&occ_persistent.hint));
    // When every launched block takes part (no clusters), number them by block index rather
    // than by arrival: the launch order spreads consecutive blocks over the SMs, arrival order
    // puts them on few, and kernels that split work into contiguous shares by group id balance
    // better so (an H200, BA-4M pagerank: 14.9 ms in arrival order, 14.1 as the
    // occupancy-API kernel numbers its blocks).
    if (ok && env.num_groups == grid_block_count() && env.num_clusters == env.num_groups)
      env.group_id = env.cluster_id = block_linear_id();
    if (local_linear_id() == 0u) env_slot() = env;
    __syncthreads();
    return ok;
  }

 public:
#if OCC_PERSISTENT_SHARED_BARRIER
  __device__ PersistentKernel()
      : participating_(discover_into_shared()),
        barrier_(occ_persistent.barrier + ld_relaxed(&occ_persistent.offset), env_slot(),
                 ld_relaxed(&occ_persistent.no_pause) != 0u) {}
#else
  __device__ PersistentKernel()
      : participating_(discover_into_shared()),
        barrier_(occ_persistent.barrier + ld_relaxed(&occ_persistent.offset), env_slot()) {
    if (ld_relaxed(&occ_persistent.no_pause) != 0u) detail::no_pause(barrier_);
  }
#endif

  /// True iff this block takes part (all participants were co-resident at once).
  __device__ __forceinline__ bool participating() const { return participating_; }
  /// Participating block id, 0..num_groups()-1.
  __device__ __forceinline__ u32 group_id() const { return env_slot().group_id; }
  /// Participating blocks.
  __device__ __forceinline__ u32 num_groups() const { return env_slot().num_groups; }
  /// Participating thread id, 0..num_threads()-1 (group_id() * blockDim + local id).
  __device__ __forceinline__ u32 thread_id() const { return env_slot().p_global_id(); }
  /// Participating threads.
  __device__ __forceinline__ u32 num_threads() const { return env_slot().p_global_size(); }
  /// The participating execution environment (seed 001 Table 2).
  __device__ __forceinline__ const Env& env() const { return env_slot(); }
  /// The inter-block barrier among the participants; every thread of every participating block
  /// calls it. False when the watchdog aborted the launch: return from the kernel.
  __device__ __forceinline__ bool barrier() { return barrier_.wait(); }
};

}  // namespace occ

#if OCC_PERSISTENT_PLACEMENTS > 1
/// The placement probe (host: PersistentProgram::probe_placement): `rounds` + 1 barriers of the
/// program's kind at the current placement; thread 0 of every participant g writes
/// %globaltimer after the first barrier and after the last to times[2g], times[2g + 1] (the
/// method of the barrier benchmark's grid.sync() comparator, grid_sync_bench).
// __launch_bounds__(1024, 2): at most 32 registers, so the probe fits as many blocks per SM as
// any kernel of the program can (at 128 threads, 16 per SM; unbounded it took 40 and fit 9).
extern "C" __global__ void __launch_bounds__(1024, 2)
    occ_persistent_placement_probe(unsigned rounds, unsigned long long* times) {
  occ::PersistentKernel p;
  if (!p.participating()) return;
  if (!p.barrier()) return;
  const unsigned long long t0 = occ::globaltimer();
  for (unsigned r = 0; r < rounds; ++r)
    if (!p.barrier()) return;
  const unsigned long long t1 = occ::globaltimer();
  if (occ::local_linear_id() == 0u) {
    times[2u * p.group_id()] = t0;
    times[2u * p.group_id() + 1u] = t1;
  }
}
#endif

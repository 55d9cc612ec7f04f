// Mutex test and benchmark kernels. mutex_<kind>: every block (representative thread 0, block
// semantics) acquires the lock `iters` times; inside, with work = 1, it increments a plain
// (non-atomic) counter: ld then st of counter[0]. The final counter must equal blocks * iters.
// With work = 0 the critical section is empty (seed 004's throughput benchmark).
// times[2b], times[2b+1]: %globaltimer before the first lock and after the last unlock.
#include <occupant.cuh>
#include <occupant_sync.cuh>

using occ::u32;
using occ::u64;

template <class M>
__device__ __forceinline__ void mutex_run(u32* state, u32* counter, u32 iters, u32 work, u64* times) {
  if (occ::local_linear_id() != 0u) return;  // one representative per block
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

#define OCC_MUTEX_KERNEL(NAME, TYPE)                                                           \
  extern "C" __global__ void NAME(u32* state, u32* counter, u32 iters, u32 work, u64* times) { \
    mutex_run<TYPE>(state, counter, iters, work, times);                                       \
  }

OCC_MUTEX_KERNEL(mutex_spin, occ::sync::SpinMutex)
OCC_MUTEX_KERNEL(mutex_spin_backoff, occ::sync::SpinBackoffMutex)
OCC_MUTEX_KERNEL(mutex_ticket, occ::sync::TicketMutex)
OCC_MUTEX_KERNEL(mutex_ticket_backoff, occ::sync::TicketBackoffMutex)

// mutex_combining: the combining lock (combining_mutex.cuh) with occ::sync::CounterOp as the
// critical section: each of `iters` requests adds 1 to the plain counter (work = 1) or does
// nothing (work = 0); run by the combining block, so the counter is exact only if the combiner
// turns exclude each other and every result is handed back. State: combining_state_words().
extern "C" __global__ void mutex_combining(u32* state, u32* counter, u32 iters, u32 work,
                                           u64* times) {
  if (occ::local_linear_id() != 0u) return;  // one representative per block
  occ::sync::CombiningMutex<occ::sync::CounterOp> m(state, occ::sync::CounterOp{counter, work});
  const u64 t0 = occ::globaltimer();
  u32 before = 0u;
  for (u32 i = 0u; i < iters; ++i) {
    if (!m.try_apply(1u, &before)) return;
  }
  const u64 t1 = occ::globaltimer();
  times[2u * occ::block_linear_id()] = t0;
  times[2u * occ::block_linear_id() + 1u] = t1;
}

// mutex_flat_combining: the flat-combining lock (flat_combining_mutex.cuh), as mutex_combining.
// State: flat_combining_state_words().
extern "C" __global__ void mutex_flat_combining(u32* state, u32* counter, u32 iters, u32 work,
                                                u64* times) {
  if (occ::local_linear_id() != 0u) return;  // one representative per block
  occ::sync::FlatCombiningMutex<occ::sync::CounterOp> m(state,
                                                        occ::sync::CounterOp{counter, work});
  const u64 t0 = occ::globaltimer();
  u32 before = 0u;
  for (u32 i = 0u; i < iters; ++i) {
    if (!m.try_apply(1u, &before)) return;
  }
  const u64 t1 = occ::globaltimer();
  times[2u * occ::block_linear_id()] = t0;
  times[2u * occ::block_linear_id() + 1u] = t1;
}

// mutex_lazy_combining: the lazy small-grid combining lock (lazy_combining_mutex.cuh), as
// mutex_combining, at most 3 blocks. The holder releases the role in the destructor, after the
// timed loop. State: lazy_combining_state_words().
extern "C" __global__ void mutex_lazy_combining(u32* state, u32* counter, u32 iters, u32 work,
                                                u64* times) {
  if (occ::local_linear_id() != 0u) return;  // one representative per block
  occ::sync::LazyCombiningMutex<occ::sync::CounterOp> m(state,
                                                        occ::sync::CounterOp{counter, work});
  const u64 t0 = occ::globaltimer();
  u32 before = 0u;
  for (u32 i = 0u; i < iters; ++i) {
    if (!m.try_apply(1u, &before)) return;
  }
  const u64 t1 = occ::globaltimer();
  times[2u * occ::block_linear_id()] = t0;
  times[2u * occ::block_linear_id() + 1u] = t1;
}

// mutex_cohort, mutex_mcs_cohort, mutex_lazy_cohort: the cohort locks (cohort_mutex.cuh,
// mcs_cohort_mutex.cuh), whose every thread constructs the mutex (it initialises and
// synchronises the cluster's local state). Compiled with -DOCC_CLUSTER_SIZE=k for cluster
// cohorts. The grid is rounded up to a whole number of clusters: blocks at or past `contending`
// take no lock (they only keep their cluster whole).
template <class M>
__device__ __forceinline__ void cohort_run(u32* state, u32* counter, u32 iters, u32 work,
                                           u64* times, u32 contending) {
  M m(state);
  if (occ::local_linear_id() == 0u && occ::block_linear_id() < contending) {
    const u64 t0 = occ::globaltimer();
    bool ok = true;
    for (u32 i = 0u; i < iters && ok; ++i) {
      ok = m.lock();
      if (!ok) break;
      if (work) {
        volatile u32* c = counter;
        *c = *c + 1u;
      }
      m.unlock();
    }
    if (ok) {
      const u64 t1 = occ::globaltimer();
      times[2u * occ::block_linear_id()] = t0;
      times[2u * occ::block_linear_id() + 1u] = t1;
    }
  }
  __syncthreads();  // the block converges before the destructor's cluster barrier
}

#define OCC_COHORT_KERNEL(NAME, TYPE)                                                          \
  extern "C" __global__ void OCC_KATTR NAME(u32* state, u32* counter, u32 iters, u32 work,    \
                                            u64* times, u32 contending) {                     \
    cohort_run<TYPE>(state, counter, iters, work, times, contending);                          \
  }

OCC_COHORT_KERNEL(mutex_cohort, occ::sync::CohortMutex)
OCC_COHORT_KERNEL(mutex_mcs_cohort, occ::sync::McsCohortMutex)
OCC_COHORT_KERNEL(mutex_lazy_cohort, occ::sync::LazyCohortMutex)

// mutex_costs: latencies of the operations a lock hand-off is made of, timed by thread 0 of
// block 0 (compile with -DOCC_CLUSTER_SIZE=2 so that block 1 is a remote block of its cluster),
// `iters` of each, dependent chains where the operation returns a value. out[k], ns per op:
//   0 fence.acq_rel.cluster   1 fence.acq_rel.gpu   2 st.relaxed.gpu + fence.acq_rel.gpu
//   3 atom.relaxed.cluster on the own shared memory (shared::cluster window)
//   4 the same on block 1's shared memory (DSMEM round trip)
//   5 ld.relaxed.gpu (L2 round trip)   6 atom.relaxed.gpu.add (L2 atomic round trip)
//   7 st.release.cluster to block 1's shared memory + fence.acq_rel.cluster
extern "C" __global__ void OCC_KATTR mutex_costs(u32* g, u32 iters, u64* out) {
  __shared__ u32 s_word[32];
  if (threadIdx.x == 0u) s_word[0] = 0u;
  const bool clustered = occ::cluster_size() > 1u;
  if (clustered) occ::cluster_sync(); else __syncthreads();
  if (occ::block_linear_id() == 0u && threadIdx.x == 0u) {
    const unsigned own = (unsigned)__cvta_generic_to_shared(&s_word[0]);
    const unsigned remote = clustered ? occ::cluster_map(&s_word[0], 1u) : own;
    u32 v = 0u;
    u64 t = occ::globaltimer();
    for (u32 i = 0u; i < iters; ++i) asm volatile("fence.acq_rel.cluster;" ::: "memory");
    out[0] = occ::globaltimer() - t;
    t = occ::globaltimer();
    for (u32 i = 0u; i < iters; ++i) occ::fence_acq_rel();
    out[1] = occ::globaltimer() - t;
    t = occ::globaltimer();
    for (u32 i = 0u; i < iters; ++i) {
      occ::st_relaxed(g, i);
      occ::fence_acq_rel();
    }
    out[2] = occ::globaltimer() - t;
    t = occ::globaltimer();
    for (u32 i = 0u; i < iters; ++i) v = occ::mcs::exch_acq_rel(own + ((v >> 31) << 2), 1u);
    out[3] = occ::globaltimer() - t;
    t = occ::globaltimer();
    for (u32 i = 0u; i < iters; ++i) v = occ::mcs::ld_relaxed(remote + ((v >> 31) << 2));
    out[4] = occ::globaltimer() - t;
    t = occ::globaltimer();
    for (u32 i = 0u; i < iters; ++i) v = occ::ld_relaxed(g + 32 + (v >> 31));
    out[5] = occ::globaltimer() - t;
    t = occ::globaltimer();
    for (u32 i = 0u; i < iters; ++i) v = occ::atomic_add_relaxed(g + 64 + (v >> 31), 1u);
    out[6] = occ::globaltimer() - t;
    t = occ::globaltimer();
    for (u32 i = 0u; i < iters; ++i) {
      occ::mcs::st_release(remote + ((v >> 31) << 2), i);
      asm volatile("fence.acq_rel.cluster;" ::: "memory");
    }
    out[7] = occ::globaltimer() - t;
    g[96] = v;  // keeps the chains
  }
  if (clustered) occ::cluster_sync(); else __syncthreads();
}

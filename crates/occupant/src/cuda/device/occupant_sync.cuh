// occupant device library: every synchronisation primitive of the CUDA backend, for kernels
// that say `#include <occupant_sync.cuh>` (the host hands it to NVRTC under that name).
//
//   discovery.cuh            occ::discover, occ::discover_clusters, occ::Env
//   xf_barrier.cuh           occ::XfBarrier
//   atomic_barrier.cuh       occ::AtomicBarrier, occ::NaiveBarrier
//   hierarchical_barrier.cuh occ::HierarchicalBarrier
//   spin_mutex.cuh, spin_backoff_mutex.cuh, ticket_mutex.cuh, ticket_backoff_mutex.cuh
//   mutex_block.cuh          occ::block_lock / occ::block_unlock
//   spin_semaphore.cuh       occ::SpinSemaphore, occ::SpinBackoffSemaphore
//   sleeping_semaphore.cuh   occ::SleepingSemaphore
//   combining_barrier.cuh    occ::TreeBarrier, occ::GatherBarrier, occ::SpreadBarrier
//   cohort_mutex.cuh         occ::CohortMutex (cluster cohorts)
//   mcs_cohort_mutex.cuh     occ::McsCohortMutex, occ::LazyCohortMutex (MCS cluster cohorts)
//   replica_barrier.cuh      occ::ReplicaBarrier, occ::RelayBarrier, occ::LeanBarrier
//   combining_mutex.cuh      occ::sync::CombiningMutex<Op> (combining lock, CC-Synch)
//   relay_relaxed_barrier.cuh occ::sync::RelayRelaxedBarrier (relay, relaxed second hop)
#pragma once

#include "atomic_barrier.cuh"
#include "cluster_barrier.cuh"
#include "cohort_mutex.cuh"
#include "combining_mutex.cuh"
#include "flat_combining_mutex.cuh"
#include "lazy_combining_mutex.cuh"
#include "combining_barrier.cuh"
#include "discovery.cuh"
#include "hierarchical_barrier.cuh"
#include "mcs_cohort_mutex.cuh"
#include "mutex_block.cuh"
#include "relay_relaxed_barrier.cuh"
#include "replica_barrier.cuh"
#include "sleeping_semaphore.cuh"
#include "spin_backoff_mutex.cuh"
#include "spin_mutex.cuh"
#include "spin_semaphore.cuh"
#include "ticket_backoff_mutex.cuh"
#include "ticket_mutex.cuh"
#include "xf_barrier.cuh"

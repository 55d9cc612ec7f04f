// occupant device library: include this one header (`#include <occupant.cuh>`) to get every
// primitive. The headers are embedded in the occupant crate and handed to NVRTC from memory;
// each can also be included on its own.
#pragma once

#include "memory.cuh"
#include "watchdog.cuh"
#include "atomic_barrier.cuh"
#include "cluster.cuh"
#include "cohort_mutex.cuh"
#include "combining_barrier.cuh"
#include "coop.cuh"
#include "discovery.cuh"
#include "forkjoin.cuh"
#include "graph_while.cuh"
#include "hierarchical_barrier.cuh"
#include "mcs_cohort_mutex.cuh"
#include "mutex_block.cuh"
#include "occupant_sync.cuh"
#include "persistent.cuh"
#include "poll.cuh"
#include "replica_barrier.cuh"
#include "sleeping_semaphore.cuh"
#include "spin_backoff_mutex.cuh"
#include "spin_mutex.cuh"
#include "spin_semaphore.cuh"
#include "ticket_backoff_mutex.cuh"
#include "ticket_mutex.cuh"
#include "xf_barrier.cuh"

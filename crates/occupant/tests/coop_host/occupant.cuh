// Host stand-in for the umbrella header (tests/coop_protocol.rs, occupant-apps'
// tests/coop_bfs_protocol.rs): coop.cuh plus the CUDA built-ins a kernel of one thread per block
// needs, so that an application kernel runs its groups as CPU threads.
#pragma once
#include "coop.cuh"
#define __global__
#define __shared__ thread_local  // one thread per block: block-shared = thread-local
struct OccHostDim { unsigned x, y, z; };
static const OccHostDim blockDim = {1u, 1u, 1u};
static const OccHostDim threadIdx = {0u, 0u, 0u};
inline unsigned atomicCAS(unsigned* p, unsigned e, unsigned d) {
  __atomic_compare_exchange_n(p, &e, d, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
  return e;
}
inline unsigned atomicExch(unsigned* p, unsigned v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); }
inline unsigned atomicMin(unsigned* p, unsigned v) {
  unsigned old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
inline unsigned atomicAdd(unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
  return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

// occupant device library: the watchdog. Every spin loop of every primitive waits through
// occ::wait_until, which backs off with __nanosleep, leaves when another group aborted the
// launch, and gives up after a deadline read from %globaltimer. A launch whose groups stop
// making progress therefore ends (the kernel returns) instead of hanging the GPU; the host turns
// the record left in occ_ctl into occupant::Error::Deadlock and the context stays usable.
//
// Protocol (host side: occupant::cuda, launch.rs / watchdog.rs):
//   the host arms occ_ctl = { abort 0, status 0, group 0, primitive 0, timeout_ns from
//   model::Watchdog (0 = no deadline), start_ns 0, spins 0 } when the module is first launched,
//   when the timeout changes and after a launch that expired (not before every launch);
//   after the launch it reads the host-mapped word occ_ctl_flag and, only when a wait expired
//   (flag 1) or the host raised abort itself, reads occ_ctl back: status 1 means a wait timed
//   out in group `group`, primitive `primitive` (an occ::Prim); `start_ns` is the %globaltimer
//   value at which the first wait since arming began and `spins` the number of back-off rounds
//   of all waits since arming (LaunchConfig::count_spins re-arms and reads them per launch).
//
// Using it: a primitive waits with
//     if (!occ::wait_until(occ::XfBarrier, [&] { return occ::ld_acquire(flag) == goal; }))
//       return false;   // aborted: tell the caller, which leaves the kernel (`if (!ok) return;`)
// Only the representative thread of a block should spin on inter-block state; the others wait
// at __syncthreads() and then check occ::aborted().
//
// Tunables (define before including occupant.cuh):
//   OCC_BACKOFF_MIN_NS (default 16), OCC_BACKOFF_MAX_NS (default 256): __nanosleep back-off.
#pragma once

#include "memory.cuh"

#ifndef OCC_BACKOFF_MIN_NS
#define OCC_BACKOFF_MIN_NS 16
#endif
#ifndef OCC_BACKOFF_MAX_NS
#define OCC_BACKOFF_MAX_NS 256
#endif
#ifndef OCC_WAITING_WORDS
#define OCC_WAITING_WORDS 4096  // one bit per block: 131072 blocks
#endif

namespace occ {

/// Primitive ids recorded in Control::primitive. Host twin: occupant::cuda::primitive_name.
enum Prim : unsigned {
  User = 0,
  NaiveBarrier = 1,
  XfBarrier = 2,
  AtomicBarrier = 3,
  HierarchicalBarrier = 4,
  Discovery = 5,
  SpinMutex = 6,
  SpinBackoffMutex = 7,
  TicketMutex = 8,
  TicketBackoffMutex = 9,
  SpinSemaphore = 10,
  SpinBackoffSemaphore = 11,
  SleepingSemaphore = 12,
  MessagePassing = 13,
  GridSync = 14,
  ForkJoin = 15,
  TreeBarrier = 16,
  GatherBarrier = 17,
  SpreadBarrier = 18,
  CohortMutex = 19,
  ResizingBarrier = 20,
  CoopScheduler = 21,
  Persistent = 22,
  Worklist = 23,
  McsCohortMutex = 24,
  LazyCohortMutex = 25,
  ReplicaBarrier = 26,
  RelayBarrier = 27,
  LeanBarrier = 28,
  CombiningMutex = 29,
  FlatCombiningMutex = 30,
  LeanLinesBarrier = 31,
  LeanBellBarrier = 32,
  LeanPauseBarrier = 33,
  LazyCombiningMutex = 34,
  LeanEagerBarrier = 35,
  RelayRelaxedBarrier = 36,
  RelayPauseBarrier = 37,
};

/// The per-module watchdog record, shared by the host runtime and the device code.
/// Layout is fixed (host mirror: occupant::cuda::watchdog::Control, 48 bytes).
struct Control {
  unsigned abort;                // 1 once any wait gave up: every waiting group leaves
  unsigned status;               // 0 ok, 1 timed out
  unsigned group;                // linear block id of the first wait that timed out
  unsigned primitive;            // its occ::Prim
  unsigned long long timeout_ns; // deadline of a single wait (0 = none); written by the host
  unsigned long long start_ns;   // %globaltimer when the launch's first wait began
  unsigned long long spins;      // back-off rounds of all waits of the launch
};

}  // namespace occ

// One per module, with C linkage so the host finds it as "occ_ctl" (cuModuleGetGlobal).
// occ_waiting: one bit per block that gave up a wait it had been spinning in (it timed out, or
// left because another group did; a block that finds the launch already aborted when it starts
// waiting is not recorded). Written only on that failure path, read and cleared by the host
// after a deadlock, so Error::Deadlock names every waiting group. Zero when the module loads.
// occ_ctl_flag: a word of host-mapped (pinned, zero-copy) memory that the runtime points it at
// when it loads the module; expire() sets it to 1, so the host reads occ_ctl back only after a
// launch in which a wait expired (a clean launch costs the host one load of host memory).
// Null: no flag (the host then reads occ_ctl back after every launch).
extern "C" {
__device__ occ::Control occ_ctl;
__device__ unsigned occ_waiting[OCC_WAITING_WORDS];
__device__ unsigned* occ_ctl_flag;
}

namespace occ {

/// %globaltimer: a nanosecond clock shared by all SMs. Emits `mov.u64 d, %globaltimer`.
__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/// Linear id of the calling block: blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z).
__device__ __forceinline__ unsigned block_linear_id() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

/// Records the calling block in occ_waiting (atom.or, relaxed: the host reads it after the
/// kernel has ended).
__device__ __noinline__ void note_waiting() {
  const unsigned b = block_linear_id();
  if (b < OCC_WAITING_WORDS * 32u) atomicOr(&occ_waiting[b >> 5], 1u << (b & 31u));
}

/// True once any wait of this launch gave up (ld.relaxed.gpu of occ_ctl.abort).
__device__ __forceinline__ bool aborted() { return ld_relaxed(&occ_ctl.abort) != 0u; }

/// Gives up the launch: the first caller records {status 1, group, primitive} (its CAS on
/// status wins), then abort is raised (st.release.gpu) so every other waiting group leaves.
__device__ __noinline__ void expire(unsigned primitive) {
  if (atomic_cas_acq_rel(&occ_ctl.status, 0u, 1u) == 0u) {
    st_relaxed(&occ_ctl.group, block_linear_id());
    st_relaxed(&occ_ctl.primitive, primitive);
  }
  st_release(&occ_ctl.abort, 1u);
  unsigned* flag = occ_ctl_flag;
  if (flag != nullptr) st_release_sys(flag, 1u);  // the host reads occ_ctl after the kernel
}

/// Spins until cond() is true (returns true), backing off with __nanosleep from
/// OCC_BACKOFF_MIN_NS doubling to OCC_BACKOFF_MAX_NS. Returns false, without waiting further,
/// when the launch was aborted by another group or when this wait outlived occ_ctl.timeout_ns
/// (then it records itself and aborts the launch, see expire()). cond() must perform the
/// ordering it needs itself (typically an ld_acquire).
template <class Cond>
__device__ __forceinline__ bool wait_until(unsigned primitive, Cond cond) {
  if (cond()) return true;
  const unsigned long long start = globaltimer();
  if (ld_relaxed(&occ_ctl.start_ns) == 0ull) atomic_cas_relaxed(&occ_ctl.start_ns, 0ull, start);
  const unsigned long long timeout = ld_relaxed(&occ_ctl.timeout_ns);
  unsigned ns = OCC_BACKOFF_MIN_NS;
  unsigned long long rounds = 0;
  bool ok;
  for (;;) {
    if (cond()) { ok = true; break; }
    if (aborted()) {
      if (rounds != 0ull) note_waiting();  // it was waiting; a block that started late was not
      ok = false;
      break;
    }
    if (timeout != 0ull && globaltimer() - start > timeout) {
      expire(primitive);
      note_waiting();
      ok = false;
      break;
    }
    __nanosleep(ns);
    if (ns < OCC_BACKOFF_MAX_NS) ns <<= 1;
    ++rounds;
  }
  atomic_add_relaxed(&occ_ctl.spins, rounds);
  return ok;
}

}  // namespace occ

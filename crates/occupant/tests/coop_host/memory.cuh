// Host stand-in for device/memory.cuh (tests/coop_protocol.rs): the same helpers over GCC
// atomics, so that coop.cuh's protocol runs on CPU threads, one thread per group. The _sys
// helpers spin OCC_HOST_PCIE_NS first, standing in for the PCIe round trip of mapped memory
// (the window in which a forked group could once run ahead of its barrier's release).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#define __device__
#define __forceinline__ inline
#define __noinline__
inline void __syncthreads() {}
#ifndef OCC_HOST_PCIE_NS
#define OCC_HOST_PCIE_NS 5000
#endif
namespace occ {
typedef unsigned u32;
typedef unsigned long long u64;
inline void pcie() {
  auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::nanoseconds(OCC_HOST_PCIE_NS)) {
  }
}
#define OCC_H(SFX, D)                                                                            \
  inline u32 ld_acquire##SFX(const u32* p) { D; return __atomic_load_n(p, __ATOMIC_ACQUIRE); }   \
  inline u32 ld_relaxed##SFX(const u32* p) { D; return __atomic_load_n(p, __ATOMIC_RELAXED); }   \
  inline void st_release##SFX(u32* p, u32 v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); D; }    \
  inline void st_relaxed##SFX(u32* p, u32 v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); D; }    \
  inline u32 atomic_add_acq_rel##SFX(u32* p, u32 v) {                                            \
    u32 r = __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL); D; return r; }                           \
  inline u32 atomic_add_release##SFX(u32* p, u32 v) {                                            \
    u32 r = __atomic_fetch_add(p, v, __ATOMIC_RELEASE); D; return r; }                           \
  inline u32 atomic_add_relaxed##SFX(u32* p, u32 v) {                                            \
    u32 r = __atomic_fetch_add(p, v, __ATOMIC_RELAXED); D; return r; }                           \
  inline u32 atomic_cas_acquire##SFX(u32* p, u32 e, u32 d) {                                     \
    __atomic_compare_exchange_n(p, &e, d, false, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE); D; return e; } \
  inline u64 ld_relaxed##SFX(const u64* p) { D; return __atomic_load_n(p, __ATOMIC_RELAXED); }   \
  inline u64 ld_acquire##SFX(const u64* p) { D; return __atomic_load_n(p, __ATOMIC_ACQUIRE); }   \
  inline void st_relaxed##SFX(u64* p, u64 v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); D; }    \
  inline void st_release##SFX(u64* p, u64 v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); D; }    \
  inline u64 atomic_add_acq_rel##SFX(u64* p, u64 v) {                                            \
    u64 r = __atomic_fetch_add(p, v, __ATOMIC_ACQ_REL); D; return r; }                           \
  inline u64 atomic_add_release##SFX(u64* p, u64 v) {                                            \
    u64 r = __atomic_fetch_add(p, v, __ATOMIC_RELEASE); D; return r; }                           \
  inline u64 atomic_add_relaxed##SFX(u64* p, u64 v) {                                            \
    u64 r = __atomic_fetch_add(p, v, __ATOMIC_RELAXED); D; return r; }
OCC_H(, (void)0)
OCC_H(_sys, pcie())
#undef OCC_H
}  // namespace occ

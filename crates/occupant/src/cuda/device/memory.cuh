// occupant device library: memory-order helpers with an explicit scope.
//
// Every helper is one inline-PTX instruction (plus the compiler barrier "memory"), so the
// ordering a primitive relies on is visible in its source and in the PTX. No `volatile` +
// `__threadfence` folklore. Generic addressing is used, so the pointers may point to global,
// shared (for the _cta variants) or host-mapped memory (for the _sys variants).
//
// Overloads exist for `unsigned` (u32, PTX .u32/.b32) and `unsigned long long` (u64, PTX
// .u64/.b64). Three scopes, chosen by the name's suffix:
//
//   name        PTX scope  use for
//   ----------  ---------  -------------------------------------------------------------
//   xxx         .gpu       device memory shared by the blocks of one grid (the default)
//   xxx_sys     .sys       host-mapped (pinned, zero-copy) memory shared with the CPU
//   xxx_cta     .cta       memory shared only by the threads of one block
//
// Helper (u32 / u64)                          Emits (scope S = gpu | sys | cta)
// ------------------------------------------  --------------------------------------------
// ld_acquire(p)                               ld.acquire.S.u32 / .u64        d, [p]
// ld_relaxed(p)                               ld.relaxed.S.u32 / .u64        d, [p]
// st_release(p, v)                            st.release.S.u32 / .u64        [p], v
// st_relaxed(p, v)                            st.relaxed.S.u32 / .u64        [p], v
// atomic_add_{acq_rel,acquire,release,relaxed}(p, v) -> old
//                                             atom.{acq_rel,acquire,release,relaxed}.S.add.u32 / .u64
// atomic_exch_{acq_rel,acquire,release,relaxed}(p, v) -> old
//                                             atom.{...}.S.exch.b32 / .b64
// atomic_cas_{acq_rel,acquire,relaxed}(p, expected, desired) -> old
//                                             atom.{...}.S.cas.b32 / .b64
// fence_acq_rel()                             fence.acq_rel.S
// fence_sc()                                  fence.sc.S
//
// Requires sm_70 or newer (PTX ISA 6.0 memory model).
#pragma once

namespace occ {

typedef unsigned int u32;
typedef unsigned long long u64;

// ---- loads ---------------------------------------------------------------------------------
// OCC_LD(name, sem, scope): `u32 name(const u32*)` and `u64 name(const u64*)` emitting
// `ld.<sem>.<scope>.u32|u64`.
#define OCC_LD(NAME, SEM, SCOPE)                                                               \
  __device__ __forceinline__ u32 NAME(const u32* p) {                                          \
    u32 v;                                                                                     \
    asm volatile("ld." SEM "." SCOPE ".u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");          \
    return v;                                                                                  \
  }                                                                                            \
  __device__ __forceinline__ u64 NAME(const u64* p) {                                          \
    u64 v;                                                                                     \
    asm volatile("ld." SEM "." SCOPE ".u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");          \
    return v;                                                                                  \
  }

// ---- stores --------------------------------------------------------------------------------
// OCC_ST(name, sem, scope): `void name(u32*, u32)` / `void name(u64*, u64)` emitting
// `st.<sem>.<scope>.u32|u64`.
#define OCC_ST(NAME, SEM, SCOPE)                                                               \
  __device__ __forceinline__ void NAME(u32* p, u32 v) {                                        \
    asm volatile("st." SEM "." SCOPE ".u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");            \
  }                                                                                            \
  __device__ __forceinline__ void NAME(u64* p, u64 v) {                                        \
    asm volatile("st." SEM "." SCOPE ".u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");            \
  }

// ---- read-modify-write ---------------------------------------------------------------------
// OCC_RMW(name, sem, scope, op, t32, t64): `name(p, v) -> old` emitting
// `atom.<sem>.<scope>.<op>.<t32|t64>`.
#define OCC_RMW(NAME, SEM, SCOPE, OP, T32, T64)                                                \
  __device__ __forceinline__ u32 NAME(u32* p, u32 v) {                                         \
    u32 old;                                                                                   \
    asm volatile("atom." SEM "." SCOPE "." OP "." T32 " %0, [%1], %2;"                        \
                 : "=r"(old) : "l"(p), "r"(v) : "memory");                                     \
    return old;                                                                                \
  }                                                                                            \
  __device__ __forceinline__ u64 NAME(u64* p, u64 v) {                                         \
    u64 old;                                                                                   \
    asm volatile("atom." SEM "." SCOPE "." OP "." T64 " %0, [%1], %2;"                        \
                 : "=l"(old) : "l"(p), "l"(v) : "memory");                                     \
    return old;                                                                                \
  }

// OCC_CAS(name, sem, scope): `name(p, expected, desired) -> old` emitting
// `atom.<sem>.<scope>.cas.b32|b64`. Succeeded iff old == expected.
#define OCC_CAS(NAME, SEM, SCOPE)                                                              \
  __device__ __forceinline__ u32 NAME(u32* p, u32 expected, u32 desired) {                     \
    u32 old;                                                                                   \
    asm volatile("atom." SEM "." SCOPE ".cas.b32 %0, [%1], %2, %3;"                           \
                 : "=r"(old) : "l"(p), "r"(expected), "r"(desired) : "memory");                \
    return old;                                                                                \
  }                                                                                            \
  __device__ __forceinline__ u64 NAME(u64* p, u64 expected, u64 desired) {                     \
    u64 old;                                                                                   \
    asm volatile("atom." SEM "." SCOPE ".cas.b64 %0, [%1], %2, %3;"                           \
                 : "=l"(old) : "l"(p), "l"(expected), "l"(desired) : "memory");                \
    return old;                                                                                \
  }

// OCC_FENCE(name, sem, scope): `void name()` emitting `fence.<sem>.<scope>`.
#define OCC_FENCE(NAME, SEM, SCOPE)                                                            \
  __device__ __forceinline__ void NAME() { asm volatile("fence." SEM "." SCOPE ";" ::: "memory"); }

// Every helper of one scope. SFX is the name suffix (empty, _sys, _cta).
#define OCC_SCOPE_HELPERS(SFX, SCOPE)                                                          \
  OCC_LD(ld_acquire##SFX, "acquire", SCOPE)                                                    \
  OCC_LD(ld_relaxed##SFX, "relaxed", SCOPE)                                                    \
  OCC_ST(st_release##SFX, "release", SCOPE)                                                    \
  OCC_ST(st_relaxed##SFX, "relaxed", SCOPE)                                                    \
  OCC_RMW(atomic_add_acq_rel##SFX, "acq_rel", SCOPE, "add", "u32", "u64")                      \
  OCC_RMW(atomic_add_acquire##SFX, "acquire", SCOPE, "add", "u32", "u64")                      \
  OCC_RMW(atomic_add_release##SFX, "release", SCOPE, "add", "u32", "u64")                      \
  OCC_RMW(atomic_add_relaxed##SFX, "relaxed", SCOPE, "add", "u32", "u64")                      \
  OCC_RMW(atomic_exch_acq_rel##SFX, "acq_rel", SCOPE, "exch", "b32", "b64")                    \
  OCC_RMW(atomic_exch_acquire##SFX, "acquire", SCOPE, "exch", "b32", "b64")                    \
  OCC_RMW(atomic_exch_release##SFX, "release", SCOPE, "exch", "b32", "b64")                    \
  OCC_RMW(atomic_exch_relaxed##SFX, "relaxed", SCOPE, "exch", "b32", "b64")                    \
  OCC_CAS(atomic_cas_acq_rel##SFX, "acq_rel", SCOPE)                                           \
  OCC_CAS(atomic_cas_acquire##SFX, "acquire", SCOPE)                                           \
  OCC_CAS(atomic_cas_relaxed##SFX, "relaxed", SCOPE)                                           \
  OCC_FENCE(fence_acq_rel##SFX, "acq_rel", SCOPE)                                              \
  OCC_FENCE(fence_sc##SFX, "sc", SCOPE)

// Device scope (.gpu): ld_acquire, st_release, atomic_add_acq_rel, fence_sc, ...
OCC_SCOPE_HELPERS(, "gpu")
// System scope (.sys), for host-mapped memory: ld_acquire_sys, st_release_sys, ...
OCC_SCOPE_HELPERS(_sys, "sys")
// Block scope (.cta): ld_acquire_cta, st_release_cta, ...
OCC_SCOPE_HELPERS(_cta, "cta")

#undef OCC_SCOPE_HELPERS
#undef OCC_FENCE
#undef OCC_CAS
#undef OCC_RMW
#undef OCC_ST
#undef OCC_LD

}  // namespace occ

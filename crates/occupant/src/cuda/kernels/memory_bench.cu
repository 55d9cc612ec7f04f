// The twelve memory-system microbenchmarks of seed 004 §3 (Table 1). One master thread per block
// performs `iters` accesses of one kind; contentious: every block accesses word 0;
// non-contentious: block b accesses its own word b * 64 (256 bytes apart, separate lines).
// kind: 0 atomic read  (atom.relaxed.gpu.add p, 0)     1 atomic write  (atom.relaxed.gpu.exch)
//       2 volatile read (ld.relaxed.gpu)               3 volatile write (st.relaxed.gpu)
//       4 volatile read preceded by one atomic          5 volatile write preceded by one atomic
// Reads form a dependent chain (writes, atomic or not, are issued back to back: a write's
// cost is its throughput on the line) — the next address depends on the loaded value through `zero`,
// which the host passes as 0 — so each read's latency is paid. times[2b], times[2b+1]:
// %globaltimer around the block's accesses.
#include <occupant.cuh>

using occ::u32;
using occ::u64;

extern "C" __global__ void memory_bench(u32* base, u32 kind, u32 contentious, u32 iters, u32 zero,
                                        u64* times) {
  if (threadIdx.x != 0u) return;
  const unsigned b = occ::block_linear_id();
  u32* p = contentious ? base : base + (size_t)b * 64u;
  u32 acc = 0u;
  const u64 t0 = occ::globaltimer();
  if (kind == 4u || kind == 5u) acc += occ::atomic_add_relaxed(p, 0u);
  switch (kind) {
    case 0u:
      for (u32 i = 0u; i < iters; ++i) acc += occ::atomic_add_relaxed(p + (acc & zero), 0u);
      break;
    case 1u:
      for (u32 i = 0u; i < iters; ++i) occ::atomic_exch_relaxed(p, i + acc);
      break;
    case 2u:
    case 4u:
      for (u32 i = 0u; i < iters; ++i) acc += occ::ld_relaxed(p + (acc & zero));
      break;
    default:
      for (u32 i = 0u; i < iters; ++i) occ::st_relaxed(p, i + acc);
      break;
  }
  const u64 t1 = occ::globaltimer();
  times[2u * b] = t0;
  times[2u * b + 1u] = t1;
  if (acc == 0xdeadbeefu && zero != 0u) base[1] = acc;  // keep acc alive
}

// EPCC syncbench-style overheads of occ::fj constructs (seed 003 §VI-A, Fig. 4; method of
// Bull: overhead = T_p - T_s / p). One block of 32 * (W + 1) threads; the master times `reps`
// repetitions of each construct with clock64 and %globaltimer. The comparator
// bench/llvm-openmp/epcc_target.cpp runs the same constructs, the same delay, compiled by LLVM.
//
// out[(round * FJ_CONSTRUCTS + c) * 2 + {0, 1}] = {cycles, ns} of `reps` repetitions of
// construct c; c = 0 is the reference (the delay in serial code).
#include <occupant.cuh>

#define FJ_CONSTRUCTS 7

// The master's timer (macros, not lambdas: a lambda nested in the serial-code lambda gains
// nothing and older NVRTCs are picky about lambdas at kernel scope).
#define FJ_START()              \
  do {                          \
    g0 = occ::globaltimer();    \
    c0 = clock64();             \
  } while (0)
#define FJ_STOP(c)                                          \
  do {                                                      \
    o[(c) * 2] = clock64() - c0;                            \
    o[(c) * 2 + 1] = (long long)(occ::globaltimer() - g0);  \
  } while (0)

// The delay: spin on clock64 for `d` cycles (the same code as the LLVM comparator's).
__device__ __forceinline__ void fj_delay(long long d) {
  const long long t0 = clock64();
  while (clock64() - t0 < d) {
  }
}

// The regions are const (their members are the same in every thread: each worker gets them in
// registers with the fork, OpenMP's firstprivate), as EPCC's delay length and repetition count.
struct EpccParallel {
  long long d;
  __device__ void operator()(occ::fj::Thread&) const { fj_delay(d); }
};
struct EpccFor {
  long long d;
  int reps;
  __device__ void operator()(occ::fj::Thread& t) const {
    const long long n = t.num_threads();
    for (int r = 0; r < reps; ++r) t.for_static(0, n, [&](long long) { fj_delay(d); });
  }
};
// `parallel for`: one implicit barrier, at the end - the join (OpenMP's combined construct).
struct EpccParallelFor {
  long long d;
  __device__ void operator()(occ::fj::Thread& t) const {
    t.for_static_nowait(0, t.num_threads(), [&](long long) { fj_delay(d); });
  }
};
struct EpccBarrier {
  long long d;
  int reps;
  __device__ void operator()(occ::fj::Thread& t) const {
    for (int r = 0; r < reps; ++r) {
      fj_delay(d);
      t.barrier();
    }
  }
};
struct EpccSingle {
  long long d;
  int reps;
  __device__ void operator()(occ::fj::Thread& t) const {
    for (int r = 0; r < reps; ++r) t.single([&] { fj_delay(d); });
  }
};
// `parallel reduction(+: total)`: each thread contributes 1 (Master::parallel_sum).
struct EpccReduction {
  long long d;
  __device__ int operator()(occ::fj::Thread&) const {
    fj_delay(d);
    return 1;
  }
};

#define EPCC_REGIONS \
  EpccParallel, EpccFor, EpccParallelFor, EpccBarrier, EpccSingle, EpccReduction

extern "C" __global__ void fj_epcc(long long* out, int reps, long long d, unsigned nthreads,
                                   int rounds, int* check) {
  __shared__ occ::fj::Team team;
  __shared__ alignas(16) unsigned char stack[256];
  team.setup(stack, sizeof stack, nullptr, 0);
  occ::fj::run<EPCC_REGIONS>(team, [&](occ::fj::Master<EPCC_REGIONS>& m) {
        int bad = 0;
        for (int round = 0; round < rounds; ++round) {
          long long* o = out + (size_t)round * FJ_CONSTRUCTS * 2;
          long long c0;
          unsigned long long g0;
          FJ_START();
          for (int r = 0; r < reps; ++r) fj_delay(d);
          FJ_STOP(0);
          EpccParallel par{d};
          FJ_START();
          for (int r = 0; r < reps; ++r) m.parallel(nthreads, par);
          FJ_STOP(1);
          EpccFor f{d, reps};
          FJ_START();
          m.parallel(nthreads, f);
          FJ_STOP(2);
          EpccParallelFor pf{d};
          FJ_START();
          for (int r = 0; r < reps; ++r) m.parallel(nthreads, pf);
          FJ_STOP(3);
          EpccBarrier b{d, reps};
          FJ_START();
          m.parallel(nthreads, b);
          FJ_STOP(4);
          EpccSingle s{d, reps};
          FJ_START();
          m.parallel(nthreads, s);
          FJ_STOP(5);
          int total = 0;
          FJ_START();
          EpccReduction red{d};
          for (int r = 0; r < reps; ++r) total += m.parallel_sum(nthreads, red);
          FJ_STOP(6);
          if (total != reps * (int)nthreads) bad = total;
        }
        *check = bad;
      });
}

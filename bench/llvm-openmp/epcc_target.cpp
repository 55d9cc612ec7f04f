// EPCC syncbench-style overheads of OpenMP constructs inside one target team, compiled by
// LLVM's OpenMP offload toolchain (clang -fopenmp -fopenmp-targets=nvptx64-nvidia-cuda): the
// comparator of `occupant bench forkjoin --backend cuda` (the same constructs, the same
// clock64-based delay, the same method of Bull: overhead = (T_construct - T_reference) / reps).
// Build: scripts/build-llvm-openmp.sh. Output: one JSON object per line on stdout.
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REF = 0, PARALLEL, FOR, PARALLEL_FOR, BARRIER, SINGLE, REDUCTION, CONSTRUCTS };
static const char* NAMES[CONSTRUCTS] = {"reference", "parallel", "for", "parallel for",
                                        "barrier", "single", "reduction"};

#pragma omp declare target
static inline long long clk() {
#if defined(__NVPTX__)
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
#else
  return 0;
#endif
}
static inline long long gtimer() {
#if defined(__NVPTX__)
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
#else
  return 0;
#endif
}
// The same delay as occupant's benchmark kernel: spin on clock64 for `d` cycles.
static inline void delay(long long d) {
  const long long t0 = clk();
  while (clk() - t0 < d) {
  }
}
#pragma omp end declare target

// out[(round * CONSTRUCTS + c) * 2 + {0,1}] = {cycles, ns} for `reps` repetitions;
// out[rounds * CONSTRUCTS * 2] = threads seen in a region.
static void bench(int nthreads, int reps, long long d, int rounds, long long* out, int limit) {
  const int n_out = rounds * CONSTRUCTS * 2 + 1;
#pragma omp target teams num_teams(1) thread_limit(limit) map(tofrom : out[0 : n_out])
  {
    for (int round = 0; round < rounds; ++round) {
      long long* o = out + round * CONSTRUCTS * 2;
      long long c0, g0;
      // reference: the delay in serial code
      c0 = clk(); g0 = gtimer();
      for (int r = 0; r < reps; ++r) delay(d);
      o[REF * 2] = clk() - c0; o[REF * 2 + 1] = gtimer() - g0;
      // parallel
      c0 = clk(); g0 = gtimer();
      for (int r = 0; r < reps; ++r) {
#pragma omp parallel num_threads(nthreads)
        { delay(d); }
      }
      o[PARALLEL * 2] = clk() - c0; o[PARALLEL * 2 + 1] = gtimer() - g0;
      // for (one region, reps worksharing loops of one iteration per thread)
      c0 = clk(); g0 = gtimer();
#pragma omp parallel num_threads(nthreads)
      {
        const int n = omp_get_num_threads();
        if (omp_get_thread_num() == 0 && round == 0) out[rounds * CONSTRUCTS * 2] = n;
        for (int r = 0; r < reps; ++r) {
#pragma omp for
          for (int i = 0; i < n; ++i) delay(d);
        }
      }
      o[FOR * 2] = clk() - c0; o[FOR * 2 + 1] = gtimer() - g0;
      // parallel for
      c0 = clk(); g0 = gtimer();
      for (int r = 0; r < reps; ++r) {
#pragma omp parallel for num_threads(nthreads)
        for (int i = 0; i < nthreads; ++i) delay(d);
      }
      o[PARALLEL_FOR * 2] = clk() - c0; o[PARALLEL_FOR * 2 + 1] = gtimer() - g0;
      // barrier
      c0 = clk(); g0 = gtimer();
#pragma omp parallel num_threads(nthreads)
      {
        for (int r = 0; r < reps; ++r) {
          delay(d);
#pragma omp barrier
        }
      }
      o[BARRIER * 2] = clk() - c0; o[BARRIER * 2 + 1] = gtimer() - g0;
      // single
      c0 = clk(); g0 = gtimer();
#pragma omp parallel num_threads(nthreads)
      {
        for (int r = 0; r < reps; ++r) {
#pragma omp single
          { delay(d); }
        }
      }
      o[SINGLE * 2] = clk() - c0; o[SINGLE * 2 + 1] = gtimer() - g0;
      // reduction
      c0 = clk(); g0 = gtimer();
      int total = 0;
      for (int r = 0; r < reps; ++r) {
        int s = 0;
#pragma omp parallel reduction(+ : s) num_threads(nthreads)
        {
          delay(d);
          s += 1;
        }
        total += s;
      }
      o[REDUCTION * 2] = clk() - c0; o[REDUCTION * 2 + 1] = gtimer() - g0;
      if (total != reps * nthreads && round == 0) out[rounds * CONSTRUCTS * 2] = -total;
    }
  }
}

int main(int argc, char** argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 1000;
  const long long d = argc > 2 ? atoll(argv[2]) : 100;
  const int rounds = argc > 3 ? atoi(argv[3]) : 5;
  const int workers[] = {32, 64, 128, 256, 512, 992};
  long long* out = (long long*)calloc((size_t)rounds * CONSTRUCTS * 2 + 1, sizeof(long long));
  for (int w = 0; w < 6; ++w) {
    const int n = workers[w];
    // Generic mode: the runtime's main thread needs a warp of its own beyond the workers.
    const int limit = n + 32 <= 1024 ? n + 32 : 1024;
    memset(out, 0, ((size_t)rounds * CONSTRUCTS * 2 + 1) * sizeof(long long));
    bench(n, reps, d, rounds, out, limit);
    for (int round = 0; round < rounds; ++round) {
      printf("{\"workers\": %d, \"threads_seen\": %lld, \"thread_limit\": %d, \"round\": %d, "
             "\"reps\": %d, \"delay_cycles\": %lld",
             n, out[rounds * CONSTRUCTS * 2], limit, round, reps, d);
      for (int c = 0; c < CONSTRUCTS; ++c)
        printf(", \"%s\": [%lld, %lld]", NAMES[c], out[(round * CONSTRUCTS + c) * 2],
               out[(round * CONSTRUCTS + c) * 2 + 1]);
      printf("}\n");
    }
    fflush(stdout);
  }
  free(out);
  return 0;
}

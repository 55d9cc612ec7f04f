// Host stand-in for device/watchdog.cuh (tests/coop_protocol.rs): wait_until yields and gives
// up after 3 s, raising a global abort flag.
#pragma once
#include <thread>
#include "memory.cuh"
namespace occ {
enum Prim : unsigned { User = 0, ResizingBarrier = 20, CoopScheduler = 21 };
inline u32 g_abort = 0;
inline unsigned long long globaltimer() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline bool aborted() { return __atomic_load_n(&g_abort, __ATOMIC_RELAXED) != 0; }
template <class C>
bool wait_until(unsigned prim, C cond) {
  const auto t0 = globaltimer();
  for (;;) {
    if (cond()) return true;
    if (aborted()) return false;
    if (globaltimer() - t0 > 3000000000ull) {
      std::fprintf(stderr, "watchdog: wait of primitive %u timed out\n", prim);
      __atomic_store_n(&g_abort, 1u, __ATOMIC_RELAXED);
      return false;
    }
    std::this_thread::yield();
  }
}
}  // namespace occ

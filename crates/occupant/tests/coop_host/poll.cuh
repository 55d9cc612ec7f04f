// Host stand-in for device/poll.cuh (tests/coop_protocol.rs): one thread per group.
#pragma once
#include "watchdog.cuh"
namespace occ {
template <class C>
bool poll_until(unsigned prim, C cond) { return wait_until(prim, cond); }
inline unsigned local_linear_id() { return 0u; }
}  // namespace occ

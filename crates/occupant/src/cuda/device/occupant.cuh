// occupant device library: include this one header (`#include <occupant.cuh>`) to get every
// primitive (the synchronisation primitives come through occupant_sync.cuh). The headers are
// embedded in the occupant crate and handed to NVRTC from memory.
#pragma once

#include "memory.cuh"
#include "watchdog.cuh"
#include "occupant_sync.cuh"

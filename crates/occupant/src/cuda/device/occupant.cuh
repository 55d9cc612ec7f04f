// occupant device library: include this one header (`#include <occupant.cuh>`) to get every
// primitive. The headers are embedded in the occupant crate and handed to NVRTC from memory.
#pragma once

#include "memory.cuh"
#include "watchdog.cuh"

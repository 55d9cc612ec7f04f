// occupant device library: ending a CUDA graph's device-side while loop from device code.
// Host side: occupant::cuda::WhileGraph (Gpu::capture_while builds a graph whose WHILE
// conditional node repeats the captured body while its condition is non-zero; the condition is
// 1 at the start of every launch).
//
//   extern "C" __global__ void test(const unsigned* changed, occ::GraphCondition cond) {
//     if (threadIdx.x == 0 && blockIdx.x == 0) occ::graph_continue(cond, *changed != 0u);
//   }
//
// graph_continue is the device runtime's cudaGraphSetConditional. NVRTC does not declare it, so
// it is declared here; the driver resolves the symbol when it loads the module (libcudadevrt has
// no definition and no -rdc link step is needed). One thread should set the condition per body
// run: concurrent calls are undefined behaviour (CUDA programming guide, conditional nodes).
#pragma once

#if defined(__CUDACC_RTC__)
extern "C" __device__ void cudaGraphSetConditional(unsigned long long handle, unsigned int value);
#endif

namespace occ {

/// A WHILE node's condition handle (occupant::cuda::ConditionHandle::raw on the host).
typedef unsigned long long GraphCondition;

/// Sets the condition of the loop `cond` belongs to: the body runs again after this run iff
/// `again`.
__device__ __forceinline__ void graph_continue(GraphCondition cond, bool again) {
  cudaGraphSetConditional(cond, again ? 1u : 0u);
}

}  // namespace occ

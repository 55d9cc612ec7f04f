// The other kernel of the multitasking experiments (occupant::cuda::coop::MATMUL_CU): C = A·B for
// n×n row-major floats, n a multiple of 64. Each block (256 threads, 16×16, 4×4 outputs per
// thread) computes 64×64 tiles and strides over them by gridDim.x, so the kernel runs with any
// number of blocks: the scheduler launches it with as many blocks as it gathered slots.
// stamps[0] / stamps[1]: earliest block start / latest block end (%globaltimer ns); the host
// sets stamps[0] = ~0 and stamps[1] = 0 before each launch.
#include <occupant.cuh>

extern "C" __global__ void __launch_bounds__(256) matmul(const float* A, const float* B, float* C,
                                                         unsigned n, unsigned long long* stamps) {
  __shared__ float As[16][64 + 4];  // A tile, transposed: As[k][row]
  __shared__ float Bs[16][64];
  if (threadIdx.x == 0) atomicMin(&stamps[0], occ::globaltimer());
  const unsigned per_row = n / 64u;
  const unsigned tiles = per_row * per_row;
  const unsigned tx = threadIdx.x % 16u, ty = threadIdx.x / 16u;
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
    const unsigned row0 = (t / per_row) * 64u, col0 = (t % per_row) * 64u;
    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;
    for (unsigned k0 = 0; k0 < n; k0 += 16u) {
      for (unsigned i = threadIdx.x; i < 1024u; i += 256u) {
        const unsigned r = i / 16u, c = i % 16u;
        As[c][r] = A[(size_t)(row0 + r) * n + k0 + c];
        const unsigned br = i / 64u, bc = i % 64u;
        Bs[br][bc] = B[(size_t)(k0 + br) * n + col0 + bc];
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < 16; ++kk) {
        float a[4], b[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) a[i] = As[kk][ty * 4 + i];
#pragma unroll
        for (int j = 0; j < 4; ++j) b[j] = Bs[kk][tx * 4 + j];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) C[(size_t)(row0 + ty * 4 + i) * n + col0 + tx * 4 + j] = acc[i][j];
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&stamps[1], occ::globaltimer());
}

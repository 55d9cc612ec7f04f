// occupant device library: thread-block cluster helpers (Hopper, sm_90), as inline PTX so that
// no CUDA toolkit header is needed under NVRTC.
//
//   cluster_rank()       mov.u32 %cluster_ctarank      rank of this block in its cluster
//   cluster_size()       mov.u32 %cluster_nctarank     blocks per cluster (1 without clusters)
//   cluster_linear_id()  %clusterid.{x,y,z}, %nclusterid.{x,y}  linear id of this cluster
//   cluster_count()      %nclusterid.{x,y,z}            clusters in the grid
//   cluster_arrive()     barrier.cluster.arrive.release.aligned
//   cluster_wait()       barrier.cluster.wait.acquire.aligned
//   cluster_sync()       both: the hardware barrier among every thread of the cluster
//   cluster_map(p, r)    mapa.shared::cluster: the address of shared variable p in block r
//   ld_shared_cluster(p) ld.shared::cluster.u32
// Every thread of every block of the cluster must call cluster_arrive/wait (aligned: the whole
// warp together). Without a cluster launch the cluster is the block itself (size 1).
#pragma once

#include "memory.cuh"

namespace occ {

__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned cluster_size() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned cluster_count() {
  unsigned x, y, z;
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(x));
  asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(y));
  asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(z));
  return x * y * z;
}
__device__ __forceinline__ unsigned cluster_linear_id() {
  unsigned x, y, z, nx, ny;
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(x));
  asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(y));
  asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(z));
  asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(nx));
  asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(ny));
  return x + nx * (y + ny * z);
}
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_sync() {
  cluster_arrive();
  cluster_wait();
}
/// The shared-memory address of `p` (a __shared__ variable of this block) in block `rank` of
/// the cluster, as a 32-bit shared::cluster address.
__device__ __forceinline__ unsigned cluster_map(const void* p, unsigned rank) {
  unsigned local = (unsigned)__cvta_generic_to_shared(p);
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(rank));
  return remote;
}
__device__ __forceinline__ unsigned ld_shared_cluster(unsigned addr) {
  unsigned v;
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}

}  // namespace occ

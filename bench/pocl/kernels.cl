// The OpenCL C side of `occupant bench cpu-vs-pocl`: the same kernels as
// crates/occupant/src/cpu/vs_pocl/kernels.rs, run on PoCL by harness.c.

// Tree reduction, 256 items per group: 8 barriers.
__kernel void reduce256(__global const uint *in, __global uint *out) {
    __local uint s[256];
    uint l = get_local_id(0);
    s[l] = in[get_global_id(0)];
    for (uint stride = 128; stride > 0; stride >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < stride) s[l] += s[l + stride];
    }
    if (l == 0) out[get_group_id(0)] = s[0];
}

// 1024 items per group, 64 rounds of 2 barriers (128): each round every item reads its
// right neighbour's value from local memory.
__kernel void rotate128(__global const uint *in, __global uint *out) {
    __local uint s[1024];
    uint l = get_local_id(0);
    uint v = in[get_global_id(0)];
    for (uint r = 0; r < 64; r++) {
        s[l] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        v = s[(l + 1) & 1023] * 3u + v + r;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = v;
}

// 16 rounds of xorshift-multiply per item, no barrier.
__kernel void hash16(__global uint *out) {
    uint x = (uint)get_global_id(0);
    for (int r = 0; r < 16; r++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x *= 0x9E3779B1u;
    }
    out[get_global_id(0)] = x;
}

// A plain store per item, no barrier.
__kernel void store3(__global uint *out) {
    out[get_global_id(0)] = (uint)get_global_id(0) * 3u;
}

// 5-point stencil on a W x H grid (clamped edges) through a local 18 x 18 tile per 16 x 16 group.
__kernel void stencil2d(__global const uint *in, __global uint *out, uint w, uint h) {
    __local uint tile[18 * 18];
    int lx = get_local_id(0), ly = get_local_id(1);
    int bx = get_group_id(0) * 16 - 1, by = get_group_id(1) * 16 - 1;
    for (int j = ly * 16 + lx; j < 18 * 18; j += 256) {
        int gx = clamp(bx + j % 18, 0, (int)w - 1);
        int gy = clamp(by + j / 18, 0, (int)h - 1);
        tile[j] = in[gy * w + gx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int c = (ly + 1) * 18 + lx + 1;
    uint v = 4u * tile[c] + tile[c - 1] + tile[c + 1] + tile[c - 18] + tile[c + 18];
    out[get_global_id(1) * w + get_global_id(0)] = v;
}

// 256-bin histogram: each item bins 16 inputs (strided by the group size) with local
// atomics; then each item adds one bin to the global histogram.
__kernel void histogram(__global const uint *in, __global uint *out) {
    __local uint bins[256];
    uint l = get_local_id(0);
    bins[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint base = get_group_id(0) * 256 * 16;
    for (uint k = 0; k < 16; k++) {
        uint v = in[base + k * 256 + l];
        atomic_inc(&bins[(v >> 8) & 255]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&out[l], bins[l]);
}

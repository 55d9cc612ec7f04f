//! Regression tests (issue 11): block shapes checked against the kernel's resources before the
//! launch. Skips with one line without a GPU; fails instead under OCCUPANT_REQUIRE_GPU=1.

mod common;

use common::gpu_or_skip;
use occupant::args;
use occupant::cuda::{CompileOptions, LaunchConfig};
use occupant::Error;

const SRC: &str = r#"
#include <occupant.cuh>
// Static and dynamic shared memory together: static 64 words, dynamic `n` words.
extern "C" __global__ void static_and_dynamic(unsigned* out, unsigned n) {
  __shared__ unsigned s[64];
  extern __shared__ unsigned d[];
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x) d[i] = i;
  if (threadIdx.x < 64) s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = d[n - 1] + s[63];
}
// Many live registers per thread: 96 values, each used in every round.
extern "C" __global__ void register_heavy(float* p) {
  float v[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) v[i] = p[threadIdx.x + i * 1024];
  float acc = 0.f;
#pragma unroll
  for (int j = 1; j < 8; ++j) {
#pragma unroll
    for (int i = 0; i < 96; ++i) acc += v[i] * v[(i + j) % 96];
#pragma unroll
    for (int i = 0; i < 96; ++i) v[i] = v[i] * acc + (float)j;
  }
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 96; ++i) s += v[i];
  p[threadIdx.x] = s;
}
"#;

/// Static shared memory plus exactly 48 KiB of dynamic shared memory used to fail with the
/// driver's CUDA_ERROR_INVALID_VALUE: the opt-in must count static + dynamic.
#[test]
fn static_shared_plus_48_kib_dynamic_launches() {
    let Some(gpu) = gpu_or_skip("static_shared_plus_48_kib_dynamic_launches") else {
        return;
    };
    let m = gpu
        .compile("limits.cu", SRC, &CompileOptions::default())
        .unwrap();
    assert_eq!(
        m.attributes("static_and_dynamic")
            .unwrap()
            .static_shared_bytes,
        256
    );
    let out = gpu.alloc_zeroed::<u32>(2).unwrap();
    let words = (48u32 << 10) / 4;
    m.launch(
        "static_and_dynamic",
        &LaunchConfig::plain(2, 128).shared(48 << 10),
        &args![&out, words],
    )
    .unwrap_or_else(|e| panic!("256 B static + 48 KiB dynamic: {e}"));
    assert_eq!(out.to_vec().unwrap(), vec![words - 1 + 63; 2]);

    // More than the device allows: a clear error naming the limit and the numbers.
    let max = gpu.info().max_shared_per_block;
    let e = m
        .launch(
            "static_and_dynamic",
            &LaunchConfig::plain(1, 128).shared(max),
            &args![&out, max / 4],
        )
        .unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::InvalidLaunch(_)), "{e}");
    for part in [
        "256 bytes of static",
        &format!("{max} bytes of dynamic"),
        "limit",
    ] {
        assert!(msg.contains(part), "{msg}");
    }
    // The module is still usable.
    m.launch(
        "static_and_dynamic",
        &LaunchConfig::plain(2, 128).shared(4096),
        &args![&out, 1024u32],
    )
    .unwrap();
}

/// A block with more registers than an SM has used to surface as "too many resources
/// requested for launch": the check before the launch names the registers and the numbers.
#[test]
fn a_block_with_too_many_registers_is_refused_before_launch() {
    let Some(gpu) = gpu_or_skip("a_block_with_too_many_registers_is_refused_before_launch") else {
        return;
    };
    let m = gpu
        .compile("limits.cu", SRC, &CompileOptions::default())
        .unwrap();
    let a = m.attributes("register_heavy").unwrap();
    let regs_per_sm = gpu.info().registers_per_sm;
    println!("register_heavy: {a:?}, {regs_per_sm} registers per SM");
    assert!(
        a.registers * 1024 > regs_per_sm && a.max_threads_per_block < 1024,
        "the test kernel must be register-limited: {a:?}"
    );
    let p = gpu.alloc_zeroed::<f32>(96 * 1024).unwrap();
    let too_many = (a.max_threads_per_block + 32) as usize;
    let e = m
        .launch(
            "register_heavy",
            &LaunchConfig::plain(1, too_many),
            &args![&p],
        )
        .unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::InvalidLaunch(_)), "{e}");
    for part in [
        format!("at most {}", a.max_threads_per_block),
        format!("{} registers per thread", a.registers),
        format!("{}", a.registers as usize * too_many),
        format!("{regs_per_sm}"),
    ] {
        assert!(msg.contains(&part), "{msg} (missing {part})");
    }
    // The largest block it allows launches.
    m.launch(
        "register_heavy",
        &LaunchConfig::plain(1, a.max_threads_per_block as usize),
        &args![&p],
    )
    .unwrap();
}

//! Cooperative kernels on CUDA (seed 000, Sorensen et al., FSE 2017): a persistent kernel that
//! gives groups (blocks) back to a host scheduler at safe points so that another, separately
//! compiled kernel can run in their slots, and takes new groups back later.
//!
//! Device side: `occ::coop` in `device/coop.cuh` (`enter`, `offer_kill`, `request_fork`,
//! `global_barrier`, `resizing_barrier` with the regular and the `query` variant, `transmit`,
//! `leave`, participating ids `g.id` / `g.m`). Host side: [`Scheduler`] (start, take, give back,
//! finish), [`Lane`] (streams for the other kernel), and [`MATMUL_CU`], the other kernel of the
//! multitasking experiments (our own tiled SGEMM, compiled by NVRTC — not cuBLAS).
//!
//! How groups move: killed blocks return and free their slots; the other kernel is launched on
//! its own stream into them; to give them back the scheduler launches new blocks of the same
//! kernel on a second stream, which join through the scheduler state in device memory at the
//! next fork point with the next ids. Requests and answers go through host-mapped memory with
//! `.sys` scope. Every wait is bounded (the device watchdog and host deadlines).

mod green;
mod lane;
mod mapped;
mod scheduler;

pub use green::green_split;
pub use lane::Lane;
pub use scheduler::{CoopConfig, CoopReport, Gather, Scheduler, JOIN_SLOTS, STATE_BYTES, TX_WORDS};

/// The other kernel of the multitasking experiments: `matmul(A, B, C, n, stamps)`, a 64×64-tiled
/// single-precision GEMM (C = A·B, n×n, n a multiple of 64) whose blocks stride over the tiles,
/// so it runs with any number of blocks; block 256 threads; `stamps[0]`/`stamps[1]` get the
/// earliest start and latest end (`%globaltimer`, ns; the host zeroes `stamps[0]` to `~0`).
pub const MATMUL_CU: &str = include_str!("kernels/matmul.cu");

/// The scheduler's own test kernels: `coop_rounds` (resizing-barrier intervals that check ids,
/// barrier ordering and transmitted values) and `coop_selfish` (never offers a group back).
pub const SELFTEST_CU: &str = include_str!("kernels/coop_selftest.cu");

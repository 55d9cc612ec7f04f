//! Runs the primitives' kernels on a GPU and checks and times them: shared by the GPU tests
//! (`tests/gpu_sync_*.rs`) and the `occupant bench … --backend cuda` commands.

use super::kernels::{self, BARRIER_CU, DISCOVERY_CU, MEMORY_BENCH_CU, MUTEX_CU, SEMAPHORE_CU};
use super::kinds::{BarrierKind, DiscoveryMethod, MutexKind, SemaphoreKind};
use super::machine::{Access, Defaults, MachineAbstraction, MemoryTiming};
use crate::args;
use crate::cuda::{Arg, DeviceBuffer, Gpu, LaunchConfig, LaunchMode, Module};
use crate::model::{Error, Result, Watchdog};
use serde::Serialize;

/// Median of a non-empty slice (0 when empty): the model's.
pub use crate::model::median;

/// Ns per round of each of the first `blocks` blocks, from their (start, end) %globaltimer
/// pairs; blocks that recorded no span are skipped.
pub(crate) fn ns_per_round(times: &[u64], blocks: usize, rounds: u32) -> Vec<f64> {
    times
        .chunks_exact(2)
        .take(blocks)
        .filter(|p| p[1] > p[0])
        .map(|p| (p[1] - p[0]) as f64 / f64::from(rounds.max(1)))
        .collect()
}

/// Millions of operations per second when `blocks` blocks did `iters` operations each within
/// the span of their `[start, end]` timestamps (0 when nothing was timed).
fn mops_over_span(times: &[u64], blocks: usize, iters: u32) -> f64 {
    let ns = span_ns(times);
    if ns > 0.0 {
        blocks as f64 * f64::from(iters) / ns * 1e3
    } else {
        0.0
    }
}

/// `(last end - first start)` over blocks' `[start, end]` pairs (zero pairs skipped), ns.
fn span_ns(times: &[u64]) -> f64 {
    let mut lo = u64::MAX;
    let mut hi = 0u64;
    for p in times.chunks_exact(2) {
        if p[0] != 0 && p[1] >= p[0] {
            lo = lo.min(p[0]);
            hi = hi.max(p[1]);
        }
    }
    if hi > lo {
        (hi - lo) as f64
    } else {
        0.0
    }
}

/// Checks that the participants' ids (`ids[native]`, `u32::MAX` for non-participants) are
/// exactly `0..n` with `n` the number of participants.
pub fn ids_are_contiguous(ids: &[u32]) -> bool {
    let mut seen: Vec<u32> = ids.iter().copied().filter(|&i| i != u32::MAX).collect();
    seen.sort_unstable();
    seen.iter().enumerate().all(|(i, &v)| v as usize == i)
}

/// One barrier run: discovery launch, then `rounds` barriers.
#[derive(Debug, Clone, Serialize)]
pub struct BarrierRun {
    /// The barrier.
    pub kind: BarrierKind,
    /// The lab variant's kernel (`lab_…` in kernels/barrier.cu, other parameters than the
    /// library's); absent for the library's kind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<String>,
    /// Blocks launched.
    pub launched: usize,
    /// Threads per block.
    pub block_threads: usize,
    /// Cluster size (1: no clusters).
    pub cluster: u32,
    /// Blocks that took part (discovery).
    pub participants: usize,
    /// The occupancy API's bound for this kernel and shape (blocks).
    pub occupancy_bound: usize,
    /// Barriers run.
    pub rounds: u32,
    /// Whether message passing was checked.
    pub checked: bool,
    /// Message-passing violations (must be 0).
    pub violations: u64,
    /// Participants' ids were exactly 0..n-1.
    pub ids_contiguous: bool,
    /// Median over participants of (time for all rounds) / rounds, ns.
    pub ns_per_barrier: f64,
}

/// Runs barrier `kind` over the blocks discovery finds among `launched` blocks of
/// `block_threads` threads (cluster size `cluster`, 1 = none; only the hierarchical barrier
/// uses clusters). `check`: message passing in every round (see kernels/barrier.cu).
#[allow(clippy::too_many_arguments)]
pub fn run_barrier(
    gpu: &Gpu,
    kind: BarrierKind,
    launched: usize,
    block_threads: usize,
    cluster: u32,
    rounds: u32,
    check: bool,
    watchdog: Watchdog,
) -> Result<BarrierRun> {
    // run_barrier_placed checks that only the hierarchical kind takes clusters.
    run_barrier_with(
        gpu,
        kind,
        launched,
        block_threads,
        cluster,
        rounds,
        check,
        watchdog,
        &[],
    )
}

/// [`run_barrier`] with further NVRTC options, e.g. the polls' throttle
/// (`-DOCC_POLL_PAUSE_SHIFT=1`) or skewed arrivals ([`skew_option`]).
#[allow(clippy::too_many_arguments)]
pub fn run_barrier_with(
    gpu: &Gpu,
    kind: BarrierKind,
    launched: usize,
    block_threads: usize,
    cluster: u32,
    rounds: u32,
    check: bool,
    watchdog: Watchdog,
    extra: &[&str],
) -> Result<BarrierRun> {
    run_barrier_placed(
        gpu,
        kind,
        (launched, block_threads, cluster),
        rounds,
        check,
        watchdog,
        extra,
        0,
    )
}

/// [`run_barrier_with`] (shape = launched blocks, threads per block, cluster size) with the
/// barrier's state at candidate place `placement`: `placement` ×
/// [`PERSISTENT_PLACEMENT_STRIDE_WORDS`](crate::cuda::PERSISTENT_PLACEMENT_STRIDE_WORDS) words
/// into a larger allocation, the places the persistent programs' probe tries. A barrier's
/// time depends on where its lines land in L2 (4-14 % between places on an H200), so the
/// benchmark times each kind at several places ([`bench::PrimitivesConfig::runs`](super::bench::PrimitivesConfig)).
#[allow(clippy::too_many_arguments)]
pub fn run_barrier_placed(
    gpu: &Gpu,
    kind: BarrierKind,
    shape: (usize, usize, u32),
    rounds: u32,
    check: bool,
    watchdog: Watchdog,
    extra: &[&str],
    placement: usize,
) -> Result<BarrierRun> {
    let shape = (shape.0, shape.1, shape.2.max(1));
    if shape.2 > 1 && kind != BarrierKind::Hierarchical {
        return Err(Error::InvalidLaunch(format!(
            "the {kind} barrier does not use thread-block clusters"
        )));
    }
    kind_kernel(
        gpu,
        kind,
        shape,
        (rounds, check),
        watchdog,
        extra,
        StateAt::Candidate(placement),
    )
}

/// Times `rounds` barriers of `kind` (no clusters) in a launch of `launched` blocks of
/// `block_threads` threads, its state at device address `state` (zeroed by the caller, at
/// least `kind.state_words(launched)` words, and not in use by another launch): the
/// benchmark's kernel over the caller's memory, as [`Barrier::placed`](super::Barrier::placed)
/// times the candidate places of a barrier's own allocation.
pub fn run_barrier_at(
    gpu: &Gpu,
    kind: BarrierKind,
    launched: usize,
    block_threads: usize,
    rounds: u32,
    state: u64,
    watchdog: Watchdog,
) -> Result<BarrierRun> {
    kind_kernel(
        gpu,
        kind,
        (launched, block_threads, 1),
        (rounds, false),
        watchdog,
        &[],
        StateAt::Given(state),
    )
}

/// [`barrier_kernel`] for a library kind (kernel `barrier_<kind>`); `timing`: rounds, and
/// whether to check messages.
fn kind_kernel(
    gpu: &Gpu,
    kind: BarrierKind,
    shape: (usize, usize, u32),
    timing: (u32, bool),
    watchdog: Watchdog,
    extra: &[&str],
    at: StateAt,
) -> Result<BarrierRun> {
    let name = format!("barrier_{}", kind.name());
    let (rounds, check) = timing;
    barrier_kernel(
        gpu, kind, None, &name, shape, rounds, check, watchdog, extra, at,
    )
}

/// SM cycles per nanosecond assumed by [`skew_option`] (the H100's and H200's boost clock,
/// 1.98 GHz, rounded).
pub const SKEW_CYCLES_PER_NS: u32 = 2;

/// The NVRTC option for skewed arrivals in the barrier benchmark: before each timed barrier,
/// thread 0 of every participant spins a seeded pseudo-random number of SM cycles, uniform in
/// [0, `skew_ns` × [`SKEW_CYCLES_PER_NS`]) (kernels/barrier.cu, `bench_skew_cycles`; the
/// grid.sync() comparator draws the same delays). None for 0 (all blocks arrive together).
pub fn skew_option(skew_ns: u32) -> Option<String> {
    (skew_ns > 0).then(|| {
        format!(
            "-DOCC_BENCH_SKEW_CYCLES={}",
            skew_ns.saturating_mul(SKEW_CYCLES_PER_NS)
        )
    })
}

/// The barrier lab's kernels (`-DOCC_BARRIER_LAB`, kernels/barrier.cu): ReplicaBarrier and
/// RelayBarrier with other parameters than the library's (lines, loads in flight, gap between
/// their first issues in cycles, relay fan-in; e: polls between clock checks, atom: a returned
/// arrival, w: cycles before the first poll), the lean barrier's refinements (`lab_lean_flag…`:
/// a shared flag and bar.sync instead of bar.red.and; `pb<s>`: a pause of (missing arrivals)
/// << s cycles before the first poll; `lab_lines_k<K>`: Lean over K lines, every block polling
/// every line), to measure what each part of the design buys. Run 3
/// (i11-barrier-fast) keeps the variants that won in runs 1 and 2 (the rest stay compiled).
/// `lab_lean_arr_<mode>` (i11-misses): Lean's arrival as `atom.acq_rel` (Lean's), `fence.sc` +
/// relaxed atomic (grid.sync's), `atom.release`, `fence.acq_rel` + relaxed atomic;
/// `lab_lean_last_warp`: Lean's arrival and poll by the block's last warp.
/// `lab_relay_relaxed_f<F>` (session 11): the relay whose root hop is relaxed
/// (relay_relaxed_barrier.cuh) with fan-in F; `lab_lean_split` / `lab_lean_split_pause`:
/// lean_eager / Lean whose other warps only arrive at the entry (named barrier 1) and sleep
/// until the exit vote (named barrier 2); `lab_lean_poll_<acq|rlx>_g<G>`: lean_eager polling
/// with ld.acquire (as CUDA 13's grid.sync()) or relaxed loads, G cycles apart;
/// `lab_lean_spin_exit[_s32]` / `lab_lean_spin_both` (session 12): lean_eager whose other warps
/// wait for thread 0's result on a shared word (no bar.red.and at the exit; `s32`: 32 ns sleeps
/// between their loads), `both`: the entry through a shared warp counter too;
/// `lab_relay_poll_k<K>_g<G>` (session 12): the relay whose poller keeps K loads in flight to K
/// different root lines, first issued G cycles apart (k1_g0: the relay's own poll);
/// `lab_relay_pace_w<D>[_g<G>]` / `_g<G>`: the relay waiting D cycles before its first poll
/// and G cycles between polls; `lab_relay_nap_n<N>`: the relay sleeping N ns
/// (`__nanosleep`) before its first poll; `lab_lean_nap_n<N>` / `_p0`: lean_eager sleeping N ns
/// (or one / two ns per missing arrival: `p0` / `p1`) before its first poll past one block per
/// SM.
pub const BARRIER_LAB: &[&str] = &[
    "lab_replica_r1_d1_e16",
    "lab_replica_atom_d1_e16",
    "lab_replica_atom_d1_e16_w300",
    "lab_relay_f32_r32_d1_e16",
    "lab_relay_f64_r32_d1_e16",
    "lab_lean_flag",
    "lab_lean_flag_w0",
    "lab_lean_flag_w600",
    "lab_lean_pb0",
    "lab_lean_pb1",
    "lab_lean_pb2",
    "lab_lean_pb1_w300",
    "lab_lines_k2",
    "lab_lines_k4",
    "lab_lines_k8",
    "lab_lines_k16",
    "lab_lines_k32",
    "lab_lines_atom_k4",
    "lab_lines_atom_k8",
    "lab_lean_arr_acq_rel",
    "lab_lean_arr_sc",
    "lab_lean_arr_rel",
    "lab_lean_arr_fence",
    "lab_lean_last_warp",
    "lab_relay_relaxed_f16",
    "lab_relay_relaxed_f32",
    "lab_relay_relaxed_f64",
    "lab_relay_relaxed_f128",
    "lab_lean_split",
    "lab_lean_split_pause",
    "lab_lean_poll_rlx_g0",
    "lab_lean_poll_acq_g0",
    "lab_lean_poll_rlx_g64",
    "lab_lean_poll_rlx_g256",
    "lab_lean_poll_acq_g64",
    "lab_lean_spin_exit",
    "lab_lean_spin_exit_s32",
    "lab_lean_spin_both",
    "lab_relay_poll_k1_g0",
    "lab_relay_poll_k2_g500",
    "lab_relay_poll_k4_g250",
    "lab_relay_poll_k8_g125",
    "lab_relay_poll_k4_g0",
    "lab_relay_pace_w500",
    "lab_relay_pace_w1000",
    "lab_relay_pace_w2000",
    "lab_relay_pace_g100",
    "lab_relay_pace_g300",
    "lab_relay_pace_w1000_g300",
    "lab_relay_pace_w3000",
    "lab_relay_nap_n250",
    "lab_relay_nap_n500",
    "lab_relay_nap_n1000",
    "lab_relay_nap_n1500",
    "lab_lean_nap_n250",
    "lab_lean_nap_n500",
    "lab_lean_nap_p0",
    "lab_lean_nap_p1",
];

/// The lab's probes (kernels/barrier.cu, `lab_p_…`): no synchronisation, thread 0 of every
/// block does one operation per "barrier" between two bar.syncs, so that the ns per round is
/// that operation's cost in the shape (all blocks at once): `sync` nothing, `fence` /
/// `fence_sc` / `fence_acq` fence.acq_rel / .sc / .acquire at .gpu, `atom_own` / `atom_ar_own`
/// a returned atom.relaxed / .acq_rel add on the block's own line, `ld_own` ld.relaxed of it,
/// `atom_one` / `ld_one` the same on one line for all blocks, `red_seen` red.release on its own
/// line then polls until it reads the sum back, `bar_red` bar.red.and instead of the second
/// bar.sync. Never run with message checking (they are not barriers).
pub const BARRIER_LAB_PROBES: &[&str] = &[
    "lab_p_sync",
    "lab_p_fence",
    "lab_p_fence_sc",
    "lab_p_fence_acq",
    "lab_p_atom_own",
    "lab_p_atom_ar_own",
    "lab_p_ld_own",
    "lab_p_atom_one",
    "lab_p_ld_one",
    "lab_p_red_seen",
    "lab_p_bar_red",
];

/// The lab's cluster-launch kernels (compiled with `-DOCC_CLUSTER_SIZE=k`): ClusterLeanBarrier
/// (cluster_barrier.cuh) with the cluster's arrival and release through the hardware cluster
/// barrier (`hw`) or distributed shared memory (`ds`): `lab_cl_<arrival><release>`.
pub const BARRIER_LAB_CLUSTER: &[&str] =
    &["lab_cl_hwhw", "lab_cl_hwds", "lab_cl_dsds", "lab_cl_dshw"];

/// The lab's cluster probes (as [`BARRIER_LAB_PROBES`]): `csync` the cluster barrier
/// (arrive.release + wait.acquire, every thread), `csync_rlx` with arrive.relaxed, `ds_ld` a
/// load of the next block's shared word through shared::cluster, `fence_cl` fence.acq_rel.cluster.
pub const BARRIER_LAB_CLUSTER_PROBES: &[&str] = &[
    "lab_p_csync",
    "lab_p_csync_rlx",
    "lab_p_ds_ld",
    "lab_p_fence_cl",
];

/// Runs lab kernel `variant` (one of [`BARRIER_LAB`] or [`BARRIER_LAB_PROBES`]) as
/// [`run_barrier`] runs a kind (no clusters).
pub fn run_barrier_lab(
    gpu: &Gpu,
    variant: &str,
    launched: usize,
    block_threads: usize,
    rounds: u32,
    check: bool,
    watchdog: Watchdog,
) -> Result<BarrierRun> {
    run_barrier_lab_clustered(
        gpu,
        variant,
        launched,
        block_threads,
        1,
        rounds,
        check,
        watchdog,
        &[],
    )
}

/// [`run_barrier_lab`] with a cluster size (> 1: a kernel of [`BARRIER_LAB_CLUSTER`] or
/// [`BARRIER_LAB_CLUSTER_PROBES`]) and further NVRTC options (e.g.
/// `-DOCC_DISCOVERY_QUIET_NS=200000`).
#[allow(clippy::too_many_arguments)]
pub fn run_barrier_lab_clustered(
    gpu: &Gpu,
    variant: &str,
    launched: usize,
    block_threads: usize,
    cluster: u32,
    rounds: u32,
    check: bool,
    watchdog: Watchdog,
    extra: &[&str],
) -> Result<BarrierRun> {
    let cluster = cluster.max(1);
    let known: Vec<&str> = if cluster > 1 {
        BARRIER_LAB_CLUSTER
            .iter()
            .chain(BARRIER_LAB_CLUSTER_PROBES)
            .copied()
            .collect()
    } else {
        BARRIER_LAB
            .iter()
            .chain(BARRIER_LAB_PROBES)
            .copied()
            .collect()
    };
    if !known.contains(&variant) {
        return Err(Error::InvalidLaunch(format!(
            "no barrier lab kernel `{variant}` for cluster size {cluster} (known: {})",
            known.join(", ")
        )));
    }
    if check && variant.starts_with("lab_p_") {
        return Err(Error::InvalidLaunch(format!(
            "`{variant}` is a probe, not a barrier: it cannot pass messages"
        )));
    }
    let kind = if variant.starts_with("lab_relay") {
        BarrierKind::Relay
    } else {
        BarrierKind::Replica
    };
    let shape = (launched, block_threads, cluster);
    let mut opts = vec!["-DOCC_BARRIER_LAB"];
    opts.extend_from_slice(extra);
    barrier_kernel(
        gpu,
        kind,
        Some(variant),
        variant,
        shape,
        rounds,
        check,
        watchdog,
        &opts,
        StateAt::Candidate(0),
    )
}

/// Where [`barrier_kernel`] puts the barrier's state.
#[derive(Debug, Clone, Copy)]
enum StateAt {
    /// Candidate place `n` of an allocation of its own.
    Candidate(usize),
    /// The caller's state (device address, zeroed, large enough for the kind and shape).
    Given(u64),
}

/// Compiles occupant_barrier.cu (the lab when `variant` is given), launches kernel `name` in
/// discovery mode over `shape` = (launched blocks, threads per block, cluster size) and reads
/// back the check and the timing.
#[allow(clippy::too_many_arguments)]
fn barrier_kernel(
    gpu: &Gpu,
    kind: BarrierKind,
    variant: Option<&str>,
    name: &str,
    shape: (usize, usize, u32),
    rounds: u32,
    check: bool,
    watchdog: Watchdog,
    lab: &[&str],
    at: StateAt,
) -> Result<BarrierRun> {
    let (launched, block_threads, cluster) = shape;
    if launched % cluster as usize != 0 {
        return Err(Error::InvalidLaunch(format!(
            "{launched} blocks are not a multiple of the cluster size {cluster}"
        )));
    }
    let compile =
        |regs| kernels::compile_with(gpu, "occupant_barrier.cu", BARRIER_CU, cluster, regs, lab);
    let mut m = compile(None)?;
    let mut bound = occupancy_bound(gpu, &m, name, block_threads, 0)?;
    // Asked for full occupancy but the kernel's registers keep blocks out: use the variant
    // capped to fit (it spills a little, so it is not used where it is not needed).
    let hardware = gpu.info().resident_blocks_bound(block_threads as u32) as usize;
    if launched >= hardware && bound < hardware {
        m = compile(Some(kernels::FULL_OCCUPANCY_REGISTERS))?;
        bound = occupancy_bound(gpu, &m, name, block_threads, 0)?;
    }
    let hint = (bound / cluster as usize) as u32;
    let groups = launched.max(1);
    let words = match variant {
        Some(_) => BarrierKind::Relay
            .state_words(groups)
            .max(BarrierKind::Replica.state_words(groups)),
        None => kind.state_words(groups),
    };
    // The state at candidate place `placement` of a larger allocation (run_barrier_placed), or
    // the caller's (zeroed) state.
    let (_own, state_ptr) = match at {
        StateAt::Candidate(placement) => {
            let skip = placement * crate::cuda::PERSISTENT_PLACEMENT_STRIDE_WORDS;
            let bstate = gpu.alloc_zeroed::<u32>(words + skip)?;
            let ptr = bstate.device_ptr() + 4 * skip as u64;
            (Some(bstate), ptr)
        }
        StateAt::Given(ptr) => (None, ptr),
    };
    let data = gpu.alloc_zeroed::<u64>(2 * groups)?;
    let violations = gpu.alloc_zeroed::<u32>(1)?;
    let ids = gpu.alloc_zeroed::<u32>(groups)?;
    let times = gpu.alloc_zeroed::<u64>(2 * groups)?;
    let method = DiscoveryMethod::Quiescent.device_value();
    let cfg = LaunchConfig::new(LaunchMode::Discovery, block_threads)
        .grid(launched)
        .watchdog(watchdog);
    let report = m.launch(
        name,
        &cfg,
        &args![
            method,
            hint,
            state_ptr,
            &data,
            rounds,
            u32::from(check),
            &violations,
            &ids,
            &times
        ],
    )?;
    let participants = report.participants.unwrap_or(0) as usize;
    let ids = ids.to_vec()?;
    let per = ns_per_round(&times.to_vec()?, participants, rounds);
    Ok(BarrierRun {
        kind,
        variant: variant.map(str::to_string),
        launched,
        block_threads,
        cluster,
        participants,
        occupancy_bound: bound,
        rounds,
        checked: check,
        violations: u64::from(violations.to_vec()?[0]),
        ids_contiguous: ids_are_contiguous(&ids)
            && ids.iter().filter(|&&i| i != u32::MAX).count() == participants,
        ns_per_barrier: median(&per),
    })
}

/// Times `rounds` cooperative-groups `grid.sync()` calls over `blocks` blocks (cooperative
/// launch): median over blocks of ns per barrier.
pub fn run_grid_sync(gpu: &Gpu, blocks: usize, block_threads: usize, rounds: u32) -> Result<f64> {
    run_grid_sync_with(gpu, blocks, block_threads, rounds, &[])
}

/// [`run_grid_sync`] with further NVRTC options (skewed arrivals: [`skew_option`]).
pub fn run_grid_sync_with(
    gpu: &Gpu,
    blocks: usize,
    block_threads: usize,
    rounds: u32,
    extra: &[&str],
) -> Result<f64> {
    let m = kernels::compile_grid_sync_with(gpu, extra)?;
    let times = gpu.alloc_zeroed::<u64>(2 * blocks)?;
    let cfg = LaunchConfig::new(LaunchMode::Cooperative, block_threads).grid(blocks);
    m.launch("grid_sync_bench", &cfg, &args![rounds, &times])?;
    Ok(median(&ns_per_round(&times.to_vec()?, blocks, rounds)))
}

/// The unsafe baseline: an atomic barrier over every one of `blocks` launched blocks, no
/// discovery (plain launch). Returns ns per barrier, or the watchdog's Error::Deadlock when the
/// blocks cannot all be resident.
pub fn run_naive_barrier(
    gpu: &Gpu,
    blocks: usize,
    block_threads: usize,
    rounds: u32,
    watchdog: Watchdog,
) -> Result<f64> {
    let m = kernels::compile(gpu, "occupant_barrier.cu", BARRIER_CU, 1, None)?;
    let bstate = gpu.alloc_zeroed::<u32>(BarrierKind::Atomic.state_words(blocks))?;
    let times = gpu.alloc_zeroed::<u64>(2 * blocks)?;
    let cfg = LaunchConfig::plain(blocks, block_threads).watchdog(watchdog);
    m.launch("barrier_naive", &cfg, &args![&bstate, rounds, &times])?;
    Ok(median(&ns_per_round(&times.to_vec()?, blocks, rounds)))
}

/// The occupancy API's bound for `kernel` of `module` at this shape (blocks on the device).
pub fn occupancy_bound(
    gpu: &Gpu,
    module: &Module,
    kernel: &str,
    block_threads: usize,
    shared: u32,
) -> Result<usize> {
    Ok(
        module.max_active_blocks_per_sm(kernel, block_threads as u32, shared)? as usize
            * gpu.info().sm_count as usize,
    )
}

/// One mutex run.
#[derive(Debug, Clone, Serialize)]
pub struct MutexRun {
    /// The mutex.
    pub kind: MutexKind,
    /// Contending blocks (one representative thread each).
    pub blocks: usize,
    /// Thread-block cluster size of the launch (1: none; the cohort mutex's cohorts).
    pub cluster: u32,
    /// Acquisitions per block.
    pub iters: u32,
    /// Whether the critical section incremented the plain counter.
    pub work: bool,
    /// The counter after the launch (must equal `blocks * iters` when `work`).
    pub counter: u64,
    /// Lock/unlock pairs (for the combining lock: applied requests, one critical section each)
    /// per second over the whole launch, millions.
    pub mops: f64,
    /// The lock was free after the launch (spin: word 0; the ticket-based kinds: every
    /// global ticket served, so a lazy cohort released its parked lock).
    pub free_after: bool,
}

/// Runs mutex `kind` with `blocks` contending blocks of `block_threads` threads (no clusters).
pub fn run_mutex(
    gpu: &Gpu,
    kind: MutexKind,
    blocks: usize,
    block_threads: usize,
    iters: u32,
    work: bool,
    watchdog: Watchdog,
) -> Result<MutexRun> {
    run_mutex_clustered(gpu, kind, blocks, block_threads, 1, iters, work, watchdog)
}

/// Runs mutex `kind` with `blocks` contending blocks launched in thread-block clusters of
/// `cluster` blocks (only the cohort mutexes take clusters; the grid is rounded up to whole
/// clusters and the blocks past `blocks` take no lock; see [`MutexKind::uses_clusters`]).
#[allow(clippy::too_many_arguments)]
pub fn run_mutex_clustered(
    gpu: &Gpu,
    kind: MutexKind,
    blocks: usize,
    block_threads: usize,
    cluster: u32,
    iters: u32,
    work: bool,
    watchdog: Watchdog,
) -> Result<MutexRun> {
    run_mutex_placed(
        gpu,
        kind,
        (blocks, block_threads, cluster),
        iters,
        work,
        watchdog,
        0,
    )
}

/// [`run_mutex_clustered`] (shape = contending blocks, threads per block, cluster size) with
/// the lock's state at candidate place `placement`: `placement` ×
/// [`PERSISTENT_PLACEMENT_STRIDE_WORDS`](crate::cuda::PERSISTENT_PLACEMENT_STRIDE_WORDS)
/// words into a larger allocation, as [`run_barrier_placed`] places a barrier's (how much a
/// lock's throughput depends on where its word lands in L2).
pub fn run_mutex_placed(
    gpu: &Gpu,
    kind: MutexKind,
    shape: (usize, usize, u32),
    iters: u32,
    work: bool,
    watchdog: Watchdog,
    placement: usize,
) -> Result<MutexRun> {
    mutex_kernel(
        gpu,
        kind,
        shape,
        (iters, work),
        watchdog,
        LockAt::Candidate(placement),
    )
}

/// Runs mutex `kind` (no clusters) with `blocks` contending blocks of `block_threads`
/// threads, `iters` lock/unlock pairs each (`work`: a counter increment inside), its state
/// `offset` words into `state` (zeroed by the caller, at least `kind.state_words()` words past
/// `offset`, and not in use by another launch): the benchmark's kernel over the caller's
/// memory, as [`Mutex::placed`](super::Mutex::placed) times the candidate places of a lock's
/// own allocation.
#[allow(clippy::too_many_arguments)]
pub fn run_mutex_at(
    gpu: &Gpu,
    kind: MutexKind,
    blocks: usize,
    block_threads: usize,
    iters: u32,
    work: bool,
    state: (&DeviceBuffer<u32>, usize),
    watchdog: Watchdog,
) -> Result<MutexRun> {
    mutex_kernel(
        gpu,
        kind,
        (blocks, block_threads, 1),
        (iters, work),
        watchdog,
        LockAt::In(state.0, state.1),
    )
}

/// Where [`mutex_kernel`] puts the lock's state.
#[derive(Clone, Copy)]
enum LockAt<'a> {
    /// Candidate place `n` of an allocation of its own.
    Candidate(usize),
    /// `offset` words into the caller's (zeroed) buffer.
    In(&'a DeviceBuffer<u32>, usize),
}

/// The mutex benchmark's kernel: checks, compiles, launches, reads back.
fn mutex_kernel(
    gpu: &Gpu,
    kind: MutexKind,
    shape: (usize, usize, u32),
    ops: (u32, bool),
    watchdog: Watchdog,
    at: LockAt<'_>,
) -> Result<MutexRun> {
    let (blocks, block_threads, cluster) = shape;
    let (iters, work) = ops;
    let cluster = cluster.max(1);
    if cluster > 1 && !kind.uses_clusters() {
        return Err(Error::InvalidLaunch(format!(
            "the {kind} mutex does not use thread-block clusters"
        )));
    }
    if blocks == 0 {
        return Err(Error::InvalidLaunch(
            "a mutex run needs at least one block".into(),
        ));
    }
    if let Some(cap) = kind.capacity().filter(|&c| blocks > c) {
        return Err(Error::InvalidLaunch(format!(
            "the {kind} mutex's state serves at most {cap} blocks, not {blocks}"
        )));
    }
    let launched = blocks.div_ceil(cluster as usize) * cluster as usize;
    let name = format!("mutex_{}", kind.name());
    let mut m = kernels::compile(gpu, "occupant_mutex.cu", MUTEX_CU, cluster, None)?;
    // More blocks than the kernel's registers let be resident at once, where the hardware
    // would hold them all: use the variant capped to fit (as run_barrier does), so that every
    // block contends at the same time.
    let hardware = gpu.info().resident_blocks_bound(block_threads as u32) as usize;
    let bound = occupancy_bound(gpu, &m, &name, block_threads, 0)?;
    if launched > bound && bound < hardware {
        m = kernels::compile(
            gpu,
            "occupant_mutex.cu",
            MUTEX_CU,
            cluster,
            Some(kernels::FULL_OCCUPANCY_REGISTERS),
        )?;
    }
    let own: DeviceBuffer<u32>;
    let (state, skip) = match at {
        LockAt::Candidate(placement) => {
            let skip = placement * crate::cuda::PERSISTENT_PLACEMENT_STRIDE_WORDS;
            own = gpu.alloc_zeroed::<u32>(kind.state_words() + skip)?;
            (&own, skip)
        }
        LockAt::In(buffer, offset) => {
            if offset + kind.state_words() > buffer.len() {
                return Err(Error::InvalidLaunch(format!(
                    "the {kind} mutex's state needs {} words at offset {offset}; the buffer has {}",
                    kind.state_words(),
                    buffer.len()
                )));
            }
            (buffer, offset)
        }
    };
    let state_arg = Arg::element_of(state, skip).unwrap_or_else(|| Arg::from(state));
    let counter = gpu.alloc_zeroed::<u32>(32)?;
    let times = gpu.alloc_zeroed::<u64>(2 * launched)?;
    let cfg = LaunchConfig::plain(launched, block_threads).watchdog(watchdog);
    if kind.uses_clusters() {
        m.launch(
            &name,
            &cfg,
            &args![
                state_arg,
                &counter,
                iters,
                u32::from(work),
                &times,
                blocks as u32
            ],
        )?;
    } else {
        m.launch(
            &name,
            &cfg,
            &args![state_arg, &counter, iters, u32::from(work), &times],
        )?;
    }
    let mops = mops_over_span(&times.to_vec()?, blocks, iters);
    let mut st = state.to_vec()?.split_off(skip);
    st.truncate(kind.state_words());
    let free_after = match kind {
        MutexKind::Spin | MutexKind::SpinBackoff => st[0] == 0,
        // The queue's last node (tail = tag << 13 | id) has status COMBINE in that use
        // (tag << 1): no request waits.
        MutexKind::Combining => {
            st.get(32 * (1 + (st[0] & 0x1fff) as usize)) == Some(&(((st[0] >> 13) & 511) << 1))
        }
        // The role word's LOCK bit (bit 63) is clear.
        MutexKind::FlatCombining | MutexKind::LazyCombining => st[1] >> 31 == 0,
        _ => st[0] == st[32],
    };
    Ok(MutexRun {
        kind,
        blocks,
        cluster,
        iters,
        work,
        counter: u64::from(counter.to_vec()?[0]),
        mops,
        free_after,
    })
}

/// Latencies of the operations a lock hand-off is made of (`mutex_costs` in kernels/mutex.cu,
/// one thread, a 2-block cluster), ns per operation: (name, ns).
pub fn run_handoff_costs(gpu: &Gpu, iters: u32) -> Result<Vec<(&'static str, f64)>> {
    const NAMES: [&str; 8] = [
        "fence.acq_rel.cluster",
        "fence.acq_rel.gpu",
        "st.relaxed.gpu + fence.acq_rel.gpu",
        "atom.acq_rel.cluster, own shared memory",
        "atom.relaxed.cluster, remote shared memory (DSMEM round trip)",
        "ld.relaxed.gpu (L2 round trip)",
        "atom.relaxed.gpu.add (L2 atomic round trip)",
        "atom.release.cluster to remote shared memory + fence.acq_rel.cluster",
    ];
    let iters = iters.max(1);
    let m = kernels::compile(gpu, "occupant_mutex.cu", MUTEX_CU, 2, None)?;
    let g = gpu.alloc_zeroed::<u32>(128)?;
    let out = gpu.alloc_zeroed::<u64>(8)?;
    let cfg = LaunchConfig::plain(2, 32);
    m.launch("mutex_costs", &cfg, &args![&g, iters, &out])?;
    let out = out.to_vec()?;
    Ok(NAMES
        .iter()
        .zip(out)
        .map(|(n, ns)| (*n, ns as f64 / f64::from(iters)))
        .collect())
}

/// One semaphore run.
#[derive(Debug, Clone, Serialize)]
pub struct SemaphoreRun {
    /// The semaphore.
    pub kind: SemaphoreKind,
    /// Its initial value (permits).
    pub initial: u32,
    /// Contending blocks.
    pub blocks: usize,
    /// wait/post pairs per block.
    pub iters: u32,
    /// Whether the in-section count was checked.
    pub checked: bool,
    /// Times the in-section count exceeded `initial` (must be 0).
    pub violations: u64,
    /// wait/post pairs per second, millions.
    pub mops: f64,
}

/// Runs semaphore `kind` with `initial` permits and `blocks` contending blocks.
#[allow(clippy::too_many_arguments)]
pub fn run_semaphore(
    gpu: &Gpu,
    kind: SemaphoreKind,
    initial: u32,
    blocks: usize,
    block_threads: usize,
    iters: u32,
    check: bool,
    watchdog: Watchdog,
) -> Result<SemaphoreRun> {
    if initial == 0 {
        return Err(Error::InvalidLaunch(
            "a semaphore needs at least one permit".into(),
        ));
    }
    let m = kernels::compile(gpu, "occupant_semaphore.cu", SEMAPHORE_CU, 1, None)?;
    let state = gpu.upload(&kind.initial_state(initial))?;
    let inside = gpu.alloc_zeroed::<u32>(32)?;
    let violations = gpu.alloc_zeroed::<u32>(1)?;
    let times = gpu.alloc_zeroed::<u64>(2 * blocks)?;
    let cfg = LaunchConfig::plain(blocks, block_threads).watchdog(watchdog);
    let name = format!("sem_{}", kind.name());
    m.launch(
        &name,
        &cfg,
        &args![
            &state,
            initial,
            &inside,
            &violations,
            iters,
            u32::from(check),
            &times
        ],
    )?;
    let mops = mops_over_span(&times.to_vec()?, blocks, iters);
    Ok(SemaphoreRun {
        kind,
        initial,
        blocks,
        iters,
        checked: check,
        violations: u64::from(violations.to_vec()?[0]),
        mops,
    })
}

/// One discovery run.
#[derive(Debug, Clone, Serialize)]
pub struct DiscoveryRun {
    /// How the poll was closed.
    pub method: DiscoveryMethod,
    /// Whether the occupancy API's bound was passed as the hint (Quiescent only).
    pub hinted: bool,
    /// Threads per block.
    pub block_threads: usize,
    /// Dynamic shared memory per block, bytes.
    pub shared_bytes: u32,
    /// Cluster size (1: none).
    pub cluster: u32,
    /// Blocks launched.
    pub launched: usize,
    /// The occupancy API's bound (blocks).
    pub occupancy_bound: usize,
    /// Participants (blocks), as reported by the runtime.
    pub participants: usize,
    /// participants / occupancy_bound.
    pub recall: f64,
    /// Participants' ids were exactly 0..n-1.
    pub ids_contiguous: bool,
    /// Every participant saw the same n, equal to `participants`.
    pub agree: bool,
    /// From the first participant's entry to the last participant's return, µs.
    pub protocol_us: f64,
}

/// Runs occupancy discovery (`discovery_probe`) with `launched` blocks.
#[allow(clippy::too_many_arguments)]
pub fn run_discovery(
    gpu: &Gpu,
    method: DiscoveryMethod,
    hinted: bool,
    launched: usize,
    block_threads: usize,
    shared_bytes: u32,
    cluster: u32,
    watchdog: Watchdog,
) -> Result<DiscoveryRun> {
    let cluster = cluster.max(1);
    let m = kernels::compile(gpu, "occupant_discovery.cu", DISCOVERY_CU, cluster, None)?;
    let bound = occupancy_bound(gpu, &m, "discovery_probe", block_threads, shared_bytes)?;
    let hint = if hinted {
        (bound / cluster as usize) as u32
    } else {
        0
    };
    let bstate = gpu.alloc_zeroed::<u32>(launched.max(1))?;
    let ids = gpu.alloc_zeroed::<u32>(launched)?;
    let nseen = gpu.alloc_zeroed::<u32>(launched)?;
    let times = gpu.alloc_zeroed::<u64>(2 * launched)?;
    let cfg = LaunchConfig::new(LaunchMode::Discovery, block_threads)
        .grid(launched)
        .shared(shared_bytes)
        .watchdog(watchdog);
    let report = m.launch(
        "discovery_probe",
        &cfg,
        &args![method.device_value(), hint, &bstate, &ids, &nseen, &times],
    )?;
    let participants = report.participants.unwrap_or(0) as usize;
    let ids = ids.to_vec()?;
    let nseen = nseen.to_vec()?;
    let t = times.to_vec()?;
    let mut lo = u64::MAX;
    let mut hi = 0u64;
    let mut agree = participants > 0;
    for (b, &id) in ids.iter().enumerate() {
        if id != u32::MAX {
            lo = lo.min(t[2 * b]);
            hi = hi.max(t[2 * b + 1]);
            agree &= nseen[b] as usize == participants;
        }
    }
    Ok(DiscoveryRun {
        method,
        hinted,
        block_threads,
        shared_bytes,
        cluster,
        launched,
        occupancy_bound: bound,
        participants,
        recall: if bound > 0 {
            participants as f64 / bound as f64
        } else {
            0.0
        },
        ids_contiguous: ids_are_contiguous(&ids)
            && ids.iter().filter(|&&i| i != u32::MAX).count() == participants,
        agree,
        protocol_us: if hi > lo { (hi - lo) as f64 / 1e3 } else { 0.0 },
    })
}

/// Runs the twelve memory microbenchmarks: `blocks` blocks of 32 threads (one master each),
/// `accesses` accesses per block, median of `reps` launches per benchmark.
pub fn measure_memory(
    gpu: &Gpu,
    blocks: usize,
    accesses: u32,
    reps: usize,
) -> Result<Vec<MemoryTiming>> {
    let m = kernels::compile(gpu, "occupant_memory_bench.cu", MEMORY_BENCH_CU, 1, None)?;
    let base = gpu.alloc_zeroed::<u32>(blocks * 64 + 64)?;
    let times = gpu.alloc_zeroed::<u64>(2 * blocks)?;
    let cfg = LaunchConfig::plain(blocks, 32);
    let mut out = Vec::new();
    for contentious in [true, false] {
        for access in Access::ALL {
            let mut runs = Vec::new();
            for _ in 0..reps.max(1) + 1 {
                m.launch(
                    "memory_bench",
                    &cfg,
                    &args![
                        &base,
                        access.kernel_kind(),
                        u32::from(contentious),
                        accesses,
                        0u32,
                        &times
                    ],
                )?;
                runs.push(span_ns(&times.to_vec()?));
            }
            runs.remove(0); // warm-up
            let total_ns = median(&runs);
            out.push(MemoryTiming {
                access,
                contentious,
                total_ns,
                ns_per_access: total_ns / f64::from(accesses.max(1)),
            });
        }
    }
    Ok(out)
}

impl MachineAbstraction {
    /// Measures the device (twelve microbenchmarks at full occupancy of 32-thread blocks,
    /// 1000 accesses per block as in seed 004, median of 5).
    pub fn measure(gpu: &Gpu) -> Result<Self> {
        let info = gpu.info();
        let blocks = info.resident_blocks_bound(32) as usize;
        let accesses = 1000;
        let timings = measure_memory(gpu, blocks, accesses, 5)?;
        MachineAbstraction::from_timings(
            &info.name,
            info.compute_capability,
            info.sm_count,
            blocks as u32,
            accesses,
            timings,
        )
    }

    /// The stored abstraction of this device, or a fresh measurement that is then stored
    /// (see [`MachineAbstraction::store_path`]; a store that cannot be written is skipped).
    pub fn for_gpu(gpu: &Gpu) -> Result<Self> {
        let path = MachineAbstraction::store_path(&gpu.info().name);
        if let Some(p) = &path {
            if let Ok(mut m) = MachineAbstraction::load(p) {
                if m.device == gpu.info().name {
                    // The stored measurements stay; the choice is re-derived, so that a file
                    // written by an older version follows the current rules.
                    m.defaults = Defaults::choose(&m.characteristics, m.compute_capability);
                    return Ok(m.with_builtin_shapes());
                }
            }
        }
        let m = MachineAbstraction::measure(gpu)?;
        if let Some(p) = &path {
            let _ = m.save(p);
        }
        Ok(m.with_builtin_shapes())
    }
}

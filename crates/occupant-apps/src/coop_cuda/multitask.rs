//! Multitasking a cooperative kernel with another, separately compiled kernel (seed 000 §5.4):
//! the cooperative BFS runs while a matrix multiplication (`occupant::cuda::coop::MATMUL_CU`,
//! ours, NVRTC — not cuBLAS) sized to take E ms on the whole GPU is requested every P ms on a
//! share of the GPU; and the same co-run with what CUDA offers (a high-priority stream).

use super::bfs::{App, BarrierMode, GpuBfs, Tuning};
use super::kernel::CoopKernel;
use crate::graph::Csr;
use occupant::cuda::coop::{CoopConfig, CoopReport, Lane, Scheduler, MATMUL_CU};
use occupant::cuda::{CompileOptions, DeviceBuffer, Gpu, Module};
use occupant::model::Watchdog;
use occupant::{Error, Result};
use serde::Serialize;
use std::time::{Duration, Instant};

pub use crate::coop::multitask::{Share, Workload, WORKLOADS};

/// One request of the other kernel.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Request {
    /// Groups (slots) it ran on.
    pub groups: u32,
    /// Request → groups free, µs (0 for the vendor mechanisms: nothing to gather).
    pub gather_us: f64,
    /// Device time of the kernel (first block start → last block end, %globaltimer), µs.
    pub exec_us: f64,
    /// Request → kernel done (host clock), µs.
    pub response_us: f64,
    /// response − exec: how long the kernel waited to start (gather, launch, queueing), µs.
    pub start_latency_us: f64,
    /// Done within its period (before the next request is due).
    pub period_met: bool,
    /// When it was made, µs after the launch (cooperative co-runs; 0 otherwise).
    pub at_us: f64,
    /// The cooperative kernel's barriers (as its master last reported them, every 64) when it
    /// was made and when the other kernel was done: with `at_us` and `response_us`, the
    /// kernel's progress while the other one ran and between requests.
    pub barriers_at_request: u32,
    /// See `barriers_at_request`.
    pub barriers_at_done: u32,
}

/// A co-run of the cooperative (or persistent) BFS with the periodic other kernel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoRun {
    /// `cooperative` or `priority_stream`.
    pub mechanism: String,
    /// The BFS's barrier mode.
    pub barrier: BarrierMode,
    /// The workload.
    pub workload: Workload,
    /// The share asked for.
    pub share: Share,
    /// Every request.
    pub requests: Vec<Request>,
    /// BFS time alone (same mode), µs.
    pub alone_us: f64,
    /// BFS time in the co-run, µs.
    pub corun_us: f64,
    /// corun / alone.
    pub slowdown: f64,
    /// The kernel-level preemption model's slowdown P / (P − D), D = median exec (seed 000 §5.5).
    pub preemption_model: f64,
    /// Requests done within their period / requests.
    pub period_met_fraction: f64,
    /// Mean time between consecutive requests' completions, ms.
    pub achieved_period_ms: f64,
    /// Median gather, µs.
    pub median_gather_us: f64,
    /// Median start latency, µs.
    pub median_start_latency_us: f64,
    /// The other kernel's slowdown: median response / its exec time alone on as many groups.
    pub other_slowdown: f64,
    /// BFS rounds that differed from the sequential BFS (must be 0).
    pub wrong_rounds: u32,
    /// The scheduler's counters.
    pub report: CoopReport,
}

/// The median of `v` (0 when empty): the model's.
pub use occupant::model::median;

/// Order statistics of a sample (every paired figure comes with one).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Spread {
    /// Values.
    pub n: usize,
    /// Median.
    pub median: f64,
    /// Smallest.
    pub min: f64,
    /// First quartile (the median of the lower half).
    pub q1: f64,
    /// Third quartile (the median of the upper half).
    pub q3: f64,
    /// Largest.
    pub max: f64,
    /// Mean.
    pub mean: f64,
}

impl Spread {
    /// The statistics of `v` (all 0 when empty).
    ///
    /// ```
    /// use occupant_apps::coop_cuda::Spread;
    /// let s = Spread::of(&[4.0, 1.0, 3.0, 2.0, 5.0]);
    /// assert_eq!((s.n, s.median, s.min, s.max, s.mean), (5, 3.0, 1.0, 5.0, 3.0));
    /// assert_eq!((s.q1, s.q3), (1.5, 4.5));
    /// ```
    pub fn of(v: &[f64]) -> Spread {
        if v.is_empty() {
            return Spread::default();
        }
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        let h = s.len() / 2;
        Spread {
            n: s.len(),
            median: median(&s),
            min: s[0],
            q1: if s.len() > 1 { median(&s[..h]) } else { s[0] },
            q3: if s.len() > 1 {
                median(&s[s.len() - h..])
            } else {
                s[0]
            },
            max: s[s.len() - 1],
            mean: s.iter().sum::<f64>() / s.len() as f64,
        }
    }
}

/// One repetition of a paired comparison: the app alone, co-run, co-run, alone (in this
/// order), so that the two co-runs and the two alone launches each take one even and one odd
/// launch and a drift during the block cancels (on an H100 the grid BFS alone varied 522–821 ms
/// from launch to launch, and in one run with the launch's parity).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedBlock {
    /// The two alone launches, µs.
    pub alone_us: [f64; 2],
    /// The two co-runs, µs.
    pub corun_us: [f64; 2],
    /// mean(co-runs) / mean(alone).
    pub ratio: f64,
    /// Barriers of the two alone launches (for the barrier rates).
    pub alone_barriers: u64,
    /// The two co-runs (every request).
    pub coruns: Vec<CoRun>,
    /// Wrong rounds of all four launches (must be 0).
    pub wrong_rounds: u32,
}

/// A co-run measured with paired launches ([`Multitasker::paired_corun`]): every figure of
/// [`CoRun`] pooled over the repetitions' co-runs, the slowdown as the median of the
/// repetitions' ratios with their spread, and the ratio of the means.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairedCoRun {
    /// `cooperative`.
    pub mechanism: String,
    /// The barrier mode.
    pub barrier: BarrierMode,
    /// The workload.
    pub workload: Workload,
    /// The share asked for.
    pub share: Share,
    /// Groups asked for.
    pub groups_asked: u32,
    /// The app's further choices ([`Tuning`]).
    pub tuning: Tuning,
    /// Repetitions (blocks of alone, co-run, co-run, alone).
    pub repetitions: usize,
    /// The slowdown: the median of the repetitions' ratios (mean of the block's co-runs over
    /// the mean of its alone launches).
    pub slowdown: f64,
    /// The repetitions' ratios: median, quartiles, extremes.
    pub ratios: Spread,
    /// Every ratio, in order.
    pub ratio_list: Vec<f64>,
    /// mean(every co-run) / mean(every alone launch).
    pub ratio_of_means: f64,
    /// Every alone launch, µs.
    pub alone_us: Vec<f64>,
    /// Every co-run, µs.
    pub corun_us: Vec<f64>,
    /// Their statistics.
    pub alone: Spread,
    /// Their statistics.
    pub corun: Spread,
    /// Requests of all co-runs.
    pub requests: usize,
    /// Requests done within their period / requests.
    pub period_met_fraction: f64,
    /// The achieved period: time between consecutive completions of the other kernel within
    /// a co-run, over every co-run, ms.
    pub achieved_period_ms: Spread,
    /// Gather (request → groups free), µs.
    pub gather_us: Spread,
    /// The other kernel's device time in the co-runs, µs.
    pub exec_us: Spread,
    /// Its start latency (response − exec), µs.
    pub start_latency_us: Spread,
    /// The kernel-level preemption model P / (P − D), D = the median exec (seed 000 §5.5).
    pub preemption_model: f64,
    /// The other kernel's slowdown: median response / its time alone on as many groups.
    pub other_slowdown: f64,
    /// The cooperative kernel's barrier rate while the other kernel ran (request → done),
    /// against the same repetitions' alone launches.
    pub barrier_rate_during_vs_alone: f64,
    /// The same between requests (done → next request).
    pub barrier_rate_between_vs_alone: f64,
    /// Barriers and µs [during; between; alone], the rates' sums.
    pub progress: [f64; 6],
    /// Wrong rounds in all launches (must be 0).
    pub wrong_rounds: u32,
    /// Every request of every co-run, in order.
    pub request_list: Vec<Request>,
}

/// A co-run's barrier progress from its requests: [barriers, µs while the other kernel ran
/// (request → done); barriers, µs between requests (done → next request)]. The barrier counts
/// are the master's reports (every 64 barriers).
pub fn progress(c: &CoRun) -> [f64; 4] {
    let r = &c.requests;
    let mut p = [0.0; 4];
    for (i, q) in r.iter().enumerate() {
        p[0] += f64::from(q.barriers_at_done.saturating_sub(q.barriers_at_request));
        p[1] += q.response_us;
        if let Some(n) = r.get(i + 1) {
            p[2] += f64::from(n.barriers_at_request.saturating_sub(q.barriers_at_done));
            p[3] += n.at_us - (q.at_us + q.response_us);
        }
    }
    p
}

impl PairedCoRun {
    /// Pools `blocks` (at least one) of one configuration; `alone_k_us`: the other kernel
    /// alone on as many groups (for its slowdown).
    pub fn from_blocks(blocks: &[PairedBlock], tuning: Tuning, alone_k_us: f64) -> PairedCoRun {
        let first = &blocks[0].coruns[0];
        let w = first.workload;
        let ratio_list: Vec<f64> = blocks.iter().map(|b| b.ratio).collect();
        let alone_us: Vec<f64> = blocks.iter().flat_map(|b| b.alone_us).collect();
        let corun_us: Vec<f64> = blocks.iter().flat_map(|b| b.corun_us).collect();
        let coruns: Vec<&CoRun> = blocks.iter().flat_map(|b| &b.coruns).collect();
        let request_list: Vec<Request> = coruns
            .iter()
            .flat_map(|c| c.requests.iter().copied())
            .collect();
        let mut gaps = Vec::new();
        for c in &coruns {
            for p in c.requests.windows(2) {
                let (a, b) = (p[0].at_us + p[0].response_us, p[1].at_us + p[1].response_us);
                gaps.push((b - a) / 1e3);
            }
        }
        let mut prog = [0.0f64; 6];
        for c in &coruns {
            let q = progress(c);
            for j in 0..4 {
                prog[j] += q[j];
            }
        }
        prog[4] = blocks.iter().map(|b| b.alone_barriers as f64).sum();
        prog[5] = alone_us.iter().sum();
        let rate = |b: f64, t: f64| if t > 0.0 { b / t } else { 0.0 };
        let alone_rate = rate(prog[4], prog[5]);
        let vs = |b: f64, t: f64| {
            if alone_rate > 0.0 {
                rate(b, t) / alone_rate
            } else {
                0.0
            }
        };
        let exec: Vec<f64> = request_list.iter().map(|r| r.exec_us).collect();
        let d_ms = median(&exec) / 1e3;
        let p = w.period_ms;
        let resp: Vec<f64> = request_list.iter().map(|r| r.response_us).collect();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
        PairedCoRun {
            mechanism: first.mechanism.clone(),
            barrier: first.barrier,
            workload: w,
            share: first.share,
            groups_asked: first.requests.first().map_or(0, |r| r.groups),
            tuning,
            repetitions: blocks.len(),
            slowdown: median(&ratio_list),
            ratios: Spread::of(&ratio_list),
            ratio_list,
            ratio_of_means: mean(&corun_us) / mean(&alone_us),
            alone: Spread::of(&alone_us),
            corun: Spread::of(&corun_us),
            alone_us,
            corun_us,
            requests: request_list.len(),
            period_met_fraction: if request_list.is_empty() {
                0.0
            } else {
                request_list.iter().filter(|r| r.period_met).count() as f64
                    / request_list.len() as f64
            },
            achieved_period_ms: Spread::of(&gaps),
            gather_us: Spread::of(&request_list.iter().map(|r| r.gather_us).collect::<Vec<_>>()),
            exec_us: Spread::of(&exec),
            start_latency_us: Spread::of(
                &request_list
                    .iter()
                    .map(|r| r.start_latency_us)
                    .collect::<Vec<_>>(),
            ),
            preemption_model: if d_ms < p {
                p / (p - d_ms)
            } else {
                f64::INFINITY
            },
            other_slowdown: if alone_k_us > 0.0 {
                median(&resp) / alone_k_us
            } else {
                0.0
            },
            barrier_rate_during_vs_alone: vs(prog[0], prog[1]),
            barrier_rate_between_vs_alone: vs(prog[2], prog[3]),
            progress: prog,
            wrong_rounds: blocks.iter().map(|b| b.wrong_rounds).sum(),
            request_list,
        }
    }

    /// One line: slowdown with its spread, period, gather.
    pub fn summary(&self) -> String {
        format!(
            "slowdown {:.3} (median of {} paired repetitions; {:.3}–{:.3}, quartiles {:.3}–{:.3}; ratio of means {:.3}), alone {:.0}–{:.0} ms, period met {:.2}, achieved period {:.1} ms (median; max {:.1}), gather median {:.1} µs, exec median {:.0} µs, P/(P-D) {:.3}, barrier rate vs alone {:.3} during / {:.3} between, {} requests, wrong {}",
            self.slowdown,
            self.repetitions,
            self.ratios.min,
            self.ratios.max,
            self.ratios.q1,
            self.ratios.q3,
            self.ratio_of_means,
            self.alone.min / 1e3,
            self.alone.max / 1e3,
            self.period_met_fraction,
            self.achieved_period_ms.median,
            self.achieved_period_ms.max,
            self.gather_us.median,
            self.exec_us.median,
            self.preemption_model,
            self.barrier_rate_during_vs_alone,
            self.barrier_rate_between_vs_alone,
            self.requests,
            self.wrong_rounds
        )
    }
}

/// The matmul's size for a workload and whether it fits the period on a share
/// ([`Multitasker::calibrate_for`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Calibration {
    /// n (n×n floats, a multiple of 64): the size whose time on the whole GPU is nearest E.
    pub n: u32,
    /// Its time on the whole GPU, µs (median of 3).
    pub full_gpu_us: f64,
    /// Its time alone on the share's groups, µs (median of 3).
    pub share_us: f64,
    /// Groups of the share.
    pub share_groups: u32,
    /// `share_us` ≤ [`FIT_FRACTION`] × P: the period can be met on this share (beside the
    /// cooperative kernel the matmul took up to 13 % longer on an H100, and the gather and the
    /// launch come on top).
    pub fits_period: bool,
}

/// The part of the period the matmul may take alone on its share for the share to count as
/// able to meet the period ([`Calibration::fits_period`]).
pub const FIT_FRACTION: f64 = 0.8;

/// The cooperative BFS and the matmul on one GPU, sized so that a killed group's slot fits
/// one matmul block exactly (`slots_per_sm` groups per SM, reserved by dynamic shared memory).
pub struct Multitasker {
    gpu: Gpu,
    /// The cooperative application (BFS, SSSP, a graph app, octree, game).
    pub bfs: Box<dyn CoopKernel>,
    mm: Module,
    a: DeviceBuffer<f32>,
    b: DeviceBuffer<f32>,
    c: DeviceBuffer<f32>,
    stamps: DeviceBuffer<u64>,
    mm_n: u32,
    mm_shared: u32,
    n_groups: u32,
    cfg: CoopConfig,
    alone: Vec<(BarrierMode, f64)>,
    exec_alone: Vec<(u32, f64)>,
    /// When set, the cooperative co-runs hold the gathered slots idle this long (µs) instead of
    /// running the matmul in them: what the kills, forks and fewer groups cost without the
    /// other kernel's interference.
    pub idle_instead_us: Option<f64>,
}

/// Largest matmul size prepared (n×n floats, three matrices).
const MAX_MM_N: u32 = 6144;

impl Multitasker {
    /// Uploads the graph, compiles both kernels (loaded eagerly, before any co-run) and sizes
    /// the slots: `slots_per_sm` groups of `block_threads` per SM.
    pub fn new(
        gpu: &Gpu,
        graph: &Csr,
        sources: &[u32],
        rounds: u32,
        block_threads: u32,
        slots_per_sm: u32,
    ) -> Result<Multitasker> {
        Self::with_app(
            gpu,
            graph,
            sources,
            rounds,
            block_threads,
            slots_per_sm,
            App::Bfs,
        )
    }

    /// The same with another cooperative graph application.
    pub fn with_app(
        gpu: &Gpu,
        graph: &Csr,
        sources: &[u32],
        rounds: u32,
        block_threads: u32,
        slots_per_sm: u32,
        app: App,
    ) -> Result<Multitasker> {
        let bfs = GpuBfs::with_app(gpu, graph, sources, rounds, app)?;
        Self::for_kernel(gpu, Box::new(bfs), block_threads, slots_per_sm)
    }

    /// The same with any cooperative application.
    pub fn for_kernel(
        gpu: &Gpu,
        bfs: Box<dyn CoopKernel>,
        block_threads: u32,
        slots_per_sm: u32,
    ) -> Result<Multitasker> {
        let mm = gpu.compile("matmul.cu", MATMUL_CU, &CompileOptions::default())?;
        let info = gpu.info().clone();
        if slots_per_sm == 0 || block_threads != 256 {
            return Err(Error::Input(format!(
                "multitasking needs ≥ 1 slot per SM and 256-thread groups ({slots_per_sm}, {block_threads})"
            )));
        }
        // Each slot: shared_per_sm / slots, less the 1 KiB the driver reserves per block.
        let slot = info.shared_per_sm / slots_per_sm - 1024;
        let bfs_static = bfs.module().attributes(bfs.kernel())?.static_shared_bytes;
        let mm_static = mm.attributes("matmul")?.static_shared_bytes;
        let bfs_shared = (slot - bfs_static).min(info.max_shared_per_block - bfs_static);
        let mm_shared = (bfs_shared + bfs_static).saturating_sub(mm_static);
        let per_sm =
            bfs.module()
                .max_active_blocks_per_sm(bfs.kernel(), block_threads, bfs_shared)?;
        let mm_per_sm = mm.max_active_blocks_per_sm("matmul", 256, mm_shared)?;
        if per_sm == 0 || mm_per_sm == 0 {
            return Err(Error::Resource(format!(
                "no slot: {per_sm} BFS groups and {mm_per_sm} matmul blocks fit per SM"
            )));
        }
        if per_sm != slots_per_sm || mm_per_sm != slots_per_sm {
            eprintln!(
                "note: {per_sm} BFS groups and {mm_per_sm} matmul blocks fit per SM ({slots_per_sm} wanted); going on"
            );
        }
        let cfg = CoopConfig::new(block_threads)
            .shared(bfs_shared)
            .watchdog(Watchdog::default().with_timeout(Duration::from_secs(5)));
        let len = (MAX_MM_N * MAX_MM_N) as usize;
        let init: Vec<f32> = (0..len).map(|i| ((i % 17) as f32 - 8.0) / 8.0).collect();
        Ok(Multitasker {
            gpu: gpu.clone(),
            a: gpu.upload(&init)?,
            b: gpu.upload(&init)?,
            c: gpu.alloc_zeroed(len)?,
            stamps: gpu.upload(&[u64::MAX, 0])?,
            bfs,
            mm,
            mm_n: 1024,
            mm_shared,
            n_groups: per_sm * info.sm_count,
            cfg,
            alone: Vec::new(),
            exec_alone: Vec::new(),
            idle_instead_us: None,
        })
    }

    /// N, the cooperative kernel's groups.
    pub fn groups(&self) -> u32 {
        self.n_groups
    }

    /// The cooperative launches' configuration (the slot's dynamic shared memory).
    pub fn config(&self) -> &CoopConfig {
        &self.cfg
    }

    /// Runs the matmul alone on `blocks` blocks; returns its device time, µs.
    pub fn matmul_alone(&mut self, blocks: u32) -> Result<f64> {
        let lane = Lane::new(&self.gpu, None)?;
        self.launch_matmul(&lane, blocks)?;
        lane.synchronize(Duration::from_secs(10))?;
        self.read_exec()
    }

    fn launch_matmul(&mut self, lane: &Lane, blocks: u32) -> Result<()> {
        self.stamps.copy_from(&[u64::MAX, 0])?;
        lane.launch(
            &self.mm,
            "matmul",
            blocks,
            256,
            self.mm_shared,
            &occupant::args![&self.a, &self.b, &self.c, self.mm_n, &self.stamps],
        )
    }

    fn read_exec(&self) -> Result<f64> {
        let s = self.stamps.to_vec()?;
        Ok(s[1].saturating_sub(s[0]) as f64 / 1e3)
    }

    /// Sizes the matmul so that it takes `exec_ms` on every slot of the GPU (seed 000 §5.2:
    /// E is the other work's time on the whole GPU); returns n. n is a multiple of 64 (the
    /// matmul's tile): the cube-root estimate, then whichever of it and its neighbours
    /// measures (median of 3) nearest E.
    pub fn calibrate(&mut self, exec_ms: f64) -> Result<u32> {
        let all = self.groups();
        self.mm_n = 1024;
        self.matmul_alone(all)?; // warm-up
        let t = self.matmul_alone(all)? / 1e3;
        let n = (1024.0 * (exec_ms / t).cbrt() / 64.0).round().max(1.0) * 64.0;
        self.mm_n = (n as u32).min(MAX_MM_N);
        for _ in 0..2 {
            let t = self.matmul_alone(all)? / 1e3;
            let n = (f64::from(self.mm_n) * (exec_ms / t).cbrt() / 64.0)
                .round()
                .max(1.0)
                * 64.0;
            self.mm_n = (n as u32).min(MAX_MM_N);
        }
        let centre = self.mm_n;
        let mut best = (f64::INFINITY, centre);
        for n in [
            centre.saturating_sub(64).max(64),
            centre,
            (centre + 64).min(MAX_MM_N),
        ] {
            self.mm_n = n;
            let t = self.matmul_median(all)? / 1e3;
            if (t - exec_ms).abs() < best.0 {
                best = ((t - exec_ms).abs(), n);
            }
        }
        self.mm_n = best.1;
        self.exec_alone.clear();
        Ok(self.mm_n)
    }

    /// The matmul's time on `blocks` blocks, median of 3, µs.
    fn matmul_median(&mut self, blocks: u32) -> Result<f64> {
        let v = [
            self.matmul_alone(blocks)?,
            self.matmul_alone(blocks)?,
            self.matmul_alone(blocks)?,
        ];
        Ok(median(&v))
    }

    /// [`Multitasker::calibrate`] for `workload`, then its time alone on `share`: whether the
    /// matmul the seed defines (E on the whole GPU) can meet the period on that share. On an
    /// H100, heavy's (E = 10 ms) takes ~35 ms on a quarter alone and ~40 ms beside the BFS:
    /// a quarter cannot meet P = 40 ms, as in the seed, which runs heavy on half (Table 3).
    pub fn calibrate_for(&mut self, workload: Workload, share: Share) -> Result<Calibration> {
        let n = self.calibrate(workload.exec_ms)?;
        let all = self.groups();
        let full_gpu_us = self.matmul_median(all)?;
        let k = share.groups(all);
        let share_us = self.matmul_median(k)?;
        self.exec_alone = vec![(all, full_gpu_us), (k, share_us)];
        Ok(Calibration {
            n,
            full_gpu_us,
            share_us,
            share_groups: k,
            fits_period: share_us <= FIT_FRACTION * workload.period_ms * 1e3,
        })
    }

    /// The smallest of quarter, half and all-but-one on which `workload`'s matmul fits its
    /// period ([`Calibration::fits_period`]; all-but-one when none does), with its calibration
    /// — the configuration seed 000 reports (Table 3: light and medium on a quarter, heavy on
    /// half).
    pub fn calibrate_share(&mut self, workload: Workload) -> Result<(Share, Calibration)> {
        let mut last = None;
        for share in [Share::Quarter, Share::Half, Share::AllButOne] {
            let c = match last {
                None => self.calibrate_for(workload, share)?,
                Some((_, c)) => {
                    let c: Calibration = c;
                    let k = share.groups(self.groups());
                    let share_us = self.matmul_median(k)?;
                    self.exec_alone.push((k, share_us));
                    Calibration {
                        share_us,
                        share_groups: k,
                        fits_period: share_us <= FIT_FRACTION * workload.period_ms * 1e3,
                        ..c
                    }
                }
            };
            if c.fits_period {
                return Ok((share, c));
            }
            last = Some((share, c));
        }
        Ok(last.expect("three shares"))
    }

    /// The matmul's size (n×n).
    pub fn matmul_n(&self) -> u32 {
        self.mm_n
    }

    /// Sets the matmul's size (a multiple of 64, at most 6144), e.g. to another
    /// [`Multitasker`]'s calibration.
    pub fn set_matmul_n(&mut self, n: u32) -> Result<()> {
        if n == 0 || n % 64 != 0 || n > MAX_MM_N {
            return Err(Error::Input(format!(
                "matmul size {n}: a multiple of 64 in 64..={MAX_MM_N}"
            )));
        }
        if n != self.mm_n {
            self.mm_n = n;
            self.exec_alone.clear();
        }
        Ok(())
    }

    /// One repetition of a paired comparison ([`PairedBlock`]): alone, co-run, co-run, alone.
    pub fn paired_block(
        &mut self,
        mode: BarrierMode,
        workload: Workload,
        share: Share,
    ) -> Result<PairedBlock> {
        let (a1, w1) = self.bfs_alone_report(mode)?;
        let c1 = self.corun_cooperative(mode, workload, share)?;
        let c2 = self.corun_cooperative(mode, workload, share)?;
        let (a2, w2) = self.bfs_alone_report(mode)?;
        let alone_us = [a1.elapsed_us, a2.elapsed_us];
        let corun_us = [c1.corun_us, c2.corun_us];
        Ok(PairedBlock {
            ratio: (corun_us[0] + corun_us[1]) / (alone_us[0] + alone_us[1]),
            alone_us,
            corun_us,
            alone_barriers: u64::from(a1.barriers) + u64::from(a2.barriers),
            wrong_rounds: w1 + w2 + c1.wrong_rounds + c2.wrong_rounds,
            coruns: vec![c1, c2],
        })
    }

    /// The co-run measured with `reps` paired repetitions ([`PairedBlock`], at least one),
    /// pooled into a [`PairedCoRun`]. `tuning` is recorded (set it on the app before).
    pub fn paired_corun(
        &mut self,
        mode: BarrierMode,
        workload: Workload,
        share: Share,
        reps: usize,
        tuning: Tuning,
    ) -> Result<PairedCoRun> {
        let mut blocks = Vec::new();
        for _ in 0..reps.max(1) {
            blocks.push(self.paired_block(mode, workload, share)?);
        }
        let k = share.groups(self.groups());
        let alone_k = self.exec_alone_us(k)?;
        Ok(PairedCoRun::from_blocks(&blocks, tuning, alone_k))
    }

    /// The matmul's device time alone on `blocks` blocks (measured once per size), µs.
    pub fn exec_alone_us(&mut self, blocks: u32) -> Result<f64> {
        if let Some(&(_, t)) = self.exec_alone.iter().find(|(b, _)| *b == blocks) {
            return Ok(t);
        }
        let t = self.matmul_alone(blocks)?;
        self.exec_alone.push((blocks, t));
        Ok(t)
    }

    /// The BFS alone in `mode` (no requests); returns (µs, wrong rounds).
    pub fn bfs_alone(&mut self, mode: BarrierMode) -> Result<(f64, u32)> {
        self.bfs_alone_report(mode)
            .map(|(rep, wrong)| (rep.elapsed_us, wrong))
    }

    /// The same, returning the launch's whole report.
    pub fn bfs_alone_report(&mut self, mode: BarrierMode) -> Result<(CoopReport, u32)> {
        let cfg = self.cfg.clone();
        let s = self.bfs.start(mode, &cfg)?;
        let rep = s.finish(Duration::from_secs(60))?;
        let wrong = self.bfs.wrong_rounds()?;
        if let Some(e) = self.alone.iter_mut().find(|(m, _)| *m == mode) {
            e.1 = e.1.min(rep.elapsed_us);
        } else {
            self.alone.push((mode, rep.elapsed_us));
        }
        Ok((rep, wrong))
    }

    fn alone_us(&mut self, mode: BarrierMode) -> Result<f64> {
        match self.alone.iter().find(|(m, _)| *m == mode) {
            Some(&(_, t)) => Ok(t),
            None => Ok(self.bfs_alone(mode)?.0),
        }
    }

    /// The cooperative co-run: every P ms the scheduler takes `share` of the groups, runs the
    /// matmul on them, gives them back.
    pub fn corun_cooperative(
        &mut self,
        mode: BarrierMode,
        workload: Workload,
        share: Share,
    ) -> Result<CoRun> {
        let alone_us = self.alone_us(mode)?;
        let lane = Lane::new(&self.gpu, None)?;
        let cfg = self.cfg.clone();
        let period = Duration::from_secs_f64(workload.period_ms / 1e3);
        let mm_n = self.mm_n;
        let (a, b, c, stamps, mm, mm_shared) = (
            &self.a,
            &self.b,
            &self.c,
            &mut self.stamps,
            &self.mm,
            self.mm_shared,
        );
        let mut requests = Vec::new();
        let mut done_at = Vec::new();
        let idle = self.idle_instead_us;
        let t_start = Instant::now();
        let mut s: Scheduler<'_> = self.bfs.start(mode, &cfg)?;
        let k = share.groups(s.groups());
        let mut due = Instant::now() + period;
        let outcome: Result<()> = (|| loop {
            while Instant::now() < due {
                if s.work_finished() {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_micros(50));
            }
            let t_req = Instant::now();
            let b_req = s.barriers();
            let g = s.take(k, Duration::from_secs(3))?;
            if g.kernel_finished {
                return Ok(());
            }
            if g.gathered == 0 {
                due = t_req + period;
                continue;
            }
            let exec_us = if let Some(idle) = idle {
                let t = Instant::now();
                while t.elapsed().as_secs_f64() * 1e6 < idle {
                    std::thread::sleep(Duration::from_micros(50));
                }
                t.elapsed().as_secs_f64() * 1e6
            } else {
                stamps.copy_from(&[u64::MAX, 0])?;
                lane.launch(
                    mm,
                    "matmul",
                    g.gathered,
                    256,
                    mm_shared,
                    &occupant::args![a, b, c, mm_n, &*stamps],
                )?;
                lane.synchronize(Duration::from_secs(10))?;
                0.0
            };
            let t_done = Instant::now();
            let b_done = s.barriers();
            s.give_back(g.gathered)?;
            let exec_us = if idle.is_some() {
                exec_us
            } else {
                let st = stamps.to_vec()?;
                st[1].saturating_sub(st[0]) as f64 / 1e3
            };
            let response_us = (t_done - t_req).as_secs_f64() * 1e6;
            requests.push(Request {
                groups: g.gathered,
                gather_us: g.micros,
                exec_us,
                response_us,
                start_latency_us: (response_us - exec_us).max(0.0),
                period_met: t_done <= t_req + period,
                at_us: (t_req - t_start).as_secs_f64() * 1e6,
                barriers_at_request: b_req,
                barriers_at_done: b_done,
            });
            done_at.push(t_done);
            due = (t_req + period).max(Instant::now());
        })();
        let report = s.finish(Duration::from_secs(60));
        outcome?;
        let report = report?;
        let wrong_rounds = self.bfs.wrong_rounds()?;
        self.summarise(
            "cooperative",
            mode,
            workload,
            share,
            k,
            requests,
            done_at,
            alone_us,
            report,
            wrong_rounds,
        )
    }

    /// The vendor co-run: the persistent BFS holds every slot; every P ms the matmul is
    /// launched on a high-priority stream with `share` of the groups as blocks.
    pub fn corun_priority_stream(&mut self, workload: Workload, share: Share) -> Result<CoRun> {
        let lane = Lane::new(&self.gpu, Lane::greatest_priority(&self.gpu)?)?;
        let k = share.groups(self.n_groups);
        let mm_n = self.mm_n;
        let (a, b, c, mm, mm_shared) = (&self.a, &self.b, &self.c, &self.mm, self.mm_shared);
        let mut stamps = self.gpu.upload(&[u64::MAX, 0])?;
        let mut other = || -> Result<Request> {
            let t_req = Instant::now();
            stamps.copy_from(&[u64::MAX, 0])?;
            lane.launch(
                mm,
                "matmul",
                k,
                256,
                mm_shared,
                &occupant::args![a, b, c, mm_n, &stamps],
            )?;
            lane.synchronize(Duration::from_secs(60))?;
            let response_us = t_req.elapsed().as_secs_f64() * 1e6;
            let st = stamps.to_vec()?;
            let exec_us = st[1].saturating_sub(st[0]) as f64 / 1e3;
            Ok(Request {
                groups: k,
                gather_us: 0.0,
                exec_us,
                response_us,
                start_latency_us: (response_us - exec_us).max(0.0),
                period_met: response_us <= workload.period_ms * 1e3,
                ..Request::default()
            })
        };
        let beside = run_beside(self.bfs.as_mut(), &self.cfg, workload, &mut other)?;
        self.summarise_beside("priority_stream", workload, share, k, beside)
    }

    /// A co-run with any other mechanism: the persistent BFS holds every slot of this GPU
    /// (or partition) while `other` — which starts the other kernel somewhere and returns once
    /// it is done — is called every P ms. `k` is the other kernel's blocks (for its slowdown
    /// against running alone here on as many).
    pub fn corun_with(
        &mut self,
        mechanism: &str,
        workload: Workload,
        share: Share,
        k: u32,
        other: &mut dyn FnMut() -> Result<Request>,
    ) -> Result<CoRun> {
        let beside = run_beside(self.bfs.as_mut(), &self.cfg, workload, other)?;
        self.summarise_beside(mechanism, workload, share, k, beside)
    }

    /// The summary of a co-run beside the persistent BFS ([`run_beside`]'s result).
    fn summarise_beside(
        &mut self,
        mechanism: &str,
        workload: Workload,
        share: Share,
        k: u32,
        (requests, done_at, report): Beside,
    ) -> Result<CoRun> {
        let alone_us = self.alone_us(BarrierMode::Persistent)?;
        let wrong_rounds = self.bfs.wrong_rounds()?;
        self.summarise(
            mechanism,
            BarrierMode::Persistent,
            workload,
            share,
            k,
            requests,
            done_at,
            alone_us,
            report,
            wrong_rounds,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn summarise(
        &mut self,
        mechanism: &str,
        mode: BarrierMode,
        workload: Workload,
        share: Share,
        k: u32,
        requests: Vec<Request>,
        done_at: Vec<Instant>,
        alone_us: f64,
        report: CoopReport,
        wrong_rounds: u32,
    ) -> Result<CoRun> {
        let exec: Vec<f64> = requests.iter().map(|r| r.exec_us).collect();
        let d_ms = median(&exec) / 1e3;
        let p = workload.period_ms;
        let achieved = if done_at.len() > 1 {
            (done_at[done_at.len() - 1] - done_at[0]).as_secs_f64() * 1e3
                / (done_at.len() - 1) as f64
        } else {
            0.0
        };
        let resp: Vec<f64> = requests.iter().map(|r| r.response_us).collect();
        let alone_k = self.exec_alone_us(k)?;
        Ok(CoRun {
            mechanism: mechanism.to_string(),
            barrier: mode,
            workload,
            share,
            period_met_fraction: if requests.is_empty() {
                0.0
            } else {
                requests.iter().filter(|r| r.period_met).count() as f64 / requests.len() as f64
            },
            achieved_period_ms: achieved,
            median_gather_us: median(&requests.iter().map(|r| r.gather_us).collect::<Vec<_>>()),
            median_start_latency_us: median(
                &requests
                    .iter()
                    .map(|r| r.start_latency_us)
                    .collect::<Vec<_>>(),
            ),
            other_slowdown: if alone_k > 0.0 {
                median(&resp) / alone_k
            } else {
                0.0
            },
            preemption_model: if d_ms < p {
                p / (p - d_ms)
            } else {
                f64::INFINITY
            },
            requests,
            alone_us,
            corun_us: report.elapsed_us,
            slowdown: report.elapsed_us / alone_us,
            wrong_rounds,
            report,
        })
    }
}

/// What [`run_multitask`] measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MultitaskResult {
    /// The cooperative application.
    pub app: String,
    /// The GPU.
    pub device: String,
    /// N, groups of the cooperative kernel.
    pub groups: u32,
    /// Matmul size (n×n), sized to take E ms on the whole GPU.
    pub matmul_n: u32,
    /// Its measured time on the whole GPU, µs.
    pub matmul_full_gpu_us: f64,
    /// The calibration on the requested share (whether the matmul can meet the period there).
    pub calibration: Calibration,
    /// The persistent app alone (median of the repetitions' launches), µs.
    pub persistent_us: f64,
    /// The cooperative app alone (median of the paired repetitions' alone launches), µs.
    pub cooperative_alone_us: f64,
    /// The co-run, measured with paired launches.
    pub corun: PairedCoRun,
}

/// One multitasking experiment (what `occupant multitask --backend cuda` runs): the cooperative
/// BFS over `graph` (`rounds` traversals from `sources`) with `barrier` resizing barriers,
/// while a matmul of E = `workload.exec_ms` on the whole GPU is requested every
/// `workload.period_ms` on `share` of the groups; `reps` paired repetitions (alone, co-run,
/// co-run, alone). Block 256 threads, 2 groups per SM.
/// Set `CUDA_MODULE_LOADING=EAGER` before the process opens the GPU.
#[allow(clippy::too_many_arguments)]
pub fn run_multitask(
    gpu: &Gpu,
    graph: &Csr,
    sources: &[u32],
    rounds: u32,
    barrier: BarrierMode,
    workload: Workload,
    share: Share,
    reps: usize,
) -> Result<MultitaskResult> {
    if barrier == BarrierMode::Persistent {
        return Err(Error::Input(
            "the multitasking co-run needs a cooperative barrier (regular or query)".into(),
        ));
    }
    let bfs = GpuBfs::new(gpu, graph, sources, rounds)?;
    run_multitask_kernel(gpu, Box::new(bfs), barrier, workload, share, reps)
}

/// The same experiment with any cooperative application (what `occupant multitask --backend
/// cuda --app A` runs for every app): the matmul calibrated (E on the whole GPU, and its time
/// on the share), the persistent app alone, then `reps` paired repetitions of the co-run.
pub fn run_multitask_kernel(
    gpu: &Gpu,
    app: Box<dyn CoopKernel>,
    barrier: BarrierMode,
    workload: Workload,
    share: Share,
    reps: usize,
) -> Result<MultitaskResult> {
    if barrier == BarrierMode::Persistent {
        return Err(Error::Input(
            "the multitasking co-run needs a cooperative barrier (regular or query)".into(),
        ));
    }
    let name = app.name();
    let mut m = Multitasker::for_kernel(gpu, app, 256, 2)?;
    let calibration = m.calibrate_for(workload, share)?;
    let all = m.groups();
    let mut persistent = Vec::new();
    for _ in 0..reps.max(1) {
        let (us, w) = m.bfs_alone(BarrierMode::Persistent)?;
        if w != 0 {
            return Err(Error::Resource(format!(
                "{name} alone (persistent) gave {w} wrong rounds"
            )));
        }
        persistent.push(us);
    }
    let tuning = m.bfs.tuning();
    let corun = m.paired_corun(barrier, workload, share, reps, tuning)?;
    Ok(MultitaskResult {
        app: name.to_string(),
        device: gpu.info().name.clone(),
        groups: all,
        matmul_n: calibration.n,
        matmul_full_gpu_us: calibration.full_gpu_us,
        calibration,
        persistent_us: median(&persistent),
        cooperative_alone_us: corun.alone.median,
        corun,
    })
}

/// What a co-run beside the persistent BFS gives: every request, when each was done, and the
/// BFS launch's report.
type Beside = (Vec<Request>, Vec<Instant>, CoopReport);

/// Runs the persistent BFS and calls `other` every period until the BFS ends.
fn run_beside(
    bfs: &mut dyn CoopKernel,
    cfg: &CoopConfig,
    workload: Workload,
    other: &mut dyn FnMut() -> Result<Request>,
) -> Result<Beside> {
    let period = Duration::from_secs_f64(workload.period_ms / 1e3);
    let mut requests = Vec::new();
    let mut done_at = Vec::new();
    let s = bfs.start(BarrierMode::Persistent, cfg)?;
    let mut due = Instant::now() + period;
    let outcome: Result<()> = (|| {
        while !s.work_finished() {
            while Instant::now() < due {
                if s.work_finished() {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_micros(50));
            }
            let t_req = Instant::now();
            requests.push(other()?);
            done_at.push(Instant::now());
            due = (t_req + period).max(Instant::now());
        }
        Ok(())
    })();
    let report = s.finish(Duration::from_secs(60));
    outcome?;
    Ok((requests, done_at, report?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(elapsed_us: f64) -> CoopReport {
        CoopReport {
            groups: 8,
            block_threads: 256,
            killed: 0,
            forked: 0,
            joiners_launched: 0,
            joiners_exited: 0,
            barriers: 0,
            active_at_end: 8,
            elapsed_us,
            state_addr: 0,
        }
    }

    /// A co-run of `us` with requests at 0, 40, 80 ms (exec 10 ms, 100 barriers during each,
    /// 300 between).
    fn corun(us: f64) -> CoRun {
        let requests: Vec<Request> = (0..3u32)
            .map(|i| Request {
                groups: 2,
                gather_us: 50.0,
                exec_us: 10_000.0,
                response_us: 10_200.0,
                start_latency_us: 200.0,
                period_met: i != 2,
                at_us: f64::from(i) * 40_000.0,
                barriers_at_request: i * 400,
                barriers_at_done: i * 400 + 100,
            })
            .collect();
        CoRun {
            mechanism: "cooperative".into(),
            barrier: BarrierMode::Query,
            workload: WORKLOADS[1],
            share: Share::Quarter,
            requests,
            alone_us: 0.0,
            corun_us: us,
            slowdown: 0.0,
            preemption_model: 0.0,
            period_met_fraction: 0.0,
            achieved_period_ms: 0.0,
            median_gather_us: 0.0,
            median_start_latency_us: 0.0,
            other_slowdown: 0.0,
            wrong_rounds: 0,
            report: report(us),
        }
    }

    fn block(alone: [f64; 2], co: [f64; 2]) -> PairedBlock {
        PairedBlock {
            alone_us: alone,
            corun_us: co,
            ratio: (co[0] + co[1]) / (alone[0] + alone[1]),
            alone_barriers: ((alone[0] + alone[1]) / 100.0) as u64, // 1 barrier per 100 µs
            coruns: vec![corun(co[0]), corun(co[1])],
            wrong_rounds: 0,
        }
    }

    #[test]
    fn paired_blocks_pool_into_median_ratio_spread_and_rates() {
        let blocks = [
            block([100.0, 100.0], [110.0, 110.0]),
            block([200.0, 200.0], [200.0, 220.0]),
            block([100.0, 300.0], [400.0, 400.0]),
        ];
        let r = PairedCoRun::from_blocks(&blocks, Tuning::CORUN, 5_000.0);
        assert_eq!(r.repetitions, 3);
        assert!((r.slowdown - 1.1).abs() < 1e-12, "{}", r.slowdown);
        assert!((r.ratios.min - 1.05).abs() < 1e-12 && (r.ratios.max - 2.0).abs() < 1e-12);
        // Means: co-runs 1440/6 = 240, alone 1000/6.
        assert!((r.ratio_of_means - 1.44).abs() < 1e-12);
        assert_eq!((r.alone.min, r.alone.max), (100.0, 300.0));
        assert_eq!(r.requests, 18);
        assert!((r.period_met_fraction - 2.0 / 3.0).abs() < 1e-12);
        // Completions 40 ms apart within each co-run.
        assert!((r.achieved_period_ms.median - 40.0).abs() < 1e-9);
        assert_eq!(r.achieved_period_ms.n, 12);
        // 100 barriers per 10.2 ms during, 300 per 29.8 ms between; alone 1 per 100 µs.
        assert!((r.barrier_rate_during_vs_alone - 100.0 / 10_200.0 * 100.0).abs() < 1e-9);
        assert!((r.barrier_rate_between_vs_alone - 300.0 / 29_800.0 * 100.0).abs() < 1e-9);
        assert!((r.preemption_model - 40.0 / 30.0).abs() < 1e-12);
        assert!((r.other_slowdown - 10_200.0 / 5_000.0).abs() < 1e-12);
        assert_eq!(r.tuning, Tuning::CORUN);
        assert!(r.summary().contains("slowdown 1.100"));
    }
}

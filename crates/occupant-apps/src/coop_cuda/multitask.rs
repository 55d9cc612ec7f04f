//! Multitasking a cooperative kernel with another, separately compiled kernel (seed 000 §5.4):
//! the cooperative BFS runs while a matrix multiplication (`occupant::cuda::coop::MATMUL_CU`,
//! ours, NVRTC — not cuBLAS) sized to take E ms on the whole GPU is requested every P ms on a
//! share of the GPU; and the same co-run with what CUDA offers (a high-priority stream).

use super::bfs::{App, BarrierMode, GpuBfs};
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

/// The median of `v` (0 when empty).
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

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

    /// Sizes the matmul so that it takes `exec_ms` on every slot of the GPU; returns n.
    pub fn calibrate(&mut self, exec_ms: f64) -> Result<u32> {
        let all = self.groups();
        self.mm_n = 1024;
        self.matmul_alone(all)?; // warm-up
        let t = self.matmul_alone(all)? / 1e3;
        let n = (1024.0 * (exec_ms / t).cbrt() / 64.0).round().max(1.0) * 64.0;
        self.mm_n = (n as u32).min(MAX_MM_N);
        for _ in 0..3 {
            let t = self.matmul_alone(all)? / 1e3;
            let n = (f64::from(self.mm_n) * (exec_ms / t).cbrt() / 64.0)
                .round()
                .max(1.0)
                * 64.0;
            self.mm_n = (n as u32).min(MAX_MM_N);
        }
        self.exec_alone.clear();
        Ok(self.mm_n)
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
    /// BFS alone: persistent, cooperative (this barrier), µs.
    pub persistent_us: f64,
    /// The cooperative BFS alone, µs.
    pub cooperative_alone_us: f64,
    /// The co-run.
    pub corun: CoRun,
}

/// One multitasking experiment (what `occupant multitask --backend cuda` runs): the cooperative
/// BFS over `graph` (`rounds` traversals from `sources`) with `barrier` resizing barriers,
/// while a matmul of E = `workload.exec_ms` on the whole GPU is requested every
/// `workload.period_ms` on `share` of the groups. Block 256 threads, 2 groups per SM.
/// Set `CUDA_MODULE_LOADING=EAGER` before the process opens the GPU.
pub fn run_multitask(
    gpu: &Gpu,
    graph: &Csr,
    sources: &[u32],
    rounds: u32,
    barrier: BarrierMode,
    workload: Workload,
    share: Share,
) -> Result<MultitaskResult> {
    if barrier == BarrierMode::Persistent {
        return Err(Error::Input(
            "the multitasking co-run needs a cooperative barrier (regular or query)".into(),
        ));
    }
    let bfs = GpuBfs::new(gpu, graph, sources, rounds)?;
    run_multitask_kernel(gpu, Box::new(bfs), barrier, workload, share)
}

/// The same experiment with any cooperative application (what `occupant multitask --backend
/// cuda --app A` runs for every app): alone persistent and cooperative, then the co-run.
pub fn run_multitask_kernel(
    gpu: &Gpu,
    app: Box<dyn CoopKernel>,
    barrier: BarrierMode,
    workload: Workload,
    share: Share,
) -> Result<MultitaskResult> {
    if barrier == BarrierMode::Persistent {
        return Err(Error::Input(
            "the multitasking co-run needs a cooperative barrier (regular or query)".into(),
        ));
    }
    let name = app.name();
    let mut m = Multitasker::for_kernel(gpu, app, 256, 2)?;
    let matmul_n = m.calibrate(workload.exec_ms)?;
    let all = m.groups();
    let matmul_full_gpu_us = m.exec_alone_us(all)?;
    let (persistent_us, w0) = m.bfs_alone(BarrierMode::Persistent)?;
    let (cooperative_alone_us, w1) = m.bfs_alone(barrier)?;
    if w0 + w1 != 0 {
        return Err(Error::Resource(format!(
            "{name} alone gave {w0} (persistent) and {w1} (cooperative) wrong rounds"
        )));
    }
    let corun = m.corun_cooperative(barrier, workload, share)?;
    Ok(MultitaskResult {
        app: name.to_string(),
        device: gpu.info().name.clone(),
        groups: all,
        matmul_n,
        matmul_full_gpu_us,
        persistent_us,
        cooperative_alone_us,
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

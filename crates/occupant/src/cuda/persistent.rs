//! The persistent-kernel API: [`PersistentProgram`], "discover, then loop with barriers" in one
//! host call. Device side: `occ::PersistentKernel` (`device/persistent.cuh`, in `occupant.cuh`).
//!
//! ```no_run
//! use occupant::cuda::{Gpu, PersistentProgram};
//! let gpu = Gpu::open(0)?;
//! let src = r#"#include <occupant.cuh>
//! extern "C" __global__ void count(unsigned* data, unsigned n) {
//!   occ::PersistentKernel p;
//!   if (!p.participating()) return;
//!   for (unsigned it = 0; it < 10; ++it) {
//!     for (unsigned i = p.thread_id(); i < n; i += p.num_threads()) data[i] += 1;
//!     if (!p.barrier()) return;
//!   }
//! }"#;
//! let prog = PersistentProgram::compile(&gpu, "count.cu", src, &Default::default())?;
//! let data = gpu.alloc_zeroed::<u32>(1 << 20)?;
//! let report = prog.launch("count", 256, &occupant::args![&data, 1u32 << 20])?;
//! println!("{} blocks took part, {:.1} µs", report.participants, report.elapsed_us);
//! assert!(data.to_vec()?.iter().all(|&x| x == 10));
//! # Ok::<(), occupant::Error>(())
//! ```

use super::gpu::driver_err;
use super::sync::run::ns_per_round;
use super::sync::{BarrierKind, MachineAbstraction};
use super::{Arg, CompileOptions, Gpu, LaunchConfig, LaunchMode, LaunchReport, Module};
use crate::model::{Error, LaunchShape, Result};
use cudarc::driver::sys::{self, CUresult};
use cudarc::driver::DevicePtr;
use serde::Serialize;
use std::sync::{Arc, Mutex};

/// Most participating blocks `occ::PersistentKernel` holds barrier state for
/// (`OCC_PERSISTENT_MAX_GROUPS` in persistent.cuh).
pub const PERSISTENT_MAX_GROUPS: usize = 8192;

/// The polls' throttle persistent programs compile with (`-DOCC_POLL_PAUSE_SHIFT`, gated by
/// `OCC_POLL_PAUSE_GATE` = 1: only in barriers with more waiters than SMs) unless their options
/// set it: a persistent loop's blocks reach each barrier as their work ends, and with skewed
/// arrivals the throttle gains 13-18 % at full occupancy of 128 and 256 threads on an H100
/// (`bench/results/nvidia-h100/i11-primitives/misses-r3`); the shape table's `barrier_skewed`
/// entries, from which [`persistent_barrier_for_block`] chooses, are measured with it.
pub const PERSISTENT_POLL_PAUSE_SHIFT: i32 = 1;

/// Bytes of `occ_persistent` before the barrier words (the hint, the placement, the pause
/// switch and padding).
const HEADER_BYTES: usize = 128;
/// Byte offset of `occ_persistent.offset` (the barrier's placement, in words).
const OFFSET_BYTE: u64 = 4;
/// Byte offset of `occ_persistent.no_pause` (1: the barrier's pause before its first poll off).
const NO_PAUSE_BYTE: u64 = 8;
/// The probe turns a barrier's pause off only when that is at least 1 % faster.
const NO_PAUSE_MARGIN: f64 = 0.99;

/// Whether barrier `kind` pauses before its first poll (past one block per SM), which the
/// placement probe then also times without (`occ::detail::no_pause`): on an H200 the pause
/// costs at 2-3 blocks per SM (264x1024 lean 1.087x grid.sync with it, 0.967x without), on an
/// H100 it pays at every count (0.860 / 0.917).
fn has_pause(kind: BarrierKind) -> bool {
    matches!(
        kind,
        BarrierKind::Lean | BarrierKind::Replica | BarrierKind::LeanBell | BarrierKind::LeanPause
    )
}

/// Candidate places for a persistent program's barrier state (`OCC_PERSISTENT_PLACEMENTS`):
/// the placement probe times the barrier at each and the program keeps the fastest.
pub const PERSISTENT_PLACEMENTS: usize = 16;
/// Words between two candidate places (`OCC_PERSISTENT_PLACEMENT_STRIDE`: 36 KiB + 128 bytes,
/// so that the candidates differ in every address bit from the line's up to the 512 KiB one).
pub const PERSISTENT_PLACEMENT_STRIDE_WORDS: usize = 9248;
/// Words from `occ_persistent.barrier` to candidate place `c` of a program with several
/// places: `(c + 1)` strides, so that no candidate is the line right after the header (the
/// place of a program compiled with one place). There stencil cc ran 5 % slower on an H100 in
/// two module loads of two (25.04-25.08 ms against 23.6-24.1 at the 15 places a stride or more
/// away; bfs on the same input and every app on an H200 did not care), and the bare-barrier
/// probe timed it like the others (2215 ns).
fn candidate_offset_words(c: usize) -> usize {
    (c + 1) * PERSISTENT_PLACEMENT_STRIDE_WORDS
}

/// Barriers the placement probe times at each candidate place (after one untimed barrier;
/// ns per barrier = the median over the participants, as the barrier benchmark's `grid.sync()`
/// comparator is timed).
pub const PLACEMENT_PROBE_ROUNDS: u32 = 64;
/// Sweeps over the candidates; each candidate keeps its fastest sweep.
const PLACEMENT_PROBE_SWEEPS: usize = 2;

/// Whether `occ::PersistentKernel` can use barrier `kind` (its state fits `occ_persistent`:
/// every kind but the tree barrier).
pub fn persistent_supports(kind: BarrierKind) -> bool {
    kind.state_words(PERSISTENT_MAX_GROUPS) <= 2 * PERSISTENT_MAX_GROUPS
}

/// The barrier [`PersistentProgram::compile_for_block`] picks on `gpu` for blocks of
/// `block_threads` threads: the fastest kind `occ::PersistentKernel` can use that the device's
/// shape table measured at the shape nearest to a full-occupancy launch (the hardware bound on
/// resident blocks of that size, the number discovery finds when registers do not limit it),
/// under skewed arrivals where the table has such measurements
/// ([`MachineAbstraction::skewed_barrier_for_where`]); without a table, the device's default.
pub fn persistent_barrier_for_block(gpu: &Gpu, block_threads: usize) -> Result<BarrierKind> {
    let m = MachineAbstraction::for_gpu(gpu)?;
    let blocks = gpu.info().resident_blocks_bound(block_threads as u32) as usize;
    Ok(m.persistent_barrier_for(LaunchShape::new(blocks, block_threads)))
}

impl MachineAbstraction {
    /// The barrier a persistent program takes for launches of `shape`: the fastest kind
    /// `occ::PersistentKernel` can use ([`persistent_supports`]) under skewed arrivals where
    /// the table has such measurements ([`MachineAbstraction::skewed_barrier_for_where`]), else
    /// the device's default.
    pub fn persistent_barrier_for(&self, shape: LaunchShape) -> BarrierKind {
        self.skewed_barrier_for_where(shape, persistent_supports)
            .unwrap_or(self.defaults.barrier)
    }
}

/// A program whose kernels use `occ::PersistentKernel`, compiled for one GPU with one barrier.
///
/// **Where its barrier lives.** How fast one line takes a thousand arrivals and polls depends on
/// where its physical address falls in the L2 (on an H100 a graph kernel's whole run moved by
/// ±3 % with the module's load address; `docs/PERSISTENT.md`). So the program's barrier state
/// has [`PERSISTENT_PLACEMENTS`] candidate places, and before its first launch the program
/// times a short barrier loop at each, in the launch's shape
/// ([`probe_placement`](Self::probe_placement)), and keeps the fastest for every later launch
/// (clones share it). Compile with `-DOCC_PERSISTENT_PLACEMENTS=1` for a single place and no
/// probe.
#[derive(Clone, Debug)]
pub struct PersistentProgram {
    module: Module,
    barrier: BarrierKind,
    /// Device address and size of `occ_persistent`.
    state: (u64, usize),
    /// Candidate places compiled in (`OCC_PERSISTENT_PLACEMENTS`).
    placements: usize,
    /// The chosen place, once probed.
    placement: Arc<Mutex<Option<Placement>>>,
}

/// One candidate place of a persistent program's barrier and its time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlacementTiming {
    /// Bytes from `occ_persistent`'s first barrier word (the place of a program compiled with
    /// one place) to this candidate.
    pub offset_bytes: usize,
    /// Device address of the barrier's first word there.
    pub address: u64,
    /// Nanoseconds per barrier (the fastest sweep of [`PLACEMENT_PROBE_ROUNDS`] barriers).
    pub ns_per_barrier: f64,
    /// The same without the barrier's pause before its first poll: timed at every place when
    /// the probe turned the pause off (the best place without it need not be the best with it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_pause_ns: Option<f64>,
}

/// What the placement probe measured and chose ([`PersistentProgram::probe_placement`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Placement {
    /// Index of the chosen candidate in `candidates`: the fastest, without the pause when
    /// `no_pause` (then by [`PlacementTiming::no_pause_ns`]).
    pub chosen: usize,
    /// Every candidate, in address order.
    pub candidates: Vec<PlacementTiming>,
    /// Threads per block of the probe's launches.
    pub block_threads: usize,
    /// Blocks that took part in the probe's last launch.
    pub participants: u32,
    /// Barriers timed per place and sweep.
    pub rounds: u32,
    /// Whether the barrier's pause before its first poll is off (the probe timed the fastest
    /// place without it at least 1 % faster, then every place without it).
    pub no_pause: bool,
    /// The chosen place without the pause, ns per barrier (kinds with a pause only).
    pub no_pause_ns: Option<f64>,
}

impl Placement {
    /// Nanoseconds per barrier at the chosen place, with the chosen pause.
    pub fn chosen_ns(&self) -> f64 {
        let at = self.candidates[self.chosen].ns_per_barrier;
        match (self.no_pause, self.no_pause_ns) {
            (true, Some(ns)) => ns,
            _ => at,
        }
    }
    /// Nanoseconds per barrier at the first candidate place.
    pub fn first_ns(&self) -> f64 {
        self.candidates[0].ns_per_barrier
    }
    /// Median over the candidates, ns per barrier.
    pub fn median_ns(&self) -> f64 {
        let mut v: Vec<f64> = self.candidates.iter().map(|c| c.ns_per_barrier).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }
    /// Slowest candidate, ns per barrier.
    pub fn slowest_ns(&self) -> f64 {
        self.candidates
            .iter()
            .map(|c| c.ns_per_barrier)
            .fold(0.0, f64::max)
    }
}

/// What a persistent launch did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PersistentReport {
    /// Blocks that took part (discovery).
    pub participants: u32,
    /// Blocks launched (the hardware bound on resident blocks unless a grid was given).
    pub launched: usize,
    /// The occupancy API's bound passed to discovery as its hint.
    pub hint: u32,
    /// The barrier `occ::PersistentKernel::barrier` used.
    pub barrier: BarrierKind,
    /// Bytes from `occ_persistent`'s first barrier word to the barrier's state (the probe's
    /// choice; 0 for a program compiled with one place).
    pub barrier_offset_bytes: usize,
    /// Host wall time from submitting to completion, µs.
    pub elapsed_us: f64,
    /// The underlying launch.
    pub launch: LaunchReport,
}

impl PersistentProgram {
    /// Compiles `source` with the device's default barrier (its machine abstraction, measured
    /// once per device and stored; see [`MachineAbstraction::for_gpu`]).
    pub fn compile(
        gpu: &Gpu,
        name: &str,
        source: &str,
        opts: &CompileOptions,
    ) -> Result<PersistentProgram> {
        let kind = MachineAbstraction::for_gpu(gpu)?.defaults.barrier;
        Self::compile_with_barrier(gpu, kind, name, source, opts)
    }

    /// Compiles `source` with the fastest barrier measured on this device for a launch of
    /// blocks of `block_threads` threads at full occupancy ([`persistent_barrier_for_block`]):
    /// the way to compile when the block size is known, which it usually is.
    pub fn compile_for_block(
        gpu: &Gpu,
        block_threads: usize,
        name: &str,
        source: &str,
        opts: &CompileOptions,
    ) -> Result<PersistentProgram> {
        let kind = persistent_barrier_for_block(gpu, block_threads)?;
        Self::compile_with_barrier(gpu, kind, name, source, opts)
    }

    /// Compiles `source` with barrier `kind` (`-DOCC_PERSISTENT_BARRIER=<its primitive id>`)
    /// and, unless `opts` sets it, the polls' throttle ([`PERSISTENT_POLL_PAUSE_SHIFT`]);
    /// [`Error::InvalidLaunch`] for a kind `occ::PersistentKernel` cannot hold
    /// ([`persistent_supports`]).
    pub fn compile_with_barrier(
        gpu: &Gpu,
        kind: BarrierKind,
        name: &str,
        source: &str,
        opts: &CompileOptions,
    ) -> Result<PersistentProgram> {
        if !persistent_supports(kind) {
            return Err(Error::InvalidLaunch(format!(
                "occ::PersistentKernel cannot use the {kind} barrier: its state ({} words) exceeds occ_persistent's {}",
                kind.state_words(PERSISTENT_MAX_GROUPS),
                2 * PERSISTENT_MAX_GROUPS
            )));
        }
        let mut opts = opts
            .clone()
            .option(format!("-DOCC_PERSISTENT_BARRIER={}", kind.primitive_id()));
        // Defaults that `opts` may override.
        for (name, value) in [
            ("OCC_PERSISTENT_PLACEMENTS", PERSISTENT_PLACEMENTS as i32),
            ("OCC_POLL_PAUSE_SHIFT", PERSISTENT_POLL_PAUSE_SHIFT),
        ] {
            if !opts.options.iter().any(|o| o.contains(name)) {
                opts = opts.option(format!("-D{name}={value}"));
            }
        }
        let module = gpu.compile(
            &format!("{name}[persistent:{}]", kind.name()),
            source,
            &opts,
        )?;
        let state = match module.inner.cu.get_global("occ_persistent", &gpu.shared.stream) {
            Ok(view) => {
                let len = view.len();
                let (ptr, _sync) = view.device_ptr(&gpu.shared.stream);
                (ptr, len)
            }
            Err(e) if e.0 == CUresult::CUDA_ERROR_NOT_FOUND => {
                return Err(Error::InvalidLaunch(format!(
                    "program `{name}` defines no `occ_persistent`: include <occupant.cuh> and use occ::PersistentKernel"
                )))
            }
            Err(e) => return Err(driver_err("cuModuleGetGlobal(occ_persistent)", e)),
        };
        let base = HEADER_BYTES + 4 * 2 * PERSISTENT_MAX_GROUPS;
        if state.1 < base {
            return Err(Error::InvalidLaunch(format!(
                "occ_persistent in `{name}` is {} bytes: mismatched persistent.cuh",
                state.1
            )));
        }
        let placements = ((state.1 - base) / (4 * PERSISTENT_PLACEMENT_STRIDE_WORDS)).max(1);
        Ok(PersistentProgram {
            module,
            barrier: kind,
            state,
            placements,
            placement: Arc::new(Mutex::new(None)),
        })
    }

    /// The placement chosen for the barrier, once probed (`None` before the first launch, and
    /// always for a program compiled with a single place).
    pub fn placement(&self) -> Option<Placement> {
        self.placement.lock().ok().and_then(|p| p.clone())
    }

    /// Puts the barrier at candidate place `candidate` for every later launch, instead of the
    /// probe's choice (experiments: how much the place decides a kernel's time). The timings of
    /// an earlier probe are kept; without one the placement records only the choice (no
    /// timings: `ns_per_barrier` is NaN).
    pub fn place_at(&self, candidate: usize) -> Result<()> {
        if candidate >= self.placements {
            return Err(Error::InvalidLaunch(format!(
                "barrier place {candidate}: this program has {} candidate places (0..{})",
                self.placements, self.placements
            )));
        }
        let mut p = self
            .placement
            .lock()
            .map_err(|_| Error::Input("the placement lock was poisoned".into()))?;
        let mut next = p.clone().unwrap_or_else(|| Placement {
            chosen: 0,
            candidates: (0..self.placements)
                .map(|c| self.candidate(c, f64::NAN, None))
                .collect(),
            block_threads: 0,
            participants: 0,
            rounds: 0,
            no_pause: false,
            no_pause_ns: None,
        });
        next.chosen = candidate;
        *p = Some(next);
        Ok(())
    }

    /// Candidate places compiled into this program (1: no probe).
    pub fn placements(&self) -> usize {
        self.placements
    }

    /// Times [`PLACEMENT_PROBE_ROUNDS`] barriers of the program's kind at each candidate place
    /// of its state, launched as `kernel` would be with `cfg` (the same block, grid and hint;
    /// the probe is `occ_persistent_placement_probe`, in every module compiled by
    /// [`PersistentProgram`]), keeps the fastest for later launches and returns every timing.
    /// [`launch_with`](Self::launch_with) calls it before the first launch; call it yourself
    /// to choose with another shape or to see the timings.
    pub fn probe_placement(&self, kernel: &str, cfg: &LaunchConfig) -> Result<Placement> {
        self.probe_placement_with_rounds(kernel, cfg, PLACEMENT_PROBE_ROUNDS)
    }

    /// [`probe_placement`](Self::probe_placement) timing `rounds` barriers at each place
    /// (at least 1).
    pub fn probe_placement_with_rounds(
        &self,
        kernel: &str,
        cfg: &LaunchConfig,
        rounds: u32,
    ) -> Result<Placement> {
        let rounds = rounds.max(1);
        if self.placements < 2 {
            return Err(Error::InvalidLaunch(
                "this persistent program was compiled with one barrier place (OCC_PERSISTENT_PLACEMENTS=1): nothing to probe".into(),
            ));
        }
        let (threads, _, hint) = self.shape(kernel, cfg)?;
        let mut probe_cfg = LaunchConfig::new(LaunchMode::Discovery, threads)
            .grid(hint.max(1) as usize)
            .watchdog(cfg.watchdog);
        probe_cfg.block = cfg.block;
        let words = self.barrier.state_words(hint.max(1) as usize);
        let gpu = Gpu {
            shared: self.module.inner.gpu.clone(),
        };
        let times = gpu.alloc_zeroed::<u64>(2 * hint.max(1) as usize)?;
        let mut best = vec![f64::INFINITY; self.placements];
        let mut participants = 0;
        // One probe launch at `offset`: the median over blocks, ns per barrier.
        let mut time_at = |offset: usize, no_pause: bool| -> Result<f64> {
            self.prepare(offset, words, hint, no_pause)?;
            let r = self.module.launch(
                "occ_persistent_placement_probe",
                &probe_cfg,
                &crate::args![rounds, &times],
            )?;
            participants = r.participants.unwrap_or(0);
            let mut per = ns_per_round(&times.to_vec()?, participants as usize, rounds);
            per.sort_by(f64::total_cmp);
            Ok(per.get(per.len() / 2).copied().unwrap_or(f64::INFINITY))
        };
        // The fastest of PLACEMENT_PROBE_SWEEPS sweeps at each place in `places`, into `into`.
        let mut sweep = |places: &[usize], no_pause: bool, into: &mut [f64]| -> Result<()> {
            for _ in 0..PLACEMENT_PROBE_SWEEPS {
                for &c in places {
                    into[c] = into[c].min(time_at(candidate_offset_words(c), no_pause)?);
                }
            }
            Ok(())
        };
        let fastest = |v: &[f64]| {
            (0..v.len())
                .min_by(|&a, &b| v[a].total_cmp(&v[b]))
                .unwrap_or(0)
        };
        let all: Vec<usize> = (0..best.len()).collect();
        sweep(&all, false, &mut best)?;
        let mut chosen = fastest(&best);
        // The kinds with a pause before the first poll: the chosen place without it too, and
        // where that is faster every place without it (the places rank differently: an H200 at
        // 264x1024 spans 1119-1165 ns over 16 places with the pause, 986 without it).
        let mut unpaused = vec![f64::INFINITY; best.len()];
        let mut no_pause = false;
        if has_pause(self.barrier) {
            sweep(&[chosen], true, &mut unpaused)?;
            no_pause = unpaused[chosen] < best[chosen] * NO_PAUSE_MARGIN;
            if no_pause {
                sweep(&all, true, &mut unpaused)?;
                chosen = fastest(&unpaused);
            }
        }
        let no_pause_ns = has_pause(self.barrier).then_some(unpaused[chosen]);
        let unpaused: Vec<Option<f64>> = unpaused
            .into_iter()
            .map(|ns| (no_pause && ns.is_finite()).then_some(ns))
            .collect();
        let candidates: Vec<PlacementTiming> = best
            .iter()
            .zip(unpaused)
            .enumerate()
            .map(|(c, (&ns, np))| self.candidate(c, ns, np))
            .collect();
        let placement = Placement {
            chosen,
            candidates,
            block_threads: threads,
            participants,
            rounds,
            no_pause,
            no_pause_ns,
        };
        if let Ok(mut p) = self.placement.lock() {
            *p = Some(placement.clone());
        }
        Ok(placement)
    }

    /// Candidate place `c` with its time.
    fn candidate(
        &self,
        c: usize,
        ns_per_barrier: f64,
        no_pause_ns: Option<f64>,
    ) -> PlacementTiming {
        let offset_bytes = 4 * candidate_offset_words(c);
        PlacementTiming {
            offset_bytes,
            address: self.state.0 + (HEADER_BYTES + offset_bytes) as u64,
            ns_per_barrier,
            no_pause_ns,
        }
    }

    /// Threads per block, blocks launched and the occupancy API's bound for `kernel` under `cfg`.
    fn shape(&self, kernel: &str, cfg: &LaunchConfig) -> Result<(usize, usize, u32)> {
        let gpu = &self.module.inner.gpu;
        let threads: usize = cfg.block.iter().product();
        let launched = match cfg.grid {
            Some(g) => g.iter().product(),
            None => gpu.info.resident_blocks_bound(threads as u32) as usize,
        };
        if launched > PERSISTENT_MAX_GROUPS {
            return Err(Error::InvalidLaunch(format!(
                "persistent launch of `{kernel}` with {launched} blocks: occ::PersistentKernel holds state for {PERSISTENT_MAX_GROUPS}"
            )));
        }
        let hint = self
            .module
            .max_active_blocks_per_sm(kernel, threads as u32, cfg.shared_bytes)?
            .saturating_mul(gpu.info.sm_count)
            .min(launched as u32);
        Ok((threads, launched, hint))
    }

    /// Zeroes the header and `words` barrier words at `offset`, then writes the hint and the
    /// placement (queued on the stream before the next launch).
    fn prepare(&self, offset: usize, words: usize, hint: u32, no_pause: bool) -> Result<()> {
        let stream = self.module.inner.gpu.stream.cu_stream();
        let start = HEADER_BYTES + 4 * offset;
        let bytes = (4 * words).min(self.state.1.saturating_sub(start));
        // SAFETY: occ_persistent spans state.1 bytes: the header (HEADER_BYTES) and
        // [start, start + bytes) lie inside it; the writes are ordered on the stream before the
        // launch queued after them.
        unsafe {
            sys::cuMemsetD8Async(self.state.0, 0, HEADER_BYTES, stream)
                .result()
                .map_err(|e| driver_err("cuMemsetD8(occ_persistent)", e))?;
            sys::cuMemsetD8Async(self.state.0 + start as u64, 0, bytes, stream)
                .result()
                .map_err(|e| driver_err("cuMemsetD8(occ_persistent.barrier)", e))?;
            sys::cuMemsetD32Async(self.state.0, hint, 1, stream)
                .result()
                .map_err(|e| driver_err("cuMemsetD32(occ_persistent.hint)", e))?;
            sys::cuMemsetD32Async(self.state.0 + OFFSET_BYTE, offset as u32, 1, stream)
                .result()
                .map_err(|e| driver_err("cuMemsetD32(occ_persistent.offset)", e))?;
            sys::cuMemsetD32Async(self.state.0 + NO_PAUSE_BYTE, u32::from(no_pause), 1, stream)
                .result()
                .map_err(|e| driver_err("cuMemsetD32(occ_persistent.no_pause)", e))?;
        }
        Ok(())
    }

    /// The loaded module (for its other kernels and attributes).
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The barrier `occ::PersistentKernel::barrier` uses.
    pub fn barrier(&self) -> BarrierKind {
        self.barrier
    }

    /// Launches `kernel` with blocks of `block_threads` threads in discovery mode on the
    /// hardware bound of resident blocks, with the default watchdog, and waits for it.
    pub fn launch(
        &self,
        kernel: &str,
        block_threads: usize,
        args: &[Arg<'_>],
    ) -> Result<PersistentReport> {
        self.launch_with(
            kernel,
            &LaunchConfig::new(LaunchMode::Discovery, block_threads),
            args,
        )
    }

    /// The same with a full configuration (its mode is forced to [`LaunchMode::Discovery`];
    /// a grid, shared memory, watchdog and host deadline are honoured).
    pub fn launch_with(
        &self,
        kernel: &str,
        cfg: &LaunchConfig,
        args: &[Arg<'_>],
    ) -> Result<PersistentReport> {
        let mut cfg = cfg.clone();
        cfg.mode = LaunchMode::Discovery;
        let (_, launched, hint) = self.shape(kernel, &cfg)?;
        let chosen = self
            .placement
            .lock()
            .ok()
            .and_then(|p| p.as_ref().map(|p| (p.chosen, p.no_pause)));
        let (offset, no_pause) = match chosen {
            Some((c, no_pause)) => (candidate_offset_words(c), no_pause),
            None if self.placements > 1 => {
                let p = self.probe_placement(kernel, &cfg)?;
                (candidate_offset_words(p.chosen), p.no_pause)
            }
            None => (0, false),
        };
        self.prepare(offset, self.barrier.state_words(launched), hint, no_pause)?;
        let launch = self.module.launch(kernel, &cfg, args)?;
        Ok(PersistentReport {
            participants: launch.participants.unwrap_or(0),
            launched: launch.blocks,
            hint,
            barrier: self.barrier,
            barrier_offset_bytes: 4 * offset,
            elapsed_us: launch.elapsed_us,
            launch,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cuda::sync::{Access, MemoryTiming};

    #[test]
    fn every_kind_but_the_tree_fits_occ_persistent() {
        for &k in BarrierKind::ALL {
            assert_eq!(persistent_supports(k), k != BarrierKind::Tree, "{k}");
        }
    }

    /// The built-in H100 table picks lean for the apps' shape (1056 blocks of 256), and the
    /// filter keeps kinds PersistentKernel cannot hold out of the pick.
    #[test]
    fn the_h100_table_picks_lean_pause_at_full_occupancy_of_256_thread_blocks() {
        let timings: Vec<MemoryTiming> = [true, false]
            .iter()
            .flat_map(|&c| {
                Access::ALL.iter().map(move |&a| MemoryTiming {
                    access: a,
                    contentious: c,
                    total_ns: 100.0,
                    ns_per_access: 0.1,
                })
            })
            .collect();
        let m = MachineAbstraction::from_timings(
            "NVIDIA H100 80GB HBM3",
            (9, 0),
            132,
            1056,
            1000,
            timings,
        )
        .unwrap()
        .with_builtin_shapes();
        let shape = LaunchShape::new(1056, 256);
        // lean_pause (1749 ns, last-run3) before lean (1869) and relay (2063).
        assert_eq!(
            m.barrier_for_where(shape, persistent_supports),
            Some(BarrierKind::LeanPause)
        );
        assert_eq!(
            m.barrier_for_where(shape, |k| k != BarrierKind::LeanPause),
            Some(BarrierKind::Lean)
        );
        assert_eq!(
            m.barrier_for_where(shape, |k| {
                !matches!(k, BarrierKind::Lean | BarrierKind::LeanPause)
            }),
            Some(BarrierKind::Relay)
        );
        assert_eq!(m.barrier_for_where(shape, |_| false), None);
        // Under skewed arrivals (the table's barrier_skewed entries) lean and lean_pause tie
        // (4607 / 4641 ns, within SKEWED_TIE): the aligned choice decides, so persistent
        // programs keep lean_pause here, relay at 2112x128 and lean at 264x1024.
        assert_eq!(
            m.skewed_barrier_for_where(shape, persistent_supports),
            Some(BarrierKind::LeanPause)
        );
        assert_eq!(
            m.skewed_barrier_for_where(LaunchShape::new(2112, 128), persistent_supports),
            Some(BarrierKind::Relay)
        );
        assert_eq!(
            m.skewed_barrier_for_where(LaunchShape::new(264, 1024), persistent_supports),
            Some(BarrierKind::Lean)
        );
    }
}

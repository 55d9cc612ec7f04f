//! A raw barrier whose state sits where this GPU serves it fastest in a launch shape.
//!
//! A barrier's time depends on which L2 slice holds its lines: between places of the same
//! allocation one kind moves by 4-14 % on an H200 (`bench/results/nvidia-h200/i11-primitives/
//! 2026-11-28-s10-lean-eager`), and within one process every launch lands on the same place.
//! Persistent programs probe their barrier's places before their first launch
//! ([`PersistentProgram::probe_placement`](crate::cuda::PersistentProgram::probe_placement));
//! [`Barrier::placed`] does the same for a raw barrier: it allocates [`BARRIER_PLACES`]
//! candidate places, times the kind at each in the launch shape (the benchmark's kernel,
//! [`run_barrier_at`], [`BARRIER_PLACE_ROUNDS`] barriers, the fastest of
//! [`BARRIER_PLACE_SWEEPS`] sweeps), and keeps the fastest: [`Barrier::arg`] points there.
//! The place is a property of the hardware's address hash, not of the kernel around the
//! barrier, so what the benchmark's kernel finds holds for the user's kernel in the same shape
//! (`occupant bench placement` re-times the chosen place in a separate launch).

use super::kinds::BarrierKind;
use super::machine::MachineAbstraction;
use super::objects::Barrier;
use super::places::{place_each, probe, stride_for, Places, PLACES, PLACE_SWEEPS};
use super::run::run_barrier_at;
use crate::cuda::Gpu;
use crate::model::{LaunchShape, Result, Watchdog};
use std::time::Duration;

/// Candidate places [`Barrier::placed`] times.
pub const BARRIER_PLACES: usize = PLACES;

/// Barriers timed at each place per sweep (after discovery, in one launch).
pub const BARRIER_PLACE_ROUNDS: u32 = 256;

/// Sweeps over every place; a place's time is its fastest sweep.
pub const BARRIER_PLACE_SWEEPS: usize = PLACE_SWEEPS;

/// What [`Barrier::placed`] measured (the name before the mutexes had a probe too).
pub type BarrierPlaces = Places;

impl Barrier {
    /// A barrier of `kind` for launches of `shape`, its state at the fastest of
    /// [`BARRIER_PLACES`] places (see the module's text). Takes ~70-120 ms on an H200 (32
    /// launches), plus the benchmark kernel's first compile (~2.6 s, then cached on disk). Shapes with clusters are not probed (the
    /// state starts at the allocation's start, as [`Barrier::new`]'s): the probe's kernel
    /// launches without clusters. The state is zeroed on return.
    ///
    /// ```no_run
    /// use occupant::cuda::{Gpu, LaunchConfig};
    /// use occupant::cuda::sync::{Barrier, BarrierKind};
    /// use occupant::model::LaunchShape;
    /// let gpu = Gpu::open(0)?;
    /// let b = Barrier::placed(&gpu, BarrierKind::LeanEager, LaunchShape::new(264, 1024))?;
    /// let p = b.places().unwrap();
    /// println!("chosen {:.0} ns, median place {:.0} ns", p.chosen_ns(), p.median_ns());
    /// # Ok::<(), occupant::Error>(())
    /// ```
    pub fn placed(gpu: &Gpu, kind: BarrierKind, shape: LaunchShape) -> Result<Self> {
        let n = shape.participants.max(1);
        let words = kind.state_words(n);
        if shape.cluster > 1 {
            return Self::new(gpu, kind, n);
        }
        let started = std::time::Instant::now();
        let stride = stride_for(words);
        let mut b = Barrier {
            kind,
            capacity: n,
            state: gpu.alloc_zeroed(stride * (BARRIER_PLACES - 1) + words)?,
            offset: 0,
            places: None,
        };
        let watchdog = Watchdog::default().with_timeout(Duration::from_secs(5));
        let base = b.state.device_ptr();
        let mut participants = 0;
        let (ns, chosen) = probe(|c| {
            b.state.zero()?;
            let at = base + 4 * (c * stride) as u64;
            let run = run_barrier_at(
                gpu,
                kind,
                n,
                shape.block_threads,
                BARRIER_PLACE_ROUNDS,
                at,
                watchdog,
            )?;
            participants = run.participants;
            Ok(run.ns_per_barrier)
        })?;
        b.state.zero()?;
        b.offset = chosen * stride;
        b.places = Some(
            Places {
                blocks: n,
                block_threads: shape.block_threads,
                participants,
                rounds: BARRIER_PLACE_ROUNDS,
                stride_words: stride,
                ns,
                chosen,
                probe_ms: started.elapsed().as_secs_f64() * 1e3,
                kinds: Vec::new(),
            }
            .of_kind(kind.name()),
        );
        Ok(b)
    }

    /// [`Barrier::placed`] for each of `kinds`, keeping the kind whose fastest place is
    /// fastest ([`BarrierPlaces::kinds`] lists what each kind reached). A kind whose probe
    /// fails (say it cannot launch the shape) is passed over while another succeeds; when
    /// every one fails, the first kind's error comes back. The probe's cost is one
    /// [`Barrier::placed`] per kind. Shapes with clusters are not probed ([`Barrier::placed`]):
    /// the first kind wins, unplaced.
    ///
    /// ```no_run
    /// use occupant::cuda::Gpu;
    /// use occupant::cuda::sync::{Barrier, BarrierKind};
    /// use occupant::model::LaunchShape;
    /// let gpu = Gpu::open(0)?;
    /// let shape = LaunchShape::new(132, 256);
    /// let b = Barrier::placed_among(&gpu, &[BarrierKind::LeanEager, BarrierKind::Replica], shape)?;
    /// for k in &b.places().unwrap().kinds {
    ///     println!("{}: {:.0} ns at its fastest place", k.kind, k.chosen_ns);
    /// }
    /// # Ok::<(), occupant::Error>(())
    /// ```
    pub fn placed_among(gpu: &Gpu, kinds: &[BarrierKind], shape: LaunchShape) -> Result<Self> {
        place_each(
            "Barrier::placed_among",
            kinds,
            |k| Self::placed(gpu, k, shape),
            |b| b.places.as_mut(),
        )
    }

    /// The fastest barrier this device has for `shape`, at its fastest place: the kinds its
    /// measurements cannot tell apart there ([`MachineAbstraction::barrier_candidates`]: the
    /// kind [`Barrier::with_default_kind_for`] gives and those within
    /// [`PLACED_KIND_TIE`](super::PLACED_KIND_TIE) of it, at most
    /// [`PLACED_KINDS`](super::PLACED_KINDS)), each probed at every place by
    /// [`Barrier::placed_among`]. The table's figures are each one place's: on an H200 at
    /// 132 × 256 lean_eager and replica measured 0.3 % apart, and at their fastest places
    /// replica was 4.5 % faster.
    pub fn with_default_kind_placed(gpu: &Gpu, shape: LaunchShape) -> Result<Self> {
        let kinds = MachineAbstraction::for_gpu(gpu)?.barrier_candidates(shape);
        Self::placed_among(gpu, &kinds, shape)
    }

    /// The placement probe's measurements (`None` unless made by [`Barrier::placed`] in a
    /// shape without clusters).
    pub fn places(&self) -> Option<&BarrierPlaces> {
        self.places.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cuda::PERSISTENT_PLACEMENT_STRIDE_WORDS;

    #[test]
    fn places_never_overlap_and_follow_the_persistent_stride() {
        for kind in [BarrierKind::LeanEager, BarrierKind::Relay, BarrierKind::Xf] {
            for n in [1, 132, 2112, 8192] {
                let words = kind.state_words(n);
                let s = stride_for(words);
                assert!(s >= words, "{kind} {n}: stride {s} < state {words}");
                assert_eq!(s % PERSISTENT_PLACEMENT_STRIDE_WORDS, 0);
            }
        }
    }

    #[test]
    fn chosen_median_and_first() {
        let p = Places {
            blocks: 4,
            block_threads: 128,
            participants: 4,
            rounds: 1,
            stride_words: 1,
            ns: vec![5.0, 3.0, 4.0, 9.0],
            chosen: 1,
            probe_ms: 1.0,
            kinds: Vec::new(),
        };
        assert_eq!(p.chosen_ns(), 3.0);
        assert_eq!(p.first_ns(), 5.0);
        assert_eq!(p.median_ns(), 5.0);
    }
}

//! A lock whose state sits where this GPU hands it over fastest.
//!
//! A lock's throughput depends on which L2 slice holds its word as a barrier's time does: on an
//! H200, at 1-2 contending blocks, spin_backoff ran at 1.22-1.79 Mops/s and flat_combining at
//! 1.08-1.45 over 16 places of one allocation (the same places slow for every kind;
//! `bench/results/nvidia-h200/i11-primitives/2026-11-28-s11-mutex-placement`); under heavy
//! contention the spread shrinks below 10 %. [`Mutex::placed`] times the kind at
//! [`PLACES`](super::places::PLACES) places of its own allocation in the caller's contention
//! (the benchmark's kernel, [`run_mutex_at`], [`MUTEX_PLACE_PAIRS`] lock/unlock pairs with a
//! counter increment inside, the fastest of two sweeps) and keeps the fastest:
//! [`Mutex::arg`] points there.

use super::kinds::MutexKind;
use super::machine::MachineAbstraction;
use super::objects::Mutex;
use super::places::{place_each, probe, stride_for, Places};
use super::run::run_mutex_at;
use crate::cuda::Gpu;
use crate::model::{LaunchShape, Result, Watchdog};
use std::time::Duration;

/// Lock/unlock pairs, all blocks together, timed at each place per sweep.
pub const MUTEX_PLACE_PAIRS: u32 = 4000;

impl Mutex {
    /// A lock of `kind` for `shape.participants` contending blocks of `shape.block_threads`
    /// threads, its state at the fastest of 16 places (see the module's text). Kinds that
    /// use thread-block clusters and shapes with clusters are not probed (the state starts at
    /// the allocation's start, as [`Mutex::new`]'s). The lock is free on return.
    ///
    /// ```no_run
    /// use occupant::cuda::Gpu;
    /// use occupant::cuda::sync::{Mutex, MutexKind};
    /// use occupant::model::LaunchShape;
    /// let gpu = Gpu::open(0)?;
    /// let m = Mutex::placed(&gpu, MutexKind::SpinBackoff, LaunchShape::new(2, 128))?;
    /// let p = m.places().unwrap();
    /// println!("{:.2} Mops/s at the chosen place", 1e3 / p.chosen_ns());
    /// # Ok::<(), occupant::Error>(())
    /// ```
    pub fn placed(gpu: &Gpu, kind: MutexKind, shape: LaunchShape) -> Result<Self> {
        if shape.cluster > 1 || kind.uses_clusters() {
            return Self::new(gpu, kind);
        }
        let started = std::time::Instant::now();
        let blocks = shape.participants.max(1);
        let words = kind.state_words();
        let stride = stride_for(words);
        let mut m = Mutex {
            kind,
            state: gpu.alloc_zeroed(stride * (super::places::PLACES - 1) + words)?,
            offset: 0,
            places: None,
        };
        let iters = (MUTEX_PLACE_PAIRS / blocks as u32).max(16);
        let watchdog = Watchdog::default().with_timeout(Duration::from_secs(5));
        let (ns, chosen) = probe(|c| {
            m.state.zero()?;
            let run = run_mutex_at(
                gpu,
                kind,
                blocks,
                shape.block_threads,
                iters,
                true,
                (&m.state, c * stride),
                watchdog,
            )?;
            Ok(if run.mops > 0.0 {
                1e3 / run.mops
            } else {
                f64::INFINITY
            })
        })?;
        m.state.zero()?;
        m.offset = chosen * stride;
        m.places = Some(
            Places {
                blocks,
                block_threads: shape.block_threads,
                participants: blocks,
                rounds: iters,
                stride_words: stride,
                ns,
                chosen,
                probe_ms: started.elapsed().as_secs_f64() * 1e3,
                kinds: Vec::new(),
            }
            .of_kind(kind.name()),
        );
        Ok(m)
    }

    /// [`Mutex::placed`] for each of `kinds`, keeping the kind whose fastest place is fastest
    /// ([`Places::kinds`] lists what each kind reached), as
    /// [`Barrier::placed_among`](super::Barrier::placed_among): a kind whose probe fails is
    /// passed over while another succeeds. Kinds that use clusters, and every kind in a shape
    /// with clusters, are not probed ([`Mutex::placed`]): such a lock wins only when no other
    /// kind was placed.
    pub fn placed_among(gpu: &Gpu, kinds: &[MutexKind], shape: LaunchShape) -> Result<Self> {
        place_each(
            "Mutex::placed_among",
            kinds,
            |k| Self::placed(gpu, k, shape),
            |m| m.places.as_mut(),
        )
    }

    /// The fastest lock this device has for `shape`, at its fastest place: the kinds its
    /// measurements cannot tell apart there ([`MachineAbstraction::mutex_candidates`]), each
    /// probed at every place by [`Mutex::placed_among`].
    pub fn with_default_kind_placed(gpu: &Gpu, shape: LaunchShape) -> Result<Self> {
        let kinds = MachineAbstraction::for_gpu(gpu)?.mutex_candidates(shape);
        Self::placed_among(gpu, &kinds, shape)
    }

    /// The placement probe's measurements, ns per lock/unlock pair of all blocks together at
    /// each place (`None` unless made by [`Mutex::placed`] for a kind and shape without
    /// clusters).
    pub fn places(&self) -> Option<&Places> {
        self.places.as_ref()
    }
}

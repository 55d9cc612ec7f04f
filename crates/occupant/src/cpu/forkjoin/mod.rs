//! Fork-join parallel regions inside a work-group (seed 003, warp specialisation), on the CPU
//! executor: the twin of the CUDA device library `occ::fj` (`cuda/device/forkjoin.cuh`), with
//! the same names and semantics. Guide: `docs/FORKJOIN.md`.
//!
//! A group of `32 * (W + 1)` work-items (`1 <= W <= 31`) is a team: the last 32 are the
//! master "warp", whose first work-item runs the serial code (the other 31 take no part); the
//! first `32 * W` are the worker pool. [`Master::parallel`]`(n, body)` runs `body` on workers
//! `0..n` and returns after all of them finished it (the implicit barrier at the end of a
//! region); [`Master::parallel_sum`] (and `_min`, `_max`, `parallel_reduce`) fold the values the
//! region's threads return (OpenMP's `parallel reduction`). Inside a region, [`Thread`] gives
//! the user barrier, worksharing loops (static, chunked, dynamic), reductions, `single` and
//! `master`; a nested `parallel` runs serially in the calling thread. Variables of the serial code are shared with the region by reference
//! (local memory is made of `Cell`s: a group runs on one thread) or through the data-sharing
//! stack ([`Master::push`]), which spills from local memory to a global area when full.
//!
//! Waiting is a coroutine switch at one barrier site, so regions run under every execution
//! model; a thread that never arrives at a barrier fails the launch with `Error::Deadlock`
//! (primitive `fork-join`), a region whose threads passed different numbers of barriers with
//! `Error::BarrierDivergence`.
//!
//! ```
//! use occupant::cpu::forkjoin::{run, Team};
//! use occupant::cpu::{Executor, ExecModel, GlobalBuffer, Launch};
//! use occupant::NDRange;
//! use std::cell::Cell;
//!
//! let out = GlobalBuffer::<i64>::new(2);
//! let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
//! // 2 groups of 3 warps: 64 workers + the master warp.
//! exec.launch_with(&Launch::new(NDRange::d1(192, 96)?), || Team::new(256, 0), |item, team| {
//!     run(item, team, |m| {
//!         let scale = 2;                         // serial code: the master only
//!         let total = Cell::new(0i64);            // shared with the region by reference
//!         m.parallel(m.max_threads(), |t| {
//!             let mut s = 0i64;
//!             t.for_static(0, 1000, |i| s += scale * i);
//!             let s = t.reduce_sum(s);           // every thread gets the sum
//!             t.master(|| total.set(s));
//!         });
//!         out.set(item.group_linear_id(), total.get());
//!     });
//! })?;
//! assert_eq!(out.to_vec(), vec![999_000, 999_000]);
//! # Ok::<(), occupant::Error>(())
//! ```

mod epcc;
mod master;
mod reduce;
mod team;
mod thread;
mod wait;

pub use epcc::epcc;
pub use master::{Master, StackArray};
pub use reduce::Word;
pub use team::Team;
pub use thread::Thread;
pub use wait::PRIMITIVE;

use crate::cpu::WorkItem;
use crate::Error;
use wait::{fail, wait_for};

/// Work-items per "warp": the master warp is the group's last 32 work-items, and regions are
/// formed from whole warps on CUDA (the CPU twin keeps the shape).
pub const WARP: usize = 32;

/// Most worker warps in a team (1024 work-items: 31 worker warps + the master warp).
pub const MAX_WORKER_WARPS: usize = 31;

/// The entry of a fork-join group (seed 003's TARGET), called by every work-item of the group
/// as the kernel's only statement: the master runs `serial` with a [`Master`], the workers
/// serve its regions. Returns in every work-item once `serial` has returned. A group whose
/// size is not `32 * (W + 1)` with `1 <= W <= 31` fails the launch with
/// [`Error::InvalidLaunch`].
pub fn run<'a>(item: &'a WorkItem<'a>, team: &'a Team, serial: impl FnOnce(&Master<'a>)) {
    let n = item.local_count();
    if n % WARP != 0 || !(2 * WARP..=(MAX_WORKER_WARPS + 1) * WARP).contains(&n) || item.dims() != 1
    {
        fail(
            item,
            Error::InvalidLaunch(format!(
                "a fork-join group has 32 * (W + 1) work-items in one dimension, 1 <= W <= {MAX_WORKER_WARPS}; got {n} in {} dimension(s)",
                item.dims()
            )),
        );
    }
    let workers = n - WARP;
    team.reset(workers);
    let l = item.local_linear_id();
    if l == workers {
        serial(&Master { team, item });
        team.terminate.set(1);
        // Work-item 0 (a worker) sees it in the next round and leaves first, as the executor
        // requires; the others leave after it.
        wait_for(item, || team.terminate.get() == 2);
        return;
    }
    if l > workers {
        // The master warp's other lanes take no part (on CUDA they leave the kernel).
        wait_for(item, || team.terminate.get() == 2);
        return;
    }
    worker_loop(item, team, l);
}

/// Seed 003's WorkerFn: wait for a region, run it if this thread is in it, join.
fn worker_loop<'a>(item: &'a WorkItem<'a>, team: &'a Team, tid: usize) {
    let mut seen = 0u64;
    loop {
        if tid == 0 {
            wait_for(item, || team.gen.get() != seen || team.terminate.get() != 0);
            if team.terminate.get() != 0 {
                team.terminate.set(2);
                return;
            }
        } else {
            wait_for(item, || team.gen.get() != seen || team.terminate.get() == 2);
            if team.terminate.get() == 2 {
                return;
            }
        }
        seen = team.gen.get();
        let n = team.nthreads.get();
        if tid >= n {
            continue; // not needed in this region: back to the pool
        }
        let Some(body) = team.body.get() else {
            continue;
        };
        let t = Thread::new(team, item, tid, n, 1);
        // SAFETY: the master stays suspended in `Master::parallel` (which owns the body) until
        // every thread of the region has joined below.
        unsafe { (*body)(&t) };
        let b = t.barriers_passed();
        team.bars_min.set(team.bars_min.get().min(b));
        team.bars_max.set(team.bars_max.get().max(b));
        team.joined.set(team.joined.get() + 1);
    }
}

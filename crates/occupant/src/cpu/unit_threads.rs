//! Compute-unit threads kept between launches.
//!
//! Starting an OS thread (stack mapping, `clone`, signal stack) costs tens of microseconds on
//! the 2-core host, as much as a whole barrier-free launch over a few MiB: an executor keeps
//! the threads of its small launches and wakes them for the next one. A launch that finds
//! them busy (launches from several threads, or a launch from inside a kernel) or that needs
//! more than [`MAX_KEPT`] compute units starts its own scoped threads as before.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// Most compute-unit threads an executor keeps.
pub(crate) const MAX_KEPT: usize = 64;

/// The work of one launch: compute unit `u` runs `f(u)`, for `u < units`.
#[derive(Clone, Copy)]
struct Job {
    /// Borrowed from the launching thread, which waits until every unit has returned.
    f: *const (dyn Fn(usize) + Sync + 'static),
    units: usize,
}

// SAFETY: `f` is `Sync` and only called while `run` keeps it alive (see `run`).
unsafe impl Send for Job {}

#[derive(Default)]
struct State {
    job: Option<Job>,
    /// Bumped by every launch; a thread runs each generation at most once.
    generation: u64,
    /// Units of the current job that have not returned yet.
    remaining: usize,
    /// A unit's function panicked (outside the executor's per-group catch: a bug).
    unit_panicked: bool,
    shutdown: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    work: Condvar,
    done: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The kept threads of one executor.
#[derive(Default)]
pub(crate) struct UnitThreads {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl UnitThreads {
    /// Runs `f(u)` for every `u < units` on kept threads (starting missing ones with
    /// `stack_size`-byte stacks), calls `opened()` once the job is published, and returns
    /// when every unit has returned. `Err` (before anything ran) if a thread cannot start.
    pub(crate) fn run(
        &mut self,
        units: usize,
        stack_size: usize,
        f: &(dyn Fn(usize) + Sync),
        opened: impl FnOnce(),
    ) -> std::io::Result<()> {
        while self.threads.len() < units {
            let (shared, me) = (Arc::clone(&self.shared), self.threads.len());
            let seen = shared.lock().generation;
            let t = std::thread::Builder::new()
                .name(format!("occupant-cu{me}"))
                .stack_size(stack_size)
                .spawn(move || worker(&shared, me, seen))?;
            self.threads.push(t);
        }
        // SAFETY: only the lifetime is erased; this function does not return before every
        // unit's call of `f` has returned (`remaining == 0`), and the job is cleared then.
        let f: *const (dyn Fn(usize) + Sync + 'static) = unsafe { std::mem::transmute(f) };
        {
            let mut s = self.shared.lock();
            s.job = Some(Job { f, units });
            s.generation += 1;
            s.remaining = units;
        }
        self.shared.work.notify_all();
        opened();
        let mut s = self.shared.lock();
        while s.remaining > 0 {
            s = self.shared.done.wait(s).unwrap_or_else(|p| p.into_inner());
        }
        s.job = None;
        if std::mem::take(&mut s.unit_panicked) {
            drop(s);
            // As `std::thread::scope` does when a scoped thread panics.
            panic!("a compute unit of the launch panicked");
        }
        Ok(())
    }
}

fn worker(shared: &Shared, me: usize, mut seen: u64) {
    loop {
        let job = {
            let mut s = shared.lock();
            while !s.shutdown && s.generation == seen {
                s = shared.work.wait(s).unwrap_or_else(|p| p.into_inner());
            }
            if s.shutdown {
                return;
            }
            seen = s.generation;
            match s.job {
                Some(job) if me < job.units => job,
                _ => continue,
            }
        };
        // SAFETY: the launching thread keeps `f` alive until this call has returned and
        // `remaining` has been decremented below.
        let f = unsafe { &*job.f };
        // The executor catches kernel panics per group; this keeps the thread (and the
        // launch's count) alive should anything else in the unit's loop panic.
        let panicked = catch_unwind(AssertUnwindSafe(|| f(me))).is_err();
        let mut s = shared.lock();
        s.unit_panicked |= panicked;
        s.remaining -= 1;
        if s.remaining == 0 {
            shared.done.notify_all();
        }
    }
}

impl Drop for UnitThreads {
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.work.notify_all();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

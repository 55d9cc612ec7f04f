//! Work stealing for the cooperative apps (seed 000 Fig. 2): one task queue per group id,
//! pop from one's own, steal from the others; `offer_kill` and `request_fork` at the top of
//! the main loop (seed 000 §3.2), so a killed group loses nothing — its queue stays and the
//! others steal from it.

use occupant::cpu::coop::{CoopItem, CoopReport, CoopScheduler};
use occupant::cpu::{ExecModel, Executor, Launch, Wait, WorkItem};
use occupant::model::coop::Entry;
use occupant::{NDRange, Result};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Task queues of a work-stealing kernel of up to `n` groups, with the termination count.
pub struct StealQueues<T> {
    queues: Vec<Mutex<VecDeque<T>>>,
    /// Tasks created and not yet finished.
    pending: AtomicUsize,
    /// Tasks sitting in queues.
    queued: AtomicUsize,
}

impl<T> StealQueues<T> {
    /// `n` empty queues.
    pub fn new(n: usize) -> Self {
        Self {
            queues: (0..n.max(1)).map(|_| Mutex::new(VecDeque::new())).collect(),
            pending: AtomicUsize::new(0),
            queued: AtomicUsize::new(0),
        }
    }

    fn lock<'a>(&'a self, item: &WorkItem<'_>, q: usize) -> MutexGuard<'a, VecDeque<T>> {
        let mut guard = None;
        item.wait_until("steal_queue_lock", || match self.queues[q].try_lock() {
            Ok(g) => {
                guard = Some(g);
                true
            }
            Err(std::sync::TryLockError::Poisoned(p)) => {
                guard = Some(p.into_inner());
                true
            }
            Err(std::sync::TryLockError::WouldBlock) => false,
        });
        guard.expect("wait_until returned with the lock")
    }

    /// Adds a task (before the kernel starts: `item` = None) to queue `q`.
    pub fn seed(&self, q: usize, task: T) {
        self.pending.fetch_add(1, Ordering::AcqRel);
        self.queued.fetch_add(1, Ordering::AcqRel);
        self.queues[q % self.queues.len()]
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push_back(task);
    }

    /// Pushes a task created by a running task of group `q`.
    pub fn push(&self, item: &WorkItem<'_>, q: usize, task: T) {
        self.pending.fetch_add(1, Ordering::AcqRel);
        self.queued.fetch_add(1, Ordering::AcqRel);
        self.lock(item, q % self.queues.len()).push_back(task);
    }

    /// Pops from queue `q` (newest first) or steals from another (oldest first).
    pub fn pop_or_steal(&self, item: &WorkItem<'_>, q: usize) -> Option<T> {
        let n = self.queues.len();
        for k in 0..n {
            if self.queued.load(Ordering::Acquire) == 0 {
                return None;
            }
            let idx = (q + k) % n;
            let mut g = self.lock(item, idx);
            let t = if k == 0 { g.pop_back() } else { g.pop_front() };
            if let Some(t) = t {
                self.queued.fetch_sub(1, Ordering::AcqRel);
                return Some(t);
            }
        }
        None
    }

    /// Marks one task finished (after pushing its children).
    pub fn done(&self) {
        self.pending.fetch_sub(1, Ordering::AcqRel);
    }

    /// Whether every task is finished.
    pub fn finished(&self) -> bool {
        self.pending.load(Ordering::Acquire) == 0
    }

    /// Waits (through the wait policy) until a task is queued or all are finished, or for
    /// at most 50 µs (so that an idle group soon reaches `offer_kill` again).
    pub fn wait_for_work(&self, item: &WorkItem<'_>) {
        let t0 = Instant::now();
        item.waiter().spin_until("steal_idle", || {
            self.queued.load(Ordering::Acquire) > 0
                || self.finished()
                || t0.elapsed() > Duration::from_micros(50)
        });
    }
}

/// How a work-stealing app runs.
pub enum Runner<'a, 'e> {
    /// As a cooperative kernel of `groups` groups on a scheduler: `offer_kill` and
    /// `request_fork` before every task.
    Cooperative {
        /// The scheduler.
        scheduler: &'a CoopScheduler<'e>,
        /// `N`, the most groups.
        groups: usize,
    },
    /// As a plain persistent kernel of `groups` groups, each on its own compute unit (the
    /// non-cooperative baseline).
    Persistent {
        /// The executor.
        executor: &'a Executor,
        /// Groups (= compute units).
        groups: usize,
    },
}

/// What a run did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RunInfo {
    /// Wall-clock time of the kernel.
    pub elapsed: Duration,
    /// The cooperative launch's report (None for a persistent run).
    pub coop: Option<CoopReport>,
}

impl Runner<'_, '_> {
    /// Most groups (queues needed).
    pub fn groups(&self) -> usize {
        match self {
            Runner::Cooperative { groups, .. } | Runner::Persistent { groups, .. } => *groups,
        }
    }

    /// Runs the work-stealing loop: each group takes tasks (own queue first) and runs
    /// `process(item, group_id, task)` until every task is finished.
    pub fn run<T, P>(&self, queues: &StealQueues<T>, process: P) -> Result<RunInfo>
    where
        T: Send,
        P: Fn(&WorkItem<'_>, usize, T) + Sync,
    {
        let t0 = Instant::now();
        let step = |item: &WorkItem<'_>, id: usize| -> bool {
            match queues.pop_or_steal(item, id) {
                Some(t) => {
                    process(item, id, t);
                    queues.done();
                    true
                }
                None if queues.finished() => false,
                None => {
                    queues.wait_for_work(item);
                    true
                }
            }
        };
        match self {
            Runner::Cooperative { scheduler, groups } => {
                let report =
                    scheduler.launch(*groups, 1, |coop: &CoopItem<'_, '_, ()>, _: Entry<()>| {
                        loop {
                            coop.offer_kill();
                            coop.request_fork(&());
                            if !step(coop.item(), coop.group_id()) {
                                return;
                            }
                        }
                    })?;
                Ok(RunInfo {
                    elapsed: t0.elapsed(),
                    coop: Some(report),
                })
            }
            Runner::Persistent { executor, groups } => {
                let launch =
                    Launch::new(NDRange::groups(*groups, 1)?).model(ExecModel::OccupancyBound {
                        compute_units: *groups,
                    });
                executor.launch_with(
                    &launch,
                    || (),
                    |item, _: &()| {
                        while step(item, item.group_linear_id()) {}
                    },
                )?;
                Ok(RunInfo {
                    elapsed: t0.elapsed(),
                    coop: None,
                })
            }
        }
    }
}

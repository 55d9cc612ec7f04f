//! SSSP, Lonestar-style worklist: step `s` relaxes the out-edges of the vertices whose
//! distance dropped in step `s − 1` (each queued once per step), until the worklist is empty.

use super::steps::{round_cap, Steps, Worker};
use crate::apps::AppOutput;
use crate::graph::Csr;
use occupant::cpu::GlobalBuffer;
use std::sync::atomic::Ordering::Relaxed;

const INF: u64 = u64::MAX;

pub(crate) struct SsspWorklist<'g> {
    g: &'g Csr,
    weights: &'g [u32],
    dist: GlobalBuffer<u64>,
    /// The input list of step `s` is `lists[s % 2]`, its output `lists[(s + 1) % 2]`.
    lists: [GlobalBuffer<u32>; 2],
    /// The length of step `s`'s input is `counts[s % 3]`; step `s` appends to
    /// `counts[(s + 1) % 3]`; `begin(s)` clears `counts[(s + 2) % 3]` (step `s − 1`'s input,
    /// read by nobody after the barrier ending step `s − 1`).
    counts: GlobalBuffer<u32>,
    /// The step (+1) that last queued each vertex, so that a vertex is queued once per step.
    queued: GlobalBuffer<u32>,
}

impl<'g> SsspWorklist<'g> {
    pub fn new(g: &'g Csr, weights: &'g [u32], source: u32) -> Self {
        let n = g.num_vertices() as usize;
        let dist = GlobalBuffer::filled(n, INF);
        dist.set(source as usize, 0);
        let lists = [GlobalBuffer::new(n), GlobalBuffer::new(n)];
        lists[0].set(0, source);
        let counts = GlobalBuffer::new(3);
        counts.set(0, 1);
        Self {
            g,
            weights,
            dist,
            lists,
            counts,
            queued: GlobalBuffer::new(n),
        }
    }

    pub fn output(&self) -> AppOutput {
        AppOutput::Distances(self.dist.to_vec())
    }
}

impl Steps for SsspWorklist<'_> {
    fn max_steps(&self) -> u32 {
        round_cap(self.g.num_vertices(), 1)
    }

    fn begin(&self, s: u32) {
        self.counts.store(((s + 2) % 3) as usize, 0, Relaxed);
    }

    fn step(&self, s: u32, w: &Worker<'_>) {
        let (offsets, targets) = (self.g.offsets(), self.g.targets());
        let input = &self.lists[(s % 2) as usize];
        let output = &self.lists[((s + 1) % 2) as usize];
        let out_count = ((s + 1) % 3) as usize;
        let len = self.counts.get((s % 3) as usize) as usize;
        for i in w.share(len) {
            let u = input.get(i);
            let du = self.dist.get(u as usize);
            let r = offsets[u as usize] as usize..offsets[u as usize + 1] as usize;
            for (&v, &wt) in targets[r.clone()].iter().zip(&self.weights[r]) {
                let nd = du + u64::from(wt);
                if nd < self.dist.get(v as usize)
                    && self.dist.atomic(v as usize).fetch_min(nd, Relaxed) > nd
                    && self.queued.swap(v as usize, s + 1, Relaxed) != s + 1
                {
                    let slot = self.counts.fetch_add(out_count, 1, Relaxed);
                    output.set(slot as usize, v);
                }
            }
        }
    }

    fn more(&self, s: u32) -> bool {
        self.counts.get(((s + 1) % 3) as usize) > 0
    }
}

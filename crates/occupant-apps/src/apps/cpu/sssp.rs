//! SSSP, Pannotia-style Bellman-Ford: every step relaxes every out-edge of every reached
//! vertex (an atomic min per edge), until a step improves nothing.

use super::steps::{Flags, UntilStable, Worker};
use crate::apps::AppOutput;
use crate::graph::Csr;
use occupant::cpu::GlobalBuffer;
use std::sync::atomic::Ordering::Relaxed;

const INF: u64 = u64::MAX;

pub(crate) struct Sssp<'g> {
    g: &'g Csr,
    weights: &'g [u32],
    dist: GlobalBuffer<u64>,
    changed: Flags,
}

impl<'g> Sssp<'g> {
    pub fn new(g: &'g Csr, weights: &'g [u32], source: u32) -> Self {
        let dist = GlobalBuffer::filled(g.num_vertices() as usize, INF);
        dist.set(source as usize, 0);
        Self {
            g,
            weights,
            dist,
            changed: Flags::new(),
        }
    }

    pub fn output(&self) -> AppOutput {
        AppOutput::Distances(self.dist.to_vec())
    }
}

impl UntilStable for Sssp<'_> {
    fn num_vertices(&self) -> u32 {
        self.g.num_vertices()
    }

    fn changed(&self) -> &Flags {
        &self.changed
    }

    fn sweep(&self, s: u32, w: &Worker<'_>) {
        let (offsets, targets) = (self.g.offsets(), self.g.targets());
        for u in w.vertices(offsets) {
            let du = self.dist.get(u as usize);
            if du == INF {
                continue;
            }
            let r = offsets[u as usize] as usize..offsets[u as usize + 1] as usize;
            for (&v, &wt) in targets[r.clone()].iter().zip(&self.weights[r]) {
                let v = v as usize;
                let nd = du + u64::from(wt);
                if nd < self.dist.get(v) && self.dist.atomic(v).fetch_min(nd, Relaxed) > nd {
                    self.changed.raise(s);
                }
            }
        }
    }
}

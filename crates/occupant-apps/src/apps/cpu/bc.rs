//! Brandes betweenness centrality from one source, Pannotia's two kernels as steps: forward
//! steps expand BFS level `s` and add each vertex's shortest-path count to its successors
//! (atomic f64 add); once a level finds nothing new (step `F`, deepest level `F`), backward
//! steps compute the dependencies of levels `F − 1` down to 0 by pulling from successors.

use super::steps::{add_f64, load_f64, round_cap, store_f64, Flags, Steps, Worker};
use crate::apps::AppOutput;
use crate::graph::Csr;
use occupant::cpu::GlobalBuffer;
use std::sync::atomic::Ordering::Relaxed;

const INF: u32 = u32::MAX;
/// `forward_end` before the forward phase ended.
const FORWARD: u32 = u32::MAX;

pub(crate) struct Bc<'g> {
    g: &'g Csr,
    source: u32,
    level: GlobalBuffer<u32>,
    sigma: GlobalBuffer<u64>,
    delta: GlobalBuffer<u64>,
    changed: Flags,
    /// The step whose level found no successor (`F`), stored by every `more(F)` caller.
    forward_end: GlobalBuffer<u32>,
}

impl<'g> Bc<'g> {
    pub fn new(g: &'g Csr, source: u32) -> Self {
        let n = g.num_vertices() as usize;
        let level = GlobalBuffer::filled(n, INF);
        level.set(source as usize, 0);
        let sigma = GlobalBuffer::filled(n, 0f64.to_bits());
        store_f64(&sigma, source as usize, 1.0);
        Self {
            g,
            source,
            level,
            sigma,
            delta: GlobalBuffer::filled(n, 0f64.to_bits()),
            changed: Flags::new(),
            forward_end: GlobalBuffer::filled(1, FORWARD),
        }
    }

    pub fn output(&self) -> AppOutput {
        let mut d: Vec<f64> = self
            .delta
            .to_vec()
            .into_iter()
            .map(f64::from_bits)
            .collect();
        d[self.source as usize] = 0.0;
        AppOutput::Scores(d)
    }
}

impl Steps for Bc<'_> {
    fn max_steps(&self) -> u32 {
        round_cap(self.g.num_vertices(), 2)
    }

    fn begin(&self, s: u32) {
        self.changed.clear_next(s);
    }

    fn step(&self, s: u32, w: &Worker<'_>) {
        let (offsets, targets) = (self.g.offsets(), self.g.targets());
        let end = self.forward_end.get(0);
        if end == FORWARD {
            for v in w.vertices(offsets) {
                if self.level.get(v as usize) != s {
                    continue;
                }
                let sv = load_f64(&self.sigma, v as usize);
                for &t in &targets[offsets[v as usize] as usize..offsets[v as usize + 1] as usize] {
                    let lt = self.level.get(t as usize);
                    if lt == INF {
                        self.level.set(t as usize, s + 1);
                        self.changed.raise(s);
                    }
                    if lt == INF || lt == s + 1 {
                        add_f64(&self.sigma, t as usize, sv);
                    }
                }
            }
        } else {
            // Backward step s = end + 1 + k: level end − 1 − k.
            let l = 2 * end - s;
            for v in w.vertices(offsets) {
                if self.level.get(v as usize) != l {
                    continue;
                }
                let sv = load_f64(&self.sigma, v as usize);
                let d: f64 = targets
                    [offsets[v as usize] as usize..offsets[v as usize + 1] as usize]
                    .iter()
                    .filter(|&&t| self.level.get(t as usize) == l + 1)
                    .map(|&t| {
                        sv / load_f64(&self.sigma, t as usize)
                            * (1.0 + load_f64(&self.delta, t as usize))
                    })
                    .sum();
                store_f64(&self.delta, v as usize, d);
            }
        }
    }

    fn more(&self, s: u32) -> bool {
        let end = self.forward_end.get(0);
        if end == FORWARD {
            if self.changed.raised(s) {
                return true;
            }
            // Forward done: the deepest level is s; backward steps for levels s − 1 … 0.
            self.forward_end.store(0, s, Relaxed);
            return s > 0;
        }
        // Step s processed level 2·end − s; go on until level 0 is done.
        2 * end - s > 0
    }
}

//! PageRank, pull-based Jacobi iteration over the transpose: step `s` reads ranks
//! `ranks[s % 2]` and writes `ranks[(s + 1) % 2]`; it goes on while the ranks moved by more
//! than the tolerance in L1 norm (each worker adds its part of `Σ|r' − r|` to the step's
//! slot of three rotating sums, like [`Flags`](super::steps::Flags)), up to `max_iterations`
//! steps.

use super::steps::{add_f64, load_f64, store_f64, Steps, Worker};
use crate::apps::{AppOutput, AppParams};
use crate::graph::Csr;
use occupant::cpu::GlobalBuffer;

pub(crate) struct PageRank<'g> {
    /// The transpose (in-edges).
    t: &'g Csr,
    inv_deg: Vec<f64>,
    ranks: [GlobalBuffer<u64>; 2],
    /// `Σ|r' − r|` of step `s` in slot `s % 3` (f64 bits).
    moved: GlobalBuffer<u64>,
    base: f64,
    damping: f64,
    tolerance: f64,
    cap: u32,
}

impl<'g> PageRank<'g> {
    pub fn new(g: &Csr, t: &'g Csr, p: &AppParams) -> Self {
        let n = g.num_vertices() as usize;
        let inv_deg = (0..n as u32)
            .map(|u| match g.degree(u) {
                0 => 0.0,
                d => 1.0 / f64::from(d),
            })
            .collect();
        let r0 = if n == 0 { 0.0 } else { 1.0 / n as f64 };
        Self {
            t,
            inv_deg,
            ranks: [
                GlobalBuffer::filled(n, r0.to_bits()),
                GlobalBuffer::filled(n, 0),
            ],
            moved: GlobalBuffer::filled(3, 0f64.to_bits()),
            base: if n == 0 {
                0.0
            } else {
                (1.0 - p.damping) / n as f64
            },
            damping: p.damping,
            tolerance: p.tolerance,
            cap: p.max_iterations,
        }
    }

    pub fn output(&self, steps: u32) -> AppOutput {
        let r = &self.ranks[(steps % 2) as usize];
        AppOutput::Ranks(r.to_vec().into_iter().map(f64::from_bits).collect())
    }
}

impl Steps for PageRank<'_> {
    fn max_steps(&self) -> u32 {
        self.cap
    }

    fn cap_is_error(&self) -> bool {
        false
    }

    fn begin(&self, s: u32) {
        store_f64(&self.moved, ((s + 1) % 3) as usize, 0.0);
    }

    fn step(&self, s: u32, w: &Worker<'_>) {
        let (offsets, sources) = (self.t.offsets(), self.t.targets());
        let (old, new) = (
            &self.ranks[(s % 2) as usize],
            &self.ranks[((s + 1) % 2) as usize],
        );
        let mut moved = 0.0;
        for v in w.vertices(offsets) {
            let sum: f64 = sources[offsets[v as usize] as usize..offsets[v as usize + 1] as usize]
                .iter()
                .map(|&u| load_f64(old, u as usize) * self.inv_deg[u as usize])
                .sum();
            let r = self.base + self.damping * sum;
            moved += (r - load_f64(old, v as usize)).abs();
            store_f64(new, v as usize, r);
        }
        if moved > 0.0 {
            add_f64(&self.moved, (s % 3) as usize, moved);
        }
    }

    fn more(&self, s: u32) -> bool {
        load_f64(&self.moved, (s % 3) as usize) > self.tolerance
    }
}

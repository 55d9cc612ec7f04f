//! Pannotia's max-based colouring: in round `s`, an uncoloured vertex whose priority beats
//! every neighbour still uncoloured at the start of the round takes colour `s`.

use super::steps::{round_cap, Flags, Steps, Worker};
use crate::apps::prep::beats;
use crate::apps::AppOutput;
use crate::graph::Csr;
use occupant::cpu::GlobalBuffer;

const NONE: u32 = u32::MAX;

pub(crate) struct Color<'g> {
    /// The undirected graph.
    g: &'g Csr,
    prio: &'g [u32],
    color: GlobalBuffer<u32>,
    /// Raised when a vertex stays uncoloured.
    left: Flags,
}

impl<'g> Color<'g> {
    pub fn new(g: &'g Csr, prio: &'g [u32]) -> Self {
        Self {
            g,
            prio,
            color: GlobalBuffer::filled(g.num_vertices() as usize, NONE),
            left: Flags::new(),
        }
    }

    pub fn output(&self) -> AppOutput {
        AppOutput::Colors(self.color.to_vec())
    }
}

impl Steps for Color<'_> {
    fn max_steps(&self) -> u32 {
        round_cap(self.g.num_vertices(), 1)
    }

    fn begin(&self, s: u32) {
        self.left.clear_next(s);
    }

    fn step(&self, s: u32, w: &Worker<'_>) {
        let (offsets, targets) = (self.g.offsets(), self.g.targets());
        for v in w.vertices(offsets) {
            if self.color.get(v as usize) != NONE {
                continue;
            }
            let pv = self.prio[v as usize];
            let wins = targets[offsets[v as usize] as usize..offsets[v as usize + 1] as usize]
                .iter()
                .all(|&u| {
                    // A neighbour coloured in this very round was uncoloured at its start.
                    let c = self.color.get(u as usize);
                    (c != NONE && c != s) || !beats(self.prio[u as usize], u, pv, v)
                });
            if wins {
                self.color.set(v as usize, s);
            } else {
                self.left.raise(s);
            }
        }
    }

    fn more(&self, s: u32) -> bool {
        self.left.raised(s)
    }
}

//! Pannotia's Luby-style maximal independent set, two steps per round: (select) an
//! undecided vertex that beats every neighbour not yet out joins the set; (remove) an undecided
//! vertex with a neighbour in the set leaves. Rounds go on while a vertex is undecided.

use super::steps::{round_cap, Flags, Steps, Worker};
use crate::apps::prep::beats;
use crate::apps::AppOutput;
use crate::graph::Csr;
use occupant::cpu::GlobalBuffer;

const UNDECIDED: u32 = 0;
const IN: u32 = 1;
const OUT: u32 = 2;

pub(crate) struct Mis<'g> {
    /// The undirected graph.
    g: &'g Csr,
    prio: &'g [u32],
    state: GlobalBuffer<u32>,
    /// Raised (in remove steps) when a vertex stays undecided.
    left: Flags,
}

impl<'g> Mis<'g> {
    pub fn new(g: &'g Csr, prio: &'g [u32]) -> Self {
        Self {
            g,
            prio,
            state: GlobalBuffer::filled(g.num_vertices() as usize, UNDECIDED),
            left: Flags::new(),
        }
    }

    pub fn output(&self) -> AppOutput {
        AppOutput::InSet(self.state.to_vec().into_iter().map(|x| x == IN).collect())
    }
}

impl Steps for Mis<'_> {
    fn max_steps(&self) -> u32 {
        round_cap(self.g.num_vertices(), 2)
    }

    fn begin(&self, s: u32) {
        self.left.clear_next(s);
    }

    fn step(&self, s: u32, w: &Worker<'_>) {
        let (offsets, targets) = (self.g.offsets(), self.g.targets());
        let select = s % 2 == 0;
        for v in w.vertices(offsets) {
            if self.state.get(v as usize) != UNDECIDED {
                continue;
            }
            let nbrs = &targets[offsets[v as usize] as usize..offsets[v as usize + 1] as usize];
            if select {
                let pv = self.prio[v as usize];
                let wins = nbrs.iter().all(|&u| {
                    self.state.get(u as usize) == OUT || !beats(self.prio[u as usize], u, pv, v)
                });
                if wins {
                    self.state.set(v as usize, IN);
                }
            } else if nbrs.iter().any(|&u| self.state.get(u as usize) == IN) {
                self.state.set(v as usize, OUT);
            } else {
                self.left.raise(s);
            }
        }
    }

    fn more(&self, s: u32) -> bool {
        s % 2 == 0 || self.left.raised(s)
    }
}

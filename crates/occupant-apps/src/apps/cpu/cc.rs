//! Connected components by label propagation (pull): every vertex takes the smallest label
//! among itself and its neighbours, until no label changes.

use super::steps::{Flags, UntilStable, Worker};
use crate::apps::AppOutput;
use crate::graph::Csr;
use occupant::cpu::GlobalBuffer;

pub(crate) struct Cc<'g> {
    /// The undirected graph.
    g: &'g Csr,
    label: GlobalBuffer<u32>,
    changed: Flags,
}

impl<'g> Cc<'g> {
    pub fn new(g: &'g Csr) -> Self {
        let n = g.num_vertices();
        Self {
            g,
            label: GlobalBuffer::from_slice(&(0..n).collect::<Vec<_>>()),
            changed: Flags::new(),
        }
    }

    pub fn output(&self) -> AppOutput {
        AppOutput::Labels(self.label.to_vec())
    }
}

impl UntilStable for Cc<'_> {
    fn num_vertices(&self) -> u32 {
        self.g.num_vertices()
    }

    fn changed(&self) -> &Flags {
        &self.changed
    }

    fn sweep(&self, s: u32, w: &Worker<'_>) {
        let (offsets, targets) = (self.g.offsets(), self.g.targets());
        for v in w.vertices(offsets) {
            let own = self.label.get(v as usize);
            let m = targets[offsets[v as usize] as usize..offsets[v as usize + 1] as usize]
                .iter()
                .fold(own, |m, &u| m.min(self.label.get(u as usize)));
            if m < own {
                // Only v's worker writes label[v]; labels only decrease.
                self.label.set(v as usize, m);
                self.changed.raise(s);
            }
        }
    }
}

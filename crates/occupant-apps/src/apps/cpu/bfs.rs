//! BFS, Rodinia/Pannotia style: step `s` expands every vertex of level `s`.

use super::steps::{Flags, UntilStable, Worker};
use crate::apps::AppOutput;
use crate::graph::Csr;
use occupant::cpu::GlobalBuffer;

const INF: u32 = u32::MAX;

pub(crate) struct Bfs<'g> {
    g: &'g Csr,
    level: GlobalBuffer<u32>,
    changed: Flags,
}

impl<'g> Bfs<'g> {
    pub fn new(g: &'g Csr, source: u32) -> Self {
        let level = GlobalBuffer::filled(g.num_vertices() as usize, INF);
        level.set(source as usize, 0);
        Self {
            g,
            level,
            changed: Flags::new(),
        }
    }

    pub fn output(&self) -> AppOutput {
        AppOutput::Levels(self.level.to_vec())
    }
}

impl UntilStable for Bfs<'_> {
    fn num_vertices(&self) -> u32 {
        self.g.num_vertices()
    }

    fn changed(&self) -> &Flags {
        &self.changed
    }

    fn sweep(&self, s: u32, w: &Worker<'_>) {
        let (offsets, targets) = (self.g.offsets(), self.g.targets());
        for v in w.vertices(offsets) {
            if self.level.get(v as usize) != s {
                continue;
            }
            for &t in &targets[offsets[v as usize] as usize..offsets[v as usize + 1] as usize] {
                if self.level.get(t as usize) == INF {
                    self.level.set(t as usize, s + 1);
                    self.changed.raise(s);
                }
            }
        }
    }
}

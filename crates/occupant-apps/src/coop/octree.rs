//! Octree partitioning by work stealing (seed 000 Table 1, "octree"): a seeded random point
//! set is split into cells of at most `max_points` points; a task is a cell with its range of a
//! shared index array, which the group owning the task reorders in place into its 8 octants.

use super::steal::{RunInfo, Runner, StealQueues};
use occupant::cpu::GlobalBuffer;
use occupant::{Error, Result};
use serde::Serialize;
use std::sync::Mutex;

/// Parameters of an octree run.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct OctreeParams {
    /// Points.
    pub points: usize,
    /// Most points per leaf.
    pub max_points: usize,
    /// Deepest level (cells there are leaves whatever their size).
    pub max_depth: u32,
    /// Seed of the point set.
    pub seed: u64,
}

impl Default for OctreeParams {
    fn default() -> Self {
        Self {
            points: 200_000,
            max_points: 16,
            max_depth: 20,
            seed: 1,
        }
    }
}

/// A leaf: its cell (depth and path of octants from the root, 3 bits per level) and points.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Leaf {
    /// Depth of the cell (root = 0).
    pub depth: u32,
    /// Octant path, 3 bits per level, root's child in the highest bits used.
    pub path: u64,
    /// Ids of its points, sorted.
    pub points: Vec<u32>,
}

/// The seeded point set: `n` points uniform in the unit cube.
pub fn points(n: usize, seed: u64) -> Vec<[f32; 3]> {
    let mut s = seed ^ 0x0C7E_E000;
    let mut next = || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n).map(|_| [next(), next(), next()]).collect()
}

#[derive(Debug, Clone, Copy)]
struct Cell {
    lo: [f32; 3],
    size: f32,
    depth: u32,
    path: u64,
    start: usize,
    count: usize,
}

fn octant(p: &[f32; 3], c: &Cell) -> usize {
    let h = c.size / 2.0;
    (0..3).map(|d| ((p[d] >= c.lo[d] + h) as usize) << d).sum()
}

fn child(c: &Cell, o: usize, start: usize, count: usize) -> Cell {
    let h = c.size / 2.0;
    Cell {
        lo: std::array::from_fn(|d| c.lo[d] + if o >> d & 1 == 1 { h } else { 0.0 }),
        size: h,
        depth: c.depth + 1,
        path: (c.path << 3) | o as u64,
        start,
        count,
    }
}

/// Splits `ids` (the points of cell `c`) into octants, in place; returns the children.
fn split(pts: &[[f32; 3]], ids: &mut [u32], c: &Cell) -> Vec<Cell> {
    let mut counts = [0usize; 8];
    for &i in ids.iter() {
        counts[octant(&pts[i as usize], c)] += 1;
    }
    let mut starts = [0usize; 8];
    for o in 1..8 {
        starts[o] = starts[o - 1] + counts[o - 1];
    }
    let mut out = vec![0u32; ids.len()];
    let mut at = starts;
    for &i in ids.iter() {
        let o = octant(&pts[i as usize], c);
        out[at[o]] = i;
        at[o] += 1;
    }
    ids.copy_from_slice(&out);
    (0..8)
        .filter(|&o| counts[o] > 0)
        .map(|o| child(c, o, c.start + starts[o], counts[o]))
        .collect()
}

fn is_leaf(c: &Cell, p: &OctreeParams) -> bool {
    c.count <= p.max_points || c.depth >= p.max_depth
}

fn root(n: usize) -> Cell {
    Cell {
        lo: [0.0; 3],
        size: 1.0,
        depth: 0,
        path: 0,
        start: 0,
        count: n,
    }
}

fn leaf(c: &Cell, ids: &[u32]) -> Leaf {
    let mut points = ids.to_vec();
    points.sort_unstable();
    Leaf {
        depth: c.depth,
        path: c.path,
        points,
    }
}

/// The sequential build: the reference.
pub fn sequential(p: &OctreeParams) -> Vec<Leaf> {
    let pts = points(p.points, p.seed);
    let mut ids: Vec<u32> = (0..p.points as u32).collect();
    let mut stack = vec![root(p.points)];
    let mut leaves = Vec::new();
    while let Some(c) = stack.pop() {
        let range = c.start..c.start + c.count;
        if is_leaf(&c, p) {
            leaves.push(leaf(&c, &ids[range]));
        } else {
            stack.extend(split(&pts, &mut ids[range], &c));
        }
    }
    leaves.sort();
    leaves
}

/// The result of a parallel build.
#[derive(Debug, Clone, Serialize)]
pub struct OctreeRun {
    /// Leaves, sorted by (depth, path).
    #[serde(skip)]
    pub leaves: Vec<Leaf>,
    /// Number of leaves.
    pub leaf_count: usize,
    /// Timing and the cooperative report.
    pub info: RunInfo,
}

/// Builds the octree with `runner` (cooperative or persistent work stealing).
pub fn build(p: &OctreeParams, runner: &Runner<'_, '_>) -> Result<OctreeRun> {
    if p.points == 0 || p.points > u32::MAX as usize || p.max_points == 0 {
        return Err(Error::Input(format!(
            "octree: need 1..2^32 points and max_points ≥ 1 (got {} and {})",
            p.points, p.max_points
        )));
    }
    let pts = points(p.points, p.seed);
    let ids = GlobalBuffer::<u32>::from_slice(&(0..p.points as u32).collect::<Vec<_>>());
    let queues = StealQueues::new(runner.groups());
    queues.seed(0, root(p.points));
    let leaves = Mutex::new(Vec::new());
    let info = runner.run(&queues, |item, id, c: Cell| {
        // The group owns ids[c.start..c.start+c.count] while it holds the task.
        let mut local: Vec<u32> = (c.start..c.start + c.count).map(|i| ids.get(i)).collect();
        if is_leaf(&c, p) {
            let l = leaf(&c, &local);
            leaves.lock().unwrap_or_else(|e| e.into_inner()).push(l);
            return;
        }
        let children = split(&pts, &mut local, &c);
        for (k, &v) in local.iter().enumerate() {
            ids.set(c.start + k, v);
        }
        for ch in children {
            queues.push(item, id, ch);
        }
    })?;
    let mut leaves = leaves.into_inner().unwrap_or_else(|e| e.into_inner());
    leaves.sort();
    Ok(OctreeRun {
        leaf_count: leaves.len(),
        leaves,
        info,
    })
}

/// Checks a parallel build: every point in exactly one leaf, inside its cell, at most
/// `max_points` per leaf (except at `max_depth`), and the same leaves as the sequential build.
pub fn verify(
    p: &OctreeParams,
    leaves: &[Leaf],
    reference: &[Leaf],
) -> std::result::Result<(), String> {
    let pts = points(p.points, p.seed);
    let mut seen = vec![0u8; p.points];
    for l in leaves {
        if l.points.len() > p.max_points && l.depth < p.max_depth {
            return Err(format!(
                "leaf {:o} at depth {} has {} points > {}",
                l.path,
                l.depth,
                l.points.len(),
                p.max_points
            ));
        }
        let mut c = root(0);
        for level in (0..l.depth).rev() {
            c = child(&c, ((l.path >> (3 * level)) & 7) as usize, 0, 0);
        }
        for &i in &l.points {
            seen[i as usize] += 1;
            let q = pts[i as usize];
            if (0..3).any(|d| q[d] < c.lo[d] || q[d] >= c.lo[d] + c.size) {
                return Err(format!("point {i} outside its leaf {:o}", l.path));
            }
        }
    }
    if let Some(i) = seen.iter().position(|&s| s != 1) {
        return Err(format!("point {i} is in {} leaves", seen[i]));
    }
    if leaves != reference {
        return Err(format!(
            "leaves differ from the sequential build ({} vs {})",
            leaves.len(),
            reference.len()
        ));
    }
    Ok(())
}

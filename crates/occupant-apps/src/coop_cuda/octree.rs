//! Octree partitioning as a cooperative kernel on CUDA (`octree.cu`, work stealing with
//! `offer_kill`/`request_fork` before every task): `rounds` instances of the point set per
//! launch, each checked against the sequential build of `coop::octree`.

use super::bfs::BarrierMode;
use super::kernel::CoopKernel;
use super::steal::{StealBuffers, ALLOC1};
use crate::coop::octree::{points, sequential, verify, Leaf, OctreeParams};
use occupant::cuda::coop::{CoopConfig, Scheduler};
use occupant::cuda::{Arg, CompileOptions, DeviceBuffer, Gpu, Module};
use occupant::{Error, Result};

/// The kernel source (`coop_octree`): the work-stealing loop (`steal.cuh`) and the app.
pub const OCTREE_CU: &str = concat!(include_str!("steal.cuh"), include_str!("octree.cu"));

/// u32 words of a device cell (`OctCell`, 40 bytes) and leaf (`OctLeaf`, 24 bytes).
const CELL_WORDS: usize = 10;
const LEAF_WORDS: usize = 6;

/// The octree build on the GPU, `rounds` instances per launch.
pub struct GpuOctree {
    gpu: Gpu,
    params: OctreeParams,
    rounds: u32,
    module: Module,
    pts: DeviceBuffer<f32>,
    ids: DeviceBuffer<u32>,
    scratch: DeviceBuffer<u32>,
    cells: DeviceBuffer<u32>,
    cell_cap: u32,
    leaves: DeviceBuffer<u32>,
    leaf_cap: u32,
    steal: StealBuffers,
    reference: Vec<Leaf>,
}

impl GpuOctree {
    /// Uploads the point set of `p`, compiles the kernel and builds the sequential reference.
    /// [`Error::Input`] for an empty set, `max_points` 0, `max_depth` above 21 (the path has
    /// 3 bits a level) or more than 2^32 indices in all.
    pub fn new(gpu: &Gpu, p: &OctreeParams, rounds: u32) -> Result<GpuOctree> {
        let n = p.points as u64;
        if n == 0
            || p.max_points == 0
            || p.max_depth > 21
            || rounds == 0
            || n * u64::from(rounds) >= u64::from(u32::MAX)
        {
            return Err(Error::Input(format!(
                "octree on the GPU: need ≥ 1 point, max_points ≥ 1, max_depth ≤ 21, rounds ≥ 1 and fewer than 2^32 indices (points {}, max_points {}, max_depth {}, rounds {rounds})",
                p.points, p.max_points, p.max_depth
            )));
        }
        let module = gpu.compile("coop_octree.cu", OCTREE_CU, &CompileOptions::default())?;
        let flat: Vec<f32> = points(p.points, p.seed).into_iter().flatten().collect();
        // Internal cells at one depth are disjoint and hold > max_points points each.
        let per = n + u64::from(p.max_depth) * n / (p.max_points as u64 + 1) + 1;
        let cell_cap = per * u64::from(rounds);
        let total = n * u64::from(rounds);
        if cell_cap >= u64::from(u32::MAX) {
            return Err(Error::Input(format!(
                "octree on the GPU: {cell_cap} cells do not fit u32 indices"
            )));
        }
        Ok(GpuOctree {
            gpu: gpu.clone(),
            params: *p,
            rounds,
            module,
            pts: gpu.upload(&flat)?,
            ids: gpu.alloc_zeroed(total as usize)?,
            scratch: gpu.alloc_zeroed(total as usize)?,
            cells: gpu.alloc_zeroed(cell_cap as usize * CELL_WORDS)?,
            cell_cap: cell_cap as u32,
            leaves: gpu.alloc_zeroed(total as usize * LEAF_WORDS)?,
            leaf_cap: total as u32,
            steal: StealBuffers::new(gpu)?,
            reference: sequential(p),
        })
    }

    /// The parameters.
    pub fn params(&self) -> &OctreeParams {
        &self.params
    }

    /// Leaves of one instance in the sequential build.
    pub fn reference_leaves(&self) -> usize {
        self.reference.len()
    }
}

/// The leaves of every instance from the device's leaf records (`count` of them, 6 words each:
/// start, count, depth, pad, path low, path high) and index array (`rounds` instances of `n`),
/// each instance's leaves sorted as `coop::octree` sorts them (instances in parallel threads).
pub fn decode_leaves(
    words: &[u32],
    count: usize,
    ids: &[u32],
    n: usize,
    rounds: u32,
) -> Result<Vec<Vec<Leaf>>> {
    if count > words.len() / LEAF_WORDS {
        return Err(Error::Resource(format!(
            "octree: {count} leaves recorded, room for {}",
            words.len() / LEAF_WORDS
        )));
    }
    let mut records: Vec<Vec<&[u32]>> = vec![Vec::new(); rounds as usize];
    for l in words.chunks_exact(LEAF_WORDS).take(count) {
        let (start, len) = (l[0] as usize, l[1] as usize);
        let r = start / n.max(1);
        if r >= records.len() || start + len > (r + 1) * n || start + len > ids.len() {
            return Err(Error::Resource(format!(
                "octree: leaf [{start}, {}) crosses an instance",
                start + len
            )));
        }
        records[r].push(l);
    }
    let decode = |recs: &[&[u32]]| -> Vec<Leaf> {
        let mut leaves: Vec<Leaf> = recs
            .iter()
            .map(|l| {
                let start = l[0] as usize;
                let mut points = ids[start..start + l[1] as usize].to_vec();
                points.sort_unstable();
                Leaf {
                    depth: l[2],
                    path: u64::from(l[4]) | (u64::from(l[5]) << 32),
                    points,
                }
            })
            .collect();
        leaves.sort();
        leaves
    };
    let threads = std::thread::available_parallelism().map_or(4, |t| t.get());
    let per = records.len().div_ceil(threads).max(1);
    Ok(std::thread::scope(|s| {
        let hs: Vec<_> = records
            .chunks(per)
            .map(|chunk| s.spawn(move || chunk.iter().map(|r| decode(r)).collect::<Vec<_>>()))
            .collect();
        hs.into_iter()
            .flat_map(|h| h.join().expect("decoding leaves"))
            .collect()
    }))
}

impl CoopKernel for GpuOctree {
    fn name(&self) -> &'static str {
        "octree"
    }

    fn module(&self) -> &Module {
        &self.module
    }

    fn kernel(&self) -> &'static str {
        "coop_octree"
    }

    fn start(&mut self, mode: BarrierMode, cfg: &CoopConfig) -> Result<Scheduler<'_>> {
        let n = self.params.points as u32;
        let nq = StealBuffers::groups_for(&self.gpu, &self.module, "coop_octree", cfg)?;
        let ids: Vec<u32> = (0..self.rounds).flat_map(|_| 0..n).collect();
        self.ids.copy_from(&ids)?;
        let mut roots = Vec::with_capacity(self.rounds as usize * CELL_WORDS);
        for r in 0..self.rounds {
            // lo 0,0,0; size 1.0; depth 0; start r·n; count n; pad; path 0.
            roots.extend([0, 0, 0, 1.0f32.to_bits(), 0, r * n, n, 0, 0, 0]);
        }
        self.cells.copy_from(&roots)?;
        let seeds: Vec<u32> = (0..self.rounds).collect();
        self.steal.reset(nq, &seeds, self.rounds)?;
        let mut args = vec![
            Arg::from(&self.pts),
            Arg::from(&self.ids),
            Arg::from(&self.scratch),
            Arg::from(&self.cells),
            Arg::from(self.cell_cap),
            Arg::from(&self.leaves),
            Arg::from(self.leaf_cap),
            Arg::from(self.params.max_points as u32),
            Arg::from(self.params.max_depth),
        ];
        args.extend(self.steal.args());
        args.push(Arg::from(mode.code()));
        Scheduler::start(&self.module, "coop_octree", cfg, &args)
    }

    fn wrong_rounds(&self) -> Result<u32> {
        let c = self.steal.check()?;
        let per = decode_leaves(
            &self.leaves.to_vec()?,
            c[ALLOC1] as usize,
            &self.ids.to_vec()?,
            self.params.points,
            self.rounds,
        )?;
        // The first instance fully (every point once, inside its leaf, sizes), the others by
        // equality with the sequential build (which the full check covers).
        Ok(per
            .iter()
            .enumerate()
            .filter(|(r, leaves)| {
                if *r == 0 {
                    verify(&self.params, leaves, &self.reference).is_err()
                } else {
                    **leaves != self.reference
                }
            })
            .count() as u32)
    }

    fn rounds(&self) -> u32 {
        self.rounds
    }
}

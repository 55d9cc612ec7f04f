//! Game-tree search (connect four to a fixed depth) as a cooperative kernel on CUDA (`game.cu`,
//! work stealing with `offer_kill`/`request_fork` before every task): `rounds` roots per
//! launch (the positions after two opening moves, 49 distinct ones, repeated beyond), each
//! checked against the sequential negamax of `coop::game` (root value and every move's value).

use super::bfs::BarrierMode;
use super::kernel::CoopKernel;
use super::steal::{StealBuffers, ALLOC0};
use crate::coop::game::{sequential, GameParams, GameValue, Position};
use occupant::cuda::coop::{CoopConfig, Scheduler};
use occupant::cuda::{Arg, CompileOptions, DeviceBuffer, Gpu, Module};
use occupant::{Error, Result};

/// The kernel source (`coop_game`): the work-stealing loop (`steal.cuh`) and the app.
pub const GAME_CU: &str = concat!(include_str!("steal.cuh"), include_str!("game.cu"));

/// u32 words of a device node (`GameNode`, 48 bytes).
const NODE_WORDS: usize = 12;
/// The device search's deepest depth (`OCC_C4_MAX_DEPTH`) and the most plies expanded as tasks.
pub const MAX_GAME_DEPTH: u32 = 20;
const MAX_SPLIT: u32 = 5;
const ORDER: [usize; 7] = [3, 2, 4, 1, 5, 0, 6];

/// The search on the GPU, `rounds` roots per launch.
pub struct GpuGame {
    gpu: Gpu,
    params: GameParams,
    module: Module,
    roots: Vec<Position>,
    reference: Vec<GameValue>,
    nodes: DeviceBuffer<u32>,
    node_cap: u32,
    steal: StealBuffers,
}

/// Root r: the position after the opening moves r mod 7 and (r / 7) mod 7 (49 distinct).
pub fn game_root(r: u32) -> Position {
    Position::from_moves(&[(r % 7) as usize, ((r / 7) % 7) as usize])
        .expect("two opening moves are always legal")
}

impl GpuGame {
    /// Compiles the kernel and runs the sequential search of every distinct root (in parallel
    /// threads). [`Error::Input`] unless 1 ≤ split ≤ min(depth, 5), depth ≤ 20 and
    /// 1 ≤ rounds ≤ 100 000.
    pub fn new(gpu: &Gpu, p: &GameParams, rounds: u32) -> Result<GpuGame> {
        if p.split == 0
            || p.split > p.depth
            || p.split > MAX_SPLIT
            || p.depth > MAX_GAME_DEPTH
            || rounds == 0
            || rounds > 100_000
        {
            return Err(Error::Input(format!(
                "game on the GPU: need 1 ≤ split ≤ min(depth, {MAX_SPLIT}), depth ≤ {MAX_GAME_DEPTH}, 1 ≤ rounds ≤ 100000 (depth {}, split {}, rounds {rounds})",
                p.depth, p.split
            )));
        }
        let module = gpu.compile("coop_game.cu", GAME_CU, &CompileOptions::default())?;
        let roots: Vec<Position> = (0..rounds).map(game_root).collect();
        let reference = std::thread::scope(|s| {
            let hs: Vec<_> = roots
                .iter()
                .take(49)
                .map(|r| s.spawn(move || sequential(r, p)))
                .collect();
            hs.into_iter()
                .map(|h| h.join().expect("sequential search"))
                .collect::<Vec<_>>()
        });
        let per: u64 = (0..=p.split).map(|l| 7u64.pow(l)).sum();
        let node_cap = per * u64::from(rounds);
        if node_cap >= u64::from(u32::MAX) / NODE_WORDS as u64 {
            return Err(Error::Input(format!(
                "game on the GPU: {node_cap} nodes ({rounds} roots, split {}) are too many",
                p.split
            )));
        }
        let node_cap = node_cap as u32;
        Ok(GpuGame {
            gpu: gpu.clone(),
            params: *p,
            module,
            roots,
            reference,
            nodes: gpu.alloc_zeroed(node_cap as usize * NODE_WORDS)?,
            node_cap,
            steal: StealBuffers::new(gpu)?,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &GameParams {
        &self.params
    }

    /// The values the device found for every root of the last launch (from the nodes' values,
    /// combined up the tree as the CPU version does).
    pub fn values(&self) -> Result<Vec<GameValue>> {
        let c = self.steal.check()?;
        combine_nodes(
            &self.nodes.to_vec()?,
            (c[ALLOC0] as usize).min(self.node_cap as usize),
            self.roots.len(),
        )
    }
}

/// The values of roots `0..roots` from the device's node pool (`count` nodes, 12 words each;
/// roots first): searched nodes' values combined up the tree (negamax) as `coop::game` does,
/// and each root's moves in the search order.
pub fn combine_nodes(words: &[u32], count: usize, roots: usize) -> Result<Vec<GameValue>> {
    let count = count.min(words.len() / NODE_WORDS);
    let nodes: Vec<&[u32]> = words.chunks_exact(NODE_WORDS).take(count).collect();
    if roots > count {
        return Err(Error::Resource(format!(
            "game: {count} nodes for {roots} roots"
        )));
    }
    // Children come after their parent: combine from the back.
    let mut best = vec![i32::MIN + 1; count];
    let mut value = vec![0i32; count];
    for i in (0..count).rev() {
        let nd = nodes[i];
        let v = if nd[10] == 1 {
            nd[8] as i32
        } else if nd[9] > 0 {
            best[i]
        } else {
            return Err(Error::Resource(format!(
                "game: node {i} was never searched"
            )));
        };
        value[i] = v;
        let parent = nd[6];
        if parent != u32::MAX {
            let par = parent as usize;
            if par >= i {
                return Err(Error::Resource(format!("game: node {i} has parent {par}")));
            }
            best[par] = best[par].max(-v);
        }
    }
    let mut moves: Vec<Vec<(usize, i32)>> = vec![Vec::new(); roots];
    for (i, nd) in nodes.iter().enumerate() {
        if let Some(m) = moves.get_mut(nd[6] as usize) {
            m.push((nd[7] as usize, -value[i]));
        }
    }
    Ok(moves
        .into_iter()
        .enumerate()
        .map(|(r, mut moves)| {
            moves.sort_by_key(|m| ORDER.iter().position(|&c| c == m.0));
            GameValue {
                value: value[r],
                moves,
            }
        })
        .collect())
}

impl CoopKernel for GpuGame {
    fn name(&self) -> &'static str {
        "game"
    }

    fn module(&self) -> &Module {
        &self.module
    }

    fn kernel(&self) -> &'static str {
        "coop_game"
    }

    fn start(&mut self, mode: BarrierMode, cfg: &CoopConfig) -> Result<Scheduler<'_>> {
        let nq = StealBuffers::groups_for(&self.gpu, &self.module, "coop_game", cfg)?;
        let mut init = Vec::with_capacity(self.roots.len() * NODE_WORDS);
        for r in &self.roots {
            let (mine, all, moves) = r.bits();
            init.extend([
                mine as u32,
                (mine >> 32) as u32,
                all as u32,
                (all >> 32) as u32,
                moves,
                0,
                u32::MAX,
                0,
                0,
                0,
                0,
                0,
            ]);
        }
        self.nodes.copy_from(&init)?;
        let seeds: Vec<u32> = (0..self.roots.len() as u32).collect();
        self.steal.reset(nq, &seeds, seeds.len() as u32)?;
        let mut args = vec![
            Arg::from(&self.nodes),
            Arg::from(self.node_cap),
            Arg::from(self.params.depth),
            Arg::from(self.params.split),
        ];
        args.extend(self.steal.args());
        args.push(Arg::from(mode.code()));
        Scheduler::start(&self.module, "coop_game", cfg, &args)
    }

    fn wrong_rounds(&self) -> Result<u32> {
        let got = self.values()?;
        Ok(got
            .iter()
            .zip(self.reference.iter().cycle())
            .filter(|(g, w)| g != w)
            .count() as u32)
    }

    fn rounds(&self) -> u32 {
        self.roots.len() as u32
    }
}

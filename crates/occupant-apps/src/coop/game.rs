//! Game-tree search by work stealing (seed 000 Table 1, "game"): connect four (7×6) searched
//! to a fixed depth with negamax. The top `split` plies are expanded as tasks (a task is a
//! node; expanding it pushes its children); below them each task searches its subtree with
//! alpha-beta. The host combines the values up the tree; the root value and every move's value
//! are checked against a sequential negamax.

use super::steal::{RunInfo, Runner, StealQueues};
use occupant::{Error, Result};
use serde::Serialize;
use std::sync::Mutex;

const W: usize = 7;
const H: usize = 6;
const COL: u64 = (1 << (H + 1)) - 1;
const WIN: i32 = 10_000;

/// A connect-four position (bitboards: `mine` = the player to move's stones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    mine: u64,
    all: u64,
    moves: u32,
}

impl Default for Position {
    fn default() -> Self {
        Self::new()
    }
}

impl Position {
    /// The empty board.
    pub fn new() -> Self {
        Self {
            mine: 0,
            all: 0,
            moves: 0,
        }
    }

    /// A position reached by playing `cols` (0-based columns) from the empty board.
    pub fn from_moves(cols: &[usize]) -> Option<Self> {
        let mut p = Self::new();
        for &c in cols {
            if c >= W || !p.can_play(c) || p.won_by_last() {
                return None;
            }
            p = p.play(c);
        }
        Some(p)
    }

    /// The bitboards: (stones of the player to move, all stones, moves played) — what the CUDA
    /// version (`coop_cuda::GpuGame`) uploads.
    pub fn bits(&self) -> (u64, u64, u32) {
        (self.mine, self.all, self.moves)
    }

    fn can_play(&self, c: usize) -> bool {
        self.all & (1 << (c * (H + 1) + H - 1)) == 0
    }

    fn play(&self, c: usize) -> Self {
        let other = self.mine ^ self.all;
        let all = self.all | (self.all + (1 << (c * (H + 1))));
        Self {
            mine: other,
            all,
            moves: self.moves + 1,
        }
    }

    /// Whether the player who just moved has four in a row.
    fn won_by_last(&self) -> bool {
        let b = self.mine ^ self.all;
        [1, H + 1, H, H + 2].iter().any(|&s| {
            let m = b & (b >> s);
            m & (m >> (2 * s)) != 0
        })
    }

    fn full(&self) -> bool {
        self.moves as usize == W * H
    }

    /// Static evaluation for the player to move: stones in the centre columns.
    fn eval(&self) -> i32 {
        let theirs = self.mine ^ self.all;
        let weight = [1, 2, 3, 4, 3, 2, 1];
        (0..W)
            .map(|c| {
                let col = COL << (c * (H + 1));
                weight[c]
                    * ((self.mine & col).count_ones() as i32 - (theirs & col).count_ones() as i32)
            })
            .sum()
    }

    fn children(&self) -> impl Iterator<Item = (usize, Position)> + '_ {
        [3, 2, 4, 1, 5, 0, 6]
            .into_iter()
            .filter(|&c| self.can_play(c))
            .map(|c| (c, self.play(c)))
    }
}

/// Negamax value of `p` searched `depth` plies (alpha-beta; exact inside `(alpha, beta)`).
fn alphabeta(p: &Position, depth: u32, mut alpha: i32, beta: i32) -> i32 {
    if p.won_by_last() {
        return -WIN - depth as i32;
    }
    if depth == 0 || p.full() {
        return p.eval();
    }
    let mut best = i32::MIN + 1;
    for (_, c) in p.children() {
        let v = -alphabeta(&c, depth - 1, -beta, -alpha);
        best = best.max(v);
        alpha = alpha.max(v);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// Exact negamax value of `p` to `depth` plies.
pub fn negamax(p: &Position, depth: u32) -> i32 {
    alphabeta(p, depth, i32::MIN + 1, i32::MAX)
}

/// Parameters of a game-tree search.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct GameParams {
    /// Plies searched from the root.
    pub depth: u32,
    /// Plies expanded as tasks (≤ depth).
    pub split: u32,
}

impl Default for GameParams {
    fn default() -> Self {
        Self { depth: 9, split: 3 }
    }
}

/// The result: root value and the value of every legal move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameValue {
    /// Negamax value of the root for the player to move.
    pub value: i32,
    /// (column, value of playing it) for each legal move.
    pub moves: Vec<(usize, i32)>,
}

/// The sequential reference.
pub fn sequential(root: &Position, p: &GameParams) -> GameValue {
    let moves: Vec<(usize, i32)> = root
        .children()
        .map(|(c, ch)| (c, -negamax(&ch, p.depth - 1)))
        .collect();
    GameValue {
        value: moves
            .iter()
            .map(|m| m.1)
            .max()
            .unwrap_or(negamax(root, p.depth)),
        moves,
    }
}

#[derive(Debug, Clone, Copy)]
struct Node {
    parent: usize,
    col: usize,
    value: Option<i32>,
    children: u32,
}

/// The result of a parallel search.
#[derive(Debug, Clone, Serialize)]
pub struct GameRun {
    /// The values found.
    pub value: GameValue,
    /// Tasks (nodes) processed.
    pub tasks: usize,
    /// Timing and the cooperative report.
    pub info: RunInfo,
}

/// Searches `root` with `runner` (cooperative or persistent work stealing).
pub fn search(root: &Position, p: &GameParams, runner: &Runner<'_, '_>) -> Result<GameRun> {
    if p.depth == 0 || p.split == 0 || p.split > p.depth || root.won_by_last() || root.full() {
        return Err(Error::Input(format!(
            "game: need 1 ≤ split ≤ depth and a root with legal moves (depth {}, split {})",
            p.depth, p.split
        )));
    }
    let nodes = Mutex::new(vec![Node {
        parent: usize::MAX,
        col: 0,
        value: None,
        children: 0,
    }]);
    let queues = StealQueues::new(runner.groups());
    queues.seed(0, (0usize, *root, 0u32));
    let info = runner.run(
        &queues,
        |item, id, (node, pos, ply): (usize, Position, u32)| {
            let terminal = pos.won_by_last() || pos.full();
            if ply < p.split && !terminal {
                let kids: Vec<(usize, Position)> = pos.children().collect();
                let first = {
                    let mut n = nodes.lock().unwrap_or_else(|e| e.into_inner());
                    n[node].children = kids.len() as u32;
                    let first = n.len();
                    for &(c, _) in &kids {
                        n.push(Node {
                            parent: node,
                            col: c,
                            value: None,
                            children: 0,
                        });
                    }
                    first
                };
                for (k, (_, ch)) in kids.into_iter().enumerate() {
                    queues.push(item, id, (first + k, ch, ply + 1));
                }
            } else {
                let v = negamax(&pos, p.depth - ply);
                nodes.lock().unwrap_or_else(|e| e.into_inner())[node].value = Some(v);
            }
        },
    )?;
    let mut nodes = nodes.into_inner().unwrap_or_else(|e| e.into_inner());
    let tasks = nodes.len();
    // Children come after their parent: combine from the back.
    let mut best: Vec<i32> = vec![i32::MIN + 1; nodes.len()];
    for i in (0..nodes.len()).rev() {
        let v = match nodes[i].value {
            Some(v) => v,
            None if nodes[i].children > 0 => best[i],
            None => return Err(Error::Input(format!("game: node {i} was never searched"))),
        };
        nodes[i].value = Some(v);
        if i > 0 {
            let par = nodes[i].parent;
            best[par] = best[par].max(-v);
        }
    }
    let mut moves: Vec<(usize, i32)> = nodes
        .iter()
        .filter(|n| n.parent == 0)
        .map(|n| (n.col, -n.value.unwrap_or(0)))
        .collect();
    let order: Vec<usize> = root.children().map(|(c, _)| c).collect();
    moves.sort_by_key(|m| order.iter().position(|&c| c == m.0));
    Ok(GameRun {
        value: GameValue {
            value: nodes[0].value.unwrap_or(0),
            moves,
        },
        tasks,
        info,
    })
}

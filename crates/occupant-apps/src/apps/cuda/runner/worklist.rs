//! sssp-worklist on the GPU (`sssp_worklist.cu`): the device state of one input, and the
//! multi-kernel host loop that sizes every launch by the worklist's length (read back after
//! each step anyway, as Lonestar-GPU does).

use super::super::device_graph::{DeviceGraph, CHUNK, DEFAULT_HEAVY_DEGREE};
use super::{AppPrograms, CudaInput, State, BLOCK_THREADS};
use crate::apps::prep::weights_or_unit;
use crate::apps::{AppOutput, AppParams};
use crate::graph::Csr;
use occupant::cuda::{Arg, DeviceBuffer, Gpu, LaunchConfig};
use occupant::{Error, Result};
use std::time::Instant;

/// sssp-worklist's device state: distances, the two worklists and the per-parity "queued in
/// step" stamps.
pub(super) struct WorklistState {
    dist: DeviceBuffer<u64>,
    /// Two lists of n vertices.
    wl: DeviceBuffer<u32>,
    /// Two arrays of n stamps: `q[t % 2][v] == t` when v is in step t's input list.
    q: DeviceBuffer<u32>,
    init_dist: Vec<u64>,
    init_q: Vec<u32>,
    /// The source (the kernels treat a source outside the graph as an empty first list).
    source: u32,
    /// Chunks of heavy edges (each wants a warp of a multi-kernel launch).
    heavy_chunks: usize,
}

impl WorklistState {
    /// Uploads `g` with its weights (1 on an unweighted graph) and allocates the state.
    pub fn prepare(gpu: &Gpu, g: &Csr, p: &AppParams) -> Result<(DeviceGraph, WorklistState)> {
        let n = g.num_vertices();
        let nu = n as usize;
        let w = weights_or_unit(g);
        let mut init_dist = vec![u64::MAX; nu];
        let mut init_q = vec![u32::MAX; 2 * nu];
        if p.source < n {
            init_dist[p.source as usize] = 0;
            init_q[p.source as usize] = 0; // in step 0's list
        }
        let dg = DeviceGraph::upload(gpu, g, Some(&w), DEFAULT_HEAVY_DEGREE)?;
        let heavy_chunks = dg.heavy_edges().div_ceil(u64::from(CHUNK)) as usize;
        Ok((
            dg,
            WorklistState {
                dist: gpu.alloc_zeroed(nu)?,
                wl: gpu.alloc_zeroed(2 * nu)?,
                q: gpu.alloc_zeroed(2 * nu)?,
                init_dist,
                init_q,
                source: p.source,
                heavy_chunks,
            },
        ))
    }

    /// Writes the initial state (the lists need none: step 0 reads the source, step s > 0
    /// only the entries step s − 1 wrote).
    pub fn reset(&mut self) -> Result<()> {
        self.dist.copy_from(&self.init_dist)?;
        self.q.copy_from(&self.init_q)
    }

    /// The state's kernel arguments (after the graph's, before `ctl`).
    pub fn args<'a>(&'a self, a: &mut Vec<Arg<'a>>) {
        a.extend([
            Arg::from(&self.dist),
            Arg::from(&self.wl),
            Arg::from(&self.q),
            Arg::from(self.source),
        ]);
    }

    /// The distances of the first `n` vertices.
    pub fn output(&self, n: usize) -> Result<AppOutput> {
        let mut d = self.dist.to_vec()?;
        d.truncate(n);
        Ok(AppOutput::Distances(d))
    }
}

/// Multi-kernel: one `sssp_worklist_step` launch per step with one warp per 32 list entries
/// plus one per heavy chunk; the output length, read back after each step, ends the run when
/// it is 0 and sizes the next launch.
pub(super) fn multi_kernel(input: &CudaInput, progs: &AppPrograms) -> Result<(u32, f64)> {
    let State::Worklist(st) = &input.state else {
        return Err(Error::Input(format!(
            "{}: not sssp-worklist's state",
            input.app
        )));
    };
    let warps_per_block = BLOCK_THREADS / 32;
    let bound = input.bound();
    let t0 = Instant::now();
    let mut len = usize::from(st.source < input.input_vertices);
    let mut it = 0u32;
    loop {
        let warps = len.div_ceil(32) + st.heavy_chunks;
        let blocks = warps.div_ceil(warps_per_block).max(1);
        let cfg = LaunchConfig::plain(blocks, BLOCK_THREADS);
        progs
            .host
            .enqueue("sssp_worklist_step", &cfg, &input.args(it))?;
        len = input.flag.read(&input.ctl, (it % 3) as usize)? as usize;
        it += 1;
        if len == 0 || it >= bound {
            break;
        }
    }
    Ok((it, t0.elapsed().as_secs_f64()))
}

//! bc on the GPU (`bc.cu`): the device state of one input, its initial values, the kernel
//! arguments and the scores read back.

use super::super::device_graph::{DeviceGraph, DEFAULT_HEAVY_DEGREE};
use crate::apps::{AppOutput, AppParams};
use crate::graph::Csr;
use occupant::cuda::{Arg, DeviceBuffer, Gpu};
use occupant::{Error, Result};

/// Words of `bcctl` (found flags at 0..3, the end of the forward phase at 32).
const BCCTL_WORDS: usize = 64;

/// bc's device state: levels, path counts and their reciprocals, dependencies and its own control words.
pub(super) struct BcState {
    level: DeviceBuffer<u32>,
    sigma: DeviceBuffer<f64>,
    /// 1 / sigma, stored by the forward steps for the backward ones.
    inv: DeviceBuffer<f64>,
    delta: DeviceBuffer<f64>,
    bcctl: DeviceBuffer<u32>,
    init_level: Vec<u32>,
    init_sigma: Vec<f64>,
    /// The source vertex, if it is in the graph (its score is 0 by definition).
    source: Option<u32>,
}

impl BcState {
    /// Uploads `g` (bc runs on the input graph itself) and allocates the state.
    pub fn prepare(gpu: &Gpu, g: &Csr, p: &AppParams) -> Result<(DeviceGraph, BcState)> {
        let n = g.num_vertices();
        let nu = n as usize;
        let mut init_level = vec![u32::MAX; nu];
        let mut init_sigma = vec![0.0; nu];
        let source = (p.source < n).then_some(p.source);
        if let Some(s) = source {
            init_level[s as usize] = 0;
            init_sigma[s as usize] = 1.0;
        }
        Ok((
            DeviceGraph::upload(gpu, g, None, DEFAULT_HEAVY_DEGREE)?,
            BcState {
                level: gpu.alloc_zeroed(nu)?,
                sigma: gpu.alloc_zeroed(nu)?,
                inv: gpu.alloc_zeroed(nu)?,
                delta: gpu.alloc_zeroed(nu)?,
                bcctl: gpu.alloc_zeroed(BCCTL_WORDS)?,
                init_level,
                init_sigma,
                source,
            },
        ))
    }

    /// Writes the initial state.
    pub fn reset(&mut self) -> Result<()> {
        self.level.copy_from(&self.init_level)?;
        self.sigma.copy_from(&self.init_sigma)?;
        self.delta.zero()?;
        self.bcctl.zero()
    }

    /// The state's kernel arguments (after the graph's, before `ctl`).
    pub fn args<'a>(&'a self, a: &mut Vec<Arg<'a>>) {
        a.extend([
            Arg::from(&self.level),
            Arg::from(&self.sigma),
            Arg::from(&self.inv),
            Arg::from(&self.delta),
            Arg::from(&self.bcctl),
        ]);
    }

    /// The dependency scores of the first `n` vertices (the source's set to 0, as the
    /// reference). An error when the path counts overflowed `f64` (as on the CPU backend;
    /// checked on the counts: an infinite count has a zero reciprocal, which hides it from the
    /// scores).
    pub fn output(&self, n: usize) -> Result<AppOutput> {
        let sigma = self.sigma.to_vec()?;
        let mut d = self.delta.to_vec()?;
        d.truncate(n);
        if let Some(s) = self.source {
            d[s as usize] = 0.0;
        }
        let bad = sigma[..n]
            .iter()
            .position(|x| !x.is_finite())
            .map(|v| (v, "path count", sigma[v]))
            .or_else(|| {
                d.iter()
                    .position(|x| !x.is_finite())
                    .map(|v| (v, "score", d[v]))
            });
        if let Some((v, what, x)) = bad {
            return Err(Error::Unsupported(format!(
                "bc: the shortest-path counts of this graph overflow f64 (vertex {v} has {what} {x}); use a graph with fewer shortest paths (fewer BFS levels)"
            )));
        }
        Ok(AppOutput::Scores(d))
    }
}

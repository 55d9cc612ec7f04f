//! Parallel CSR construction (rayon): symmetrising, removing self-loops, merging duplicate
//! edges, transposing.

use super::{Csr, CsrError};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// How [`Csr::build`] turns an edge list into a CSR graph.
///
/// The default keeps every edge (self-loops and duplicates included) and adds no reverse edges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// Also store `v -> u` for every edge `u -> v` (a self-loop is stored once). The reverse
    /// edge has the same weight.
    pub symmetrize: bool,
    /// Drop edges `v -> v`.
    pub remove_self_loops: bool,
    /// Keep one edge per (source, target) pair: the one with the smallest weight.
    pub dedup: bool,
}

impl BuildOptions {
    /// Undirected and simple: symmetrised, no self-loops, no duplicates (what colouring, MIS
    /// and connected components expect).
    pub fn undirected_simple() -> Self {
        BuildOptions {
            symmetrize: true,
            remove_self_loops: true,
            dedup: true,
        }
    }
}

/// Vertices per task when sorting adjacency lists.
const VERTEX_BLOCK: usize = 4096;

impl Csr {
    /// Builds a CSR graph from an edge list in parallel. Each vertex's out-edges are sorted by
    /// (target, weight), so the result depends only on the multiset of edges, not on their
    /// order or on the number of threads. `weights`, if given, has one entry per edge.
    ///
    /// ```
    /// use occupant_apps::graph::{BuildOptions, Csr};
    /// let opts = BuildOptions { symmetrize: true, dedup: true, ..Default::default() };
    /// let g = Csr::build(3, &[(0, 2), (0, 1), (2, 0)], Some(&[5, 7, 3]), &opts)?;
    /// assert_eq!(g.neighbours(0), &[1, 2]);
    /// assert_eq!(g.edge_weights(0), Some(&[7, 3][..])); // 0 -> 2 kept its lighter copy
    /// # Ok::<(), occupant_apps::graph::CsrError>(())
    /// ```
    pub fn build(
        num_vertices: u32,
        edges: &[(u32, u32)],
        weights: Option<&[u32]>,
        options: &BuildOptions,
    ) -> Result<Self, CsrError> {
        if let Some(w) = weights {
            if w.len() != edges.len() {
                return Err(CsrError::WeightCount {
                    weights: w.len(),
                    edges: edges.len(),
                });
            }
        }
        if let Some(index) = edges
            .par_iter()
            .position_first(|&(s, d)| s >= num_vertices || d >= num_vertices)
        {
            let (src, dst) = edges[index];
            return Err(CsrError::VertexOutOfRange {
                index,
                src,
                dst,
                num_vertices,
            });
        }
        let n = num_vertices as usize;
        // Phases: degrees, scatter, sort, compact (a bar for large builds on a terminal).
        let bar = super::progress::bar(100 * edges.len() as u64, "building");
        let phase = |pct: u64| bar.set_position(pct * edges.len() as u64);
        let keep = |s: u32, d: u32| !(options.remove_self_loops && s == d);
        let mirror = |s: u32, d: u32| options.symmetrize && s != d;

        // Degrees.
        let degree: Vec<AtomicU32> = (0..n).into_par_iter().map(|_| AtomicU32::new(0)).collect();
        edges.par_iter().for_each(|&(s, d)| {
            if keep(s, d) {
                degree[s as usize].fetch_add(1, Ordering::Relaxed);
                if mirror(s, d) {
                    degree[d as usize].fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        phase(15);
        let mut offsets = Vec::with_capacity(n + 1);
        let mut total: u64 = 0;
        offsets.push(0u64);
        for d in &degree {
            total += u64::from(d.load(Ordering::Relaxed));
            offsets.push(total);
        }
        if total > u64::from(u32::MAX) {
            return Err(CsrError::TooManyEdges {
                edges: total as usize,
            });
        }
        drop(degree);

        // Scatter (target << 32 | weight) into each source's segment.
        let cursor: Vec<AtomicU64> = offsets[..n]
            .par_iter()
            .map(|&o| AtomicU64::new(o))
            .collect();
        let packed: Vec<AtomicU64> = (0..total)
            .into_par_iter()
            .map(|_| AtomicU64::new(0))
            .collect();
        let put = |s: u32, d: u32, w: u32| {
            let slot = cursor[s as usize].fetch_add(1, Ordering::Relaxed);
            packed[slot as usize].store((u64::from(d) << 32) | u64::from(w), Ordering::Relaxed);
        };
        edges.par_iter().enumerate().for_each(|(i, &(s, d))| {
            if keep(s, d) {
                let w = weights.map_or(0, |w| w[i]);
                put(s, d, w);
                if mirror(s, d) {
                    put(d, s, w);
                }
            }
        });
        drop(cursor);
        phase(55);
        let mut packed: Vec<u64> = packed.into_iter().map(AtomicU64::into_inner).collect();

        // Sort (and dedup) each adjacency list, block of vertices by block of vertices.
        let blocks = split_blocks(&mut packed, &offsets);
        let mut new_degree = vec![0u32; n];
        let block_lens: Vec<usize> = blocks
            .into_par_iter()
            .zip(new_degree.par_chunks_mut(VERTEX_BLOCK))
            .enumerate()
            .map(|(b, (block, degs))| {
                let first = b * VERTEX_BLOCK;
                let base = offsets[first] as usize;
                let mut out = 0usize;
                for (k, deg) in degs.iter_mut().enumerate() {
                    let lo = offsets[first + k] as usize - base;
                    let hi = offsets[first + k + 1] as usize - base;
                    block[lo..hi].sort_unstable();
                    let mut kept = 0usize;
                    for i in lo..hi {
                        let e = block[i];
                        if options.dedup && kept > 0 && block[out + kept - 1] >> 32 == e >> 32 {
                            continue;
                        }
                        block[out + kept] = e;
                        kept += 1;
                    }
                    *deg = kept as u32;
                    out += kept;
                }
                out
            })
            .collect();

        phase(85);
        // Compact into the final arrays.
        let mut final_offsets = Vec::with_capacity(n + 1);
        let mut acc = 0u32;
        final_offsets.push(0u32);
        for &d in &new_degree {
            acc += d;
            final_offsets.push(acc);
        }
        drop(new_degree);
        let m = acc as usize;
        let mut targets = vec![0u32; m];
        let mut out_weights = weights.map(|_| vec![0u32; m]);
        {
            let mut t_rest: &mut [u32] = &mut targets;
            let mut w_rest: Option<&mut [u32]> = out_weights.as_deref_mut();
            let mut jobs = Vec::with_capacity(block_lens.len());
            for (b, &len) in block_lens.iter().enumerate() {
                let src_start = offsets[b * VERTEX_BLOCK] as usize;
                let (t, tr) = t_rest.split_at_mut(len);
                t_rest = tr;
                let w = match w_rest.take() {
                    Some(wr) => {
                        let (w, wr) = wr.split_at_mut(len);
                        w_rest = Some(wr);
                        Some(w)
                    }
                    None => None,
                };
                jobs.push((&packed[src_start..src_start + len], t, w));
            }
            jobs.into_par_iter().for_each(|(src, t, w)| {
                for (dst, &e) in t.iter_mut().zip(src) {
                    *dst = (e >> 32) as u32;
                }
                if let Some(w) = w {
                    for (dst, &e) in w.iter_mut().zip(src) {
                        *dst = e as u32;
                    }
                }
            });
        }
        bar.finish_and_clear();
        Ok(Csr::from_raw(final_offsets, targets, out_weights))
    }

    /// The same graph with every edge reversed (in-edges become out-edges), for pull-style
    /// algorithms. Weights follow their edges; adjacency lists come out sorted.
    pub fn transpose(&self) -> Csr {
        let edges = self.edge_pairs_reversed();
        Csr::build(
            self.num_vertices(),
            &edges,
            self.weights(),
            &BuildOptions::default(),
        )
        .expect("the transpose of a valid CSR graph is valid")
    }

    /// The undirected version of this graph: every edge in both directions, optionally with
    /// self-loops and duplicates removed.
    pub fn symmetrized(&self, remove_self_loops: bool, dedup: bool) -> Result<Csr, CsrError> {
        let edges = self.edge_pairs();
        Csr::build(
            self.num_vertices(),
            &edges,
            self.weights(),
            &BuildOptions {
                symmetrize: true,
                remove_self_loops,
                dedup,
            },
        )
    }

    /// Whether the graph is undirected: for every edge `u -> v` there is an edge `v -> u`
    /// (multiplicities and weights are not compared). Binary search when adjacency lists are
    /// sorted (as [`Csr::build`] makes them), else a comparison with the transpose.
    pub fn is_symmetric(&self) -> bool {
        let n = self.num_vertices();
        let sorted = (0..n)
            .into_par_iter()
            .all(|v| self.neighbours(v).windows(2).all(|w| w[0] <= w[1]));
        if sorted {
            return (0..n).into_par_iter().all(|v| {
                self.neighbours(v)
                    .iter()
                    .all(|&t| self.neighbours(t).binary_search(&v).is_ok())
            });
        }
        let t = self.transpose();
        (0..n).into_par_iter().all(|v| {
            let mut a = self.neighbours(v).to_vec();
            a.sort_unstable();
            a.dedup();
            let mut b = t.neighbours(v).to_vec();
            b.dedup();
            a == b
        })
    }

    /// Every edge as (source, target), in CSR order.
    pub fn edge_pairs(&self) -> Vec<(u32, u32)> {
        let mut out = vec![(0u32, 0u32); self.num_edges()];
        self.fill_pairs(&mut out, false);
        out
    }

    fn edge_pairs_reversed(&self) -> Vec<(u32, u32)> {
        let mut out = vec![(0u32, 0u32); self.num_edges()];
        self.fill_pairs(&mut out, true);
        out
    }

    fn fill_pairs(&self, out: &mut [(u32, u32)], reversed: bool) {
        let offsets = self.offsets();
        let targets = self.targets();
        out.par_chunks_mut(1 << 16)
            .enumerate()
            .for_each(|(c, chunk)| {
                let start = c << 16;
                let mut v = offsets.partition_point(|&o| o as usize <= start) - 1;
                for (k, slot) in chunk.iter_mut().enumerate() {
                    let i = start + k;
                    while offsets[v + 1] as usize <= i {
                        v += 1;
                    }
                    let t = targets[i];
                    *slot = if reversed {
                        (t, v as u32)
                    } else {
                        (v as u32, t)
                    };
                }
            });
    }
}

/// Splits `packed` into the segments of consecutive blocks of `VERTEX_BLOCK` vertices.
fn split_blocks<'a>(packed: &'a mut [u64], offsets: &[u64]) -> Vec<&'a mut [u64]> {
    let n = offsets.len() - 1;
    let mut rest = packed;
    let mut out = Vec::with_capacity(n.div_ceil(VERTEX_BLOCK));
    let mut first = 0;
    while first < n {
        let last = (first + VERTEX_BLOCK).min(n);
        let len = (offsets[last] - offsets[first]) as usize;
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(len);
        out.push(head);
        rest = tail;
        first = last;
    }
    out
}

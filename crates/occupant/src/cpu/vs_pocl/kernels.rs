//! The occupant side of `cpu-vs-pocl`: each kernel of `bench/pocl/kernels.cl` in the coroutine
//! form and in the phased form (and, for the barrier-free ones, as plain Rust loops).

use crate::cpu::{Executor, GlobalBuffer, Launch, LocalArray};
use crate::model::{NDRange, Result};
use serde::Serialize;
use std::sync::atomic::Ordering;

/// The kernels, by their OpenCL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kernel {
    /// Tree reduction, 256 groups × 256 work-items, 8 barriers.
    Reduce256,
    /// 64 groups × 1024 work-items, 64 rounds of two barriers (128).
    Rotate128,
    /// 2^22 work-items, 16 xorshift-multiply rounds each, no barrier.
    Hash16,
    /// 2^22 work-items storing `i * 3`, no barrier.
    Store3,
    /// 5-point stencil on 2048 × 2048 through 18 × 18 local tiles (16 × 16 groups), 1 barrier.
    Stencil2d,
    /// 256-bin histogram of 2^22 values with local atomics, 1024 groups × 256, 2 barriers.
    Histogram,
}

impl Kernel {
    /// Every kernel, in report order.
    pub const ALL: [Kernel; 6] = [
        Kernel::Reduce256,
        Kernel::Rotate128,
        Kernel::Hash16,
        Kernel::Store3,
        Kernel::Stencil2d,
        Kernel::Histogram,
    ];

    /// The OpenCL kernel name.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Reduce256 => "reduce256",
            Kernel::Rotate128 => "rotate128",
            Kernel::Hash16 => "hash16",
            Kernel::Store3 => "store3",
            Kernel::Stencil2d => "stencil2d",
            Kernel::Histogram => "histogram",
        }
    }

    /// Whether the kernel has no barrier (it is also compared with a plain Rust loop).
    pub fn barrier_free(self) -> bool {
        matches!(self, Kernel::Hash16 | Kernel::Store3)
    }

    /// Elements of the output.
    pub fn out_len(self) -> usize {
        match self {
            Kernel::Reduce256 => 256,
            Kernel::Rotate128 => 64 * 1024,
            Kernel::Histogram => 256,
            _ => N22,
        }
    }

    fn range(self) -> NDRange {
        let r = match self {
            Kernel::Reduce256 => NDRange::d1(256 * 256, 256),
            Kernel::Rotate128 => NDRange::d1(64 * 1024, 1024),
            Kernel::Hash16 | Kernel::Store3 => NDRange::d1(N22, 1024),
            Kernel::Stencil2d => NDRange::d2([W, W], [16, 16]),
            Kernel::Histogram => NDRange::d1(1024 * 256, 256),
        };
        r.expect("the benchmark's shapes are valid")
    }
}

/// How a kernel is run on the occupant side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    /// `Executor::launch_with`: one work-item's code, `barrier()` a coroutine switch.
    Coroutine,
    /// `Executor::launch_phased(_out)`: item loops between barriers.
    Phased,
    /// The same computation as a plain Rust loop on the calling thread (barrier-free kernels).
    PlainLoop,
    /// The same computation as a plain Rust loop split over `threads` scoped threads.
    PlainLoopThreads,
}

impl Form {
    /// A short label.
    pub fn label(self) -> &'static str {
        match self {
            Form::Coroutine => "coroutine",
            Form::Phased => "phased",
            Form::PlainLoop => "plain loop",
            Form::PlainLoopThreads => "plain loop (threads)",
        }
    }
}

const N22: usize = 1 << 22;
const W: usize = 2048;

/// The input formula shared with `harness.c`.
#[inline]
pub fn gen(i: u32) -> u32 {
    i.wrapping_mul(2_654_435_761) ^ (i >> 5)
}

#[inline(always)]
fn hash(mut x: u32) -> u32 {
    for _ in 0..16 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x = x.wrapping_mul(0x9E37_79B1);
    }
    x
}

/// Inputs and outputs of every kernel, made once and reused by every run.
pub struct Workload {
    input: Vec<u32>,
    out_atomic: GlobalBuffer<u32>,
    out_plain: Vec<u32>,
}

impl Default for Workload {
    fn default() -> Self {
        Self::new()
    }
}

impl Workload {
    /// 2^22 inputs (`gen(i)`) and two 2^22-element outputs.
    pub fn new() -> Self {
        Self {
            input: (0..N22 as u32).map(gen).collect(),
            out_atomic: GlobalBuffer::new(N22),
            out_plain: vec![0; N22],
        }
    }

    /// The output of `kernel` as last written by `form`.
    pub fn output(&self, kernel: Kernel, form: Form) -> Vec<u32> {
        let n = kernel.out_len();
        if writes_plain(kernel, form) {
            self.out_plain[..n].to_vec()
        } else {
            (0..n).map(|i| self.out_atomic.get(i)).collect()
        }
    }

    /// Runs `kernel` once in `form` on `exec` (plain loops use `threads` threads).
    pub fn run(
        &mut self,
        exec: &Executor,
        kernel: Kernel,
        form: Form,
        threads: usize,
    ) -> Result<()> {
        // No group waits for another (as OpenCL assumes): groups may be claimed in batches.
        let launch = Launch::new(kernel.range()).independent_groups();
        let (input, out, plain) = (&self.input[..], &self.out_atomic, &mut self.out_plain[..]);
        if kernel == Kernel::Histogram {
            for i in 0..256 {
                out.set(i, 0);
            }
        }
        match (kernel, form) {
            (Kernel::Reduce256, Form::Coroutine) => {
                exec.launch_with(
                    &launch,
                    || LocalArray::<u32>::new(256),
                    |it, s| {
                        let l = it.local_linear_id();
                        s.set(l, input[it.global_linear_id()]);
                        let mut stride = 128;
                        while stride > 0 {
                            it.barrier();
                            if l < stride {
                                s.set(l, s.get(l).wrapping_add(s.get(l + stride)));
                            }
                            stride >>= 1;
                        }
                        if l == 0 {
                            out.set(it.group_linear_id(), s.get(0));
                        }
                    },
                )?;
            }
            (Kernel::Reduce256, Form::Phased) => {
                exec.launch_phased_out(
                    &launch,
                    &mut plain[..256],
                    || (),
                    |g, _, o| {
                        let base = g.group_linear_id() * 256;
                        let mut s = [0u32; 256];
                        s.copy_from_slice(&input[base..base + 256]);
                        let mut stride = 128;
                        while stride > 0 {
                            // barrier
                            g.items(|it| {
                                let l = it.local_linear_id() & 255;
                                if l < stride {
                                    s[l] = s[l].wrapping_add(s[(l + stride) & 255]);
                                }
                            });
                            stride >>= 1;
                        }
                        o[0] = s[0];
                    },
                )?;
            }
            (Kernel::Rotate128, Form::Coroutine) => {
                exec.launch_with(
                    &launch,
                    || LocalArray::<u32>::new(1024),
                    |it, s| {
                        let l = it.local_linear_id();
                        let mut v = input[it.global_linear_id()];
                        for r in 0..64 {
                            s.set(l, v);
                            it.barrier();
                            v = s
                                .get((l + 1) & 1023)
                                .wrapping_mul(3)
                                .wrapping_add(v)
                                .wrapping_add(r);
                            it.barrier();
                        }
                        out.set(it.global_linear_id(), v);
                    },
                )?;
            }
            (Kernel::Rotate128, Form::Phased) => {
                exec.launch_phased_out(
                    &launch,
                    &mut plain[..64 * 1024],
                    || (),
                    |g, _, o| {
                        // Tells LLVM the item loops' trip count: with it, `& 1023` is
                        // known to be a no-op and the neighbour read a contiguous load.
                        assert_eq!(g.local_size(0), 1024);
                        let base = g.group_linear_id() * 1024;
                        let mut v = g.private::<u32>();
                        v.copy_from_slice(&input[base..base + 1024]);
                        let mut s = [0u32; 1024];
                        for r in 0..64 {
                            // `items_with` hands each work-item its private element directly,
                            // which keeps the loop free of reloads (and vectorised).
                            g.items_with(&mut v, |it, v| s[it.local_linear_id() & 1023] = *v);
                            // barrier
                            g.items_with(&mut v, |it, v| {
                                let l = it.local_linear_id();
                                *v = s[(l + 1) & 1023]
                                    .wrapping_mul(3)
                                    .wrapping_add(*v)
                                    .wrapping_add(r);
                            });
                            // barrier
                        }
                        o.copy_from_slice(&v);
                    },
                )?;
            }
            (Kernel::Hash16, Form::Coroutine) => {
                exec.launch_with(
                    &launch,
                    || (),
                    |it, _| {
                        let i = it.global_linear_id();
                        out.set(i, hash(i as u32));
                    },
                )?;
            }
            (Kernel::Hash16, Form::Phased) => {
                exec.launch_phased_out(
                    &launch,
                    plain,
                    || (),
                    |g, _, o| {
                        g.items_with(o, |it, o| *o = hash(it.global_linear_id() as u32));
                    },
                )?;
            }
            (Kernel::Hash16, Form::PlainLoop) => {
                for (i, o) in plain.iter_mut().enumerate() {
                    *o = hash(i as u32);
                }
            }
            (Kernel::Hash16, Form::PlainLoopThreads) => {
                split(plain, threads, |i, o| *o = hash(i as u32))
            }
            (Kernel::Store3, Form::Coroutine) => {
                exec.launch_with(
                    &launch,
                    || (),
                    |it, _| {
                        let i = it.global_linear_id();
                        out.set(i, (i as u32).wrapping_mul(3));
                    },
                )?;
            }
            (Kernel::Store3, Form::Phased) => {
                exec.launch_phased_out(
                    &launch,
                    plain,
                    || (),
                    |g, _, o| {
                        g.items_with(o, |it, o| {
                            *o = (it.global_linear_id() as u32).wrapping_mul(3)
                        });
                    },
                )?;
            }
            (Kernel::Store3, Form::PlainLoop) => {
                for (i, o) in plain.iter_mut().enumerate() {
                    *o = (i as u32).wrapping_mul(3);
                }
            }
            (Kernel::Store3, Form::PlainLoopThreads) => {
                split(plain, threads, |i, o| *o = (i as u32).wrapping_mul(3))
            }
            (Kernel::Stencil2d, Form::Coroutine) => {
                exec.launch_with(
                    &launch,
                    || LocalArray::<u32>::new(18 * 18),
                    |it, tile| {
                        let (lx, ly) = (it.local_id(0), it.local_id(1));
                        let bx = (it.group_id(0) * 16) as isize - 1;
                        let by = (it.group_id(1) * 16) as isize - 1;
                        let mut j = ly * 16 + lx;
                        while j < 18 * 18 {
                            let gx = (bx + (j % 18) as isize).clamp(0, W as isize - 1) as usize;
                            let gy = (by + (j / 18) as isize).clamp(0, W as isize - 1) as usize;
                            tile.set(j, input[gy * W + gx]);
                            j += 256;
                        }
                        it.barrier();
                        let c = (ly + 1) * 18 + lx + 1;
                        let v = tile
                            .get(c)
                            .wrapping_mul(4)
                            .wrapping_add(tile.get(c - 1))
                            .wrapping_add(tile.get(c + 1))
                            .wrapping_add(tile.get(c - 18))
                            .wrapping_add(tile.get(c + 18));
                        out.set(it.global_id(1) * W + it.global_id(0), v);
                    },
                )?;
            }
            (Kernel::Stencil2d, Form::Phased) => {
                exec.launch_phased(
                    &launch,
                    || (),
                    |g, _| {
                        let bx = (g.group_id(0) * 16) as isize - 1;
                        let by = (g.group_id(1) * 16) as isize - 1;
                        let clamp = |v: isize| v.clamp(0, W as isize - 1) as usize;
                        // The tile load is group code: one row copy per tile row (the clamped
                        // columns only at the grid's left and right edges).
                        let mut tile = [0u32; 18 * 18];
                        for (r, row) in tile.chunks_exact_mut(18).enumerate() {
                            let src = &input[clamp(by + r as isize) * W..][..W];
                            if bx >= 0 && bx + 18 <= W as isize {
                                row.copy_from_slice(&src[bx as usize..bx as usize + 18]);
                            } else {
                                for (c, t) in row.iter_mut().enumerate() {
                                    *t = src[clamp(bx + c as isize)];
                                }
                            }
                        }
                        // barrier
                        g.items(|it| {
                            let c = (it.local_id(1) + 1) * 18 + it.local_id(0) + 1;
                            let v = tile[c]
                                .wrapping_mul(4)
                                .wrapping_add(tile[c - 1])
                                .wrapping_add(tile[c + 1])
                                .wrapping_add(tile[c - 18])
                                .wrapping_add(tile[c + 18]);
                            out.set(it.global_id(1) * W + it.global_id(0), v);
                        });
                    },
                )?;
            }
            (Kernel::Histogram, Form::Coroutine) => {
                exec.launch_with(
                    &launch,
                    || LocalArray::<u32>::new(256),
                    |it, bins| {
                        let l = it.local_linear_id();
                        bins.set(l, 0);
                        it.barrier();
                        let base = it.group_linear_id() * 256 * 16;
                        for k in 0..16 {
                            let b = ((input[base + k * 256 + l] >> 8) & 255) as usize;
                            // A local atomic: the group's work-items run on one thread.
                            bins.set(b, bins.get(b) + 1);
                        }
                        it.barrier();
                        out.fetch_add(l, bins.get(l), Ordering::Relaxed);
                    },
                )?;
            }
            (Kernel::Histogram, Form::Phased) => {
                exec.launch_phased(
                    &launch,
                    || (),
                    |g, _| {
                        let base = g.group_linear_id() * 256 * 16;
                        let inp = &input[base..base + 256 * 16];
                        let mut bins = [0u32; 256];
                        g.items(|it| {
                            let l = it.local_linear_id() & 255;
                            for k in 0..16 {
                                bins[((inp[k * 256 + l] >> 8) & 255) as usize] += 1;
                            }
                        });
                        // barrier
                        g.items(|it| {
                            let l = it.local_linear_id() & 255;
                            out.fetch_add(l, bins[l], Ordering::Relaxed);
                        });
                    },
                )?;
            }
            (k, f) => {
                return Err(crate::Error::InvalidLaunch(format!(
                    "{} has no {} form",
                    k.name(),
                    f.label()
                )))
            }
        }
        Ok(())
    }
}

fn writes_plain(kernel: Kernel, form: Form) -> bool {
    match form {
        Form::PlainLoop | Form::PlainLoopThreads => true,
        Form::Coroutine => false,
        Form::Phased => !matches!(kernel, Kernel::Stencil2d | Kernel::Histogram),
    }
}

/// `f(i, &mut out[i])` for every `i`, split in `threads` contiguous parts on scoped threads.
fn split<F: Fn(usize, &mut u32) + Sync>(out: &mut [u32], threads: usize, f: F) {
    let part = out.len().div_ceil(threads.max(1));
    std::thread::scope(|s| {
        for (p, chunk) in out.chunks_mut(part).enumerate() {
            let f = &f;
            s.spawn(move || {
                for (j, o) in chunk.iter_mut().enumerate() {
                    f(p * part + j, o);
                }
            });
        }
    });
}

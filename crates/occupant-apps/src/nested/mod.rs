//! The nested-parallelism suite of seed 003 (§VI-B, Fig. 5, Table II) on occupant's fork-join
//! regions (`occ::fj`): nine kernels spanning the seed's spectrum of outer:inner loop ratios,
//! inner-loop sizes, reductions/atomics and coalescing, each written SPMD (one thread per outer
//! iteration) and nested (a master per block walks outer iterations and forks a region over
//! each inner loop); the short-inner-loop kernels also have an *adaptive* nested version that
//! pays the region entry once per chunk of outer iterations. Results are verified equal.
//!
//! ```no_run
//! let gpu = occupant::cuda::Gpu::open(0)?;
//! let results = occupant_apps::nested::run_suite(&gpu, &occupant_apps::nested::suite(), 5)?;
//! for r in &results {
//!     println!("{}: nested {:.2}x", r.name, r.speedup);
//! }
//! # Ok::<(), occupant::Error>(())
//! ```

use occupant::cuda::{CompileOptions, DeviceBuffer, Gpu, LaunchConfig};
use occupant::{args, Error, Result};
use serde::Serialize;

mod report;
pub use report::NestedReport;

/// The kernels (`<name>_spmd`, `<name>_nested`, some `<name>_adaptive`).
pub const NESTED_CU: &str = include_str!("nested.cu");

/// One kernel of the suite and how it is launched.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KernelSpec {
    /// Kernel name prefix.
    pub name: &'static str,
    /// What it models (seed 003 Table II row).
    pub models: &'static str,
    /// Outer-loop iterations.
    pub outer: usize,
    /// Inner-loop iterations (the largest, for triangular loops).
    pub inner: usize,
    /// Mean inner-loop iterations.
    pub mean_inner: f64,
    /// Whether it has an `_adaptive` variant.
    pub adaptive: bool,
    /// Blocks and worker warps of the nested version.
    pub nested_blocks: usize,
    /// Worker warps per nested block (the block has 32 × (warps + 1) threads).
    pub nested_warps: usize,
    /// Worker warps per adaptive block (one block per chunk of 32 × warps outer iterations,
    /// 32 × (warps + 1) threads): [`DEFAULT_ADAPTIVE_WARPS`] unless changed.
    pub adaptive_warps: usize,
}

/// Worker warps of an adaptive block by default.
pub const DEFAULT_ADAPTIVE_WARPS: usize = 7;

impl KernelSpec {
    /// Whether the inner loops carry more iterations than the outer loop (the seed's kernels
    /// with an outer:inner ratio below 1, where nesting pays).
    pub fn inner_dominated(&self) -> bool {
        self.mean_inner > self.outer as f64
    }
}

/// The suite at its default sizes.
pub fn suite() -> Vec<KernelSpec> {
    let k = |name, models, outer, inner, mean_inner, adaptive, nested_blocks, nested_warps| {
        KernelSpec {
            name,
            models,
            outer,
            inner,
            mean_inner,
            adaptive,
            nested_blocks,
            nested_warps,
            adaptive_warps: DEFAULT_ADAPTIVE_WARPS,
        }
    };
    vec![
        k(
            "backprop",
            "backprop 1:4000, very long inner loop, inner reduction",
            16,
            1 << 16,
            65536.0,
            false,
            16,
            31,
        ),
        k(
            "lud",
            "lud 1:500..500:1, triangular inner loop, inner reduction",
            2048,
            2048,
            1023.5,
            false,
            528,
            7,
        ),
        k(
            "imghisto",
            "imghisto 1:6000, inner atomics",
            8,
            1 << 16,
            65536.0,
            false,
            8,
            31,
        ),
        k(
            "streamcluster",
            "streamcluster 1:25, inner reduction, outer atomic",
            1024,
            4096,
            4096.0,
            false,
            528,
            7,
        ),
        k(
            "haccmk",
            "HACCmk 1:20, inner reduction",
            1024,
            20480,
            20480.0,
            false,
            1024,
            7,
        ),
        k(
            "pbt",
            "pbt K1/K2, large loop body",
            256,
            1024,
            1024.0,
            false,
            256,
            7,
        ),
        k(
            "bfs",
            "bfs 10000:1, short inner loop (8 neighbours)",
            1 << 20,
            8,
            8.0,
            true,
            2112,
            1,
        ),
        k(
            "kmeans",
            "kmeans 10000:1, very short inner loop (5 centres)",
            1 << 18,
            5,
            5.0,
            true,
            2112,
            1,
        ),
        k(
            "particlefilter",
            "particlefilter 100:1, inner reduction of 64",
            16384,
            64,
            64.0,
            true,
            1056,
            2,
        ),
    ]
}

/// The suite with every size cut down (outer loops by 64, inner loops by 16, at least 8
/// iterations each) and at most 64 nested blocks: for compute-sanitizer runs.
///
/// ```
/// let small = occupant_apps::nested::suite_small();
/// assert!(small.iter().all(|k| k.outer >= 8 && k.nested_blocks <= 64));
/// ```
pub fn suite_small() -> Vec<KernelSpec> {
    suite()
        .into_iter()
        .map(|mut k| {
            k.outer = (k.outer / 64).max(8);
            if k.inner > 64 {
                k.inner = (k.inner / 16).max(8);
                k.mean_inner = if k.name == "lud" {
                    (k.inner as f64 - 1.0) / 2.0
                } else {
                    k.inner as f64
                };
            }
            if k.name == "lud" {
                k.inner = k.outer;
                k.mean_inner = (k.outer as f64 - 1.0) / 2.0;
            }
            k.nested_blocks = k.nested_blocks.min(64);
            k
        })
        .collect()
}

/// One kernel's measured outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NestedResult {
    /// Kernel name.
    pub name: String,
    /// What it models.
    pub models: String,
    /// Outer iterations.
    pub outer: usize,
    /// Mean inner iterations.
    pub mean_inner: f64,
    /// Inner loops dominate.
    pub inner_dominated: bool,
    /// Median SPMD time, ms (host-timed launch to completion).
    pub spmd_ms: f64,
    /// Median nested time, ms.
    pub nested_ms: f64,
    /// Median adaptive-nested time, ms (kernels that have one).
    pub adaptive_ms: Option<f64>,
    /// spmd_ms / nested_ms.
    pub speedup: f64,
    /// spmd_ms / adaptive_ms.
    pub adaptive_speedup: Option<f64>,
    /// Largest relative difference between the versions' float outputs (0 for exact ones).
    pub max_rel_diff: f64,
    /// Every version's outputs agree (ints exactly, floats within 1e-3 relative).
    pub verified: bool,
}

struct Inputs {
    fa: DeviceBuffer<f32>,
    fb: DeviceBuffer<f32>,
    ia: DeviceBuffer<i32>,
    ib: DeviceBuffer<i32>,
    fout_len: usize,
    iout_len: usize,
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn f(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

fn inputs(gpu: &Gpu, s: &KernelSpec) -> Result<Inputs> {
    let mut r = Rng(0x9E37_79B9_7F4A_7C15 ^ s.outer as u64);
    let fv = |r: &mut Rng, n: usize| (0..n).map(|_| r.f()).collect::<Vec<f32>>();
    let one = |v: f32| vec![v];
    let (fa, fb, ia, ib, fout_len, iout_len): (
        Vec<f32>,
        Vec<f32>,
        Vec<i32>,
        Vec<i32>,
        usize,
        usize,
    ) = match s.name {
        "backprop" => (
            fv(&mut r, s.outer * s.inner),
            fv(&mut r, s.inner),
            vec![0],
            vec![0],
            s.outer,
            1,
        ),
        "lud" => (
            fv(&mut r, s.outer * s.inner),
            fv(&mut r, s.inner),
            vec![0],
            vec![0],
            s.outer,
            1,
        ),
        "imghisto" => {
            let px = (0..s.outer * s.inner)
                .map(|_| (r.next() % 4096) as i32)
                .collect();
            (one(0.0), one(0.0), px, vec![0], 1, s.outer * 4096)
        }
        "streamcluster" => (
            fv(&mut r, s.outer * s.inner),
            fv(&mut r, s.inner),
            vec![0],
            vec![0],
            s.outer,
            1,
        ),
        "haccmk" => (
            fv(&mut r, s.inner),
            fv(&mut r, s.inner),
            vec![0],
            vec![0],
            s.outer,
            1,
        ),
        "pbt" => (
            fv(&mut r, 64 * 25),
            one(0.0),
            vec![0],
            vec![0],
            s.outer * s.inner,
            1,
        ),
        "bfs" => {
            let n = s.outer;
            let rows: Vec<i32> = (0..=n).map(|u| (u * s.inner) as i32).collect();
            let cols: Vec<i32> = (0..n * s.inner)
                .map(|_| (r.next() % n as u64) as i32)
                .collect();
            (one(0.0), one(0.0), rows, cols, 1, n)
        }
        "kmeans" => (
            fv(&mut r, s.outer * 8),
            fv(&mut r, s.inner * 8),
            vec![0],
            vec![0],
            1,
            s.outer,
        ),
        "particlefilter" => {
            let img = (0..1 << 20).map(|_| (r.next() % 256) as i32).collect();
            let bases = (0..s.outer)
                .map(|_| (r.next() % (1 << 20)) as i32)
                .collect();
            (one(0.0), one(0.0), img, bases, s.outer, 1)
        }
        other => return Err(Error::Input(format!("unknown nested kernel `{other}`"))),
    };
    Ok(Inputs {
        fa: gpu.upload(&fa)?,
        fb: gpu.upload(&fb)?,
        ia: gpu.upload(&ia)?,
        ib: gpu.upload(&ib)?,
        fout_len,
        iout_len,
    })
}

/// One version's outputs and median time.
struct Outcome {
    fout: Vec<f32>,
    iout: Vec<i32>,
    dacc: f64,
    ms: f64,
}

fn run_version(
    gpu: &Gpu,
    m: &occupant::cuda::Module,
    kernel: &str,
    cfg: &LaunchConfig,
    s: &KernelSpec,
    inp: &Inputs,
    reps: usize,
) -> Result<Outcome> {
    let mut fout = gpu.alloc_zeroed::<f32>(inp.fout_len)?;
    let mut iout = gpu.alloc_zeroed::<i32>(inp.iout_len)?;
    let mut dacc = gpu.alloc_zeroed::<f64>(1)?;
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        fout.zero()?;
        iout.zero()?;
        dacc.zero()?;
        let rep = m.launch(
            kernel,
            cfg,
            &args![
                &inp.fa,
                &inp.fb,
                &inp.ia,
                &inp.ib,
                &fout,
                &iout,
                s.outer as i32,
                s.inner as i32,
                &dacc
            ],
        )?;
        times.push(rep.elapsed_us / 1000.0);
    }
    Ok(Outcome {
        fout: fout.to_vec()?,
        iout: iout.to_vec()?,
        dacc: dacc.to_vec()?[0],
        ms: occupant::model::forkjoin::median(&times),
    })
}

fn compare(a: &Outcome, b: &Outcome) -> (bool, f64) {
    let mut worst = 0f64;
    for (x, y) in a.fout.iter().zip(&b.fout) {
        let d = (*x as f64 - *y as f64).abs() / (x.abs().max(y.abs()) as f64).max(1.0);
        worst = worst.max(if d.is_nan() { f64::INFINITY } else { d });
    }
    let dd = (a.dacc - b.dacc).abs() / a.dacc.abs().max(b.dacc.abs()).max(1.0);
    worst = worst.max(dd);
    (a.iout == b.iout && worst <= 1e-3, worst)
}

/// Runs every kernel of `specs` in each version `reps` times and verifies the versions agree.
pub fn run_suite(gpu: &Gpu, specs: &[KernelSpec], reps: usize) -> Result<Vec<NestedResult>> {
    let m = gpu.compile("nested.cu", NESTED_CU, &CompileOptions::default())?;
    let mut out = Vec::new();
    for s in specs {
        let inp = inputs(gpu, s)?;
        let spmd_cfg = LaunchConfig::plain(s.outer.div_ceil(256).clamp(1, 65535), 256);
        let nested_cfg = LaunchConfig::plain(s.nested_blocks, 32 * (s.nested_warps + 1));
        let spmd = run_version(
            gpu,
            &m,
            &format!("{}_spmd", s.name),
            &spmd_cfg,
            s,
            &inp,
            reps,
        )?;
        let nested = run_version(
            gpu,
            &m,
            &format!("{}_nested", s.name),
            &nested_cfg,
            s,
            &inp,
            reps,
        )?;
        let (mut ok, mut worst) = compare(&spmd, &nested);
        let mut adaptive_ms = None;
        if s.adaptive {
            // One block per chunk of 32 W outer iterations (a region each), as many blocks as
            // the outer loop needs: on an H100 bfs went from 0.82x to 0.91x of SPMD and kmeans
            // from 0.78x to 0.84x (W = 7) against a grid capped at one wave (132 SMs x 8
            // blocks), whose blocks loop over several chunks and finish unevenly.
            let w = s.adaptive_warps.clamp(1, 31);
            let cfg = LaunchConfig::plain(s.outer.div_ceil(32 * w).clamp(1, 65535), 32 * (w + 1));
            let a = run_version(
                gpu,
                &m,
                &format!("{}_adaptive", s.name),
                &cfg,
                s,
                &inp,
                reps,
            )?;
            let (ok2, w2) = compare(&spmd, &a);
            ok &= ok2;
            worst = worst.max(w2);
            adaptive_ms = Some(a.ms);
        }
        out.push(NestedResult {
            name: s.name.to_string(),
            models: s.models.to_string(),
            outer: s.outer,
            mean_inner: s.mean_inner,
            inner_dominated: s.inner_dominated(),
            spmd_ms: spmd.ms,
            nested_ms: nested.ms,
            adaptive_ms,
            speedup: spmd.ms / nested.ms,
            adaptive_speedup: adaptive_ms.map(|a| spmd.ms / a),
            max_rel_diff: worst,
            verified: ok,
        });
    }
    Ok(out)
}

/// Geometric mean of the nested speedups of the inner-dominated kernels (the seed's 3.6×).
///
/// ```
/// use occupant_apps::nested::{geomean_inner_dominated, NestedResult};
/// assert!(geomean_inner_dominated(&[]).is_nan());
/// ```
pub fn geomean_inner_dominated(results: &[NestedResult]) -> f64 {
    let v: Vec<f64> = results
        .iter()
        .filter(|r| r.inner_dominated)
        .map(|r| r.speedup)
        .collect();
    if v.is_empty() {
        return f64::NAN;
    }
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

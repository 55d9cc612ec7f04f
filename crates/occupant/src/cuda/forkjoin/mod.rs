//! Host side of the fork-join device library `occ::fj` (`device/forkjoin.cuh`): its semantics
//! program and its EPCC overhead benchmark, launched on a GPU.

use crate::cuda::{CompileOptions, Gpu, LaunchConfig};
use crate::model::forkjoin::{overheads, EpccConfig, EpccRow, SEMANTICS_CHECKS, SEMANTICS_HITS};
use crate::{args, Error, Result};

/// The semantics kernels (`fj_semantics`), the GPU twin of `tests/cpu_forkjoin.rs`.
pub const TESTS_CU: &str = include_str!("../kernels/forkjoin_tests.cu");

/// The EPCC benchmark kernel (`fj_epcc`).
pub const BENCH_CU: &str = include_str!("../kernels/forkjoin_bench.cu");

/// What the semantics program produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Semantics {
    /// Per block, the [`SEMANTICS_CHECKS`] values (compare with
    /// [`expected_semantics`](crate::model::forkjoin::expected_semantics)).
    pub values: Vec<[i64; SEMANTICS_CHECKS]>,
    /// Per block, how often each worksharing iteration ran: 3 × [`SEMANTICS_HITS`] counters
    /// (static, static chunked: once; the two dynamic loops: twice).
    pub hits: Vec<Vec<u32>>,
}

/// Runs `fj_semantics` in `blocks` blocks of `32 * (warps + 1)` threads whose partial regions
/// have `n_small` threads.
pub fn semantics(gpu: &Gpu, blocks: usize, warps: usize, n_small: u32) -> Result<Semantics> {
    semantics_shape(gpu, blocks, warps, n_small, false)
}

/// [`semantics`] with the launch shape chosen: `lone_master` runs blocks of `32 * warps + 1`
/// threads (the master warp is one thread) instead of `32 * (warps + 1)`.
pub fn semantics_shape(
    gpu: &Gpu,
    blocks: usize,
    warps: usize,
    n_small: u32,
    lone_master: bool,
) -> Result<Semantics> {
    semantics_with(gpu, blocks, warps, n_small, lone_master, &[])
}

/// [`semantics_shape`] with the test program compiled with `defines` (`NAME` or `NAME=VALUE`:
/// a protocol variant of the device library, e.g. `OCC_FJ_CACHE=1`).
pub fn semantics_with(
    gpu: &Gpu,
    blocks: usize,
    warps: usize,
    n_small: u32,
    lone_master: bool,
    defines: &[String],
) -> Result<Semantics> {
    if !(1..=31).contains(&warps) || blocks == 0 {
        return Err(Error::InvalidLaunch(format!(
            "fork-join blocks have 1..=31 worker warps (got {warps}) and there is at least one block"
        )));
    }
    let opts = CompileOptions {
        options: defines.iter().map(|d| format!("-D{d}")).collect(),
        ..CompileOptions::default()
    };
    let m = gpu.compile("forkjoin_tests.cu", TESTS_CU, &opts)?;
    let out = gpu.alloc_zeroed::<i64>(blocks * SEMANTICS_CHECKS)?;
    let hits = gpu.alloc_zeroed::<u32>(blocks * 3 * SEMANTICS_HITS)?;
    let spill_per_block = 8192u32;
    let spill = gpu.alloc_zeroed::<u8>(blocks * spill_per_block as usize)?;
    m.launch(
        "fj_semantics",
        &LaunchConfig::plain(
            blocks,
            if lone_master {
                32 * warps + 1
            } else {
                32 * (warps + 1)
            },
        ),
        &args![
            &out,
            &hits,
            SEMANTICS_HITS as i32,
            &spill,
            spill_per_block,
            n_small
        ],
    )?;
    let v = out.to_vec()?;
    let h = hits.to_vec()?;
    Ok(Semantics {
        values: v
            .chunks(SEMANTICS_CHECKS)
            .map(|c| c.try_into().expect("chunks of SEMANTICS_CHECKS"))
            .collect(),
        hits: h.chunks(3 * SEMANTICS_HITS).map(|c| c.to_vec()).collect(),
    })
}

/// Runs the EPCC overhead benchmark (`fj_epcc`, one block per worker count; `delay` in
/// cycles). Worker counts must be multiples of 32 in 32..=992.
pub fn epcc(gpu: &Gpu, cfg: &EpccConfig) -> Result<Vec<EpccRow>> {
    if cfg.reps == 0 || cfg.rounds == 0 {
        return Err(Error::Input(
            "EPCC needs at least one repetition and one round".into(),
        ));
    }
    // Any macros asked for (a variant under test).
    let mut opts = CompileOptions::default();
    for d in &cfg.defines {
        opts = opts.option(format!("-D{d}"));
    }
    let m = gpu.compile("forkjoin_bench.cu", BENCH_CU, &opts)?;
    let mut rows = Vec::new();
    for &w in &cfg.workers {
        if w % 32 != 0 || !(32..=992).contains(&w) {
            return Err(Error::Input(format!(
                "EPCC worker counts are multiples of 32 in 32..=992 (got {w})"
            )));
        }
        let out = gpu.alloc_zeroed::<i64>(cfg.rounds * 7 * 2)?;
        let check = gpu.alloc_zeroed::<i32>(1)?;
        m.launch(
            "fj_epcc",
            &LaunchConfig::plain(1, if cfg.lone_master { w + 1 } else { w + 32 }),
            &args![
                &out,
                cfg.reps as i32,
                cfg.delay as i64,
                w as u32,
                cfg.rounds as i32,
                &check
            ],
        )?;
        let bad = check.to_vec()?[0];
        if bad != 0 {
            return Err(Error::Backend {
                backend: "cuda",
                call: "fj_epcc".into(),
                message: format!("the reduction construct summed {bad}, not reps × {w}"),
            });
        }
        let v = out.to_vec()?;
        let raw: Vec<[(i64, i64); 7]> = v
            .chunks(14)
            .map(|r| std::array::from_fn(|c| (r[2 * c], r[2 * c + 1])))
            .collect();
        rows.extend(overheads("occupant-cuda", w, cfg.reps, &raw));
    }
    Ok(rows)
}

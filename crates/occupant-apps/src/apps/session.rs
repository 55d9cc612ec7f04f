//! One application on one graph, run in some variants of a backend, every run timed and
//! (optionally) verified against the sequential reference: what `occupant run` does, for users
//! who want it from Rust.

use super::cuda::{AppPrograms, CudaInput};
use super::{run_cpu_with, verify, AppKind, AppOutput, AppParams, CpuOptions, RunReport, Variant};
use crate::graph::Csr;
use occupant::cpu::Executor;
use occupant::cuda::Gpu;
use occupant::Result;

/// Where an [`AppSession`] runs: the CPU executor, or a GPU with the applications' programs
/// compiled once and the input uploaded once for every variant and run.
enum Target {
    Cpu {
        exec: Executor,
        opts: CpuOptions,
    },
    Cuda {
        progs: Box<AppPrograms>,
        input: Box<CudaInput>,
    },
}

/// One application on one graph, ready to run in any variant of its backend.
///
/// ```
/// use occupant::cpu::{ExecModel, Executor};
/// use occupant_apps::apps::{AppKind, AppParams, AppSession, CpuOptions, Variant};
/// use occupant_apps::graph::GraphSpec;
/// let g = "grid:16x16".parse::<GraphSpec>().unwrap().csr().unwrap();
/// let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 2 });
/// let p = AppParams::default();
/// let mut s = AppSession::cpu(exec, CpuOptions::default(), AppKind::Bfs, &g, &p);
/// let runs = s.run_variants(Variant::of_backend(false), 2, true, |_| {}).unwrap();
/// assert!(runs.failures.is_empty());
/// assert_eq!(runs.reports.len(), 2 * Variant::of_backend(false).len());
/// assert!(runs.reports.iter().all(|r| r.verified == Some(true)));
/// ```
pub struct AppSession<'g> {
    target: Target,
    app: AppKind,
    g: &'g Csr,
    p: AppParams,
}

/// What [`AppSession::run_variants`] did: every run's report in order, the first variant's
/// last output, and one line per run whose output did not match the reference.
pub struct VariantRuns {
    /// Every run, variant after variant.
    pub reports: Vec<RunReport>,
    /// The output of the first variant's last run (None: no run).
    pub first_output: Option<AppOutput>,
    /// `"<app> <variant>: <what differs>"` per failed verification.
    pub failures: Vec<String>,
}

impl<'g> AppSession<'g> {
    /// `app` on `g` on the CPU executor `exec`.
    pub fn cpu(
        exec: Executor,
        opts: CpuOptions,
        app: AppKind,
        g: &'g Csr,
        p: &AppParams,
    ) -> AppSession<'g> {
        AppSession {
            target: Target::Cpu { exec, opts },
            app,
            g,
            p: *p,
        }
    }

    /// `app` on `g` on `gpu`: compiles the applications' programs and uploads the input (once).
    pub fn cuda(gpu: &Gpu, app: AppKind, g: &'g Csr, p: &AppParams) -> Result<AppSession<'g>> {
        let progs = AppPrograms::compile(gpu, None)?;
        let input = CudaInput::prepare(gpu, app, g, p)?;
        Ok(AppSession {
            target: Target::Cuda {
                progs: Box::new(progs),
                input: Box::new(input),
            },
            app,
            g,
            p: *p,
        })
    }

    /// One run in `variant` (one of the session's backend).
    pub fn run(&mut self, variant: Variant) -> Result<(AppOutput, RunReport)> {
        match &mut self.target {
            Target::Cpu { exec, opts } => {
                run_cpu_with(exec, self.app, variant, self.g, &self.p, opts)
            }
            Target::Cuda { progs, input } => input.run(progs, variant),
        }
    }

    /// `runs` runs of every variant in turn, each verified against the reference when `check`
    /// (a mismatch is listed in [`VariantRuns::failures`], not an error); `done` gets each
    /// variant's reports as soon as its runs are over (progress). Errors: a run that failed.
    pub fn run_variants(
        &mut self,
        variants: &[Variant],
        runs: u32,
        check: bool,
        mut done: impl FnMut(&[RunReport]),
    ) -> Result<VariantRuns> {
        let mut out = VariantRuns {
            reports: Vec::new(),
            first_output: None,
            failures: Vec::new(),
        };
        for (i, &variant) in variants.iter().enumerate() {
            let first = out.reports.len();
            for _ in 0..runs {
                let (o, mut r) = self.run(variant)?;
                if check {
                    let verdict = verify(self.app, self.g, &self.p, &o);
                    r.verified = Some(verdict.is_ok());
                    if let Err(e) = verdict {
                        out.failures.push(format!("{} {variant}: {e}", self.app));
                    }
                }
                out.reports.push(r);
                if i == 0 {
                    out.first_output = Some(o);
                }
            }
            done(&out.reports[first..]);
        }
        Ok(out)
    }
}

//! Graph applications (issue 10): bfs, sssp (Bellman-Ford and worklist), colour, MIS, bc,
//! PageRank and connected components, each with a sequential [`reference()`] and a [`verify`]
//! check, run by a backend in one of its [`Variant`]s.
//!
//! The types here are shared by both backends: [`AppKind`] (which application), [`Variant`]
//! (how iterations are separated), [`AppParams`], [`AppOutput`] (one value per vertex) and
//! [`RunReport`]. [`prep`] holds the host-side preparation every backend does the same way
//! (undirected graph, transpose, vertex priorities).

pub mod bench;
pub mod cpu;
pub mod cuda;
mod kind;
mod output;
mod params;
pub mod prep;
mod report;
mod session;
mod svg;
mod variant;
mod verify;

pub use cpu::{run_cpu, run_cpu_with, CpuOptions};
pub use cuda::run_cuda;
pub use kind::AppKind;
pub use output::AppOutput;
pub use params::AppParams;
pub use prep::undirected;
pub use report::RunReport;
pub use session::{AppSession, VariantRuns};
pub use svg::speedup_svg;
pub use variant::Variant;
pub use verify::{reference, verify};

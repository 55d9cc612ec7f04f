//! Graphs in compressed sparse row form, their readers, writers and generators.
//!
//! Generators ([`gen`], or a [`GraphSpec`] string such as `rmat:scale=22,ef=16`) and readers
//! ([`read_graph`]: DIMACS `.gr`, MatrixMarket `.mtx`, SNAP edge lists) produce an
//! [`EdgeList`]; [`EdgeList::to_csr`] / [`Csr::build`] turn it into the [`Csr`] graph the
//! applications read, in parallel. [`GraphSource`] is "a file or a spec"; [`GraphStats`]
//! summarises a graph.

mod build;
mod csr;
mod dimacs;
mod edge_list;
mod format;
pub mod gen;
mod io_error;
mod matrix_market;
mod progress;
pub mod rng;
mod snap;
mod spec;
mod stats;
mod text_lines;

pub use build::BuildOptions;
pub use csr::{Csr, CsrError};
pub use dimacs::{read_dimacs, write_dimacs};
pub use edge_list::EdgeList;
pub use format::{
    create_output, load, read_graph, write_graph, write_graph_to, GraphFormat, GraphSource,
    KNOWN_EXTENSIONS,
};
pub use io_error::GraphIoError;
pub use matrix_market::{read_matrix_market, write_matrix_market};
pub use progress::{bar as progress_bar, PROGRESS_THRESHOLD};
pub use snap::{read_snap, write_snap};
pub use spec::{GraphSpec, SpecError, SPEC_FORMS};
pub use stats::{DegreeBucket, DegreeStats, GraphStats, WeightStats};

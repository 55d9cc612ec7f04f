//! Graphs in compressed sparse row form, their readers, writers and generators.
//!
//! Generators ([`gen`], or a [`GraphSpec`] string such as `rmat:scale=22,ef=16`) and readers
//! produce an [`EdgeList`]; [`EdgeList::to_csr`] / [`Csr::build`] turn it into the [`Csr`]
//! graph the applications read, in parallel.

mod build;
mod csr;
mod edge_list;
pub mod gen;
mod progress;
pub mod rng;
mod spec;

pub use build::BuildOptions;
pub use csr::{Csr, CsrError};
pub use edge_list::EdgeList;
pub use progress::{bar as progress_bar, PROGRESS_THRESHOLD};
pub use spec::{GraphSpec, SpecError, SPEC_FORMS};

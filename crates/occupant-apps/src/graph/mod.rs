//! Graphs in compressed sparse row form, their readers, writers and generators.

mod csr;

pub use csr::{Csr, CsrError};

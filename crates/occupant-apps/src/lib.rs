//! Applications built on occupant.

#![warn(missing_docs)]

pub mod coop_cuda;
pub mod graph;

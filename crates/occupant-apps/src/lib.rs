//! Applications built on occupant.

#![warn(missing_docs)]

pub mod apps;
pub mod coop;
pub mod coop_cuda;
pub mod graph;
pub mod nested;

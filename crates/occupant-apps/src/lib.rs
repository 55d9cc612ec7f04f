//! Applications built on occupant.

#![warn(missing_docs)]

pub mod apps;
pub mod graph;
pub mod nested;

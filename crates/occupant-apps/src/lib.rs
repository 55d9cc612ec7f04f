//! Applications built on occupant.

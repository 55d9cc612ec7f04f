//! NDRange: the launch shape in one to three dimensions.

use super::error::{Error, Result};
use serde::Serialize;

/// Three sizes or ids, one per dimension (`x`, `y`, `z`); unused dimensions are 1 (sizes) or 0 (ids).
pub type Dim3 = [usize; 3];

/// A kernel's launch shape: a global size, split into work-groups of `local` work-items.
///
/// ```
/// use occupant::model::NDRange;
/// let r = NDRange::d2([64, 32], [16, 8]).unwrap();
/// assert_eq!(r.num_groups(), [4, 4, 1]);
/// assert_eq!(r.group_count(), 16);
/// assert_eq!(r.local_count(), 128);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NDRange {
    dims: usize,
    global: Dim3,
    local: Dim3,
}

impl NDRange {
    /// A shape of `dims` dimensions; `global` and `local` give one entry per dimension.
    ///
    /// Fails with [`Error::InvalidLaunch`] on zero sizes, a global size that is not a multiple
    /// of the local size, more than 3 or fewer than 1 dimension, or an overflowing total.
    pub fn new(global: &[usize], local: &[usize]) -> Result<Self> {
        let dims = global.len();
        if !(1..=3).contains(&dims) {
            return Err(Error::InvalidLaunch(format!(
                "an NDRange has 1 to 3 dimensions, got {dims}"
            )));
        }
        if local.len() != dims {
            return Err(Error::InvalidLaunch(format!(
                "global size has {dims} dimension(s) but local size has {}",
                local.len()
            )));
        }
        let mut g = [1; 3];
        let mut l = [1; 3];
        for d in 0..dims {
            if global[d] == 0 || local[d] == 0 {
                return Err(Error::InvalidLaunch(format!(
                    "size 0 in dimension {d} (global {}, local {}); every size must be at least 1",
                    global[d], local[d]
                )));
            }
            if global[d] % local[d] != 0 {
                return Err(Error::InvalidLaunch(format!(
                    "global size {} in dimension {d} is not a multiple of local size {}; round it up to {}",
                    global[d],
                    local[d],
                    global[d].div_ceil(local[d]) * local[d]
                )));
            }
            g[d] = global[d];
            l[d] = local[d];
        }
        let total = g.iter().try_fold(1usize, |a, &b| a.checked_mul(b));
        if total.is_none() {
            return Err(Error::InvalidLaunch(
                "the global size overflows the address space".into(),
            ));
        }
        Ok(Self {
            dims,
            global: g,
            local: l,
        })
    }

    /// One dimension: `global` work-items in groups of `local`.
    pub fn d1(global: usize, local: usize) -> Result<Self> {
        Self::new(&[global], &[local])
    }

    /// Two dimensions.
    pub fn d2(global: [usize; 2], local: [usize; 2]) -> Result<Self> {
        Self::new(&global, &local)
    }

    /// Three dimensions.
    pub fn d3(global: [usize; 3], local: [usize; 3]) -> Result<Self> {
        Self::new(&global, &local)
    }

    /// One dimension given as a number of groups and a group size (the CUDA way).
    pub fn groups(num_groups: usize, local: usize) -> Result<Self> {
        let global = num_groups.checked_mul(local).ok_or_else(|| {
            Error::InvalidLaunch(format!("{num_groups} groups × {local} overflows"))
        })?;
        Self::d1(global, local)
    }

    /// Number of dimensions (1–3).
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Global size per dimension.
    pub fn global_size(&self) -> Dim3 {
        self.global
    }

    /// Local (work-group) size per dimension.
    pub fn local_size(&self) -> Dim3 {
        self.local
    }

    /// Number of groups per dimension.
    pub fn num_groups(&self) -> Dim3 {
        [
            self.global[0] / self.local[0],
            self.global[1] / self.local[1],
            self.global[2] / self.local[2],
        ]
    }

    /// Total number of work-groups.
    pub fn group_count(&self) -> usize {
        self.num_groups().iter().product()
    }

    /// Work-items per group.
    pub fn local_count(&self) -> usize {
        self.local.iter().product()
    }

    /// Total number of work-items.
    pub fn global_count(&self) -> usize {
        self.global.iter().product()
    }

    /// Checks the local size against a backend's limit on work-items per group.
    pub fn check_local_limit(&self, max_local: usize) -> Result<()> {
        if self.local_count() > max_local {
            return Err(Error::InvalidLaunch(format!(
                "work-group of {} work-items ({:?}) exceeds this backend's limit of {max_local}",
                self.local_count(),
                &self.local[..self.dims]
            )));
        }
        Ok(())
    }
}

/// Splits a linear id into per-dimension ids (x fastest).
pub fn delinearize(mut id: usize, sizes: Dim3) -> Dim3 {
    let x = id % sizes[0];
    id /= sizes[0];
    let y = id % sizes[1];
    id /= sizes[1];
    [x, y, id]
}

/// Joins per-dimension ids into a linear id (x fastest).
pub fn linearize(id: Dim3, sizes: Dim3) -> usize {
    id[0] + sizes[0] * (id[1] + sizes[1] * id[2])
}

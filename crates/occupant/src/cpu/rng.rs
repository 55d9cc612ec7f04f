//! A tiny seeded generator (splitmix64) for the adversarial execution model.

use std::cell::Cell;

/// Splitmix64: small, fast, good enough to pick delays and orders.
#[derive(Debug)]
pub(crate) struct SplitMix(Cell<u64>);

impl SplitMix {
    pub(crate) fn new(seed: u64) -> Self {
        Self(Cell::new(seed ^ 0x9E37_79B9_7F4A_7C15))
    }

    pub(crate) fn next_u64(&self) -> u64 {
        let mut z = self.0.get().wrapping_add(0x9E37_79B9_7F4A_7C15);
        self.0.set(z);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub(crate) fn below(&self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// A seeded permutation of `0..n` (Fisher–Yates).
pub(crate) fn permutation(n: usize, seed: u64) -> Vec<usize> {
    let rng = SplitMix::new(seed);
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
    v
}

#[cfg(test)]
mod tests {
    #[test]
    fn permutation_is_a_permutation_and_seeded() {
        let p = super::permutation(100, 7);
        let mut s = p.clone();
        s.sort();
        assert_eq!(s, (0..100).collect::<Vec<_>>());
        assert_eq!(p, super::permutation(100, 7));
        assert_ne!(p, super::permutation(100, 8));
    }
}

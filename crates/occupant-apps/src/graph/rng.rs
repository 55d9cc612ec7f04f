//! Seeded, reproducible random streams for the generators.
//!
//! Parallel generators split their work into fixed-size chunks and give chunk `i` its own
//! stream [`stream(seed, i)`](stream), so a graph depends only on its parameters and seed —
//! not on the number of threads. (Streams come from `rand_xoshiro`'s Xoshiro256++ seeded by
//! SplitMix64; values are stable for the pinned versions of `rand`/`rand_xoshiro`.)

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator type every graph generator uses.
pub type GraphRng = Xoshiro256PlusPlus;

/// The random stream for chunk `chunk` of a generator seeded with `seed`.
pub fn stream(seed: u64, chunk: u64) -> GraphRng {
    GraphRng::seed_from_u64(splitmix64(
        seed ^ splitmix64(chunk.wrapping_add(0x5151_5151)),
    ))
}

/// One step of SplitMix64 (a bijective 64-bit mixer).
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

//! Values that fork-join reductions and the data-sharing stack carry: stored as 64-bit words.

/// A value of at most 64 bits that a fork-join reduction combines or the data-sharing stack
/// holds (the CUDA twin reduces `int`, `unsigned`, `long long`, `unsigned long long`, `float`
/// and `double`).
///
/// ```
/// use occupant::cpu::forkjoin::Word;
/// assert_eq!(f64::from_word((-2.5f64).to_word()), -2.5);
/// ```
pub trait Word: Copy + PartialOrd + std::ops::Add<Output = Self> {
    /// The value as a 64-bit word.
    fn to_word(self) -> u64;
    /// The value back from its word.
    fn from_word(w: u64) -> Self;
}

macro_rules! word_int {
    ($($t:ty),*) => {$(
        impl Word for $t {
            #[inline]
            fn to_word(self) -> u64 { self as u64 }
            #[inline]
            fn from_word(w: u64) -> Self { w as $t }
        }
    )*};
}
word_int!(i32, u32, i64, u64);

impl Word for f32 {
    #[inline]
    fn to_word(self) -> u64 {
        u64::from(self.to_bits())
    }
    #[inline]
    fn from_word(w: u64) -> Self {
        f32::from_bits(w as u32)
    }
}

impl Word for f64 {
    #[inline]
    fn to_word(self) -> u64 {
        self.to_bits()
    }
    #[inline]
    fn from_word(w: u64) -> Self {
        f64::from_bits(w)
    }
}

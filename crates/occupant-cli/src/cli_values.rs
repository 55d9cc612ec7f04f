//! Value parsers shared by every command: counts must be at least 1.

use std::str::FromStr;

/// Parses a count that must be at least 1: `--runs 0` is rejected with "must be at least 1"
/// (clap adds the argument's name). Use as `#[arg(value_parser = at_least_one::<usize>)]`.
pub fn at_least_one<T>(s: &str) -> Result<T, String>
where
    T: FromStr + PartialOrd + From<u8>,
    <T as FromStr>::Err: std::fmt::Display,
{
    let v: T = s.trim().parse().map_err(|e| format!("{e}"))?;
    if v < T::from(1) {
        return Err("must be at least 1".into());
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_is_rejected_and_one_accepted() {
        assert_eq!(
            at_least_one::<usize>("0").unwrap_err(),
            "must be at least 1"
        );
        assert_eq!(at_least_one::<u32>("1"), Ok(1));
        assert!(at_least_one::<usize>("x").is_err());
    }
}

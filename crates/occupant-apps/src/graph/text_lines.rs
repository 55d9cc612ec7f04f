//! Line-by-line reading of text graph files with line numbers, progress and clear errors,
//! and the token parsing the readers share.

use super::io_error::GraphIoError;
use indicatif::ProgressBar;
use std::io::BufRead;
use std::str::FromStr;

/// Reads lines (any of `\n`, `\r\n`), numbering them from 1.
pub(crate) struct TextLines<R> {
    reader: R,
    name: String,
    line: u64,
    buf: Vec<u8>,
    bar: ProgressBar,
}

impl<R: BufRead> TextLines<R> {
    /// Lines of `reader`, a file called `name` in errors; `bar` advances by bytes read.
    pub(crate) fn new(reader: R, name: &str, bar: ProgressBar) -> Self {
        TextLines {
            reader,
            name: name.to_string(),
            line: 0,
            buf: Vec::with_capacity(128),
            bar,
        }
    }

    /// The next line (without its end of line) and its number, or `None` at the end.
    pub(crate) fn next_line(&mut self) -> Result<Option<(u64, &str)>, GraphIoError> {
        self.buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| GraphIoError::io(&self.name, e))?;
        if n == 0 {
            self.bar.finish_and_clear();
            return Ok(None);
        }
        self.line += 1;
        self.bar.inc(n as u64);
        while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
            self.buf.pop();
        }
        let line = self.line;
        let text = std::str::from_utf8(&self.buf).map_err(|e| {
            GraphIoError::parse(
                &self.name,
                line,
                format!(
                    "not UTF-8 text (invalid byte at column {})",
                    e.valid_up_to() + 1
                ),
            )
        })?;
        Ok(Some((line, text)))
    }

    /// The number of the last line read (0 before the first).
    pub(crate) fn line(&self) -> u64 {
        self.line
    }
}

/// Parses the next token as `T`; `what` names it in the error ("source vertex").
pub(crate) fn field<'a, T: FromStr>(
    tokens: &mut impl Iterator<Item = &'a str>,
    what: &str,
) -> Result<T, String> {
    match tokens.next() {
        Some(tok) => tok
            .parse()
            .map_err(|_| format!("expected {what}, found `{}`", clip(tok))),
        None => Err(format!("expected {what}, but the line ends")),
    }
}

/// An error if tokens remain.
pub(crate) fn no_more<'a>(tokens: &mut impl Iterator<Item = &'a str>) -> Result<(), String> {
    match tokens.next() {
        Some(tok) => Err(format!("unexpected extra field `{}`", clip(tok))),
        None => Ok(()),
    }
}

/// A non-negative integer weight that fits `u32`.
pub(crate) fn weight(tok: Option<&str>) -> Result<u32, String> {
    let Some(tok) = tok else {
        return Err("expected an integer weight, but the line ends".into());
    };
    match tok.parse::<i128>() {
        Ok(w) if w < 0 => Err(format!("negative weight {w}: weights must be >= 0")),
        Ok(w) if w > i128::from(u32::MAX) => Err(format!(
            "weight {w} is larger than {} (weights are u32)",
            u32::MAX
        )),
        Ok(w) => Ok(w as u32),
        Err(_) => Err(format!("expected an integer weight, found `{}`", clip(tok))),
    }
}

/// At most 40 characters of a token, for messages.
pub(crate) fn clip(tok: &str) -> String {
    if tok.chars().count() <= 40 {
        tok.to_string()
    } else {
        format!("{}...", tok.chars().take(40).collect::<String>())
    }
}

/// Edges to reserve up front for a header's count (bounded so a lying header cannot exhaust
/// memory before the file proves it).
pub(crate) fn initial_capacity(declared: u64) -> usize {
    declared.min(1 << 24) as usize
}

//! MatrixMarket coordinate files (`.mtx`) as graphs: entry `(i, j)` is the edge `i-1 -> j-1`.
//!
//! Supported: `%%MatrixMarket matrix coordinate (pattern|integer|real) (general|symmetric)`.
//! Weights: `pattern` has none; `integer` values must be in `0..=u32::MAX`; `real` values must
//! be finite and non-negative and become `round(v)` clamped to `1..=u32::MAX` (every stored
//! entry is an edge of positive weight; a matrix of values below 1.5 becomes unit-weighted).
//! Negative values are refused: they are not shortest-path weights.

use super::dimacs::directed_count;
use super::io_error::GraphIoError;
use super::text_lines::{clip, field, initial_capacity, no_more, weight, TextLines};
use super::EdgeList;
use indicatif::ProgressBar;
use std::io::{BufRead, Write};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Field {
    Pattern,
    Integer,
    Real,
}

/// Reads a MatrixMarket coordinate file as a graph: the matrix must be square (`N x N`), the
/// size line's entry count must match the entries, and a `symmetric` file must store only the
/// lower triangle (`i >= j`); it reads as an undirected edge list. `name` names the input in
/// errors.
///
/// ```
/// use occupant_apps::graph::read_matrix_market;
/// let text = "%%MatrixMarket matrix coordinate integer symmetric\n% c\n3 3 2\n2 1 5\n3 3 1\n";
/// let el = read_matrix_market(text.as_bytes(), "m.mtx")?;
/// assert_eq!((el.num_vertices, el.edges.clone(), el.undirected), (3, vec![(1, 0), (2, 2)], true));
/// let bad = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 -0.5\n";
/// let e = read_matrix_market(bad.as_bytes(), "b.mtx").unwrap_err().to_string();
/// assert!(e.starts_with("b.mtx:3: negative value -0.5"), "{e}");
/// # Ok::<(), occupant_apps::graph::GraphIoError>(())
/// ```
pub fn read_matrix_market(reader: impl BufRead, name: &str) -> Result<EdgeList, GraphIoError> {
    read_matrix_market_with(reader, name, ProgressBar::hidden())
}

pub(crate) fn read_matrix_market_with(
    reader: impl BufRead,
    name: &str,
    bar: ProgressBar,
) -> Result<EdgeList, GraphIoError> {
    let mut lines = TextLines::new(reader, name, bar);
    let (field_kind, symmetric) = match lines.next_line()? {
        None => return Err(GraphIoError::parse(
            name,
            1,
            "empty file: expected the `%%MatrixMarket matrix coordinate <field> <symmetry>` banner",
        )),
        Some((ln, text)) => banner(text).map_err(|m| GraphIoError::parse(name, ln, m))?,
    };
    // Size line.
    let (size_line, n, nnz) = loop {
        let Some((ln, text)) = lines.next_line()? else {
            return Err(GraphIoError::parse(
                name,
                lines.line().max(1),
                "the file ends before the `<rows> <columns> <entries>` size line",
            ));
        };
        let t = text.trim();
        if t.is_empty() || t.starts_with('%') {
            continue;
        }
        let err = |m: String| GraphIoError::parse(name, ln, m);
        let mut tok = t.split_ascii_whitespace();
        let rows: u64 = field(&mut tok, "the row count").map_err(err)?;
        let cols: u64 = field(&mut tok, "the column count").map_err(err)?;
        let nnz: u64 = field(&mut tok, "the entry count").map_err(err)?;
        no_more(&mut tok).map_err(err)?;
        if rows != cols {
            return Err(err(format!(
                "a {rows} x {cols} matrix: a graph needs a square matrix"
            )));
        }
        if rows == 0 {
            return Err(err("empty graph: a 0 x 0 matrix".into()));
        }
        if rows > u64::from(u32::MAX) {
            return Err(err(format!(
                "{rows} vertices: at most {} are supported (u32 ids)",
                u32::MAX
            )));
        }
        if nnz > u64::from(u32::MAX) {
            return Err(err(format!(
                "{nnz} entries: at most {} are supported (u32 offsets)",
                u32::MAX
            )));
        }
        break (ln, rows as u32, nnz);
    };
    let mut edges = Vec::with_capacity(initial_capacity(nnz));
    let mut weights =
        (field_kind != Field::Pattern).then(|| Vec::with_capacity(initial_capacity(nnz)));
    while let Some((ln, text)) = lines.next_line()? {
        let t = text.trim();
        if t.is_empty() || t.starts_with('%') {
            continue;
        }
        let err = |m: String| GraphIoError::parse(name, ln, m);
        if edges.len() as u64 >= nnz {
            return Err(err(format!(
                "more entries than the {nnz} declared by the size line {size_line}"
            )));
        }
        let mut tok = t.split_ascii_whitespace();
        let mut index = |what: &str| -> Result<u32, GraphIoError> {
            let v: u64 = field(&mut tok, what).map_err(err)?;
            if v == 0 || v > u64::from(n) {
                return Err(err(format!(
                    "index {v} is outside 1..={n} (the size line {size_line} declares {n} x {n})"
                )));
            }
            Ok((v - 1) as u32)
        };
        let i = index("a row index")?;
        let j = index("a column index")?;
        if symmetric && i < j {
            return Err(err(format!(
                "entry ({}, {}) above the diagonal: a symmetric file stores only the lower triangle",
                i + 1,
                j + 1
            )));
        }
        match field_kind {
            Field::Pattern => {}
            Field::Integer => {
                let w = weight(tok.next()).map_err(|m| err(m.replace("weight", "value")))?;
                weights.as_mut().expect("weighted").push(w);
            }
            Field::Real => {
                let w = real_weight(tok.next()).map_err(err)?;
                weights.as_mut().expect("weighted").push(w);
            }
        }
        no_more(&mut tok).map_err(err)?;
        edges.push((i, j));
    }
    if (edges.len() as u64) < nnz {
        return Err(GraphIoError::parse(
            name,
            lines.line().max(1),
            format!(
                "the file ends after {} entries but the size line {size_line} declares {nnz} (truncated?)",
                edges.len()
            ),
        ));
    }
    Ok(EdgeList {
        num_vertices: n,
        edges,
        weights,
        undirected: symmetric,
    })
}

/// Parses the banner line.
fn banner(text: &str) -> Result<(Field, bool), String> {
    let expected = "expected the banner `%%MatrixMarket matrix coordinate <pattern|integer|real> <general|symmetric>`";
    let lower = text.trim().to_ascii_lowercase();
    let mut tok = lower.split_ascii_whitespace();
    if tok.next() != Some("%%matrixmarket") {
        return Err(format!("{expected}, found `{}`", clip(text.trim())));
    }
    if tok.next() != Some("matrix") {
        return Err(format!("{expected}: only `matrix` objects are supported"));
    }
    match tok.next() {
        Some("coordinate") => {}
        Some("array") => {
            return Err(
                "a dense `array` matrix: only the sparse `coordinate` format is a graph".into(),
            )
        }
        _ => return Err(format!("{expected}: missing or unknown format")),
    }
    let field = match tok.next() {
        Some("pattern") => Field::Pattern,
        Some("integer") => Field::Integer,
        Some("real") | Some("double") => Field::Real,
        Some(other) => {
            return Err(format!(
                "field `{other}` is not supported: expected pattern, integer or real"
            ))
        }
        None => return Err(format!("{expected}: missing field")),
    };
    let symmetric = match tok.next() {
        Some("general") => false,
        Some("symmetric") => true,
        Some(other) => {
            return Err(format!(
                "symmetry `{other}` is not supported: expected general or symmetric"
            ))
        }
        None => return Err(format!("{expected}: missing symmetry")),
    };
    no_more(&mut tok)?;
    Ok((field, symmetric))
}

/// A `real` value as a weight: finite, non-negative, rounded, at least 1.
fn real_weight(tok: Option<&str>) -> Result<u32, String> {
    let Some(tok) = tok else {
        return Err("expected a real value, but the line ends".into());
    };
    let v: f64 = tok
        .parse()
        .map_err(|_| format!("expected a real value, found `{}`", clip(tok)))?;
    if !v.is_finite() {
        return Err(format!("value `{}` is not finite", clip(tok)));
    }
    if v < 0.0 {
        return Err(format!(
            "negative value {}: edge weights must be >= 0",
            clip(tok)
        ));
    }
    Ok(v.round().clamp(1.0, f64::from(u32::MAX)) as u32)
}

/// Writes `el` as a MatrixMarket coordinate file: `integer` if weighted, else `pattern`;
/// an undirected list as `symmetric` (each edge once, in the lower triangle), else `general`.
pub fn write_matrix_market(mut out: impl Write, el: &EdgeList) -> std::io::Result<()> {
    let field = if el.weights.is_some() {
        "integer"
    } else {
        "pattern"
    };
    let symmetry = if el.undirected {
        "symmetric"
    } else {
        "general"
    };
    writeln!(out, "%%MatrixMarket matrix coordinate {field} {symmetry}")?;
    writeln!(
        out,
        "% written by occupant ({} directed edges)",
        directed_count(el)
    )?;
    writeln!(
        out,
        "{} {} {}",
        el.num_vertices,
        el.num_vertices,
        el.edges.len()
    )?;
    for (i, &(u, v)) in el.edges.iter().enumerate() {
        let (r, c) = if el.undirected {
            (u.max(v), u.min(v))
        } else {
            (u, v)
        };
        match &el.weights {
            Some(w) => writeln!(out, "{} {} {}", r + 1, c + 1, w[i])?,
            None => writeln!(out, "{} {}", r + 1, c + 1)?,
        }
    }
    out.flush()
}

//! DIMACS shortest-path `.gr` files (9th DIMACS Implementation Challenge).
//!
//! ```text
//! c comment
//! p sp <vertices> <arcs>
//! a <from> <to> <weight>      (1-based vertex ids, integer weight >= 0)
//! ```

use super::io_error::GraphIoError;
use super::text_lines::{clip, field, initial_capacity, no_more, weight, TextLines};
use super::EdgeList;
use indicatif::ProgressBar;
use std::io::{BufRead, Write};

/// Reads a `.gr` file: exactly one `p sp N M` line before the arcs, then exactly `M` arcs
/// `a U V W` with `1 <= U, V <= N` and `0 <= W <= u32::MAX`. The result is directed (road
/// files list both directions). `name` names the input in errors.
///
/// ```
/// use occupant_apps::graph::read_dimacs;
/// let text = "c tiny\np sp 3 2\na 1 2 7\na 2 3 1\n";
/// let el = read_dimacs(text.as_bytes(), "tiny.gr")?;
/// assert_eq!(el.edges, vec![(0, 1), (1, 2)]);
/// let bad = read_dimacs("p sp 3 1\na 1 4 7\n".as_bytes(), "bad.gr").unwrap_err();
/// assert_eq!(bad.to_string(), "bad.gr:2: vertex 4 is outside 1..=3 (the `p sp` line 1 declares 3 vertices)");
/// # Ok::<(), occupant_apps::graph::GraphIoError>(())
/// ```
pub fn read_dimacs(reader: impl BufRead, name: &str) -> Result<EdgeList, GraphIoError> {
    read_dimacs_with(reader, name, ProgressBar::hidden())
}

pub(crate) fn read_dimacs_with(
    reader: impl BufRead,
    name: &str,
    bar: ProgressBar,
) -> Result<EdgeList, GraphIoError> {
    let mut lines = TextLines::new(reader, name, bar);
    // (line, vertices, arcs) of the problem line.
    let mut header: Option<(u64, u32, u64)> = None;
    let mut edges = Vec::new();
    let mut weights = Vec::new();
    while let Some((ln, text)) = lines.next_line()? {
        let err = |m: String| GraphIoError::parse(name, ln, m);
        let mut tok = text.split_ascii_whitespace();
        match tok.next() {
            None | Some("c") => {}
            Some("p") => {
                if let Some((first, ..)) = header {
                    return Err(err(format!(
                        "a second `p` line (the first is line {first})"
                    )));
                }
                match tok.next() {
                    Some("sp") => {}
                    Some(other) => {
                        return Err(err(format!(
                            "problem type `{}`: expected `p sp <vertices> <arcs>`",
                            clip(other)
                        )))
                    }
                    None => return Err(err("expected `p sp <vertices> <arcs>`".into())),
                }
                let n: u64 = field(&mut tok, "the vertex count").map_err(err)?;
                let m: u64 = field(&mut tok, "the arc count").map_err(err)?;
                no_more(&mut tok).map_err(err)?;
                if n == 0 {
                    return Err(err(
                        "empty graph: the `p sp` line declares 0 vertices".into()
                    ));
                }
                if n > u64::from(u32::MAX) {
                    return Err(err(format!(
                        "{n} vertices: at most {} are supported (u32 ids)",
                        u32::MAX
                    )));
                }
                if m > u64::from(u32::MAX) {
                    return Err(err(format!(
                        "{m} arcs: at most {} are supported (u32 offsets)",
                        u32::MAX
                    )));
                }
                edges.reserve(initial_capacity(m));
                weights.reserve(initial_capacity(m));
                header = Some((ln, n as u32, m));
            }
            Some("a") => {
                let Some((pl, n, m)) = header else {
                    return Err(err("an arc before the `p sp <vertices> <arcs>` line".into()));
                };
                if edges.len() as u64 >= m {
                    return Err(err(format!(
                        "more arcs than the {m} declared by the `p sp` line {pl}"
                    )));
                }
                let mut vertex = |what: &str| -> Result<u32, GraphIoError> {
                    let v: u64 = field(&mut tok, what).map_err(err)?;
                    if v == 0 || v > u64::from(n) {
                        return Err(err(format!(
                            "vertex {v} is outside 1..={n} (the `p sp` line {pl} declares {n} vertices)"
                        )));
                    }
                    Ok((v - 1) as u32)
                };
                let u = vertex("a source vertex id")?;
                let v = vertex("a target vertex id")?;
                let w = weight(tok.next()).map_err(err)?;
                no_more(&mut tok).map_err(err)?;
                edges.push((u, v));
                weights.push(w);
            }
            Some(other) => {
                return Err(err(format!(
                    "unknown line type `{}`: expected `c`, `p sp` or `a`",
                    clip(other)
                )))
            }
        }
    }
    let Some((pl, n, m)) = header else {
        return Err(GraphIoError::parse(
            name,
            lines.line().max(1),
            "no `p sp <vertices> <arcs>` line: empty, or not a DIMACS .gr file",
        ));
    };
    if (edges.len() as u64) < m {
        return Err(GraphIoError::parse(
            name,
            lines.line().max(1),
            format!(
                "the file ends after {} arcs but the `p sp` line {pl} declares {m} (truncated?)",
                edges.len()
            ),
        ));
    }
    Ok(EdgeList {
        num_vertices: n,
        edges,
        weights: Some(weights),
        undirected: false,
    })
}

/// Writes `el` as a `.gr` file: an undirected list as both directions (a self-loop once),
/// unweighted edges with weight 1.
pub fn write_dimacs(mut out: impl Write, el: &EdgeList) -> std::io::Result<()> {
    let arcs = directed_count(el);
    writeln!(out, "c written by occupant")?;
    writeln!(out, "p sp {} {}", el.num_vertices, arcs)?;
    for (i, &(u, v)) in el.edges.iter().enumerate() {
        let w = el.weights.as_ref().map_or(1, |w| w[i]);
        writeln!(out, "a {} {} {}", u + 1, v + 1, w)?;
        if el.undirected && u != v {
            writeln!(out, "a {} {} {}", v + 1, u + 1, w)?;
        }
    }
    out.flush()
}

/// Directed edges of `el` once undirected edges are doubled (self-loops once).
pub(crate) fn directed_count(el: &EdgeList) -> usize {
    if el.undirected {
        el.edges.len() + el.edges.iter().filter(|(u, v)| u != v).count()
    } else {
        el.edges.len()
    }
}

//! SNAP edge lists: one `<from> <to>` pair per line (tabs or spaces), `#` comments.
//!
//! Vertex ids are used as they are (0-based, not relabelled): the graph has
//! `max(id) + 1` vertices, or more if a `# Nodes: N` comment says so. An optional third
//! column is an integer weight (then every line has one). Edges are read as directed: build
//! with [`BuildOptions::symmetrize`](super::BuildOptions) for an undirected graph.

use super::dimacs::directed_count;
use super::io_error::GraphIoError;
use super::text_lines::{field, weight, TextLines};
use super::EdgeList;
use indicatif::ProgressBar;
use std::io::{BufRead, Write};

/// Reads a SNAP edge list. `name` names the input in errors.
///
/// ```
/// use occupant_apps::graph::read_snap;
/// let text = "# Directed graph\n# Nodes: 5 Edges: 2\n0\t1\n3\t2\n";
/// let el = read_snap(text.as_bytes(), "g.txt")?;
/// assert_eq!((el.num_vertices, el.edges.clone()), (5, vec![(0, 1), (3, 2)]));
/// let e = read_snap("0 1\n2 x\n".as_bytes(), "g.txt").unwrap_err().to_string();
/// assert_eq!(e, "g.txt:2: expected a target vertex id, found `x`");
/// # Ok::<(), occupant_apps::graph::GraphIoError>(())
/// ```
pub fn read_snap(reader: impl BufRead, name: &str) -> Result<EdgeList, GraphIoError> {
    read_snap_with(reader, name, ProgressBar::hidden())
}

/// The largest vertex id (so that `id + 1` vertices fit `u32`).
const MAX_ID: u64 = u32::MAX as u64 - 1;

pub(crate) fn read_snap_with(
    reader: impl BufRead,
    name: &str,
    bar: ProgressBar,
) -> Result<EdgeList, GraphIoError> {
    let mut lines = TextLines::new(reader, name, bar);
    let mut declared_nodes: u64 = 0;
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut weights: Vec<u32> = Vec::new();
    // (line, columns) of the first edge line.
    let mut first: Option<(u64, usize)> = None;
    let mut max_id: u64 = 0;
    while let Some((ln, text)) = lines.next_line()? {
        let t = text.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(comment) = t.strip_prefix('#') {
            if first.is_none() {
                if let Some(n) = nodes_comment(comment) {
                    declared_nodes = n;
                }
            }
            continue;
        }
        let err = |m: String| GraphIoError::parse(name, ln, m);
        let cols = t.split_ascii_whitespace().count();
        let (first_line, want) = *first.get_or_insert((ln, cols));
        if !(2..=3).contains(&cols) {
            return Err(err(format!(
                "{cols} fields: expected `<from> <to>` or `<from> <to> <weight>`"
            )));
        }
        if cols != want {
            return Err(err(format!(
                "{cols} fields, but line {first_line} has {want}: every edge line needs the same columns"
            )));
        }
        let mut tok = t.split_ascii_whitespace();
        let mut id = |what: &str| -> Result<u32, GraphIoError> {
            let v: u64 = field(&mut tok, what).map_err(err)?;
            if v > MAX_ID {
                return Err(err(format!(
                    "vertex id {v} is larger than {MAX_ID}, the largest supported (u32 ids)"
                )));
            }
            Ok(v as u32)
        };
        let u = id("a source vertex id")?;
        let v = id("a target vertex id")?;
        if cols == 3 {
            weights.push(weight(tok.next()).map_err(err)?);
        }
        if edges.len() as u64 >= u64::from(u32::MAX) {
            return Err(err(format!("more than {} edges (u32 offsets)", u32::MAX)));
        }
        max_id = max_id.max(u64::from(u.max(v)));
        edges.push((u, v));
    }
    if edges.is_empty() {
        return Err(GraphIoError::parse(
            name,
            lines.line().max(1),
            "no edge lines: an empty graph (expected `<from> <to>` lines)",
        ));
    }
    let n = (max_id + 1).max(declared_nodes.min(u64::from(u32::MAX)));
    let weighted = first.is_some_and(|(_, c)| c == 3);
    Ok(EdgeList {
        num_vertices: n as u32,
        edges,
        weights: weighted.then_some(weights),
        undirected: false,
    })
}

/// The `N` of a `Nodes: N` comment (SNAP's header), if any.
fn nodes_comment(comment: &str) -> Option<u64> {
    let mut tok = comment.split_ascii_whitespace();
    while let Some(t) = tok.next() {
        if t.eq_ignore_ascii_case("nodes:") {
            return tok.next().and_then(|n| n.parse().ok());
        }
    }
    None
}

/// Writes `el` as a SNAP edge list with a `# Nodes: N Edges: M` header (so isolated vertices
/// survive a round trip); an undirected list as both directions (a self-loop once); weights
/// as a third column.
pub fn write_snap(mut out: impl Write, el: &EdgeList) -> std::io::Result<()> {
    writeln!(out, "# written by occupant")?;
    writeln!(
        out,
        "# Nodes: {} Edges: {}",
        el.num_vertices,
        directed_count(el)
    )?;
    match &el.weights {
        Some(_) => writeln!(out, "# FromNodeId\tToNodeId\tWeight")?,
        None => writeln!(out, "# FromNodeId\tToNodeId")?,
    }
    for (i, &(u, v)) in el.edges.iter().enumerate() {
        let pairs: &[(u32, u32)] = if el.undirected && u != v {
            &[(u, v), (v, u)]
        } else {
            &[(u, v)]
        };
        for &(a, b) in pairs {
            match &el.weights {
                Some(w) => writeln!(out, "{a}\t{b}\t{}", w[i])?,
                None => writeln!(out, "{a}\t{b}")?,
            }
        }
    }
    out.flush()
}

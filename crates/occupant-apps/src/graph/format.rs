//! File formats by name and extension; reading and writing graph files; a graph source that is
//! either a file or a generator spec.

use super::dimacs::{read_dimacs_with, write_dimacs};
use super::io_error::GraphIoError;
use super::matrix_market::{read_matrix_market_with, write_matrix_market};
use super::progress;
use super::snap::{read_snap_with, write_snap};
use super::spec::GraphSpec;
use super::{BuildOptions, Csr, EdgeList};
use std::fmt;
use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// A graph file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraphFormat {
    /// DIMACS shortest-path `.gr`.
    Dimacs,
    /// MatrixMarket coordinate `.mtx`.
    MatrixMarket,
    /// SNAP edge list (`.txt`, `.snap`, `.el`, `.edges`).
    Snap,
}

/// The extensions [`GraphFormat::from_path`] knows.
pub const KNOWN_EXTENSIONS: &str =
    ".gr (DIMACS), .mtx (MatrixMarket), .txt/.snap/.el/.edges (SNAP edge list)";

impl GraphFormat {
    /// The format of a file, from its extension.
    pub fn from_path(path: &Path) -> Result<Self, GraphIoError> {
        let shown = path.display().to_string();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        match ext.as_str() {
            "gr" => Ok(GraphFormat::Dimacs),
            "mtx" => Ok(GraphFormat::MatrixMarket),
            "txt" | "snap" | "el" | "edges" | "edgelist" => Ok(GraphFormat::Snap),
            "gz" | "bz2" | "xz" | "zst" | "zip" => Err(GraphIoError::Format {
                path: shown,
                message: format!("compressed (.{ext}) files are not read: decompress first; known: {KNOWN_EXTENSIONS}"),
            }),
            "" => Err(GraphIoError::Format {
                path: shown,
                message: format!("no extension to tell the format by; known: {KNOWN_EXTENSIONS}"),
            }),
            other => Err(GraphIoError::Format {
                path: shown,
                message: format!("unknown graph format `.{other}`; known: {KNOWN_EXTENSIONS}"),
            }),
        }
    }

    /// The usual extension (`gr`, `mtx`, `txt`).
    pub fn extension(self) -> &'static str {
        match self {
            GraphFormat::Dimacs => "gr",
            GraphFormat::MatrixMarket => "mtx",
            GraphFormat::Snap => "txt",
        }
    }
}

impl FromStr for GraphFormat {
    type Err = String;
    /// `gr`/`dimacs`, `mtx`/`matrix-market`, `snap`/`txt`/`el`.
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "gr" | "dimacs" => Ok(GraphFormat::Dimacs),
            "mtx" | "matrix-market" | "matrixmarket" => Ok(GraphFormat::MatrixMarket),
            "snap" | "txt" | "el" | "edges" => Ok(GraphFormat::Snap),
            other => Err(format!(
                "unknown format `{other}`: expected gr, mtx or snap"
            )),
        }
    }
}

impl fmt::Display for GraphFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GraphFormat::Dimacs => "gr",
            GraphFormat::MatrixMarket => "mtx",
            GraphFormat::Snap => "snap",
        })
    }
}

/// Reads a graph file, its format told by its extension ([`KNOWN_EXTENSIONS`]), with a
/// progress bar for large files on a terminal.
pub fn read_graph(path: &Path) -> Result<EdgeList, GraphIoError> {
    let format = GraphFormat::from_path(path)?;
    let shown = path.display().to_string();
    let file = File::open(path).map_err(|e| GraphIoError::io(&shown, e))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let bar = progress::bar(len, "reading");
    let reader = BufReader::with_capacity(1 << 20, file);
    match format {
        GraphFormat::Dimacs => read_dimacs_with(reader, &shown, bar),
        GraphFormat::MatrixMarket => read_matrix_market_with(reader, &shown, bar),
        GraphFormat::Snap => read_snap_with(reader, &shown, bar),
    }
}

/// Reads a graph file and builds its CSR graph with `options`.
pub fn load(path: &Path, options: &BuildOptions) -> Result<Csr, GraphIoError> {
    let el = read_graph(path)?;
    el.to_csr(options).map_err(|source| GraphIoError::Build {
        path: path.display().to_string(),
        source,
    })
}

/// Creates (truncates) an output file, so a bad path fails before a long generation.
pub fn create_output(path: &Path) -> Result<File, GraphIoError> {
    File::create(path).map_err(|e| GraphIoError::io(&path.display().to_string(), e))
}

/// Writes `el` in `format` to `file` (from [`create_output`]); `path` names it in errors.
pub fn write_graph_to(
    file: File,
    path: &Path,
    format: GraphFormat,
    el: &EdgeList,
) -> Result<(), GraphIoError> {
    let out = BufWriter::with_capacity(1 << 20, file);
    match format {
        GraphFormat::Dimacs => write_dimacs(out, el),
        GraphFormat::MatrixMarket => write_matrix_market(out, el),
        GraphFormat::Snap => write_snap(out, el),
    }
    .map_err(|e| GraphIoError::io(&path.display().to_string(), e))
}

/// Writes `el` to `path` in `format`.
pub fn write_graph(path: &Path, format: GraphFormat, el: &EdgeList) -> Result<(), GraphIoError> {
    write_graph_to(create_output(path)?, path, format, el)
}

/// Where a graph comes from: a file or a generator spec (the CLI's `--graph FILE` /
/// `--gen SPEC`).
///
/// ```
/// use occupant_apps::graph::{BuildOptions, GraphSource};
/// let src: GraphSource = "stencil:10x10".parse()?;
/// let g = src.load(&BuildOptions::default())?;
/// assert_eq!(g.num_vertices(), 100);
/// assert_eq!(src.name(), "stencil10x10");
/// # Ok::<(), occupant_apps::graph::GraphIoError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum GraphSource {
    /// A graph file.
    File(PathBuf),
    /// A generator.
    Spec(GraphSpec),
}

impl GraphSource {
    /// The edge list (read or generated).
    pub fn edge_list(&self) -> Result<EdgeList, GraphIoError> {
        match self {
            GraphSource::File(p) => read_graph(p),
            GraphSource::Spec(s) => Ok(s.generate()?),
        }
    }

    /// The CSR graph built with `options`.
    pub fn load(&self, options: &BuildOptions) -> Result<Csr, GraphIoError> {
        self.edge_list()?
            .to_csr(options)
            .map_err(|source| GraphIoError::Build {
                path: self.to_string(),
                source,
            })
    }

    /// A short name for tables and file names (file stem, or the spec's short name).
    pub fn name(&self) -> String {
        match self {
            GraphSource::File(p) => p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| p.display().to_string()),
            GraphSource::Spec(s) => s.short_name(),
        }
    }
}

impl FromStr for GraphSource {
    type Err = GraphIoError;
    /// An existing file, or else a generator spec (`kind:params`); an error if neither.
    fn from_str(s: &str) -> Result<Self, GraphIoError> {
        let path = Path::new(s);
        if path.exists() {
            return Ok(GraphSource::File(path.to_path_buf()));
        }
        if s.contains(':') {
            return Ok(GraphSource::Spec(s.parse()?));
        }
        Err(GraphIoError::Format {
            path: s.to_string(),
            message: "no such file, and not a generator spec (`kind:params`, e.g. `rmat:scale=20`)"
                .into(),
        })
    }
}

impl fmt::Display for GraphSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphSource::File(p) => write!(f, "{}", p.display()),
            GraphSource::Spec(s) => write!(f, "{s}"),
        }
    }
}

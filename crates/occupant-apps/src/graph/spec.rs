//! `GraphSpec`: a generator and its parameters as a short string (`rmat:scale=22,ef=16`).

use super::gen::{self, BaParams, ErParams, ErSize, GenError, GeoParams, GridParams, RmatParams};
use super::{BuildOptions, Csr, EdgeList, GraphIoError};
use std::fmt;
use std::str::FromStr;

/// The forms [`GraphSpec::from_str`] accepts (printed with every parse error).
pub const SPEC_FORMS: &str = concat!(
    "  rmat:scale=S[,ef=16][,a=0.57,b=0.19,c=0.19][,permute=1][,wmax=255][,seed=1]   R-MAT/Kronecker (Graph500)\n",
    "  grid:WxH | grid:w=W,h=H[,wmax=255][,seed=1]     2-D grid, random weights (road-like, diameter W+H-2)\n",
    "  stencil:WxH | stencil:w=W,h=H                   5-point stencil grid, unit weights\n",
    "  geo:n=N[,deg=6][,shortcuts=0][,wmax=255][,seed=1]   random geometric, road-like with shortcuts\n",
    "  er:n=N,p=P | er:n=N,m=M [,wmax=255][,seed=1]    Erdos-Renyi G(n,p) / G(n,m)\n",
    "  ba:n=N,m=M[,wmax=255][,seed=1]                  Barabasi-Albert, M edges per new vertex\n",
);

/// A graph generator with its parameters, parsed from or printed as a spec string.
///
/// ```
/// use occupant_apps::graph::GraphSpec;
/// let spec: GraphSpec = "rmat:scale=10,ef=8,seed=3".parse()?;
/// let el = spec.generate()?;
/// assert_eq!((el.num_vertices, el.edges.len()), (1024, 8 * 1024));
/// let again: GraphSpec = spec.to_string().parse()?;
/// assert_eq!(again, spec);
/// assert!("grid:2000x2000".parse::<GraphSpec>().is_ok());
/// assert!("mesh:3".parse::<GraphSpec>().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum GraphSpec {
    /// [`gen::rmat`].
    Rmat(RmatParams),
    /// [`gen::grid`].
    Grid(GridParams),
    /// [`gen::stencil`] (width, height).
    Stencil(u32, u32),
    /// [`gen::geometric`].
    Geo(GeoParams),
    /// [`gen::erdos_renyi`].
    Er(ErParams),
    /// [`gen::barabasi_albert`].
    Ba(BaParams),
}

/// A spec string that does not parse.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("bad graph spec `{spec}`: {reason}\nvalid forms:\n{}", SPEC_FORMS.trim_end())]
pub struct SpecError {
    /// The spec as given.
    pub spec: String,
    /// What is wrong.
    pub reason: String,
}

const DEFAULT_WMAX: u32 = 255;

impl GraphSpec {
    /// Runs the generator.
    pub fn generate(&self) -> Result<EdgeList, GenError> {
        match self {
            GraphSpec::Rmat(p) => gen::rmat(p),
            GraphSpec::Grid(p) => gen::grid(p),
            GraphSpec::Stencil(w, h) => gen::stencil(*w, *h),
            GraphSpec::Geo(p) => gen::geometric(p),
            GraphSpec::Er(p) => gen::erdos_renyi(p),
            GraphSpec::Ba(p) => gen::barabasi_albert(p),
        }
    }

    /// Runs the generator and builds the CSR graph with the default [`BuildOptions`] (what
    /// `occupant run --gen` does).
    ///
    /// ```
    /// use occupant_apps::graph::GraphSpec;
    /// let g = "stencil:10x10".parse::<GraphSpec>()?.csr()?;
    /// assert_eq!((g.num_vertices(), g.num_edges()), (100, 360));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn csr(&self) -> Result<Csr, GraphIoError> {
        self.generate()?
            .to_csr(&BuildOptions::default())
            .map_err(|source| GraphIoError::Build {
                path: self.to_string(),
                source,
            })
    }

    /// A short name for file names and tables (`rmat22`, `grid2000x2000`, ...).
    pub fn short_name(&self) -> String {
        match self {
            GraphSpec::Rmat(p) => format!("rmat{}ef{}", p.scale, p.edge_factor),
            GraphSpec::Grid(p) => format!("grid{}x{}", p.width, p.height),
            GraphSpec::Stencil(w, h) => format!("stencil{w}x{h}"),
            GraphSpec::Geo(p) => format!("geo{}", p.n),
            GraphSpec::Er(p) => format!("er{}", p.n),
            GraphSpec::Ba(p) => format!("ba{}m{}", p.n, p.m),
        }
    }
}

/// The parsed `key=value` list of a spec, with every key accounted for.
struct Args<'a> {
    spec: &'a str,
    pairs: Vec<(&'a str, &'a str, bool)>,
}

impl<'a> Args<'a> {
    fn parse(spec: &'a str, body: &'a str) -> Result<Self, SpecError> {
        let mut pairs: Vec<(&str, &str, bool)> = Vec::new();
        for item in body.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let Some((k, v)) = item.split_once('=') else {
                return Err(err(spec, format!("`{item}` is not key=value")));
            };
            let k = k.trim();
            if pairs.iter().any(|p| p.0 == k) {
                return Err(err(spec, format!("`{k}` given twice")));
            }
            pairs.push((k, v.trim(), false));
        }
        Ok(Args { spec, pairs })
    }

    fn get<T: FromStr>(&mut self, keys: &[&str], default: Option<T>) -> Result<T, SpecError> {
        let found = self.pairs.iter_mut().find(|p| keys.contains(&p.0));
        match found {
            Some(p) => {
                p.2 = true;
                p.1.parse().map_err(|_| {
                    err(
                        self.spec,
                        format!(
                            "`{}={}`: `{}` is not a valid {}",
                            p.0,
                            p.1,
                            p.1,
                            kind::<T>()
                        ),
                    )
                })
            }
            None => default.ok_or_else(|| {
                let unknown: Vec<&str> = self.pairs.iter().filter(|p| !p.2).map(|p| p.0).collect();
                let hint = if unknown.is_empty() {
                    String::new()
                } else {
                    format!(" (not recognised: `{}`)", unknown.join("`, `"))
                };
                err(self.spec, format!("missing `{}=`{hint}", keys[0]))
            }),
        }
    }

    fn has(&self, key: &str) -> bool {
        self.pairs.iter().any(|p| p.0 == key)
    }

    fn finish(self) -> Result<(), SpecError> {
        if let Some(p) = self.pairs.iter().find(|p| !p.2) {
            return Err(err(self.spec, format!("unknown parameter `{}`", p.0)));
        }
        Ok(())
    }
}

fn kind<T>() -> &'static str {
    let name = std::any::type_name::<T>();
    if name.contains("f64") {
        "number"
    } else if name.contains("bool") {
        "boolean (true/false)"
    } else {
        "non-negative integer"
    }
}

fn err(spec: &str, reason: impl Into<String>) -> SpecError {
    SpecError {
        spec: spec.to_string(),
        reason: reason.into(),
    }
}

/// Parses `WxH`.
fn dims(spec: &str, body: &str) -> Option<Result<(u32, u32), SpecError>> {
    let (w, h) = body.split_once(['x', 'X'])?;
    if body.contains('=') {
        return None;
    }
    Some(match (w.trim().parse(), h.trim().parse()) {
        (Ok(w), Ok(h)) => Ok((w, h)),
        _ => Err(err(spec, format!("`{body}` is not WIDTHxHEIGHT"))),
    })
}

/// `1`/`0` as well as `true`/`false`.
struct Flag(bool);
impl FromStr for Flag {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "1" | "true" | "yes" => Ok(Flag(true)),
            "0" | "false" | "no" => Ok(Flag(false)),
            _ => Err(()),
        }
    }
}

impl FromStr for GraphSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, SpecError> {
        let spec = s.trim();
        let (name, body) = spec.split_once(':').unwrap_or((spec, ""));
        let name = name.trim().to_ascii_lowercase();
        let w_h = |args: &mut Args| -> Result<(u32, u32), SpecError> {
            Ok((
                args.get(&["w", "width"], None)?,
                args.get(&["h", "height"], None)?,
            ))
        };
        let parsed = match name.as_str() {
            "rmat" | "kron" | "kronecker" => {
                let mut a = Args::parse(spec, body)?;
                let p = RmatParams {
                    scale: a.get(&["scale"], None)?,
                    edge_factor: a.get(&["ef", "edge_factor"], Some(16))?,
                    a: a.get(&["a"], Some(0.57))?,
                    b: a.get(&["b"], Some(0.19))?,
                    c: a.get(&["c"], Some(0.19))?,
                    permute: a.get::<Flag>(&["permute"], Some(Flag(true)))?.0,
                    max_weight: a.get(&["wmax"], Some(DEFAULT_WMAX))?,
                    seed: a.get(&["seed"], Some(1))?,
                };
                a.finish()?;
                GraphSpec::Rmat(p)
            }
            "grid" | "road" => {
                let (width, height, max_weight, seed) = match dims(spec, body) {
                    Some(d) => {
                        let (w, h) = d?;
                        (w, h, DEFAULT_WMAX, 1)
                    }
                    None => {
                        let mut a = Args::parse(spec, body)?;
                        let (w, h) = w_h(&mut a)?;
                        let r = (
                            w,
                            h,
                            a.get(&["wmax"], Some(DEFAULT_WMAX))?,
                            a.get(&["seed"], Some(1))?,
                        );
                        a.finish()?;
                        r
                    }
                };
                GraphSpec::Grid(GridParams {
                    width,
                    height,
                    max_weight,
                    seed,
                })
            }
            "stencil" => {
                let (w, h) = match dims(spec, body) {
                    Some(d) => d?,
                    None => {
                        let mut a = Args::parse(spec, body)?;
                        let d = w_h(&mut a)?;
                        a.finish()?;
                        d
                    }
                };
                GraphSpec::Stencil(w, h)
            }
            "geo" | "geometric" => {
                let mut a = Args::parse(spec, body)?;
                let p = GeoParams {
                    n: a.get(&["n"], None)?,
                    degree: a.get(&["deg", "degree"], Some(6.0))?,
                    shortcuts: a.get(&["shortcuts", "sc"], Some(0.0))?,
                    max_weight: a.get(&["wmax"], Some(DEFAULT_WMAX))?,
                    seed: a.get(&["seed"], Some(1))?,
                };
                a.finish()?;
                GraphSpec::Geo(p)
            }
            "er" | "erdos-renyi" | "gnp" | "gnm" => {
                let mut a = Args::parse(spec, body)?;
                let n = a.get(&["n"], None)?;
                let size = match (a.has("p"), a.has("m")) {
                    (true, false) => ErSize::Probability(a.get(&["p"], None)?),
                    (false, true) => ErSize::Edges(a.get(&["m"], None)?),
                    _ => return Err(err(spec, "er takes exactly one of `p=` and `m=`")),
                };
                let p = ErParams {
                    n,
                    size,
                    max_weight: a.get(&["wmax"], Some(DEFAULT_WMAX))?,
                    seed: a.get(&["seed"], Some(1))?,
                };
                a.finish()?;
                GraphSpec::Er(p)
            }
            "ba" | "barabasi-albert" => {
                let mut a = Args::parse(spec, body)?;
                let p = BaParams {
                    n: a.get(&["n"], None)?,
                    m: a.get(&["m"], None)?,
                    max_weight: a.get(&["wmax"], Some(DEFAULT_WMAX))?,
                    seed: a.get(&["seed"], Some(1))?,
                };
                a.finish()?;
                GraphSpec::Ba(p)
            }
            "" => return Err(err(spec, "empty spec")),
            other => return Err(err(spec, format!("unknown generator `{other}`"))),
        };
        Ok(parsed)
    }
}

impl fmt::Display for GraphSpec {
    /// The canonical spec string (every parameter spelled out; parses back to `self`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphSpec::Rmat(p) => write!(
                f,
                "rmat:scale={},ef={},a={},b={},c={},permute={},wmax={},seed={}",
                p.scale, p.edge_factor, p.a, p.b, p.c, p.permute as u8, p.max_weight, p.seed
            ),
            GraphSpec::Grid(p) => write!(
                f,
                "grid:w={},h={},wmax={},seed={}",
                p.width, p.height, p.max_weight, p.seed
            ),
            GraphSpec::Stencil(w, h) => write!(f, "stencil:{w}x{h}"),
            GraphSpec::Geo(p) => write!(
                f,
                "geo:n={},deg={},shortcuts={},wmax={},seed={}",
                p.n, p.degree, p.shortcuts, p.max_weight, p.seed
            ),
            GraphSpec::Er(p) => {
                let size = match p.size {
                    ErSize::Probability(x) => format!("p={x}"),
                    ErSize::Edges(m) => format!("m={m}"),
                };
                write!(
                    f,
                    "er:n={},{size},wmax={},seed={}",
                    p.n, p.max_weight, p.seed
                )
            }
            GraphSpec::Ba(p) => write!(
                f,
                "ba:n={},m={},wmax={},seed={}",
                p.n, p.m, p.max_weight, p.seed
            ),
        }
    }
}

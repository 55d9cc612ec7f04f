//! Which application to run.

use serde::Serialize;
use std::fmt;

/// The graph applications (seed 001 §5.2, Pannotia and Lonestar-GPU).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum AppKind {
    /// Breadth-first search: the level of every vertex from the source.
    Bfs,
    /// Single-source shortest paths, Pannotia-style Bellman-Ford: every iteration relaxes every
    /// edge of every reached vertex.
    Sssp,
    /// Single-source shortest paths, Lonestar-style: every iteration relaxes the out-edges of the
    /// vertices whose distance dropped in the previous one (a worklist).
    SsspWorklist,
    /// Pannotia's max-based graph colouring (on the undirected graph).
    Color,
    /// Pannotia's Luby-style maximal independent set (on the undirected graph).
    Mis,
    /// Brandes betweenness centrality, the dependencies of one source (Pannotia's per-source
    /// kernels: forward BFS counting shortest paths, backward accumulation).
    Bc,
    /// PageRank, pull-based Jacobi iteration until the change (L1 norm) is below the tolerance.
    PageRank,
    /// Connected components by label propagation (on the undirected graph): every vertex ends
    /// with the smallest vertex id of its component.
    Cc,
}

impl AppKind {
    /// Every application, in the order of the CLI and the benchmarks.
    pub const ALL: [AppKind; 8] = [
        AppKind::Bfs,
        AppKind::Sssp,
        AppKind::SsspWorklist,
        AppKind::Color,
        AppKind::Mis,
        AppKind::Bc,
        AppKind::PageRank,
        AppKind::Cc,
    ];

    /// The application's name on the command line and in reports.
    ///
    /// ```
    /// use occupant_apps::apps::AppKind;
    /// assert_eq!(AppKind::SsspWorklist.name(), "sssp-worklist");
    /// assert_eq!(AppKind::parse("pagerank"), Some(AppKind::PageRank));
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            AppKind::Bfs => "bfs",
            AppKind::Sssp => "sssp",
            AppKind::SsspWorklist => "sssp-worklist",
            AppKind::Color => "color",
            AppKind::Mis => "mis",
            AppKind::Bc => "bc",
            AppKind::PageRank => "pagerank",
            AppKind::Cc => "cc",
        }
    }

    /// The application named `s` (see [`AppKind::name`]).
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == s)
    }

    /// The names of every application, comma-separated (for error messages).
    pub fn names() -> String {
        Self::ALL.map(|a| a.name()).join(", ")
    }

    /// Whether the application reads a source vertex ([`AppParams::source`](super::AppParams)).
    pub fn uses_source(self) -> bool {
        matches!(
            self,
            AppKind::Bfs | AppKind::Sssp | AppKind::SsspWorklist | AppKind::Bc
        )
    }

    /// Whether the application runs on the undirected version of the input
    /// ([`undirected`](super::undirected)).
    pub fn needs_undirected(self) -> bool {
        matches!(self, AppKind::Color | AppKind::Mis | AppKind::Cc)
    }
}

impl fmt::Display for AppKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

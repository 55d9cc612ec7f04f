//! The per-vertex result of an application.

use std::io::Write;

/// One value per vertex, in vertex order.
#[derive(Clone, Debug, PartialEq)]
pub enum AppOutput {
    /// BFS levels; `u32::MAX` = unreachable.
    Levels(Vec<u32>),
    /// Shortest-path distances; `u64::MAX` = unreachable.
    Distances(Vec<u64>),
    /// Colours (`0..`), every vertex coloured.
    Colors(Vec<u32>),
    /// Membership of the maximal independent set.
    InSet(Vec<bool>),
    /// Betweenness-centrality dependency scores (bc).
    Scores(Vec<f64>),
    /// PageRank ranks.
    Ranks(Vec<f64>),
    /// Component labels (the smallest vertex id of the component).
    Labels(Vec<u32>),
}

impl AppOutput {
    /// Number of vertices.
    pub fn len(&self) -> usize {
        match self {
            AppOutput::Levels(v) | AppOutput::Colors(v) | AppOutput::Labels(v) => v.len(),
            AppOutput::Distances(v) => v.len(),
            AppOutput::InSet(v) => v.len(),
            AppOutput::Scores(v) | AppOutput::Ranks(v) => v.len(),
        }
    }

    /// Whether there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The kind of value, for messages (`"levels"`, `"distances"`, …).
    pub fn what(&self) -> &'static str {
        match self {
            AppOutput::Levels(_) => "levels",
            AppOutput::Distances(_) => "distances",
            AppOutput::Colors(_) => "colours",
            AppOutput::InSet(_) => "in-set flags",
            AppOutput::Scores(_) => "scores",
            AppOutput::Ranks(_) => "ranks",
            AppOutput::Labels(_) => "labels",
        }
    }

    /// The number of vertices with a finite value: reached (bfs, sssp), or every vertex (the
    /// others).
    pub fn reached(&self) -> u64 {
        match self {
            AppOutput::Levels(v) => v.iter().filter(|&&l| l != u32::MAX).count() as u64,
            AppOutput::Distances(v) => v.iter().filter(|&&d| d != u64::MAX).count() as u64,
            other => other.len() as u64,
        }
    }

    /// Writes one line per vertex in vertex order: the level, distance, colour, in-set flag
    /// (`1`/`0`), score, rank or label; unreachable vertices as `inf`.
    ///
    /// ```
    /// use occupant_apps::apps::AppOutput;
    /// let mut text = Vec::new();
    /// AppOutput::Levels(vec![0, 1, u32::MAX]).write_text(&mut text).unwrap();
    /// assert_eq!(String::from_utf8(text).unwrap(), "0\n1\ninf\n");
    /// ```
    pub fn write_text(&self, w: &mut impl Write) -> std::io::Result<()> {
        match self {
            AppOutput::Levels(v) => {
                for &x in v {
                    if x == u32::MAX {
                        writeln!(w, "inf")?;
                    } else {
                        writeln!(w, "{x}")?;
                    }
                }
            }
            AppOutput::Distances(v) => {
                for &x in v {
                    if x == u64::MAX {
                        writeln!(w, "inf")?;
                    } else {
                        writeln!(w, "{x}")?;
                    }
                }
            }
            AppOutput::Colors(v) | AppOutput::Labels(v) => {
                for &x in v {
                    writeln!(w, "{x}")?;
                }
            }
            AppOutput::InSet(v) => {
                for &x in v {
                    writeln!(w, "{}", u8::from(x))?;
                }
            }
            AppOutput::Scores(v) | AppOutput::Ranks(v) => {
                for &x in v {
                    writeln!(w, "{x:e}")?;
                }
            }
        }
        Ok(())
    }
}

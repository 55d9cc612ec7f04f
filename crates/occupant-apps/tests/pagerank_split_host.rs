//! pagerank's device-loop split (`pr_tile_x` in graph_apps.cu, over `tile_cost_prefix`) compiled
//! for the host: for every warp count W, x(0) = 0, x(W) = the tiles' cost, x non-decreasing (so
//! every tile falls in exactly one warp's range), and each warp's work — its tiles plus its
//! grid-stride heavy chunks — within one tile and one chunk of the equal share. Needs a C++20
//! compiler (`c++`); skips with one line without one.

mod cxx;

use occupant_apps::apps::cuda::{tile_cost_prefix, DEFAULT_HEAVY_DEGREE};
use occupant_apps::graph::{Csr, GraphSpec};
use std::fmt::Write as _;
use std::process::Command;

const MAIN: &str = r#"
#include <cstdio>
#include <vector>
// Reads: tiles, the static part's end, the tile_cost_prefix entries (tiles + 3: the claimed
// tail's table is not read), then warp counts; prints x(0..=W).
int main() {
  unsigned tiles, end;
  if (scanf("%u %u", &tiles, &end) != 2) return 2;
  std::vector<u64> t(tiles + 3);
  for (auto& x : t) {
    unsigned long long v;
    if (scanf("%llu", &v) != 1) return 2;
    x = v;
  }
  unsigned w;
  while (scanf("%u", &w) == 1) {
    for (unsigned v = 0; v <= w; ++v) printf("%llu ", (unsigned long long)pr_tile_x(t.data(), tiles, end, v, w));
    printf("\n");
  }
  return 0;
}
"#;

fn gen(spec: &str) -> Csr {
    spec.parse::<GraphSpec>().unwrap().csr().unwrap()
}

#[test]
fn every_warp_gets_an_equal_share_of_tiles_and_chunks() {
    let Some((dir, exe)) = cxx::graph_apps_harness("pagerank_split_host", MAIN) else {
        return;
    };
    // Skewed in-degrees with heavy vertices (BA, R-MAT), none (a grid), and heavy ones alone.
    let mut star: Vec<(u32, u32)> = (0..3000).map(|i| (i % 3, 3 + i % 500)).collect();
    star.extend((0..3000).map(|i| (3 + i % 500, i % 3)));
    let graphs = [
        gen("ba:n=20000,m=4,seed=7"),
        gen("rmat:scale=14,ef=16,seed=3"),
        gen("grid:w=60,h=40,seed=2"),
        Csr::from_edges(503, &star, None).unwrap(),
    ];
    for g in &graphs {
        let t = g.transpose();
        let p = tile_cost_prefix(&t, DEFAULT_HEAVY_DEGREE);
        let tiles = t.num_vertices().div_ceil(32) as usize;
        // Every tile static (graphs without heavy vertices), and the static part before the
        // claimed tail (its first boundary) as the device loops split graphs with them.
        for end in [tiles, p[tiles + 4] as usize] {
            let (tc, cc, chunks) = (p[end], p[tiles + 1], p[tiles + 2]);
            let warps = [1u64, 2, 7, 32, 33, 1000, 8448];
            let mut input = format!("{tiles} {end}\n");
            for x in &p[..tiles + 3] {
                write!(input, "{x} ").unwrap();
            }
            for w in warps {
                write!(input, "\n{w}").unwrap();
            }
            std::fs::write(dir.join("in.txt"), &input).unwrap();
            let run = Command::new(&exe)
                .stdin(std::fs::File::open(dir.join("in.txt")).unwrap())
                .output()
                .unwrap();
            assert!(run.status.success());
            let text = String::from_utf8(run.stdout).unwrap();
            for (line, w) in text.lines().zip(warps) {
                let x: Vec<u64> = line
                    .split_whitespace()
                    .map(|v| v.parse().unwrap())
                    .collect();
                assert_eq!(x.len() as u64, w + 1);
                assert_eq!((x[0], x[w as usize]), (0, tc), "W = {w}, end {end}");
                assert!(x.windows(2).all(|a| a[0] <= a[1]), "W = {w}: not monotone");
                // Warp v's work: the tiles lower_bound(x(v)) .. lower_bound(x(v + 1)) and its
                // grid-stride chunks.
                let lb = |c: u64| p[..=end].partition_point(|&e| e < c);
                let tile = |i: usize| if i < end { p[i + 1] - p[i] } else { 0 };
                let share = (tc + cc * chunks) as f64 / w as f64;
                for v in 0..w as usize {
                    let (x0, x1) = (x[v], x[v + 1]);
                    let (a, b) = (lb(x0), lb(x1));
                    let tiles_cost = (p[b] - p[a]) as f64;
                    let own = (chunks / w + u64::from((v as u64) < chunks % w)) as f64;
                    // Where the clamps do not act, the warp's tiles and chunks add up to the equal
                    // share, give or take the tiles its range's ends fall in.
                    if x0 > 0 && x1 < tc && x1 > x0 {
                        let ends = (tile(a.saturating_sub(1))
                            + tile(a)
                            + tile(b.saturating_sub(1))
                            + tile(b)) as f64;
                        let work = tiles_cost + own * cc as f64;
                        assert!(
                        (work - share).abs() <= ends + 2.0,
                        "W = {w}, warp {v}: tiles {tiles_cost} + {own} chunks = {work} against a share of {share}"
                    );
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

//! pagerank's phase 0 and 1 as the device loops run them (`pr_phase0<true>`: the warps' static
//! ranges of equal cost, the heavy chunks, the claimed tail), compiled for the host (simt.h: a
//! CUDA thread per std::thread, warps of 32) and run by W warps for several W: every rank, every
//! next contribution and the iteration's L1 change equal the sequential sums — a tile claimed
//! twice doubles the L1 change, a tile missed keeps its old rank. The graph's light cost lets the
//! smaller warp counts claim the tail (at least `OCC_APP_PR_TAIL_MIN_COST` per warp) and the
//! larger ones not, so both paths run; the grid-stride phase of the host loop runs beside them.
//! Needs a C++20 compiler (`c++`); skips with one line without one.

mod cxx;

use occupant_apps::apps::cuda::{
    tile_cost_prefix, HeavySplit, DEFAULT_HEAVY_DEGREE, PR_TAIL_MIN_COST as TAIL_MIN_COST,
};
use occupant_apps::graph::{Csr, GraphSpec};
use std::fmt::Write as _;
use std::process::Command;

const MAIN: &str = r#"
#include <cstdio>
#include <thread>
#include <vector>
template <class T>
static std::vector<T> read_vec(size_t k) {
  std::vector<T> v(k + 1);
  for (size_t i = 0; i < k; ++i) {
    double x;
    if (scanf("%lf", &x) != 1) throw 1;
    v[i] = (T)x;
  }
  return v;
}
// Reads: n m nh chunks entries / off / col / hv / hoff / hchunk / tcost / contrib / inv_deg, then
// (split W) pairs (split 1: pr_phase0<true>, 0: the grid-stride phase); prints per pair the
// ranks, the next contributions and the L1 change.
int main() {
  unsigned long long n, m, nh, chunks, entries;
  if (scanf("%llu %llu %llu %llu %llu", &n, &m, &nh, &chunks, &entries) != 5) return 2;
  auto off = read_vec<u32>(n + 1), col = read_vec<u32>(m), hv = read_vec<u32>(nh);
  auto hoff = read_vec<u32>(nh + 1), hchunk = read_vec<u32>(chunks);
  auto tcost = read_vec<u64>(entries);
  auto contrib0 = read_vec<double>(n), inv_deg = read_vec<double>(n);
  const Graph g = {off.data(), col.data(), nullptr, hv.data(), hoff.data(), hchunk.data(),
                   (u32)n, (u32)nh, 256u};
  unsigned split, warps;
  while (scanf("%u %u", &split, &warps) == 2) {
    std::vector<double> rank(n + 1, 1.0), contrib(2 * n + 1, 0.0), acc(nh + 1, 0.0), l1(3, 0.0);
    std::vector<u32> ctl(96, 0u);
    for (size_t i = 0; i < n; ++i) contrib[i] = contrib0[i];
    for (unsigned phase = 0; phase < 2; ++phase) {
      std::vector<SimWarp> ws(warps);
      std::vector<std::thread> ts;
      for (unsigned t = 0; t < warps * 32u; ++t) {
        ts.emplace_back([&, t] {
          threadIdx.x = t & 31u;
          sim_warp = &ws[t >> 5];
          Grid gr = {t, warps * 32u};
          gr.dynamic = true;
          if (phase == 1) {
            pr_phase1(g, gr, rank.data(), contrib.data(), inv_deg.data(), acc.data(), l1.data(), 0u, 0.1, 0.85);
          } else if (split != 0) {
            pr_phase0<true>(g, gr, rank.data(), contrib.data(), inv_deg.data(), acc.data(), l1.data(), 0u,
                            0.1, 0.85, tcost.data(), ctl.data());
          } else {
            pr_phase0(g, gr, rank.data(), contrib.data(), inv_deg.data(), acc.data(), l1.data(), 0u, 0.1, 0.85);
          }
        });
      }
      for (auto& th : ts) th.join();
    }
    for (size_t i = 0; i < n; ++i) printf("%.17g ", rank[i]);
    printf("\n");
    for (size_t i = 0; i < n; ++i) printf("%.17g ", contrib[n + i]);
    printf("\n%.17g\n", l1[0]);
  }
  return 0;
}
"#;

fn gen(spec: &str) -> Csr {
    spec.parse::<GraphSpec>().unwrap().csr().unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn every_tile_is_ranked_once_with_and_without_the_claimed_tail() {
    let Some((dir, exe)) = cxx::graph_apps_harness("pagerank_tail_host", MAIN) else {
        return;
    };
    // Heavy vertices (in-degree > 256: the hubs of R-MAT and a star's centres) and light tiles.
    let base = gen("rmat:scale=10,ef=12,seed=4");
    let mut edges: Vec<(u32, u32)> = (0..base.num_vertices())
        .flat_map(|u| base.neighbours(u).iter().map(move |&v| (u, v)))
        .collect();
    edges.extend((0..900).map(|i| (i % 1024, 1000 + i % 3)));
    let g = Csr::from_edges(1024, &edges, None).unwrap();
    let t = g.transpose();
    let n = t.num_vertices() as usize;
    let heavy = HeavySplit::of(&t, DEFAULT_HEAVY_DEGREE);
    assert!(!heavy.hv.is_empty(), "the test graph needs heavy vertices");
    let p = tile_cost_prefix(&t, DEFAULT_HEAVY_DEGREE);
    let tiles = n.div_ceil(32);
    assert!(p[tiles + 3] > 0, "the test graph needs a claimed tail");
    // Warp counts with the tail (light cost per warp at least the threshold) and without.
    let with_tail = (p[tiles] / TAIL_MIN_COST).clamp(1, 8) as u32;
    let warps = [1, with_tail, with_tail + 1, 13];
    assert!(u64::from(with_tail) * TAIL_MIN_COST <= p[tiles]);
    assert!(u64::from(with_tail + 1) * TAIL_MIN_COST > p[tiles]);

    let contrib: Vec<f64> = (0..n)
        .map(|v| ((v * 37 + 11) % 101) as f64 / 101.0)
        .collect();
    let inv_deg: Vec<f64> = (0..n as u32)
        .map(|v| 1.0 / f64::from(g.degree(v).max(1)))
        .collect();
    // The sequential sums: rank = 0.1 + 0.85 * (sum of the in-neighbours' contributions).
    let rank: Vec<f64> = (0..n as u32)
        .map(|v| {
            0.1 + 0.85
                * t.neighbours(v)
                    .iter()
                    .map(|&u| contrib[u as usize])
                    .sum::<f64>()
        })
        .collect();
    let l1: f64 = rank.iter().map(|r| (r - 1.0).abs()).sum();

    let mut input = format!(
        "{n} {} {} {} {}\n",
        t.num_edges(),
        heavy.hv.len(),
        heavy.hchunk.len(),
        p.len()
    );
    let mut line = |xs: &mut dyn Iterator<Item = String>| {
        for x in xs {
            write!(input, "{x} ").unwrap();
        }
        input.push('\n');
    };
    line(&mut t.offsets().iter().map(u32::to_string));
    line(&mut t.targets().iter().map(u32::to_string));
    line(&mut heavy.hv.iter().map(u32::to_string));
    line(&mut heavy.hoff.iter().map(u32::to_string));
    line(&mut heavy.hchunk.iter().map(u32::to_string));
    line(&mut p.iter().map(u64::to_string));
    line(&mut contrib.iter().map(|x| format!("{x:.17e}")));
    line(&mut inv_deg.iter().map(|x| format!("{x:.17e}")));
    let runs: Vec<(u32, u32)> = warps.iter().map(|&w| (1, w)).chain([(0, 3)]).collect();
    for (split, w) in &runs {
        writeln!(input, "{split} {w}").unwrap();
    }
    std::fs::write(dir.join("in.txt"), &input).unwrap();
    let run = Command::new(&exe)
        .stdin(std::fs::File::open(dir.join("in.txt")).unwrap())
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let text = String::from_utf8(run.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3 * runs.len());
    let nums = |s: &str| -> Vec<f64> { s.split_whitespace().map(|x| x.parse().unwrap()).collect() };
    for ((split, w), out) in runs.iter().zip(lines.chunks(3)) {
        let (r, next, d) = (nums(out[0]), nums(out[1]), nums(out[2])[0]);
        let what = format!("split {split}, {w} warps");
        for v in 0..n {
            assert!(
                close(r[v], rank[v]),
                "{what}: rank of {v} {} != {}",
                r[v],
                rank[v]
            );
            assert!(
                close(next[v], rank[v] * inv_deg[v]),
                "{what}: contribution of {v}"
            );
        }
        assert!(close(d, l1), "{what}: L1 change {d} != {l1}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

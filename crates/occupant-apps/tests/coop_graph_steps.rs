//! The cooperative bc and sssp-worklist bodies (`src/coop_cuda/bc.cu`, `sssp_worklist.cu`, over
//! the CUDA apps' `bc_phase` / `sssp_worklist_phase`) on CPU threads — a CUDA thread per
//! thread, warps of 32 meeting at a barrier in every shuffle and ballot (`coop_host_graph/`) —
//! with every interval (INIT, each step, CHECK) run by a different, random number of groups
//! with contiguous ids, as kills and forks at the resizing barriers leave them; every round
//! checked on the "device" against the sequential reference (`apps::reference`). A graph with
//! two heavy vertices (the chunked edge paths) and weights. Needs a C++20 compiler (`c++`);
//! skips with one line without one.

mod cxx;

use occupant_apps::apps::cuda::{HeavySplit, DEFAULT_HEAVY_DEGREE, GRAPH_APPS_CU};
use occupant_apps::apps::{reference, AppKind, AppOutput, AppParams};
use occupant_apps::coop_cuda::GRAPH_CU;
use occupant_apps::graph::Csr;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// A 20×20 directed grid (both directions, weights 1..9) plus two heavy vertices behind the far
/// corner: 400 → every grid vertex, 400 → 401, 401 → 300 grid vertices.
fn graph() -> Csr {
    let side = 20u32;
    let mut edges = Vec::new();
    for y in 0..side {
        for x in 0..side {
            let v = y * side + x;
            if x + 1 < side {
                edges.extend([(v, v + 1), (v + 1, v)]);
            }
            if y + 1 < side {
                edges.extend([(v, v + side), (v + side, v)]);
            }
        }
    }
    edges.push((side * side - 1, 400));
    edges.extend((0..400).map(|v| (400, v)));
    edges.push((400, 401));
    edges.extend((0..300).map(|v| (401, (v * 7) % 400)));
    let w: Vec<u32> = (0..edges.len() as u32)
        .map(|i| 1 + i.wrapping_mul(2_654_435_761) % 9)
        .collect();
    Csr::from_edges(402, &edges, Some(&w)).unwrap()
}

fn input(g: &Csr, source: u32) -> String {
    let p = AppParams {
        source,
        ..AppParams::default()
    };
    let AppOutput::Scores(bc) = reference(AppKind::Bc, g, &p) else {
        panic!("bc reference")
    };
    let AppOutput::Distances(dist) = reference(AppKind::SsspWorklist, g, &p) else {
        panic!("sssp reference")
    };
    let h = HeavySplit::of(g, DEFAULT_HEAVY_DEGREE);
    assert_eq!(h.hv, vec![400, 401], "the two heavy vertices");
    let mut s = format!("{} {} {source}\n", g.num_vertices(), g.targets().len());
    let mut line = |v: &mut dyn Iterator<Item = String>| {
        for x in v {
            write!(s, "{x} ").unwrap();
        }
        s.push('\n');
    };
    line(&mut g.offsets().iter().map(u32::to_string));
    line(&mut g.targets().iter().map(u32::to_string));
    line(&mut g.weights().unwrap().iter().map(u32::to_string));
    line(&mut std::iter::once(h.hv.len().to_string()));
    line(&mut h.hv.iter().map(u32::to_string));
    line(&mut h.hoff.iter().map(u32::to_string));
    line(&mut std::iter::once(h.hchunk.len().to_string()));
    line(&mut h.hchunk.iter().map(u32::to_string));
    line(&mut bc.iter().map(|x| format!("{x:e}")));
    line(&mut dist.iter().map(u64::to_string));
    s
}

#[test]
fn coop_bc_and_sssp_worklist_steps_are_right_with_any_group_count() {
    let dir = std::env::temp_dir().join(format!("occupant-coop-graph-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/coop_host_graph");
    for f in ["simt.h", "graph_harness.cpp"] {
        std::fs::copy(here.join(f), dir.join(f)).unwrap();
    }
    std::fs::write(dir.join("occupant.cuh"), "// host: simt.h stands in\n").unwrap();
    std::fs::write(
        dir.join("graph_kernels.cu"),
        format!("{GRAPH_APPS_CU}\n{GRAPH_CU}"),
    )
    .unwrap();
    let g = graph();
    std::fs::write(dir.join("src0.txt"), input(&g, 0)).unwrap();
    std::fs::write(dir.join("src399.txt"), input(&g, 399)).unwrap();
    let Some(exe) = cxx::compile(
        "coop_graph_steps",
        &dir,
        "graph_harness",
        &["-DOCC_APP_HOST_LOOP", "-w"],
    ) else {
        return;
    };
    for (input, app, seed) in [
        ("src0.txt", "bc", "1"),
        ("src399.txt", "bc", "2"),
        ("src0.txt", "wl", "3"),
        ("src399.txt", "wl", "4"),
    ] {
        let out = Command::new(&exe)
            .arg(dir.join(input))
            .args([app, "2", "5", seed])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        println!(
            "{input} {app}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "{input} {app}: {text}");
        assert!(text.contains("wrong_rounds=0"), "{input} {app}: {text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

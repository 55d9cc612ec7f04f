//! Compiles every cooperative CUDA application kernel (`src/coop_cuda`) with NVRTC for sm_90 as
//! the runtime does: BFS, SSSP, the graph apps cc, pagerank, color, mis, bc and
//! sssp-worklist (after `GRAPH_APPS_CU` with -DOCC_APP_HOST_LOOP), octree and game. Needs no GPU; without NVRTC it skips, unless
//! OCCUPANT_REQUIRE_NVRTC=1.

use occupant::cuda::{compile_uncached, probe, CompileOptions};
use occupant_apps::coop_cuda::{
    coop_graph_source, BFS_CU, COOP_GRAPH_APPS, GAME_CU, OCTREE_CU, SSSP_CU,
};

#[test]
fn cooperative_apps_compile() {
    match probe::ensure_nvrtc() {
        Ok(()) => {}
        Err(e) if std::env::var("OCCUPANT_REQUIRE_NVRTC").as_deref() == Ok("1") => {
            panic!("OCCUPANT_REQUIRE_NVRTC=1 but {e}")
        }
        Err(e) => {
            eprintln!("skipping cooperative_apps_compile: {e}");
            return;
        }
    }
    let graph = coop_graph_source();
    let host_loop = CompileOptions::default().option("-DOCC_APP_HOST_LOOP");
    for (name, src, opts) in [
        ("coop_bfs.cu", BFS_CU, CompileOptions::default()),
        ("coop_sssp.cu", SSSP_CU, CompileOptions::default()),
        ("coop_graph.cu", graph.as_str(), host_loop),
        ("coop_octree.cu", OCTREE_CU, CompileOptions::default()),
        ("coop_game.cu", GAME_CU, CompileOptions::default()),
    ] {
        let c =
            compile_uncached(name, src, &opts, "sm_90").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(c.log.is_empty(), "{name}: NVRTC warnings:\n{}", c.log);
        if name == "coop_graph.cu" {
            // Every graph app's kernel is in the image (the names the host launches).
            for app in COOP_GRAPH_APPS {
                let kernel = format!("coop_{}", app.name().replace('-', "_"));
                let found = c
                    .image
                    .windows(kernel.len())
                    .any(|w| w == kernel.as_bytes());
                assert!(found, "{name}: no kernel {kernel}");
            }
        }
    }
}

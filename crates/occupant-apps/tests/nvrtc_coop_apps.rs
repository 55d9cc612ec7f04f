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
        // The co-run experiment's build with throttled polls while groups are lent.
        (
            "coop_bfs_throttle.cu",
            BFS_CU,
            CompileOptions::default().option("-DOCC_COOP_POLL_PAUSE_SHIFT=5"),
        ),
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

/// The parameters of every `.entry` of a PTX text: (kernel name, parameter count).
fn ptx_entries(ptx: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut rest = ptx;
    while let Some(i) = rest.find(".entry ") {
        let after = &rest[i + ".entry ".len()..];
        let open = after.find('(').expect("an .entry has a parameter list");
        let close = after.find(')').expect("an .entry's parameter list ends");
        let name = after[..open].trim().to_string();
        let params = after[open..close].matches(".param").count();
        out.push((name, params));
        rest = &after[close..];
    }
    out
}

/// The host launches `coop_<app>` with `CudaInput::args` — exactly the parameters of the app's
/// host-loop kernel (`<app>_step…`, the same program) — followed by the cooperative kernel's own
/// (`GpuGraphApp::start` in coop_cuda/graph.rs): the scheduler's State* and Mailbox* in front,
/// then rounds, bc's source, the expected result (pagerank, bc: values and tolerance), checks,
/// iters and mode. A parameter added to an app's input but not to its cooperative kernel (or the
/// other way round) only failed at launch on a GPU before (`coop_pagerank` and the tile costs);
/// this compares the two signatures without one.
#[test]
fn cooperative_graph_kernels_take_the_apps_arguments() {
    if probe::ensure_nvrtc().is_err() {
        assert!(std::env::var("OCCUPANT_REQUIRE_NVRTC").as_deref() != Ok("1"));
        eprintln!("skipping: no NVRTC");
        return;
    }
    let opts = CompileOptions::default().option("-DOCC_APP_HOST_LOOP");
    let c = compile_uncached("coop_graph.cu", &coop_graph_source(), &opts, "compute_90").unwrap();
    let ptx = String::from_utf8_lossy(&c.image).into_owned();
    let entries = ptx_entries(&ptx);
    let params = |k: &str| {
        entries
            .iter()
            .find(|(n, _)| n == k)
            .unwrap_or_else(|| panic!("no kernel {k} in coop_graph.cu: {entries:?}"))
            .1
    };
    // (cooperative kernel, host-loop kernel, the cooperative kernel's own parameters)
    for (coop, step, own) in [
        ("coop_cc", "cc_step", 2 + 1 + 1 + 3),
        ("coop_pagerank", "pagerank_step0", 2 + 1 + 2 + 3),
        ("coop_color", "color_step0", 2 + 1 + 1 + 3),
        ("coop_mis", "mis_step0", 2 + 1 + 1 + 3),
        ("coop_bc", "bc_step", 2 + 1 + 1 + 2 + 3),
        ("coop_sssp_worklist", "sssp_worklist_step", 2 + 1 + 1 + 3),
    ] {
        assert_eq!(
            params(coop),
            params(step) + own,
            "{coop} takes {} parameters; the host passes {step}'s {} and {own} more",
            params(coop),
            params(step)
        );
    }
}

//! Compiles the CUDA applications' kernels (graph_apps.cu) with NVRTC for sm_90 the ways the
//! runtime does: the host-loop program (-DOCC_APP_HOST_LOOP) and the device-loop program with
//! each barrier kind. (The cooperative kernels need the CUDA toolkit's headers: compiled on the
//! GPU machine only.) Needs no GPU; without NVRTC it skips, unless OCCUPANT_REQUIRE_NVRTC=1.

use occupant::cuda::sync::BarrierKind;
use occupant::cuda::{compile_uncached, probe, CompileOptions};
use occupant_apps::apps::cuda::GRAPH_APPS_CU;

#[test]
fn graph_apps_compile_every_way() {
    match probe::ensure_nvrtc() {
        Ok(()) => {}
        Err(e) if std::env::var("OCCUPANT_REQUIRE_NVRTC").as_deref() == Ok("1") => {
            panic!("OCCUPANT_REQUIRE_NVRTC=1 but {e}")
        }
        Err(e) => {
            eprintln!("skipping graph_apps_compile_every_way: {e}");
            return;
        }
    }
    let mut ways = vec![CompileOptions::default().option("-DOCC_APP_HOST_LOOP")];
    ways.push(
        CompileOptions::default()
            .option("-DOCC_APP_HOST_LOOP")
            .option("-DOCC_APP_GRAPH_WHILE"),
    );
    ways.push(CompileOptions::default().option("-DOCC_APP_MIN_BLOCKS=8"));
    for kind in BarrierKind::ALL {
        ways.push(
            CompileOptions::default()
                .option(format!("-DOCC_PERSISTENT_BARRIER={}", kind.primitive_id())),
        );
    }
    for opts in ways {
        let c = compile_uncached("graph_apps.cu", GRAPH_APPS_CU, &opts, "sm_90")
            .unwrap_or_else(|e| panic!("{:?}: {e}", opts.options));
        assert!(
            c.log.is_empty(),
            "{:?}: NVRTC warnings:\n{}",
            opts.options,
            c.log
        );
    }
}

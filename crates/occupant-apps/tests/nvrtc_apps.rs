//! Compiles the CUDA applications' kernels (graph_apps.cu) with NVRTC for sm_90 the ways the
//! runtime does: the host-loop program (-DOCC_APP_HOST_LOOP) and the device-loop program with
//! each barrier kind. (The cooperative kernels need the CUDA toolkit's headers: compiled on the
//! GPU machine only.) Needs no GPU; without NVRTC it skips, unless OCCUPANT_REQUIRE_NVRTC=1.

use occupant::cuda::sync::BarrierKind;
use occupant::cuda::{compile_uncached, persistent_supports, probe, CompileOptions};
use occupant_apps::apps::cuda::{APP_POLL_PAUSE_SHIFT, GRAPH_APPS_CU};

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
    ways.push(CompileOptions::default().option("-DOCC_APP_SERPENTINE"));
    ways.push(CompileOptions::default().option("-DOCC_APP_TILES_FIRST"));
    ways.push(CompileOptions::default().option("-DOCC_APP_INTERLEAVE"));
    // The experiments' switches: the barrier trace (BarrierTrace) and grid.sync's arrival.
    ways.push(
        CompileOptions::default()
            .option("-DOCC_APP_TRACE")
            .option("-DOCC_APP_TRACE_FROM=1")
            .option("-DOCC_LEAN_ARRIVE_RELEASE=true")
            .option("-DOCC_POLL_PREDICT=true")
            .option("-DOCC_APP_PAD_BYTES=4096")
            .option("-DOCC_APP_STATIC_TILES")
            .option(format!(
                "-DOCC_PERSISTENT_BARRIER={}",
                BarrierKind::LeanPause.primitive_id()
            )),
    );
    for &kind in BarrierKind::ALL {
        let opts = CompileOptions::default()
            .option(format!("-DOCC_PERSISTENT_BARRIER={}", kind.primitive_id()));
        if persistent_supports(kind) {
            ways.push(opts);
        } else {
            // occ::PersistentKernel holds no state for it: persistent.cuh says so (#error).
            let e = compile_uncached("graph_apps.cu", GRAPH_APPS_CU, &opts, "sm_90").unwrap_err();
            assert!(
                e.to_string().contains("OCC_PERSISTENT_BARRIER"),
                "{kind}: {e}"
            );
        }
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

/// `ptxas` for register reports: `$OCCUPANT_PTXAS`, else the one `WITH_PTXAS=1
/// scripts/setup-nvrtc.sh` installs under the workspace's `.venv-nvrtc`, else `ptxas` on PATH.
fn ptxas() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("OCCUPANT_PTXAS") {
        return Some(p.into());
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let venv = root.join(".venv-nvrtc/lib");
    if let Ok(pys) = std::fs::read_dir(&venv) {
        for py in pys.flatten() {
            let p = py.path().join("site-packages/nvidia/cu13/bin/ptxas");
            if p.is_file() {
                return Some(p);
            }
        }
    }
    std::process::Command::new("ptxas")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| "ptxas".into())
}

/// `ptxas -v` of `ptx` for sm_90: (kernel, registers, stack bytes, spill store bytes) per kernel.
fn ptxas_report(ptxas: &std::path::Path, ptx: &[u8]) -> Vec<(String, u32, u32, u32)> {
    let dir = std::env::temp_dir().join(format!("occupant-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("k.ptx");
    std::fs::write(&file, ptx.strip_suffix(&[0u8]).unwrap_or(ptx)).unwrap();
    let out = std::process::Command::new(ptxas)
        .args(["-v", "-arch=sm_90", "-o"])
        .arg(dir.join("k.cubin"))
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "ptxas failed:\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
    let num = |line: &str, before: &str| -> u32 {
        let i = line.find(before).unwrap();
        line[..i]
            .split_whitespace()
            .last()
            .and_then(|w| w.parse().ok())
            .unwrap()
    };
    let mut rows = Vec::new();
    let (mut name, mut stack, mut spill) = (String::new(), 0, 0);
    for line in text.lines() {
        if let Some(i) = line.find("Compiling entry function '") {
            let rest = &line[i + 26..];
            name = rest[..rest.find('\'').unwrap()].to_string();
        } else if line.contains("bytes stack frame") {
            stack = num(line, "bytes stack frame");
            spill = num(line, "bytes spill stores");
        } else if line.contains("Used") && line.contains("registers") {
            rows.push((name.clone(), num(line, "registers"), stack, spill));
        }
    }
    rows
}

/// Under the 32-register cap of 8 resident blocks of 256 per SM (`-DOCC_APP_MIN_BLOCKS=8`, the
/// H100 default), no device-loop kernel spills with the one-counter barriers lean, lean_pause and
/// hierarchical: `occ::PersistentKernel` and the occupancy-API variant keep their barrier in
/// shared memory, so nothing of it is live in registers across the loop. (pagerank's own
/// tile loop may spill up to 16 bytes; larger barriers' code costs a few bytes more there.) Needs NVRTC and ptxas (skips without either, unless
/// OCCUPANT_REQUIRE_NVRTC=1 and OCCUPANT_PTXAS is set).
#[test]
fn device_loop_kernels_do_not_spill_at_full_occupancy() {
    if let Err(e) = probe::ensure_nvrtc() {
        assert!(
            std::env::var("OCCUPANT_REQUIRE_NVRTC").as_deref() != Ok("1"),
            "OCCUPANT_REQUIRE_NVRTC=1 but {e}"
        );
        eprintln!("skipping: {e}");
        return;
    }
    let Some(ptxas) = ptxas() else {
        assert!(
            std::env::var_os("OCCUPANT_PTXAS").is_none(),
            "OCCUPANT_PTXAS set but not runnable"
        );
        eprintln!("skipping: no ptxas (WITH_PTXAS=1 scripts/setup-nvrtc.sh)");
        return;
    };
    for kind in [
        BarrierKind::Lean,
        BarrierKind::LeanPause,
        BarrierKind::Hierarchical,
    ] {
        let opts = CompileOptions::default()
            .option("-DOCC_APP_MIN_BLOCKS=8")
            .option(format!("-DOCC_POLL_PAUSE_SHIFT={APP_POLL_PAUSE_SHIFT}"))
            .option(format!("-DOCC_PERSISTENT_BARRIER={}", kind.primitive_id()));
        let c = compile_uncached("graph_apps.cu", GRAPH_APPS_CU, &opts, "compute_90").unwrap();
        let rows = ptxas_report(&ptxas, &c.image);
        let loops: Vec<_> = rows
            .iter()
            .filter(|r| r.0.ends_with("_persistent") || r.0.ends_with("_occupancy"))
            .collect();
        assert!(loops.len() >= 16, "{kind}: {rows:?}");
        for (name, regs, stack, spill) in loops {
            println!("{kind} {name}: {regs} registers, {stack} bytes stack, {spill} spilled");
            assert!(*regs <= 32, "{kind} {name}: {regs} registers");
            // pagerank's phase 0 (the warp's search for its range of tiles, then the tiles)
            // keeps a few more values live in its own loop: up to 16 bytes there (8-12 in the
            // occupancy-API kernel, measured), outside the barrier's doing.
            let allowed = if name.starts_with("pagerank") { 16 } else { 0 };
            assert!(
                *stack <= allowed && *spill <= allowed,
                "{kind} {name} spills"
            );
        }
    }
}

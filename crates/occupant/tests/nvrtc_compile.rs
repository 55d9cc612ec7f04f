//! Compiles every embedded device header and every kernel file (`*.cu`) of the repository with
//! NVRTC for sm_90, failing on any error or warning. Needs no GPU, only NVRTC (see
//! scripts/setup-nvrtc.sh). Without NVRTC the tests skip with one line, unless
//! `OCCUPANT_REQUIRE_NVRTC=1` (CI) makes that a failure.

use occupant::cuda::{compile_uncached, probe, CompileOptions, HEADERS};
use occupant::Error;
use std::path::{Path, PathBuf};

const ARCH: &str = "sm_90";

/// True when NVRTC is usable; otherwise prints why and returns false (or panics under
/// OCCUPANT_REQUIRE_NVRTC=1).
fn nvrtc_or_skip(test: &str) -> bool {
    match probe::ensure_nvrtc() {
        Ok(()) => true,
        Err(e) if std::env::var("OCCUPANT_REQUIRE_NVRTC").as_deref() == Ok("1") => {
            panic!("OCCUPANT_REQUIRE_NVRTC=1 but {e}")
        }
        Err(e) => {
            eprintln!("skipping {test}: {e}");
            false
        }
    }
}

fn compile_clean(name: &str, src: &str) {
    compile_clean_with(name, src, &CompileOptions::default())
}

fn compile_clean_with(name: &str, src: &str, opts: &CompileOptions) {
    let c = compile_uncached(name, src, opts, ARCH)
        .unwrap_or_else(|e| panic!("{name} failed to compile for {ARCH}: {e}"));
    assert!(c.log.is_empty(), "{name}: NVRTC warnings:\n{}", c.log);
    assert!(!c.image.is_empty(), "{name}: empty image");
}

#[test]
fn every_header_compiles_alone() {
    if !nvrtc_or_skip("every_header_compiles_alone") {
        return;
    }
    for (name, _) in HEADERS {
        let src =
            format!("#include <{name}>\nextern \"C\" __global__ void occ_probe_kernel() {{}}\n");
        compile_clean(&format!("include_{name}.cu"), &src);
    }
}

fn kernel_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if p.is_dir() {
            if !name.starts_with('.') && name != "target" {
                kernel_files(&p, out);
            }
        } else if name.ends_with(".cu") {
            out.push(p);
        }
    }
}

#[test]
fn every_kernel_in_the_repo_compiles() {
    if !nvrtc_or_skip("every_kernel_in_the_repo_compiles") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // The embedded kernels always; the files of the source tree when it is here (a test
    // executable copied to a GPU machine runs without it).
    compile_clean("selftest.cu", occupant::cuda::SELFTEST_CU);
    if !root.join("crates").is_dir() {
        eprintln!(
            "every_kernel_in_the_repo_compiles: source tree {} absent, compiled the embedded kernels only",
            root.display()
        );
        return;
    }
    let mut files = Vec::new();
    kernel_files(&root.join("crates"), &mut files);
    assert!(
        !files.is_empty(),
        "no .cu file found under {}",
        root.display()
    );
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        let name = f.display().to_string();
        // A fragment is compiled only as part of a larger program, by its own crate's tests.
        if src
            .lines()
            .take(3)
            .any(|l| l.starts_with("// occupant: fragment"))
        {
            continue;
        }
        compile_clean(&name, &src);
        // The variants the benchmarks build: cluster launches and the full-occupancy cap.
        if src.contains("OCC_CLUSTER_SIZE") {
            let cluster = CompileOptions::default().option("-DOCC_CLUSTER_SIZE=8");
            compile_clean_with(&format!("{name}[cluster=8]"), &src, &cluster);
        }
        let capped = CompileOptions::default().option("-maxrregcount=32");
        compile_clean_with(&format!("{name}[regs=32]"), &src, &capped);
        // The barrier benchmark's skewed arrivals with the polls' throttle (gpu_i11_misses).
        if src.contains("OCC_BENCH_SKEW_CYCLES") {
            let skew = CompileOptions::default()
                .option("-DOCC_BENCH_SKEW_CYCLES=4000")
                .option("-DOCC_POLL_PAUSE_SHIFT=1");
            compile_clean_with(&format!("{name}[skew,t1]"), &src, &skew);
        }
        if src.contains("OCC_BARRIER_LAB") {
            let lab = CompileOptions::default().option("-DOCC_BARRIER_LAB");
            compile_clean_with(&format!("{name}[lab]"), &src, &lab);
            let lab_cluster = CompileOptions::default()
                .option("-DOCC_BARRIER_LAB")
                .option("-DOCC_CLUSTER_SIZE=4");
            compile_clean_with(&format!("{name}[lab,cluster=4]"), &src, &lab_cluster);
        }
    }
}

#[test]
fn replica_and_relay_emit_relaxed_polls_and_a_light_acquire() {
    if !nvrtc_or_skip("replica_and_relay_emit_relaxed_polls_and_a_light_acquire") {
        return;
    }
    let src = "#include <occupant.cuh>\n\
        extern \"C\" __global__ void k(unsigned* s) {\n\
          occ::Env env; env.group_id = blockIdx.x; env.num_groups = gridDim.x;\n\
          occ::sync::ReplicaBarrier b(s, env);\n\
          occ::sync::RelayBarrier r(s + 1024, env);\n\
          occ::sync::LeanBarrier l(s + 20000, env);\n\
          if (b.wait() && r.wait()) l.wait();\n\
        }\n";
    let c = compile_uncached("replica.cu", src, &CompileOptions::default(), "compute_90").unwrap();
    let ptx = String::from_utf8_lossy(&c.image);
    for insn in [
        "red.release.gpu.global.add.u32",
        "ld.relaxed.gpu.u32",
        "fence.acquire.gpu",
        "atom.acq_rel.gpu.add.u32",
    ] {
        assert!(ptx.contains(insn), "PTX lacks {insn}");
    }
    assert!(
        !ptx.contains("atom.acq_rel.gpu.exch"),
        "the tail exchange needs no fence"
    );
}

/// A user-defined `Op` (a two-word argument, a 64-bit result) instantiates
/// `occ::sync::CombiningMutex`, and the PTX has the documented orderings: the relaxed tail
/// exchange (use tags, no node reset to publish), the release of the request's link, the
/// acquire polls and link reads, the fence and the relaxed flag stores of the hand-back.
#[test]
fn combining_mutex_takes_a_user_op_and_emits_its_orderings() {
    if !nvrtc_or_skip("combining_mutex_takes_a_user_op_and_emits_its_orderings") {
        return;
    }
    let src = "#include <occupant.cuh>\n\
        #include <occupant_sync.cuh>\n\
        struct Pair { unsigned slot; unsigned add; };\n\
        struct AddAt {\n\
          typedef Pair Arg; typedef unsigned long long Result;\n\
          unsigned long long* sums;\n\
          __device__ unsigned long long operator()(const Pair& p) const {\n\
            const unsigned long long v = sums[p.slot] + p.add; sums[p.slot] = v; return v;\n\
          }\n\
        };\n\
        extern \"C\" __global__ void k(unsigned* s, unsigned long long* sums,\n\
                                       unsigned long long* out) {\n\
          if (threadIdx.x != 0) return;\n\
          occ::sync::CombiningMutex<AddAt> m(s, AddAt{sums});\n\
          out[blockIdx.x] = m.apply(Pair{blockIdx.x & 3u, 1u});\n\
        }\n";
    let c = compile_uncached(
        "combining.cu",
        src,
        &CompileOptions::default(),
        "compute_90",
    )
    .unwrap_or_else(|e| panic!("combining.cu: {e}"));
    assert!(c.log.is_empty(), "combining.cu: NVRTC warnings:\n{}", c.log);
    let ptx = String::from_utf8_lossy(&c.image);
    for insn in [
        "atom.relaxed.gpu.exch.b32",
        "st.release.gpu.u64",
        "ld.acquire.gpu.u64",
        "fence.acq_rel.gpu",
        "st.relaxed.gpu.u64",
    ] {
        assert!(ptx.contains(insn), "PTX lacks {insn}");
    }
}

#[test]
fn a_broken_kernel_reports_nvrtc_log_with_file_and_line() {
    if !nvrtc_or_skip("a_broken_kernel_reports_nvrtc_log_with_file_and_line") {
        return;
    }
    let src = "#include <occupant.cuh>\nextern \"C\" __global__ void k(unsigned* p) {\n  *p = undefined_name;\n}\n";
    match compile_uncached("broken.cu", src, &CompileOptions::default(), ARCH) {
        Err(Error::Compile { name, log }) => {
            assert_eq!(name, "broken.cu");
            assert!(
                log.contains("broken.cu(3)"),
                "log lacks file and line: {log}"
            );
            assert!(
                log.contains("undefined_name"),
                "log lacks the identifier: {log}"
            );
        }
        other => panic!("expected Error::Compile, got {other:?}"),
    }
}

#[test]
fn a_bad_option_is_a_compile_error() {
    if !nvrtc_or_skip("a_bad_option_is_a_compile_error") {
        return;
    }
    let opts = CompileOptions::default().option("--no-such-option");
    let r = compile_uncached("opt.cu", "extern \"C\" __global__ void k() {}", &opts, ARCH);
    assert!(matches!(r, Err(Error::Compile { .. })), "got {r:?}");
}

#[test]
fn helpers_emit_the_documented_instructions() {
    if !nvrtc_or_skip("helpers_emit_the_documented_instructions") {
        return;
    }
    let src = "#include <occupant.cuh>\n\
        extern \"C\" __global__ void k(unsigned* p, unsigned long long* q) {\n\
          occ::st_release(p, occ::ld_acquire(p) + 1u);\n\
          occ::atomic_add_acq_rel(q, 1ull);\n\
          occ::atomic_cas_relaxed_sys(p, 0u, 1u);\n\
          occ::fence_sc();\n\
          occ::wait_until(occ::User, [&] { return occ::ld_acquire_cta(p) != 0u; });\n\
        }\n";
    let c = compile_uncached("emit.cu", src, &CompileOptions::default(), "compute_90").unwrap();
    let ptx = String::from_utf8_lossy(&c.image);
    for insn in [
        "ld.acquire.gpu.u32",
        "st.release.gpu.u32",
        "atom.acq_rel.gpu.add.u64",
        "atom.relaxed.sys.cas.b32",
        "fence.sc.gpu",
        "ld.acquire.cta.u32",
        "%globaltimer",
        "nanosleep",
    ] {
        assert!(ptx.contains(insn), "PTX lacks {insn}");
    }
}

/// A persistent program compiles with the placement probe (`OCC_PERSISTENT_PLACEMENTS`, as
/// `PersistentProgram` compiles it) for every barrier kind `occ::PersistentKernel` holds, and
/// the probe kernel is in the image.
#[test]
fn the_placement_probe_compiles_for_every_persistent_kind() {
    use occupant::cuda::sync::BarrierKind;
    use occupant::cuda::{persistent_supports, PERSISTENT_PLACEMENTS};
    if !nvrtc_or_skip("the_placement_probe_compiles_for_every_persistent_kind") {
        return;
    }
    for &k in BarrierKind::ALL.iter().filter(|&&k| persistent_supports(k)) {
        let opts = CompileOptions::default()
            .option(format!("-DOCC_PERSISTENT_BARRIER={}", k.primitive_id()))
            .option(format!(
                "-DOCC_PERSISTENT_PLACEMENTS={PERSISTENT_PLACEMENTS}"
            ));
        let c = compile_uncached(
            &format!("placement_{}.cu", k.name()),
            "#include <occupant.cuh>\n",
            &opts,
            ARCH,
        )
        .unwrap_or_else(|e| panic!("{k}: {e}"));
        assert!(c.log.is_empty(), "{k}: NVRTC warnings:\n{}", c.log);
        let image = String::from_utf8_lossy(&c.image);
        assert!(
            image.contains("occ_persistent_placement_probe"),
            "{k}: no probe kernel in the image"
        );
    }
}

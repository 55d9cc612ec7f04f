//! Finding the CUDA driver and NVRTC at run time, without panicking.
//!
//! cudarc loads `libcuda` and `libnvrtc` lazily and panics when one is missing, so every entry
//! point of this backend asks here first. NVRTC is looked up, in order, in
//! `$OCCUPANT_NVRTC_DIR`, on the loader path (`LD_LIBRARY_PATH`, ldconfig), and in the
//! workspace's `.venv-nvrtc` made by `scripts/setup-nvrtc.sh` (relative to the current directory
//! and to this crate's source tree). A library found by directory is loaded once by full path and
//! kept loaded; cudarc's own lookup by name then finds that already-loaded copy.

use crate::model::{Error, Result};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The environment variable naming a directory that holds `libnvrtc.so.*`.
pub const NVRTC_DIR_ENV: &str = "OCCUPANT_NVRTC_DIR";

/// True when the CUDA driver library (`libcuda`) can be loaded.
pub fn driver_present() -> bool {
    // SAFETY: only tries to dlopen the library by name and drops it again.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// Makes NVRTC loadable, or says why it is not: [`Error::NoDevice`] naming where it looked.
pub fn ensure_nvrtc() -> Result<()> {
    static FOUND: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    FOUND
        .get_or_init(find_nvrtc)
        .clone()
        .map_err(|reason| Error::NoDevice { reason })
}

/// True when NVRTC can be loaded (see [`ensure_nvrtc`]).
pub fn nvrtc_present() -> bool {
    ensure_nvrtc().is_ok()
}

fn find_nvrtc() -> std::result::Result<(), String> {
    let mut tried = Vec::new();
    if let Some(dir) = std::env::var_os(NVRTC_DIR_ENV) {
        let dir = PathBuf::from(dir);
        if preload_from(&dir) {
            return Ok(());
        }
        tried.push(dir.display().to_string());
    }
    // SAFETY: dlopen by name, dropped again.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        return Ok(());
    }
    tried.push("the loader path".into());
    for dir in venv_lib_dirs() {
        if preload_from(&dir) {
            return Ok(());
        }
        tried.push(dir.display().to_string());
    }
    Err(format!(
        "NVRTC (libnvrtc.so) not found (looked in {}); run scripts/setup-nvrtc.sh or set {NVRTC_DIR_ENV}",
        tried.join(", ")
    ))
}

/// Candidate `.venv-nvrtc/lib/python3.*/site-packages/nvidia/cu*/lib` directories.
fn venv_lib_dirs() -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::from(".venv-nvrtc")];
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    if let Some(ws) = manifest.parent().and_then(Path::parent) {
        roots.push(ws.join(".venv-nvrtc"));
    }
    let mut dirs = Vec::new();
    for root in roots {
        let Ok(pys) = std::fs::read_dir(root.join("lib")) else {
            continue;
        };
        for py in pys.flatten() {
            let nv = py.path().join("site-packages/nvidia");
            let Ok(cus) = std::fs::read_dir(&nv) else {
                continue;
            };
            for cu in cus.flatten() {
                let lib = cu.path().join("lib");
                if lib.is_dir() {
                    dirs.push(lib);
                }
            }
        }
    }
    dirs.sort();
    dirs.reverse(); // newest CUDA major first (cu13 before cu12)
    dirs
}

/// Loads the newest `libnvrtc.so.N` in `dir` by full path and keeps it loaded.
fn preload_from(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let mut libs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libnvrtc.so") && !n.contains("builtins"))
        })
        .collect();
    libs.sort();
    for lib in libs.iter().rev() {
        // SAFETY: loading NVRTC runs its initialisers, which have no preconditions.
        if let Ok(l) = unsafe { libloading::Library::new(lib) } {
            std::mem::forget(l); // stays loaded for the life of the process
                                 // SAFETY: dlopen by name; finds the copy just loaded (same soname).
            return unsafe { cudarc::nvrtc::sys::is_culib_present() };
        }
    }
    false
}

//! The compile cache: compiled images keyed by a hash of (source, embedded headers, options,
//! architecture, NVRTC version), kept in memory for the process and on disk across processes.
//!
//! The disk cache lives in `$OCCUPANT_CACHE_DIR`, else `$XDG_CACHE_HOME/occupant/nvrtc`, else
//! `$HOME/.cache/occupant/nvrtc`; `OCCUPANT_CACHE_DIR=off` turns it off. Only programs that
//! compiled without warnings are stored there (so warnings are shown again). Disk errors are
//! never fatal: the program is compiled instead.

use super::compile::{self, CompileOptions, Compiled, ImageKind};
use super::headers::HEADERS;
use crate::model::Result;
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// Where a compiled program came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CacheHit {
    /// Compiled now by NVRTC.
    Compiled,
    /// Found in this process's memory cache.
    Memory,
    /// Loaded from the disk cache.
    Disk,
}

fn memory() -> &'static Mutex<HashMap<u64, Arc<Compiled>>> {
    static MEM: OnceLock<Mutex<HashMap<u64, Arc<Compiled>>>> = OnceLock::new();
    MEM.get_or_init(Default::default)
}

/// Empties this process's memory cache (the disk cache stays).
pub fn clear_memory_cache() {
    memory().lock().unwrap_or_else(|p| p.into_inner()).clear();
}

/// The disk cache directory, or `None` when it is turned off or no home is known.
pub fn disk_cache_dir() -> Option<PathBuf> {
    let env = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(dir) = env("OCCUPANT_CACHE_DIR") {
        return (dir != "off").then(|| PathBuf::from(dir));
    }
    if let Some(x) = env("XDG_CACHE_HOME") {
        return Some(PathBuf::from(x).join("occupant/nvrtc"));
    }
    env("HOME").map(|h| PathBuf::from(h).join(".cache/occupant/nvrtc"))
}

/// Compiles `source` for `arch`, or returns the cached image. See [`compile::compile_uncached`]
/// for the errors.
pub fn compile_cached(
    name: &str,
    source: &str,
    opts: &CompileOptions,
    arch: &str,
) -> Result<(Arc<Compiled>, CacheHit)> {
    let version = compile::nvrtc_version()?;
    let key = cache_key(source, opts, arch, version);
    if let Some(c) = memory().lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok((c.clone(), CacheHit::Memory));
    }
    let dir = disk_cache_dir();
    let kind = if arch.starts_with("sm_") {
        ImageKind::Cubin
    } else {
        ImageKind::Ptx
    };
    let file = dir
        .as_ref()
        .map(|d| d.join(format!("{key:016x}-{arch}.{}", ext(kind))));
    if let Some(image) = file
        .as_ref()
        .and_then(|f| std::fs::read(f).ok())
        .filter(|i| !i.is_empty())
    {
        let c = Arc::new(Compiled {
            name: name.to_string(),
            arch: arch.to_string(),
            kind,
            image,
            log: String::new(),
            compile_time: Duration::ZERO,
        });
        memory()
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, c.clone());
        return Ok((c, CacheHit::Disk));
    }
    let c = Arc::new(compile::compile_uncached(name, source, opts, arch)?);
    if let (Some(dir), Some(file), true) = (dir, file, c.log.is_empty()) {
        store(&dir, &file, &c.image);
    }
    memory()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, c.clone());
    Ok((c, CacheHit::Compiled))
}

fn ext(kind: ImageKind) -> &'static str {
    match kind {
        ImageKind::Cubin => "cubin",
        ImageKind::Ptx => "ptx",
    }
}

/// Writes atomically (temporary file + rename); failures are ignored.
fn store(dir: &PathBuf, file: &PathBuf, image: &[u8]) {
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, image).is_ok() && std::fs::rename(&tmp, file).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// FNV-1a (64-bit) over length-prefixed fields: stable across Rust versions and processes.
fn cache_key(source: &str, opts: &CompileOptions, arch: &str, nvrtc: (i32, i32)) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    h.field(source.as_bytes());
    for (n, s) in HEADERS {
        h.field(n.as_bytes());
        h.field(s.as_bytes());
    }
    for a in opts.nvrtc_args(arch) {
        h.field(a.as_bytes());
    }
    h.field(format!("nvrtc {}.{}", nvrtc.0, nvrtc.1).as_bytes());
    h.0
}

struct Fnv(u64);

impl Fnv {
    fn field(&mut self, bytes: &[u8]) {
        for b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_depends_on_every_input() {
        let o = CompileOptions::default();
        let k = cache_key("a", &o, "sm_90", (13, 0));
        assert_eq!(k, cache_key("a", &o, "sm_90", (13, 0)));
        assert_ne!(k, cache_key("b", &o, "sm_90", (13, 0)));
        assert_ne!(
            k,
            cache_key("a", &o.clone().option("-DX"), "sm_90", (13, 0))
        );
        assert_ne!(k, cache_key("a", &o, "sm_80", (13, 0)));
        assert_ne!(k, cache_key("a", &o, "sm_90", (13, 1)));
    }
}

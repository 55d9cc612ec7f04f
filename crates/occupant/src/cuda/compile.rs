//! Compiling CUDA C++ with NVRTC, the embedded device library supplied as in-memory headers.

use super::headers::HEADERS;
use super::probe;
use crate::model::{Error, Result};
use cudarc::nvrtc::sys;
use serde::Serialize;
use std::ffi::{c_char, CString};
use std::time::{Duration, Instant};

/// The architecture used when none is given and no device says otherwise (Hopper).
pub const DEFAULT_ARCH: &str = "sm_90";

/// How to compile a program.
///
/// ```
/// use occupant::cuda::CompileOptions;
/// let o = CompileOptions::default().arch("sm_90").option("-DN=4");
/// assert_eq!(o.arch.as_deref(), Some("sm_90"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct CompileOptions {
    /// Target: a real architecture (`sm_90`, compiled to a CUBIN) or a virtual one
    /// (`compute_90`, compiled to PTX). `None`: the opened device's, or [`DEFAULT_ARCH`].
    pub arch: Option<String>,
    /// Extra NVRTC options, passed verbatim (`-DNAME=1`, `--use_fast_math`, …).
    pub options: Vec<String>,
    /// Emit line information (`-lineinfo`) for profilers and the sanitizer. Default on.
    pub line_info: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        Self {
            arch: None,
            options: Vec::new(),
            line_info: true,
        }
    }
}

impl CompileOptions {
    /// The same options for another architecture.
    pub fn arch(mut self, arch: impl Into<String>) -> Self {
        self.arch = Some(arch.into());
        self
    }

    /// The same options plus one NVRTC option.
    pub fn option(mut self, opt: impl Into<String>) -> Self {
        self.options.push(opt.into());
        self
    }

    /// The full NVRTC command line for `arch`.
    pub fn nvrtc_args(&self, arch: &str) -> Vec<String> {
        let mut args = vec![
            format!("--gpu-architecture={arch}"),
            "--std=c++17".to_string(),
        ];
        if self.line_info {
            args.push("-lineinfo".into());
        }
        args.extend(self.options.iter().cloned());
        args
    }
}

/// What NVRTC produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ImageKind {
    /// Machine code for one real architecture (`sm_XX`).
    Cubin,
    /// PTX text (NUL-terminated), JIT-compiled by the driver at load (`compute_XX`).
    Ptx,
}

/// A compiled program.
#[derive(Debug, Clone, Serialize)]
pub struct Compiled {
    /// The program's name (as in NVRTC's log).
    pub name: String,
    /// The architecture it was compiled for.
    pub arch: String,
    /// CUBIN or PTX.
    pub kind: ImageKind,
    /// The image bytes (`cuModuleLoadData` input).
    #[serde(skip)]
    pub image: Vec<u8>,
    /// NVRTC's log: empty when there was nothing to say, warnings otherwise.
    pub log: String,
    /// Time NVRTC took (zero when served from a cache).
    pub compile_time: Duration,
}

/// NVRTC's version, `(major, minor)`.
pub fn nvrtc_version() -> Result<(i32, i32)> {
    probe::ensure_nvrtc()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two out-pointers to live integers.
    let r = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    check(r, "nvrtcVersion")?;
    Ok((major, minor))
}

/// Compiles `source` (named `name` in the log) for `arch`, uncached. `#include <occupant.cuh>`
/// (or any single embedded header) resolves to the embedded device library.
///
/// Errors: [`Error::NoDevice`] when NVRTC is missing, [`Error::Compile`] with NVRTC's log
/// (`name(line): error: …`) when the source does not compile, [`Error::Input`] for a name, source
/// or option containing a NUL byte.
pub fn compile_uncached(
    name: &str,
    source: &str,
    opts: &CompileOptions,
    arch: &str,
) -> Result<Compiled> {
    probe::ensure_nvrtc()?;
    let nul = |what: &str| Error::Input(format!("{what} of program `{name}` contains a NUL byte"));
    let c_src = CString::new(source).map_err(|_| nul("source"))?;
    let c_name = CString::new(name).map_err(|_| nul("name"))?;
    let c_hdrs: Vec<(CString, CString)> = HEADERS
        .iter()
        .map(|(n, s)| {
            (
                CString::new(*n).expect("header name"),
                CString::new(*s).expect("header text"),
            )
        })
        .collect();
    let hdr_src: Vec<*const c_char> = c_hdrs.iter().map(|(_, s)| s.as_ptr()).collect();
    let hdr_name: Vec<*const c_char> = c_hdrs.iter().map(|(n, _)| n.as_ptr()).collect();
    let args = opts.nvrtc_args(arch);
    let c_args: Vec<CString> = args
        .iter()
        .map(|a| CString::new(a.as_str()))
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| nul("an option"))?;
    let arg_ptrs: Vec<*const c_char> = c_args.iter().map(|a| a.as_ptr()).collect();

    let started = Instant::now();
    let mut prog: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: every pointer refers to a NUL-terminated string that outlives the program.
    let r = unsafe {
        sys::nvrtcCreateProgram(
            &mut prog,
            c_src.as_ptr(),
            c_name.as_ptr(),
            hdr_src.len() as i32,
            hdr_src.as_ptr(),
            hdr_name.as_ptr(),
        )
    };
    check(r, "nvrtcCreateProgram")?;
    let prog = Program(prog);
    // SAFETY: prog is a live program; the option strings outlive the call.
    let r = unsafe { sys::nvrtcCompileProgram(prog.0, arg_ptrs.len() as i32, arg_ptrs.as_ptr()) };
    let log = prog.log()?;
    if r == sys::nvrtcResult::NVRTC_ERROR_COMPILATION
        || r == sys::nvrtcResult::NVRTC_ERROR_INVALID_OPTION
    {
        let log = if log.trim().is_empty() {
            format!("{r:?} (options: {})", args.join(" "))
        } else {
            log
        };
        return Err(Error::Compile {
            name: name.to_string(),
            log,
        });
    }
    check(r, "nvrtcCompileProgram")?;
    let kind = if arch.starts_with("sm_") {
        ImageKind::Cubin
    } else {
        ImageKind::Ptx
    };
    let image = prog.image(kind)?;
    Ok(Compiled {
        name: name.to_string(),
        arch: arch.to_string(),
        kind,
        image,
        log,
        compile_time: started.elapsed(),
    })
}

/// Owns an `nvrtcProgram` and destroys it on drop.
struct Program(sys::nvrtcProgram);

impl Program {
    fn log(&self) -> Result<String> {
        let mut size = 0usize;
        // SAFETY: live program, out-pointer to a live usize.
        check(
            unsafe { sys::nvrtcGetProgramLogSize(self.0, &mut size) },
            "nvrtcGetProgramLogSize",
        )?;
        let mut buf = vec![0u8; size.max(1)];
        // SAFETY: buf holds `size` bytes as NVRTC asked.
        check(
            unsafe { sys::nvrtcGetProgramLog(self.0, buf.as_mut_ptr().cast()) },
            "nvrtcGetProgramLog",
        )?;
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        Ok(String::from_utf8_lossy(&buf[..end]).trim_end().to_string())
    }

    fn image(&self, kind: ImageKind) -> Result<Vec<u8>> {
        let mut size = 0usize;
        let mut buf;
        // SAFETY: live program; buf holds the size NVRTC reported.
        unsafe {
            match kind {
                ImageKind::Cubin => {
                    check(
                        sys::nvrtcGetCUBINSize(self.0, &mut size),
                        "nvrtcGetCUBINSize",
                    )?;
                    buf = vec![0u8; size];
                    check(
                        sys::nvrtcGetCUBIN(self.0, buf.as_mut_ptr().cast()),
                        "nvrtcGetCUBIN",
                    )?;
                }
                ImageKind::Ptx => {
                    check(sys::nvrtcGetPTXSize(self.0, &mut size), "nvrtcGetPTXSize")?;
                    buf = vec![0u8; size];
                    check(
                        sys::nvrtcGetPTX(self.0, buf.as_mut_ptr().cast()),
                        "nvrtcGetPTX",
                    )?;
                }
            }
        }
        Ok(buf)
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program is live and destroyed exactly once.
        unsafe {
            sys::nvrtcDestroyProgram(&mut self.0);
        }
    }
}

fn check(r: sys::nvrtcResult, call: &str) -> Result<()> {
    if r == sys::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(Error::Backend {
            backend: "nvrtc",
            call: call.to_string(),
            message: format!("{r:?}"),
        })
    }
}

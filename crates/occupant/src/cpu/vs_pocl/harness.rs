//! The PoCL side of `cpu-vs-pocl`: `bench/pocl/harness.c`, built by `bench/pocl/build.sh` and
//! driven over its stdin/stdout (one command per batch of runs, so runs interleave with
//! occupant's in one process tree).

use crate::model::{Error, Result};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

/// A running PoCL harness.
pub struct PoclHarness {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// Compute units the OpenCL device reports (the thread count PoCL was given).
    pub compute_units: usize,
    /// The OpenCL device name.
    pub device: String,
}

fn resource(e: impl std::fmt::Display) -> Error {
    Error::Resource(e.to_string())
}

impl PoclHarness {
    /// Builds the harness from `pocl_dir` (`bench/pocl`) into `build_dir` (installing PoCL
    /// with apt-get if missing) and starts it with PoCL limited to `threads` threads.
    pub fn start(pocl_dir: &Path, build_dir: &Path, threads: usize) -> Result<Self> {
        let build = pocl_dir.join("build.sh");
        let kernels = pocl_dir.join("kernels.cl");
        for f in [&build, &kernels] {
            if !f.is_file() {
                return Err(Error::InvalidLaunch(format!(
                    "{} not found (run from the repository root or pass the bench/pocl directory)",
                    f.display()
                )));
            }
        }
        std::fs::create_dir_all(build_dir).map_err(resource)?;
        let exe: PathBuf = build_dir.join("pocl-harness");
        let status = Command::new("bash")
            .arg(&build)
            .arg(&exe)
            .status()
            .map_err(|e| resource(format!("running {}: {e}", build.display())))?;
        if !status.success() {
            return Err(resource(format!("{} failed ({status})", build.display())));
        }
        let mut child = Command::new(&exe)
            .arg(&kernels)
            // PoCL 3.x reads the first, later versions the second.
            .env("POCL_MAX_PTHREAD_COUNT", threads.to_string())
            .env("POCL_CPU_MAX_CU_COUNT", threads.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| resource(format!("starting {}: {e}", exe.display())))?;
        let stdin = child.stdin.take().ok_or_else(|| resource("no stdin"))?;
        let stdout = BufReader::new(child.stdout.take().ok_or_else(|| resource("no stdout"))?);
        let mut h = Self {
            child,
            stdin,
            stdout,
            compute_units: 0,
            device: String::new(),
        };
        let line = h.line()?;
        let mut parts = line.splitn(3, ' ');
        match (parts.next(), parts.next(), parts.next()) {
            (Some("ready"), Some(cu), Some(name)) => {
                h.compute_units = cu.parse().map_err(resource)?;
                h.device = name.to_string();
            }
            _ => return Err(resource(format!("PoCL harness: {line}"))),
        }
        if h.compute_units != threads {
            return Err(resource(format!(
                "PoCL reports {} compute units, not the {threads} asked for",
                h.compute_units
            )));
        }
        Ok(h)
    }

    fn line(&mut self) -> Result<String> {
        let mut s = String::new();
        let n = self.stdout.read_line(&mut s).map_err(resource)?;
        if n == 0 {
            return Err(resource("the PoCL harness exited"));
        }
        Ok(s.trim_end().to_string())
    }

    /// Runs `kernel` `runs` times; returns each run's time, and writes the output to `dump`.
    pub fn run(&mut self, kernel: &str, runs: usize, dump: Option<&Path>) -> Result<Vec<Duration>> {
        let dump = dump.map_or("-".to_string(), |p| p.display().to_string());
        writeln!(self.stdin, "run {kernel} {runs} {dump}").map_err(resource)?;
        self.stdin.flush().map_err(resource)?;
        let line = self.line()?;
        let mut parts = line.split(' ');
        if parts.next() != Some("ok") {
            return Err(resource(format!("PoCL harness: {line}")));
        }
        parts
            .map(|t| {
                t.parse::<u64>()
                    .map(Duration::from_nanos)
                    .map_err(|e| resource(format!("PoCL harness: bad time {t:?}: {e}")))
            })
            .collect()
    }
}

impl Drop for PoclHarness {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads a raw little-endian `u32` dump.
pub(crate) fn read_dump(path: &Path) -> Result<Vec<u32>> {
    let bytes = std::fs::read(path).map_err(|e| resource(format!("{}: {e}", path.display())))?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

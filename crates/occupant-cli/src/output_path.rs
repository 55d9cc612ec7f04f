//! Checks of output paths before an experiment runs: a path that cannot be written fails in
//! milliseconds with a clear message, not after minutes of measurements.

use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

/// Checks that `path` can be written as a file: its folder exists and the file can be opened
/// for writing (the check leaves no file behind where there was none; an existing file is not
/// changed).
pub fn check_file(path: &Path) -> Result<(), String> {
    if path.is_dir() {
        return Err(format!(
            "output file {} is a folder; give a file name",
            path.display()
        ));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        return Err(format!(
            "cannot write {}: the folder {} does not exist",
            path.display(),
            parent.display()
        ));
    }
    let existed = path.exists();
    OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// [`check_file`] for every given path (`None`: that output was not asked for).
pub fn check_files(paths: &[&Option<PathBuf>]) -> Result<(), String> {
    paths
        .iter()
        .copied()
        .flatten()
        .try_for_each(|p| check_file(p))
}

/// [`check_dir`] for `--out`, or for `bench/results`, under which the default results folder
/// is made.
pub fn check_out_dir(out: &Option<PathBuf>) -> Result<(), String> {
    check_dir(out.as_deref().unwrap_or(Path::new("bench/results")))
}

/// Creates the results folder `dir` if needed and checks that files can be written in it.
pub fn check_dir(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    check_file(&dir.join(".occupant-write-check"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_folder_is_named() {
        let e = check_file(Path::new("/missing/dir/x.json")).unwrap_err();
        assert!(
            e.contains("/missing/dir") && e.contains("does not exist"),
            "{e}"
        );
    }

    #[test]
    fn a_writable_path_passes_and_leaves_nothing() {
        let dir = std::env::temp_dir().join(format!("occupant-out-{}", std::process::id()));
        check_dir(&dir).unwrap();
        let f = dir.join("x.json");
        check_file(&f).unwrap();
        assert!(!f.exists());
        assert!(check_file(&dir).unwrap_err().contains("is a folder"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

//! The embedded CUDA device library: every header of `src/cuda/device/`, handed to NVRTC from
//! memory so that kernels say `#include <occupant.cuh>`.

include!(concat!(env!("OUT_DIR"), "/device_headers.rs"));

/// The header that includes every other one.
pub const UMBRELLA: &str = "occupant.cuh";

/// The contents of the embedded header `name` (e.g. `"memory.cuh"`), if there is one.
///
/// ```
/// let src = occupant::cuda::header("occupant.cuh").unwrap();
/// assert!(src.contains("watchdog.cuh"));
/// ```
pub fn header(name: &str) -> Option<&'static str> {
    HEADERS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn umbrella_includes_every_header() {
        let umbrella = header(UMBRELLA).expect("occupant.cuh is embedded");
        for (name, _) in HEADERS.iter().filter(|(n, _)| *n != UMBRELLA) {
            assert!(
                umbrella.contains(&format!("#include \"{name}\"")),
                "occupant.cuh does not include {name}"
            );
        }
    }
}

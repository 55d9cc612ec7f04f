//! The CUDA backend (cudarc with dynamic loading; NVRTC-compiled device code).

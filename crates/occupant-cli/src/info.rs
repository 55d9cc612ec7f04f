//! `occupant info`: the backends and their properties.

use occupant::cpu::{available_cores, ExecutorConfig};
use serde_json::json;

/// Prints the CPU backend's properties (as text, or JSON with `json`).
pub fn cpu_info(json: bool) -> serde_json::Value {
    let cfg = ExecutorConfig::default();
    let value = json!({
        "backend": "cpu",
        "compute_units": available_cores(),
        "execution_models": ["occupancy:N", "serialized", "fair", "adversarial:SEED"],
        "default_model": cfg.model.to_string(),
        "max_local_size": cfg.max_local_size,
        "local_mem_limit_bytes": cfg.local_mem_limit,
        "coroutine_stack_bytes": cfg.stack_size,
        "watchdog_timeout_ms": cfg.watchdog.timeout.as_millis() as u64,
    });
    if !json {
        println!("CPU backend (always available)");
        println!("  compute units       {}", available_cores());
        println!(
            "  execution models    occupancy:N (default {}), serialized, fair, adversarial:SEED",
            cfg.model
        );
        println!("  max work-group size {}", cfg.max_local_size);
        println!(
            "  local memory limit  {} bytes per group",
            cfg.local_mem_limit
        );
        println!(
            "  coroutine stack     {} bytes + guard page",
            cfg.stack_size
        );
        println!(
            "  watchdog            {} ms per wait (OCCUPANT_WATCHDOG_MS)",
            cfg.watchdog.timeout.as_millis()
        );
    }
    value
}

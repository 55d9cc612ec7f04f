//! A work-item that overflows its coroutine stack hits the guard page: the process dies with a
//! signal instead of silently corrupting another work-item's stack.

use occupant::cpu::{ExecModel, Executor, ExecutorConfig};
use occupant::NDRange;
use std::process::Command;

const CHILD: &str = "OCCUPANT_STACK_GUARD_CHILD";

#[inline(never)]
fn recurse(depth: u64, buf: &mut [u8; 512]) -> u64 {
    buf[0] = depth as u8;
    let mut next = [0u8; 512];
    std::hint::black_box(&mut next);
    if depth == u64::MAX {
        return 0;
    }
    recurse(depth + 1, &mut next) + buf[0] as u64
}

#[test]
fn stack_overflow_in_a_work_item_is_not_silent() {
    if std::env::var_os(CHILD).is_some() {
        let exec = Executor::with_config(ExecutorConfig {
            model: ExecModel::Serialized,
            stack_size: 16 * 1024,
            ..ExecutorConfig::default()
        });
        // Work-item 1 runs as a coroutine (after work-item 0's barrier) and recurses forever.
        let _ = exec.launch(NDRange::d1(2, 2).unwrap(), |it| {
            it.barrier();
            if it.local_linear_id() == 1 {
                let mut buf = [0u8; 512];
                std::hint::black_box(recurse(0, &mut buf));
            }
        });
        std::process::exit(0); // reaching here would mean the overflow went unnoticed
    }
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args([
            "--exact",
            "stack_overflow_in_a_work_item_is_not_silent",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert!(
        out.status.signal().is_some(),
        "the child should be killed by a signal (guard page), got {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

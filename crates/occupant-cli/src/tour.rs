//! `occupant tour`: a short demonstration of the CPU backend.

use occupant::cpu::{ExecModel, Executor, GlobalBuffer, Launch, LocalArray};
use occupant::model::Watchdog;
use occupant::{Error, NDRange};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Runs the tour; returns an error only if the demonstration itself misbehaves.
pub fn run() -> Result<(), String> {
    let exec = Executor::default();
    println!("occupant tour — CPU backend, {}\n", exec.config().model);

    // 1. A barrier-heavy kernel: tree reduction in local memory.
    let groups = 256;
    let local = 256;
    let out = GlobalBuffer::<u64>::new(groups);
    let launch = Launch::new(NDRange::groups(groups, local).map_err(|e| e.to_string())?);
    let report = exec
        .launch_with(
            &launch,
            || LocalArray::<u64>::new(local),
            |it, mem| {
                let l = it.local_linear_id();
                mem.set(l, it.global_linear_id() as u64);
                let mut stride = local / 2;
                while stride > 0 {
                    it.barrier();
                    if l < stride {
                        mem.set(l, mem.get(l) + mem.get(l + stride));
                    }
                    stride /= 2;
                }
                if l == 0 {
                    out.set(it.group_linear_id(), mem.get(0));
                }
            },
        )
        .map_err(|e| e.to_string())?;
    let total: u64 = out.to_vec().iter().sum();
    let n = (groups * local) as u64;
    if total != n * (n - 1) / 2 {
        return Err(format!(
            "reduction gave {total}, expected {}",
            n * (n - 1) / 2
        ));
    }
    println!("1. Tree reduction: {groups} groups × {local} work-items, 8 barriers each");
    println!(
        "   sum = {total} (correct) in {:.2} ms on {} compute units; {} groups ran as coroutines,",
        report.elapsed.as_secs_f64() * 1e3,
        report.compute_units,
        report.coroutine_groups
    );
    println!(
        "   {} coroutine stacks mapped (once per compute unit, reused by every group)\n",
        report.stacks_allocated
    );

    // 2. No barrier, no coroutines.
    let hits = GlobalBuffer::<u64>::new(1);
    let r = exec
        .launch(
            NDRange::d1(1 << 22, 256).map_err(|e| e.to_string())?,
            |it| {
                if it.global_linear_id() % 1024 == 0 {
                    hits.fetch_add(0, 1, Ordering::Relaxed);
                }
            },
        )
        .map_err(|e| e.to_string())?;
    println!(
        "2. Barrier-free kernel over 2^22 work-items: {:.2} ms, {} coroutines, {} stacks — a plain loop\n",
        r.elapsed.as_secs_f64() * 1e3,
        r.coroutine_groups,
        r.stacks_allocated
    );

    // 3. Two groups that wait for each other: fine when both are occupant, a deadlock otherwise.
    println!("3. Two groups, each sets its flag and spins until the other's flag is set:");
    let watchdog = Watchdog::default().with_timeout(Duration::from_millis(300));
    for model in [ExecModel::Fair, ExecModel::Serialized] {
        let flags = GlobalBuffer::<u32>::new(2);
        let launch = Launch::new(NDRange::groups(2, 64).map_err(|e| e.to_string())?)
            .model(model)
            .watchdog(watchdog);
        let result = exec.launch_with(
            &launch,
            || (),
            |it, _| {
                let me = it.group_linear_id();
                if it.local_linear_id() == 0 {
                    flags.store(me, 1, Ordering::Release);
                    it.wait_until("flag_spin", || flags.load(1 - me, Ordering::Acquire) == 1);
                }
                it.barrier();
            },
        );
        match result {
            Ok(r) => println!(
                "   {:<11} ok in {:.2} ms (every group has its own thread)",
                model.to_string(),
                r.elapsed.as_secs_f64() * 1e3
            ),
            Err(e @ Error::Deadlock { .. }) => {
                println!(
                    "   {:<11} the watchdog caught it:\n      {e}",
                    model.to_string()
                )
            }
            Err(e) => return Err(format!("unexpected error under {model}: {e}")),
        }
    }
    let again = exec
        .launch(NDRange::d1(1024, 64).map_err(|e| e.to_string())?, |it| {
            it.barrier()
        })
        .map_err(|e| e.to_string())?;
    println!(
        "   the executor is usable afterwards: next launch ran {} groups\n",
        again.groups
    );
    println!("Next: `occupant info` lists the backends; `occupant discover --backend cpu` measures occupancy discovery.");
    Ok(())
}

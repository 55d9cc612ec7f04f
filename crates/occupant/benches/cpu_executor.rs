//! CPU executor benchmarks (issue goals in brackets):
//! - a barrier-free kernel vs the same computation as a plain Rust loop [≤ 1.05×];
//! - cost per work-item per barrier [≤ 10 ns];
//! - 1024 groups × 256 work-items with barriers: stacks mapped once per compute unit.
//!
//! Run: `cargo bench -p occupant --bench cpu_executor`. The launch benchmark prints the stacks
//! mapped per launch to stderr.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use occupant::cpu::{ExecModel, Executor, GlobalBuffer};
use occupant::NDRange;
use std::hint::black_box;
use std::time::Duration;

fn work(i: usize) -> u32 {
    (i as u32).wrapping_mul(2_654_435_761).rotate_left(7) ^ 0x5bd1_e995
}

/// A heavier per-item computation (~16 dependent multiply-rotates).
fn work16(i: usize) -> u32 {
    let mut x = i as u32;
    for _ in 0..16 {
        x = work(x as usize);
    }
    x
}

fn barrier_free_pair<F: Fn(usize) -> u32 + Sync + Copy>(c: &mut Criterion, name: &str, f: F) {
    let n = 1 << 20;
    let out = GlobalBuffer::<u32>::new(n);
    let exec = Executor::new(ExecModel::OccupancyBound { compute_units: 1 });
    let range = NDRange::d1(n, 1024).unwrap();
    let mut g = c.benchmark_group(format!("barrier_free_{name}"));
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("plain_loop", |b| {
        b.iter(|| {
            for i in 0..n {
                out.set(i, f(black_box(i)));
            }
        })
    });
    g.bench_function("executor_1cu", |b| {
        b.iter(|| {
            exec.launch(range, |it| {
                let i = it.global_linear_id();
                out.set(i, f(black_box(i)));
            })
            .unwrap()
        })
    });
    g.finish();
}

fn barrier_free_vs_loop(c: &mut Criterion) {
    barrier_free_pair(c, "trivial", work);
    barrier_free_pair(c, "work16", work16);
}

fn barrier_cost(c: &mut Criterion) {
    let exec = Executor::new(ExecModel::Serialized);
    let mut g = c.benchmark_group("barrier_per_work_item");
    let barriers = 64;
    for local in [64usize, 256, 1024] {
        let range = NDRange::groups(1, local).unwrap();
        // Warm the stack pool so the measurement has no mapping in it.
        exec.launch(range, |it| it.barrier()).unwrap();
        g.throughput(Throughput::Elements((local * barriers) as u64));
        g.bench_with_input(BenchmarkId::from_parameter(local), &local, |b, _| {
            b.iter(|| {
                exec.launch(range, |it| {
                    for _ in 0..barriers {
                        it.barrier();
                    }
                })
                .unwrap()
            })
        });
    }
    g.finish();
}

fn launch_with_barriers(c: &mut Criterion) {
    let exec = Executor::default();
    let range = NDRange::groups(1024, 256).unwrap();
    let first = exec.launch(range, |it| it.barrier()).unwrap();
    eprintln!(
        "launch 1024x256 with barriers: first launch mapped {} stacks on {} compute units ({} per unit); total mapped so far {}",
        first.stacks_allocated,
        first.compute_units,
        first.stacks_allocated / first.compute_units.max(1),
        exec.stacks_allocated()
    );
    let mut g = c.benchmark_group("launch_1024x256_barrier");
    g.throughput(Throughput::Elements(1024 * 256));
    g.bench_function("two_barriers", |b| {
        b.iter(|| {
            exec.launch(range, |it| {
                it.barrier();
                it.barrier();
            })
            .unwrap()
        })
    });
    g.finish();
    eprintln!(
        "after the benchmark: {} stacks mapped in all (no growth = reuse)",
        exec.stacks_allocated()
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3)).sample_size(20);
    targets = barrier_free_vs_loop, barrier_cost, launch_with_barriers
}
criterion_main!(benches);

//! Per-join overhead and 2-worker speed-up, every policy side by side with rayon in one run.
//!
//! ```text
//! cargo bench --bench overhead
//! ```
//!
//! - `join-1-worker/*`: fib(25) with `join` at every call on a 1-worker pool. Divide by
//!   `join-1-worker/sequential` for the overhead ratio; (time − sequential) / 121,392 joins is
//!   the cost of one join.
//! - `fib32-cutoff20-2-workers/*`: fib(32), `join` above n = 20, 2 workers; sequential / time is
//!   the speed-up.

#[path = "../examples/common/fib.rs"]
mod fib;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fib::{fib_hypersteal, fib_rayon, fib_seq};
use hypersteal::{Policy, ThreadPoolBuilder};
use std::hint::black_box;
use std::time::Duration;

fn group(c: &mut Criterion, name: &str, workers: usize, n: u64, cutoff: u64) {
    let mut g = c.benchmark_group(name);
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("sequential", |b| b.iter(|| fib_seq(black_box(n))));
    for policy in Policy::all() {
        let pool = ThreadPoolBuilder::new()
            .num_threads(workers)
            .policy(policy)
            .build()
            .unwrap();
        g.bench_with_input(BenchmarkId::new("hypersteal", policy), &n, |b, &n| {
            b.iter(|| pool.install(|| fib_hypersteal(black_box(n), cutoff)))
        });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .unwrap();
    g.bench_function("rayon", |b| {
        b.iter(|| pool.install(|| fib_rayon(black_box(n), cutoff)))
    });
    g.finish();
}

fn overhead(c: &mut Criterion) {
    group(c, "join-1-worker", 1, 25, 0);
    group(c, "fib32-cutoff20-2-workers", 2, 32, 20);
}

criterion_group!(benches, overhead);
criterion_main!(benches);

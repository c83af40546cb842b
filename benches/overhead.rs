//! Per-join overhead and 2-worker speed-up, every policy side by side with rayon and chili in
//! one run.
//!
//! ```text
//! cargo bench --bench overhead
//! ```
//!
//! - `join-1-worker/*` and `join-2-workers/*`: fib(25) with a `join` at every call (the same
//!   kernel shape for every runtime), on 1 and 2 workers. Divide by `*/sequential` for the
//!   overhead ratio; (time − sequential) / 121,392 joins is the cost of one join. `*/floor` is
//!   the cheapest possible `join` of rayon's signature on one thread (`examples/common/fib.rs`).
//! - `fib32-cutoff20-2-workers/*`: fib(32), `join` above n = 20, 2 workers; sequential / time is
//!   the speed-up.

#[path = "../examples/common/fib.rs"]
mod fib;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use fib::{
    fib_hypersteal, fib_join_chili, fib_join_floor, fib_join_hypersteal, fib_join_rayon, fib_rayon,
    fib_seq,
};
use hypersteal::{Policy, ThreadPoolBuilder};
use std::hint::black_box;
use std::time::Duration;

/// One group: `cutoff` 0 is the fine-grained kernel at every call (with chili and the floor),
/// otherwise the kernels with a cutoff (hypersteal and rayon).
fn group(c: &mut Criterion, name: &str, workers: usize, n: u64, cutoff: u64) {
    let mut g = c.benchmark_group(name);
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("sequential", |b| b.iter(|| fib_seq(black_box(n))));
    let fine = cutoff == 0;
    if fine && workers == 1 {
        g.bench_function("floor", |b| b.iter(|| fib_join_floor(black_box(n))));
    }
    for policy in Policy::all() {
        let pool = ThreadPoolBuilder::new()
            .num_threads(workers)
            .policy(policy)
            .build()
            .unwrap();
        g.bench_with_input(BenchmarkId::new("hypersteal", policy), &n, |b, &n| {
            if fine {
                b.iter(|| pool.install(|| fib_join_hypersteal(black_box(n))))
            } else {
                b.iter(|| pool.install(|| fib_hypersteal(black_box(n), cutoff)))
            }
        });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(workers)
        .build()
        .unwrap();
    g.bench_function("rayon", |b| {
        if fine {
            b.iter(|| pool.install(|| fib_join_rayon(black_box(n))))
        } else {
            b.iter(|| pool.install(|| fib_rayon(black_box(n), cutoff)))
        }
    });
    if fine {
        let pool = chili::ThreadPool::with_config(chili::Config {
            thread_count: std::num::NonZero::new(workers),
            ..Default::default()
        });
        g.bench_function("chili", |b| {
            b.iter(|| {
                let mut s = pool.scope();
                fib_join_chili(&mut s, black_box(n))
            })
        });
    }
    g.finish();
}

fn overhead(c: &mut Criterion) {
    group(c, "join-1-worker", 1, 25, 0);
    group(c, "join-2-workers", 2, 25, 0);
    group(c, "fib32-cutoff20-2-workers", 2, 32, 20);
}

criterion_group!(benches, overhead);
criterion_main!(benches);

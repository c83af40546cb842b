//! rayon's bread-and-butter calls, hypersteal against rayon with 2 workers each (default policy
//! for hypersteal): `par_sort` and `par_sort_unstable` of 10^7 `u64`, `par_iter().map().sum()`
//! over 10^7, `flat_map` and `flat_map_iter` of 10^6 items into 10 each, a `find_any` over 10^7
//! that succeeds at once (a call from outside that is nearly all hand-over), `collect` of 10^7,
//! `par_bridge` of 10^6 cheap items and of 10^4 costly ones.
//! `examples/compat.rs` runs the same kernels interleaved and prints the ratios in one table.

#[path = "../examples/common/compat_kernels.rs"]
mod kernels;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use kernels::{ours, theirs};
use std::hint::black_box;
use std::time::Duration;

const N: usize = 10_000_000;

fn data(n: usize) -> Vec<u64> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 11
        })
        .collect()
}

fn compat(c: &mut Criterion) {
    let ours_pool = hypersteal::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let theirs_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let input = data(N);
    let values: Vec<u64> = (0..N as u64).collect();

    let mut g = c.benchmark_group("compat");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.bench_function("par_sort/hypersteal", |b| {
        b.iter_batched_ref(
            || input.clone(),
            |v| ours_pool.install(|| ours::sort(v)),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("par_sort/rayon", |b| {
        b.iter_batched_ref(
            || input.clone(),
            |v| theirs_pool.install(|| theirs::sort(v)),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("par_sort_unstable/hypersteal", |b| {
        b.iter_batched_ref(
            || input.clone(),
            |v| ours_pool.install(|| ours::sort_unstable(v)),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("par_sort_unstable/rayon", |b| {
        b.iter_batched_ref(
            || input.clone(),
            |v| theirs_pool.install(|| theirs::sort_unstable(v)),
            BatchSize::LargeInput,
        )
    });
    g.bench_function("map_sum/hypersteal", |b| {
        b.iter(|| ours_pool.install(|| black_box(ours::map_sum(&values))))
    });
    g.bench_function("map_sum/rayon", |b| {
        b.iter(|| theirs_pool.install(|| black_box(theirs::map_sum(&values))))
    });
    g.bench_function("flat_map/hypersteal", |b| {
        b.iter(|| ours_pool.install(|| black_box(ours::flat_map(1_000_000))))
    });
    g.bench_function("flat_map/rayon", |b| {
        b.iter(|| theirs_pool.install(|| black_box(theirs::flat_map(1_000_000))))
    });
    g.bench_function("flat_map_iter/hypersteal", |b| {
        b.iter(|| ours_pool.install(|| black_box(ours::flat_map_iter(1_000_000))))
    });
    g.bench_function("flat_map_iter/rayon", |b| {
        b.iter(|| theirs_pool.install(|| black_box(theirs::flat_map_iter(1_000_000))))
    });
    g.bench_function("find_at_start/hypersteal", |b| {
        b.iter(|| ours_pool.install(|| black_box(ours::find_at_start(&values))))
    });
    g.bench_function("find_at_start/rayon", |b| {
        b.iter(|| theirs_pool.install(|| black_box(theirs::find_at_start(&values))))
    });
    g.bench_function("collect/hypersteal", |b| {
        b.iter(|| ours_pool.install(|| black_box(ours::collect(&values))))
    });
    g.bench_function("collect/rayon", |b| {
        b.iter(|| theirs_pool.install(|| black_box(theirs::collect(&values))))
    });
    g.bench_function("par_bridge_fine/hypersteal", |b| {
        b.iter(|| ours_pool.install(|| black_box(ours::bridge(1_000_000, 1))))
    });
    g.bench_function("par_bridge_fine/rayon", |b| {
        b.iter(|| theirs_pool.install(|| black_box(theirs::bridge(1_000_000, 1))))
    });
    g.bench_function("par_bridge_coarse/hypersteal", |b| {
        b.iter(|| ours_pool.install(|| black_box(ours::bridge(10_000, 1000))))
    });
    g.bench_function("par_bridge_coarse/rayon", |b| {
        b.iter(|| theirs_pool.install(|| black_box(theirs::bridge(10_000, 1000))))
    });
    g.finish();
}

criterion_group!(benches, compat);
criterion_main!(benches);

//! Parallel iterators: hypersteal against rayon at 1 and 2 workers, and every loop schedule on
//! an irregular loop.
//!
//! * `sum`: the sum of a `Vec<u64>` of 10^7 elements (uniform, memory bound).
//! * `mandelbrot`: points of a 1200x1200 grid over (-2,-2)-(2,2) in the Mandelbrot set
//!   (iteration limit 256), one loop iteration per row; rows through the set cost far more
//!   than rows outside it (seed 003's irregular loop).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use hypersteal::iter::Schedule;
use std::hint::black_box;
use std::time::Duration;

const SIDE: usize = 1200;
const LIMIT: u32 = 256;

fn row_in_set(row: usize) -> u32 {
    let ci = -2.0 + 4.0 * row as f64 / SIDE as f64;
    let mut count = 0;
    for col in 0..SIDE {
        let cr = -2.0 + 4.0 * col as f64 / SIDE as f64;
        let (mut zr, mut zi) = (0.0f64, 0.0f64);
        let mut k = 0;
        while k < LIMIT && zr * zr + zi * zi <= 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            k += 1;
        }
        count += u32::from(k == LIMIT);
    }
    count
}

fn hs_pool(n: usize) -> hypersteal::ThreadPool {
    hypersteal::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
}

fn rayon_pool(n: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .unwrap()
}

fn sum(c: &mut Criterion) {
    let v: Vec<u64> = (0..10_000_000u64).collect();
    let expect: u64 = v.iter().sum();
    let mut g = c.benchmark_group("sum_vec_1e7");
    g.sample_size(20);
    for n in [1, 2] {
        let pool = hs_pool(n);
        g.bench_function(BenchmarkId::new("hypersteal", n), |b| {
            b.iter(|| {
                let s: u64 = pool.install(|| {
                    use hypersteal::prelude::*;
                    v.par_iter().sum()
                });
                assert_eq!(s, expect);
                black_box(s)
            })
        });
        let pool = rayon_pool(n);
        g.bench_function(BenchmarkId::new("rayon", n), |b| {
            b.iter(|| {
                let s: u64 = pool.install(|| {
                    use rayon::prelude::*;
                    v.par_iter().sum()
                });
                assert_eq!(s, expect);
                black_box(s)
            })
        });
    }
    g.finish();
}

fn mandelbrot(c: &mut Criterion) {
    let expect: u32 = (0..SIDE).map(row_in_set).sum();
    let mut g = c.benchmark_group("mandelbrot_1200");
    g.sample_size(10);
    for n in [1, 2] {
        let pool = hs_pool(n);
        g.bench_function(BenchmarkId::new("hypersteal", n), |b| {
            b.iter(|| {
                let s: u32 = pool.install(|| {
                    use hypersteal::prelude::*;
                    (0..SIDE).into_par_iter().map(row_in_set).sum()
                });
                assert_eq!(s, expect);
                s
            })
        });
        let pool = rayon_pool(n);
        g.bench_function(BenchmarkId::new("rayon", n), |b| {
            b.iter(|| {
                let s: u32 = pool.install(|| {
                    use rayon::prelude::*;
                    (0..SIDE).into_par_iter().map(row_in_set).sum()
                });
                assert_eq!(s, expect);
                s
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("mandelbrot_1200_schedules_2_workers");
    g.sample_size(10);
    let pool = hs_pool(2);
    for name in [
        "adaptive",
        "static",
        "self",
        "chunk:16",
        "guided",
        "trapezoid",
        "factoring",
        "weighted",
    ] {
        let schedule: Schedule = name.parse().unwrap();
        g.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                let s: u32 = pool.install(|| {
                    use hypersteal::prelude::*;
                    (0..SIDE)
                        .into_par_iter()
                        .with_schedule(schedule)
                        .map(row_in_set)
                        .sum()
                });
                assert_eq!(s, expect);
                s
            })
        });
    }
    g.finish();

    // The papers' imbalance figure for each schedule (median of a few runs), printed for the
    // notes: spread between the earliest and latest finishing worker, and SD as % of the mean.
    for name in Schedule::NAMES {
        let name = name.replace(":K", ":16");
        let schedule: Schedule = name.parse().unwrap();
        let mut runs: Vec<(Duration, f64, Duration)> = (0..5)
            .map(|_| {
                let r = pool.install(|| {
                    use hypersteal::prelude::*;
                    (0..SIDE)
                        .into_par_iter()
                        .with_schedule(schedule)
                        .for_each_with_report(|row| {
                            black_box(row_in_set(row));
                        })
                });
                (r.spread(), r.sd_percent_of_mean(), r.total)
            })
            .collect();
        runs.sort_by_key(|r| r.0);
        let (spread, sd, total) = runs[runs.len() / 2];
        println!(
            "imbalance mandelbrot_1200 2 workers {name:>10}: spread {spread:>10.2?}  sd {sd:5.1}% of mean  total {total:.2?}"
        );
    }
}

criterion_group!(benches, sum, mandelbrot);
criterion_main!(benches);

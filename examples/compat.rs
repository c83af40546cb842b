//! rayon's bread-and-butter calls, hypersteal against rayon side by side in one process, each
//! with a pool of 2 workers (default policy for hypersteal):
//!
//! - `par_sort` and `par_sort_unstable` of 10^7 pseudo-random `u64` (a fresh copy each run),
//!   and of 10^7 `u64` already sorted, in descending order, and sorted but for one swapped pair;
//! - `par_iter().map(..).sum()` over 10^7 `u64`;
//! - `flat_map` (parallel inner iterators) and `flat_map_iter` (sequential ones) of 10^6
//!   items into 10 each, hashed and summed;
//! - 1000 calls in a row of a `find_any` over 10^7 items that succeeds at the first one, from
//!   outside the pool: the cost of handing a call to the pool and its result back;
//! - `collect` of 10^7 mapped items into a `Vec`;
//! - `par_bridge` of 10^6 items of one hash each (the participants contend for the iterator's
//!   lock) and of 10^4 items of 1000 hashes each.
//!
//! ```text
//! cargo run --release --example compat [ROUNDS]
//! ```
//!
//! Rounds are interleaved (every kernel, both runtimes, then the next round), so a slow stretch
//! of the machine hits both alike. The table gives each median over the rounds (at least 9) and
//! hypersteal's median divided by rayon's.

use std::time::{Duration, Instant};

const N: usize = 10_000_000;

#[path = "common/compat_kernels.rs"]
mod kernels;

use kernels::{ours, theirs};

/// `n` pseudo-random values (an LCG: deterministic, no crates).
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

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

type Kernel<'a> = Box<dyn FnMut() -> u64 + 'a>;

/// Inputs that are already (nearly) in order.
#[derive(Clone, Copy)]
enum Shape {
    Sorted,
    Descending,
    OneSwap,
}

/// Sorts a fresh copy of `values` (ascending, `0..N`) laid out as `shape`, in `pool`.
fn presorted<P: Install>(pool: &P, values: &[u64], shape: Shape, sort: fn(&mut [u64])) -> u64 {
    let mut v = values.to_vec();
    match shape {
        Shape::Sorted => {}
        Shape::Descending => v.reverse(),
        Shape::OneSwap => v.swap(N / 2, N / 2 + 1),
    }
    pool.run(|| sort(&mut v));
    assert!(v.iter().copied().eq(0..N as u64));
    v[N / 2]
}

/// `install` of either runtime's pool.
trait Install {
    fn run(&self, f: impl FnOnce() + Send);
}

impl Install for hypersteal::ThreadPool {
    fn run(&self, f: impl FnOnce() + Send) {
        self.install(f)
    }
}

impl Install for rayon::ThreadPool {
    fn run(&self, f: impl FnOnce() + Send) {
        self.install(f)
    }
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map_or(11, |s| s.parse().expect("ROUNDS: a number"))
        .max(9);
    let ours = hypersteal::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("hypersteal pool");
    let theirs = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("rayon pool");
    let input = data(N);
    let values: Vec<u64> = (0..N as u64).collect();
    let sorted = {
        let mut s = input.clone();
        s.sort_unstable();
        s
    };

    // Each kernel returns a checksum that both runtimes must agree on.
    let (ours_pool, theirs_pool) = (&ours, &theirs);
    let (input, values, sorted) = (&input, &values, &sorted);
    let mut kernels: Vec<(&str, Kernel, Kernel)> = vec![
        (
            "par_sort 10^7 u64",
            Box::new(move || {
                let mut v = input.clone();
                ours_pool.install(|| ours::sort(&mut v));
                assert!(v == *sorted);
                v[N / 2]
            }),
            Box::new(move || {
                let mut v = input.clone();
                theirs_pool.install(|| theirs::sort(&mut v));
                assert!(v == *sorted);
                v[N / 2]
            }),
        ),
        (
            "par_sort_unstable 10^7 u64",
            Box::new(move || {
                let mut v = input.clone();
                ours_pool.install(|| ours::sort_unstable(&mut v));
                assert!(v == *sorted);
                v[N / 2]
            }),
            Box::new(move || {
                let mut v = input.clone();
                theirs_pool.install(|| theirs::sort_unstable(&mut v));
                assert!(v == *sorted);
                v[N / 2]
            }),
        ),
        (
            "par_sort 10^7 sorted",
            Box::new(move || presorted(ours_pool, values, Shape::Sorted, ours::sort)),
            Box::new(move || presorted(theirs_pool, values, Shape::Sorted, theirs::sort)),
        ),
        (
            "par_sort 10^7 descending",
            Box::new(move || presorted(ours_pool, values, Shape::Descending, ours::sort)),
            Box::new(move || presorted(theirs_pool, values, Shape::Descending, theirs::sort)),
        ),
        (
            "par_sort 10^7 one pair swapped",
            Box::new(move || presorted(ours_pool, values, Shape::OneSwap, ours::sort)),
            Box::new(move || presorted(theirs_pool, values, Shape::OneSwap, theirs::sort)),
        ),
        (
            "par_sort_unstable 10^7 sorted",
            Box::new(move || presorted(ours_pool, values, Shape::Sorted, ours::sort_unstable)),
            Box::new(move || presorted(theirs_pool, values, Shape::Sorted, theirs::sort_unstable)),
        ),
        (
            "par_sort_unstable 10^7 one pair swapped",
            Box::new(move || presorted(ours_pool, values, Shape::OneSwap, ours::sort_unstable)),
            Box::new(move || presorted(theirs_pool, values, Shape::OneSwap, theirs::sort_unstable)),
        ),
        (
            "map().sum() 10^7",
            Box::new(move || ours_pool.install(|| ours::map_sum(values))),
            Box::new(move || theirs_pool.install(|| theirs::map_sum(values))),
        ),
        (
            "flat_map 10^6 x 10",
            Box::new(move || ours_pool.install(|| ours::flat_map(1_000_000))),
            Box::new(move || theirs_pool.install(|| theirs::flat_map(1_000_000))),
        ),
        (
            "flat_map_iter 10^6 x 10",
            Box::new(move || ours_pool.install(|| ours::flat_map_iter(1_000_000))),
            Box::new(move || theirs_pool.install(|| theirs::flat_map_iter(1_000_000))),
        ),
        (
            "10^3 calls of find_any, found at once",
            Box::new(move || {
                (0..1000)
                    .map(|_| ours_pool.install(|| ours::find_at_start(values)))
                    .sum()
            }),
            Box::new(move || {
                (0..1000)
                    .map(|_| theirs_pool.install(|| theirs::find_at_start(values)))
                    .sum()
            }),
        ),
        (
            "collect 10^7",
            Box::new(move || ours_pool.install(|| ours::collect(values))[N - 1]),
            Box::new(move || theirs_pool.install(|| theirs::collect(values))[N - 1]),
        ),
        (
            "par_bridge 10^6 x 1 hash",
            Box::new(move || ours_pool.install(|| ours::bridge(1_000_000, 1))),
            Box::new(move || theirs_pool.install(|| theirs::bridge(1_000_000, 1))),
        ),
        (
            "par_bridge 10^4 x 1000 hashes",
            Box::new(move || ours_pool.install(|| ours::bridge(10_000, 1000))),
            Box::new(move || theirs_pool.install(|| theirs::bridge(10_000, 1000))),
        ),
    ];

    let mut times: Vec<(Vec<Duration>, Vec<Duration>)> =
        kernels.iter().map(|_| (Vec::new(), Vec::new())).collect();
    for round in 0..rounds + 1 {
        for (k, (name, a, b)) in kernels.iter_mut().enumerate() {
            let start = Instant::now();
            let x = std::hint::black_box(a());
            let ta = start.elapsed();
            let start = Instant::now();
            let y = std::hint::black_box(b());
            let tb = start.elapsed();
            assert_eq!(x, y, "{name}: the runtimes disagree");
            // Round 0 warms both pools and the caches up and is not counted.
            if round > 0 {
                times[k].0.push(ta);
                times[k].1.push(tb);
            }
        }
    }
    println!("{rounds} interleaved rounds, 2 workers each, medians");
    println!(
        "{:<40} {:>14} {:>12} {:>16}",
        "kernel", "hypersteal ms", "rayon ms", "hypersteal/rayon"
    );
    for ((name, _, _), (a, b)) in kernels.iter().zip(times.iter_mut()) {
        let (ma, mb) = (median(a), median(b));
        println!(
            "{:<40} {:>14.2} {:>12.2} {:>16.3}",
            name,
            ma.as_secs_f64() * 1e3,
            mb.as_secs_f64() * 1e3,
            ma.as_secs_f64() / mb.as_secs_f64()
        );
    }
}

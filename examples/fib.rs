//! The README's main job: Fibonacci on all cores under every policy, against sequential and rayon.
//!
//! ```text
//! cargo run --release --example fib [N] [CUTOFF] [RUNS]
//! ```
//!
//! Two grains: `join` at every call (the finest grain: per-join overhead dominates) and `join`
//! only above `CUTOFF` (coarse tasks: load balance dominates). Each time is the median of `RUNS`
//! runs after one warm-up; `speedup` is the sequential median divided by it, measured side by side
//! in this one process.

#[path = "common/fib.rs"]
#[allow(dead_code)] // not every kernel is used here
mod fib;

use fib::{fib_hypersteal, fib_rayon, fib_seq};
use hypersteal::{Policy, ThreadPoolBuilder};
use std::time::{Duration, Instant};

fn median(runs: usize, expected: u64, mut f: impl FnMut() -> u64) -> Duration {
    assert_eq!(f(), expected, "wrong answer in the warm-up run");
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            let got = std::hint::black_box(f());
            let t = start.elapsed();
            assert_eq!(got, expected, "wrong answer");
            t
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: u64| -> u64 {
        args.get(i).map_or(default, |s| {
            s.parse().unwrap_or_else(|_| {
                eprintln!("usage: fib [N] [CUTOFF] [RUNS]  (non-negative integers; got `{s}`)");
                std::process::exit(2)
            })
        })
    };
    let (n, cutoff, runs) = (arg(0, 32), arg(1, 20), arg(2, 5).max(1) as usize);
    let threads = num_cpus::get();
    let expected = (0..n).fold((0u64, 1u64), |(a, b), _| (b, a + b)).0;

    println!("fib({n}) on {threads} workers: fine = join at every call, coarse = join above n = {cutoff}");
    println!("median of {runs} runs after a warm-up; speedup = sequential / time\n");
    println!(
        "{:<24} {:>11} {:>8} {:>11} {:>8} {:>10} {:>9}",
        "runtime", "fine", "speedup", "coarse", "speedup", "requests", "locality"
    );
    let seq = median(runs, expected, || fib_seq(n));
    let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1e3);
    println!(
        "{:<24} {:>11} {:>8} {:>11} {:>8}",
        "sequential",
        ms(seq),
        "1.00",
        ms(seq),
        "1.00"
    );
    let speedup = |t: Duration| format!("{:.2}", seq.as_secs_f64() / t.as_secs_f64());

    for policy in Policy::all() {
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .policy(policy)
            .build()
            .expect("pool");
        let fine = median(runs, expected, || pool.install(|| fib_hypersteal(n, 0)));
        pool.reset_stats();
        let coarse = median(runs, expected, || {
            pool.install(|| fib_hypersteal(n, cutoff))
        });
        let stats = pool.stats();
        let total = stats.total();
        assert_eq!(total.executed, total.spawned, "every task ran exactly once");
        println!(
            "{:<24} {:>11} {:>8} {:>11} {:>8} {:>10} {:>9.3}",
            format!("hypersteal {}", policy.name()),
            ms(fine),
            speedup(fine),
            ms(coarse),
            speedup(coarse),
            total.requests / (runs as u64 + 1),
            total.locality()
        );
    }

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("rayon pool");
    let fine = median(runs, expected, || pool.install(|| fib_rayon(n, 0)));
    let coarse = median(runs, expected, || pool.install(|| fib_rayon(n, cutoff)));
    println!(
        "{:<24} {:>11} {:>8} {:>11} {:>8}",
        "rayon",
        ms(fine),
        speedup(fine),
        ms(coarse),
        speedup(coarse)
    );
    println!(
        "\nrequests: steal attempts per coarse run; locality: share of tasks run where created"
    );
}

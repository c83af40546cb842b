//! Chooses the defaults of the sender-initiated policies by measurement: `acwn`'s and
//! `gradient`'s interval and the gradient model's marks, on fib with a cutoff (coarse tasks)
//! and on the same tree written as chares (scope tasks nobody waits for individually).
//!
//! ```text
//! cargo run --release --example sender_tuning [N] [CUTOFF] [RUNS]
//! ```
//!
//! Prints the median time of `RUNS` runs for each setting, side by side with `rp`, on every core.

#[path = "common/fib.rs"]
#[allow(dead_code)] // not every kernel is used here
mod fib;

use fib::{fib_hypersteal, fib_seq};
use hypersteal::{Policy, ThreadPoolBuilder};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

fn fib_chares(n: u64, cutoff: u64) -> u64 {
    fn chare<'s>(s: &hypersteal::Scope<'s>, n: u64, cutoff: u64, sum: &'s AtomicU64) {
        if n < cutoff.max(2) {
            sum.fetch_add(fib_seq(n), Ordering::Relaxed);
        } else {
            s.spawn(move |s| chare(s, n - 1, cutoff, sum));
            s.spawn(move |s| chare(s, n - 2, cutoff, sum));
        }
    }
    let sum = AtomicU64::new(0);
    hypersteal::scope(|s| chare(s, n, cutoff, &sum));
    sum.into_inner()
}

fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    f();
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[t.len() / 2]
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("usage: sender_tuning [N] [CUTOFF] [RUNS]"))
        .collect();
    let n = args.first().copied().unwrap_or(30);
    let cutoff = args.get(1).copied().unwrap_or(16);
    let runs = args.get(2).copied().unwrap_or(5).max(1) as usize;
    let expected = fib_seq(n);
    let mut settings = vec!["rp".to_string()];
    for interval in [1, 4, 16, 64, 256] {
        settings.push(format!("acwn:interval={interval}"));
    }
    for (low, high) in [(1, 2), (1, 4), (2, 8)] {
        for interval in [4, 16, 64] {
            settings.push(format!(
                "gradient:low={low},high={high},interval={interval}"
            ));
        }
    }
    settings.push("random-alloc".to_string());
    let threads = num_cpus::get();
    println!("fib({n}), cutoff {cutoff}, {threads} workers, median of {runs} runs");
    println!(
        "{:<40} {:>12} {:>12} {:>9}",
        "policy", "join", "chares", "locality"
    );
    for setting in settings {
        let policy: Policy = setting.parse().expect("valid policy");
        let pool = ThreadPoolBuilder::new()
            .num_threads(threads)
            .policy(policy)
            .build()
            .expect("pool");
        let join = median(runs, || {
            assert_eq!(pool.install(|| fib_hypersteal(n, cutoff)), expected)
        });
        pool.reset_stats();
        let chares = median(runs, || {
            assert_eq!(pool.install(|| fib_chares(n, cutoff)), expected)
        });
        let ms = |d: Duration| format!("{:.2} ms", d.as_secs_f64() * 1e3);
        println!(
            "{:<40} {:>12} {:>12} {:>9.3}",
            setting,
            ms(join),
            ms(chares),
            pool.stats().locality()
        );
    }
}

//! The cost of a fine-grained `join`, side by side in one process: fib(n) with a join at every
//! call under every policy, rayon and chili, at 1 and 2 workers (or the worker counts given).
//!
//! ```text
//! cargo run --release --example joins [N] [ROUNDS] [WORKERS]
//! ```
//!
//! `WORKERS` is a comma-separated list of worker counts (`1,2,4,8,16`; default `1,2`).
//!
//! Every contender runs once per round, rounds interleaved (so a slow stretch of the machine
//! hits all of them alike); the table shows each contender's median over the rounds, divided by
//! the sequential median. `JOINS_ONLY=<text>` keeps only the contenders whose name contains the
//! text (and the sequential and floor rows). The `floor` row is the cheapest possible `join`
//! with rayon's signature on one thread (`floor_join` in `common/fib.rs`): what a pool of one
//! can hope for.

#[path = "common/fib.rs"]
#[allow(dead_code)] // not every kernel is used here
mod fib;

use fib::{fib_join_chili, fib_join_floor, fib_join_hypersteal, fib_join_rayon, fib_seq};
use hypersteal::{Policy, ThreadPoolBuilder};
use std::time::{Duration, Instant};

type Runner = Box<dyn FnMut() -> u64>;

/// The error for a bad argument: the message, then exit status 2.
fn usage(message: &str) -> ! {
    eprintln!("joins: {message}");
    std::process::exit(2)
}

/// Positional argument `i`, `name`, a whole number in `range` (`default` when absent).
fn arg<T>(
    args: &[String],
    i: usize,
    name: &str,
    default: T,
    range: std::ops::RangeInclusive<T>,
) -> T
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    let Some(text) = args.get(i) else {
        return default;
    };
    match text.trim().parse::<T>() {
        Ok(v) if range.contains(&v) => v,
        _ => usage(&format!(
            "{name} `{text}`: expected a whole number from {} to {}",
            range.start(),
            range.end()
        )),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u64 = arg(&args, 0, "N", 30, 0..=60);
    let rounds: usize = arg(&args, 1, "ROUNDS", 15, 1..=100_000);
    let workers: Vec<usize> = match args.get(2) {
        None => vec![1, 2],
        Some(list) => list
            .split(',')
            .map(|w| match w.trim().parse::<usize>() {
                Ok(k) if (1..=hypersteal::MAX_WORKERS).contains(&k) => k,
                _ => usage(&format!(
                    "WORKERS `{list}`: expected a comma-separated list of worker counts from 1 to {}",
                    hypersteal::MAX_WORKERS
                )),
            })
            .collect(),
    };
    let expected = fib_seq(n);
    let mut contenders: Vec<(String, Runner)> = vec![
        (
            "sequential".into(),
            Box::new(move || fib_seq(std::hint::black_box(n))),
        ),
        (
            "floor (thread-local check + guard)".into(),
            Box::new(move || fib_join_floor(std::hint::black_box(n))),
        ),
    ];
    for workers in workers {
        for policy in Policy::all() {
            let pool = ThreadPoolBuilder::new()
                .num_threads(workers)
                .policy(policy)
                .build()
                .expect("pool");
            contenders.push((
                format!("hypersteal {policy} P={workers}"),
                Box::new(move || pool.install(|| fib_join_hypersteal(std::hint::black_box(n)))),
            ));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .expect("rayon pool");
        contenders.push((
            format!("rayon P={workers}"),
            Box::new(move || pool.install(|| fib_join_rayon(std::hint::black_box(n)))),
        ));
        let pool = chili::ThreadPool::with_config(chili::Config {
            thread_count: std::num::NonZero::new(workers),
            ..Default::default()
        });
        contenders.push((
            format!("chili P={workers}"),
            Box::new(move || {
                let mut s = pool.scope();
                fib_join_chili(&mut s, std::hint::black_box(n))
            }),
        ));
    }
    // `JOINS_ONLY=<text>` keeps the sequential and floor rows and the contenders whose name contains
    // the text (for profiling one of them).
    if let Ok(only) = std::env::var("JOINS_ONLY") {
        let mut k = 0;
        contenders.retain(|(name, _)| {
            k += 1;
            k <= 2 || name.contains(&only)
        });
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); contenders.len()];
    for (_, run) in contenders.iter_mut() {
        assert_eq!(run(), expected, "warm-up");
    }
    for _ in 0..rounds {
        for (i, (_, run)) in contenders.iter_mut().enumerate() {
            let t = Instant::now();
            let got = std::hint::black_box(run());
            times[i].push(t.elapsed());
            assert_eq!(got, expected);
        }
    }
    let medians: Vec<f64> = times
        .iter_mut()
        .map(|v| {
            v.sort();
            v[v.len() / 2].as_secs_f64()
        })
        .collect();
    println!("fib({n}), join at every call, median of {rounds} interleaved rounds");
    println!("{:<36} {:>9} {:>8}", "contender", "ms", "× seq");
    for (i, (name, _)) in contenders.iter().enumerate() {
        println!(
            "{:<36} {:>9.2} {:>8.2}",
            name,
            medians[i] * 1e3,
            medians[i] / medians[0]
        );
    }
}

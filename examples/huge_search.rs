//! Searches over iterations no single worker could walk, under every policy: `find_last` over
//! a 128-bit range of 10^27 items and over a `flat_map` of 2^40 items.
//!
//! ```text
//! cargo run --release --example huge_search [WORKERS] [ROUNDS]
//! ```
//!
//! Each search can end early only because idle workers get the pieces that hold the answer
//! while other pieces are still being walked (`src/iter/divide.rs`); the table shows each
//! policy's median time over the rounds (default: 2 workers, 9 rounds; at least 2). A search that never
//! ended would hang this program, which is why the same searches run as a test under a
//! watchdog (`tests/runtime/liveness.rs`).

use hypersteal::prelude::*;
use hypersteal::{Policy, ThreadPoolBuilder, Topology};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let workers: usize = args
        .first()
        .map_or(2, |s| s.parse().expect("WORKERS: a number"));
    let rounds: usize = args
        .get(1)
        .map_or(9, |s| s.parse().expect("ROUNDS: a number"));
    // One worker walks every item before the last match: that would take for ever.
    assert!(workers >= 2, "WORKERS: at least 2 (got {workers})");
    let len: u128 = 10u128.pow(27);
    let side: u64 = 1 << 20;
    println!("{workers} workers, median of {rounds} rounds");
    println!(
        "{:<14} {:>22} {:>22}",
        "policy", "find_last 10^27 (ms)", "find_last 2^40 (ms)"
    );
    for policy in Policy::all() {
        let pool = ThreadPoolBuilder::new()
            .num_threads(workers)
            .policy(policy)
            .topology(Topology::Hypercube)
            .pin_threads(false)
            .build()
            .expect("a pool");
        let mut times = [Vec::new(), Vec::new()];
        for _ in 0..rounds {
            let start = Instant::now();
            let last = pool.install(|| (0..len).into_par_iter().find_last(|&x| x % 5 == 0));
            times[0].push(start.elapsed());
            assert_eq!(last, Some(len - 5));

            let start = Instant::now();
            let last = pool.install(|| {
                (0..side)
                    .into_par_iter()
                    .flat_map(|i| (0..side).into_par_iter().map(move |j| i * side + j))
                    .find_last(|_| true)
            });
            times[1].push(start.elapsed());
            assert_eq!(last, Some(side * side - 1));
        }
        let [a, b] = times.map(median_ms);
        println!("{:<14} {a:>22.1} {b:>22.1}", policy.to_string());
    }
}

fn median_ms(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1e3
}

//! Wake-up latency of an idle pool, and its CPU use at rest, for any policies.
//!
//! ```text
//! cargo run --release --example wakeup [--linger-us N] [WORKERS] [IDLE_MS] [RUNS] [POLICY ...]
//! ```
//!
//! For each policy (default: every policy at its defaults) a pool of `WORKERS` unpinned workers
//! (default 2) runs a small warm-up, then `RUNS` times (default 9): rests `IDLE_MS` milliseconds
//! (default 1000), and a thread outside the pool spawns a task that records how long after the
//! spawn it started running. Printed: the median and the largest of those latencies, the CPU
//! time the pool's threads used while at rest (from `/proc`, Linux only), which should be 0, and
//! what coming to rest costs: after a burst of fine-grained work (fib(18), `join` at every call)
//! the CPU time the pool used from the burst's end until a 250 ms stretch without any, and how
//! long that took.
//!
//! `--linger-us N` builds the pools with `ThreadPoolBuilder::idle_linger` of N microseconds: an
//! idle worker keeps looking that long before it sleeps. With `IDLE_MS` shorter than the linger,
//! the task finds its worker awake; compare the latencies with and without it, and the CPU the
//! pool used to come to rest.

#[path = "common/fib.rs"]
#[allow(dead_code)] // not every kernel is used here
mod fib;

use hypersteal::{Policy, ThreadPoolBuilder};
use std::time::{Duration, Instant};

/// CPU time (user + system, clock ticks) of this process's threads whose name starts with
/// `prefix`.
fn cpu_ticks(prefix: &str) -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("stat")).ok())
        .filter_map(|stat| {
            let open = stat.find('(')?;
            let close = stat.rfind(')')?;
            if !stat[open + 1..close].starts_with(prefix) {
                return None;
            }
            let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
            Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
        })
        .sum()
}

/// Runs a burst of fine-grained work, then waits until the pool's threads use no CPU for 250 ms
/// (at most 60 s); returns the CPU ticks used after the burst and the time until rest.
fn settle(pool: &hypersteal::ThreadPool) -> (u64, Duration) {
    assert_eq!(pool.install(|| fib::fib_hypersteal(18, 0)), 2584);
    let start = Instant::now();
    let first = cpu_ticks("wakeup-");
    let mut last = first;
    loop {
        std::thread::sleep(Duration::from_millis(250));
        let now = cpu_ticks("wakeup-");
        if now == last || start.elapsed() > Duration::from_secs(60) {
            return (now - first, start.elapsed() - Duration::from_millis(250));
        }
        last = now;
    }
}

fn usage(what: &str) -> ! {
    eprintln!("usage: wakeup [--linger-us N] [WORKERS] [IDLE_MS] [RUNS] [POLICY ...]\n{what}");
    std::process::exit(2)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let linger = match args.iter().position(|a| a == "--linger-us") {
        Some(i) => {
            let value = args.get(i + 1).cloned().unwrap_or_default();
            let us: u64 = value.parse().unwrap_or_else(|_| {
                usage(&format!("--linger-us takes microseconds, got `{value}`"))
            });
            args.drain(i..(i + 2).min(args.len()));
            Some(Duration::from_micros(us))
        }
        None => None,
    };
    let number = |i: usize, default: u64, name: &str| -> u64 {
        args.get(i).map_or(default, |s| {
            s.parse()
                .ok()
                .filter(|&v: &u64| v > 0)
                .unwrap_or_else(|| usage(&format!("{name} must be a positive integer, got `{s}`")))
        })
    };
    let workers = number(0, 2, "WORKERS") as usize;
    let idle = Duration::from_millis(number(1, 1000, "IDLE_MS"));
    let runs = number(2, 9, "RUNS") as usize;
    let policies: Vec<Policy> = if args.len() > 3 {
        args[3..]
            .iter()
            .map(|s| s.parse().unwrap_or_else(|e| usage(&format!("{e}"))))
            .collect()
    } else {
        Policy::all()
    };
    let hz = 100.0; // USER_HZ: /proc counts CPU time in 1/100 s on Linux
    println!(
        "wake-up after {idle:?} idle, {workers} workers, {runs} runs each (median, max); \
         CPU ticks used at rest; CPU seconds and time to come to rest after a burst; \
         idle linger {}",
        linger.map_or_else(|| "built-in".to_string(), |l| format!("{l:?}"))
    );
    for policy in policies {
        let mut builder = ThreadPoolBuilder::new()
            .num_threads(workers)
            .policy(policy)
            .pin_threads(false)
            .thread_name(|i| format!("wakeup-{i}"));
        if let Some(linger) = linger {
            builder = builder.idle_linger(linger);
        }
        let pool = builder.build().unwrap_or_else(|e| usage(&e.to_string()));
        let (settle_ticks, settle_time) = settle(&pool);
        let mut latencies = Vec::with_capacity(runs);
        let mut rest_ticks = 0;
        for _ in 0..runs {
            let before = cpu_ticks("wakeup-");
            std::thread::sleep(idle);
            rest_ticks += cpu_ticks("wakeup-") - before;
            let (tx, rx) = std::sync::mpsc::channel();
            let start = Instant::now();
            pool.spawn(move || tx.send(start.elapsed()).unwrap());
            latencies.push(rx.recv().unwrap());
        }
        latencies.sort();
        println!(
            "{:<44} {:>8.1} us {:>8.1} us {:>4} ticks {:>7.2} CPU-s {:>7.2} s",
            policy.to_string(),
            latencies[runs / 2].as_secs_f64() * 1e6,
            latencies[runs - 1].as_secs_f64() * 1e6,
            rest_ticks,
            settle_ticks as f64 / hz,
            settle_time.as_secs_f64()
        );
        pool.shutdown();
    }
}

//! Oversubscribed correctness: 16 and 64 workers on a machine with far fewer cores, under every
//! policy. Requests, answers, promotion and heartbeat placement then meet preempted workers
//! everywhere (a victim descheduled with a request pending, a thief descheduled while waiting for
//! its answer). Results stay exact, every task runs once, and no wait hangs (a watchdog turns a
//! hang into a failure).

use crate::common;

use common::*;
use hypersteal::{Policy, Topology};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A tree of scope tasks nobody waits for individually, summing its leaves.
fn chares(n: u64) -> u64 {
    fn chare<'s>(s: &hypersteal::Scope<'s>, n: u64, sum: &'s AtomicU64) {
        if n < 2 {
            sum.fetch_add(n, Ordering::Relaxed);
        } else {
            s.spawn(move |s| chare(s, n - 1, sum));
            s.spawn(move |s| chare(s, n - 2, sum));
        }
    }
    let sum = AtomicU64::new(0);
    hypersteal::scope(|s| chare(s, n, &sum));
    sum.into_inner()
}

fn exercise(policy: Policy) {
    for workers in [16, 64] {
        let what = format!("{policy} with {workers} workers");
        within(Duration::from_secs(120), &what.clone(), move || {
            let pool = pool(policy, Topology::Hypercube, workers);
            for _ in 0..3 {
                assert_eq!(pool.install(|| fib(22)), fib_iter(22), "{what}: fib");
                assert_eq!(pool.install(|| chares(16)), fib_iter(16), "{what}: chares");
            }
            let (a, b) = pool.install(|| hypersteal::join(|| fib(20), || chares(14)));
            assert_eq!((a, b), (fib_iter(20), fib_iter(14)), "{what}: mixed");
            assert_balanced(&pool, &what);
            pool.shutdown();
        });
    }
}

#[test]
fn every_policy_at_16_and_64_workers() {
    for policy in Policy::all() {
        exercise(policy);
    }
}

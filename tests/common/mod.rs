//! Helpers shared by the integration tests.
#![allow(dead_code)]

use hypersteal::{Policy, ThreadPool, ThreadPoolBuilder, Topology};

/// Fibonacci through `join` at every level (no cutoff): the finest grain there is.
pub fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = hypersteal::join(|| fib(n - 1), || fib(n - 2));
    a + b
}

/// Fibonacci by iteration, the oracle.
pub fn fib_iter(n: u64) -> u64 {
    (0..n).fold((0u64, 1u64), |(a, b), _| (b, a + b)).0
}

/// A pool with the given shape; pinning off so that many pools on a small machine stay cheap.
pub fn pool(policy: Policy, topology: Topology, workers: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(workers)
        .policy(policy)
        .topology(topology)
        .pin_threads(false)
        .build()
        .unwrap()
}

/// Asserts the pool's books balance: every task made available ran exactly once.
pub fn assert_balanced(pool: &ThreadPool, what: &str) {
    let stats = pool.stats();
    let total = stats.total();
    assert_eq!(
        total.executed, total.spawned,
        "{what}: executed {} != spawned {}",
        total.executed, total.spawned
    );
    assert_eq!(total.executed, total.executed_local + total.executed_remote);
    assert_eq!(total.injected, stats.submitted, "{what}: injected jobs");
    assert!(total.requests_ok <= total.requests);
}

/// The worker counts every behavioural test covers.
pub const WORKERS: [usize; 5] = [1, 2, 3, 4, 8];

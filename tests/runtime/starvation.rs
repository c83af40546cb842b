//! A worker whose tasks have long stretches without poll points: a thief that gives up waiting
//! for its answer marks it starved, and its next tasks are published at once (receiver-initiated
//! policies; `src/worker/README.md`, "Starvation"). Every result stays exact and every task
//! runs once.

use crate::common;

use common::*;
use hypersteal::{Policy, Topology};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Spins, with no poll point, until `done` holds or ten seconds pass.
fn spin_until(done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() && start.elapsed() < Duration::from_secs(10) {
        std::hint::spin_loop();
    }
}

#[test]
fn a_thief_that_gives_up_makes_its_victim_publish_its_next_tasks() {
    // most-loaded asks only workers whose published load is above zero, and the worker in the
    // leaf has published its only task: nobody asks it, so nobody starves.
    let asking = Policy::all()
        .into_iter()
        .filter(|p| !p.is_sender_initiated() && p.name() != "most-loaded");
    for policy in asking {
        let what = format!("{policy}");
        within(Duration::from_secs(60), &what.clone(), move || {
            let pool = pool(policy, Topology::Hypercube, 2);
            let ran = AtomicU64::new(0);
            pool.install(|| {
                // A leaf without poll points that lasts until the idle worker has withdrawn a
                // request to this one: the signal is then certainly set.
                let withdrawn_before = pool.stats().total().withdrawn;
                let (_, _) = hypersteal::join(
                    || spin_until(|| pool.stats().total().withdrawn > withdrawn_before),
                    || ran.fetch_add(1, Ordering::Relaxed),
                );
                // The next joins find the signal at their poll point: their tasks go public at
                // once, and the idle worker may run them; every one runs exactly once.
                let sum: u64 = (0..20u64)
                    .map(|i| {
                        let (a, b) = hypersteal::join(
                            || i,
                            || {
                                ran.fetch_add(1, Ordering::Relaxed);
                                fib(10) + i
                            },
                        );
                        a + b
                    })
                    .sum();
                assert_eq!(sum, 2 * (0..20).sum::<u64>() + 20 * fib_iter(10), "{what}");
            });
            assert_eq!(ran.load(Ordering::Relaxed), 21, "{what}");
            let total = pool.stats().total();
            assert!(total.withdrawn >= 1, "{what}: no request was withdrawn");
            assert!(total.starved >= 1, "{what}: the victim never learnt of it");
            assert!(
                total.promoted >= 2,
                "{what}: only {} tasks were published",
                total.promoted
            );
            assert_balanced(&pool, &what);
        });
    }
}

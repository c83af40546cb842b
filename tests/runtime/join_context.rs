//! `join_context` tells each closure whether it migrated to another thread, under every policy.

use crate::common;

use common::*;
use hypersteal::{Policy, Topology};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

#[test]
fn migrated_says_whether_a_closure_left_its_callers_thread() {
    for policy in Policy::all() {
        for workers in [1, 2, 4] {
            let pool = pool(policy, Topology::Hypercube, workers);
            let (migrated, wrong) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let got = pool.install(|| fib_migrations(20, Duration::ZERO, &migrated, &wrong));
            assert_eq!(got, fib_iter(20), "{policy}, {workers} workers");
            assert_eq!(
                wrong.load(Ordering::Relaxed),
                0,
                "{policy}, {workers} workers: migrated() disagreed with the thread"
            );
            if workers == 1 {
                assert_eq!(migrated.load(Ordering::Relaxed), 0, "{policy}");
            }
        }
    }
}

#[test]
fn a_call_from_outside_the_pool_migrates_a() {
    let pool = pool(Policy::default(), Topology::Ring, 2);
    let caller = thread::current().id();
    assert!(pool.install(|| thread::current().id() != caller));
    // The free function from a thread outside every pool runs in the global pool.
    let (a, b) = hypersteal::join_context(
        |ctx| (ctx.migrated(), thread::current().id() != caller),
        |_| 7,
    );
    assert_eq!(a, (true, true));
    assert_eq!(b, 7);
    // Panics still reach the caller after both closures finished.
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.install(|| hypersteal::join_context(|_| -> u32 { panic!("a") }, |_| 1))
    }))
    .unwrap_err();
    assert_eq!(err.downcast_ref::<&str>(), Some(&"a"));
}

/// A `join` whose `a` waits (on a barrier) until `b` runs elsewhere completes when the other
/// workers are idle: in a pool that was just built (its workers may not have started yet) and
/// in one whose workers went back to sleep. Under the receiver-initiated policies an idle
/// worker counts from the start, so the join sees the demand and publishes its `b` at once
/// (`src/worker/README.md`, "Promotion").
#[test]
fn a_join_whose_a_waits_for_b_completes_while_others_are_idle() {
    for policy in Policy::all()
        .into_iter()
        .filter(|p| !p.is_sender_initiated())
    {
        for workers in [2, 3, 4] {
            let what = format!("{policy}, {workers} workers");
            within(Duration::from_secs(60), &what.clone(), move || {
                let pool = pool(policy, Topology::Hypercube, workers);
                for round in 0..3 {
                    let barrier = std::sync::Barrier::new(2);
                    let (a, b) = pool.install(|| {
                        hypersteal::join_context(
                            |ctx| {
                                barrier.wait();
                                ctx.migrated()
                            },
                            |ctx| {
                                barrier.wait();
                                ctx.migrated()
                            },
                        )
                    });
                    assert_eq!((a, b), (false, true), "{what}, round {round}");
                    // Let the other workers go back to sleep before the next round.
                    thread::sleep(Duration::from_millis(20));
                }
                assert_balanced(&pool, &what);
            });
        }
    }
}

//! Every policy on every topology at 1, 2, 3, 4 and 8 workers computes exact results and runs
//! every task exactly once.

use crate::common;

use common::*;
use hypersteal::{Policy, Topology};
use std::sync::atomic::{AtomicUsize, Ordering};

fn exercise(policy: Policy) {
    for topology in Topology::ALL {
        for workers in WORKERS {
            let what = format!("{policy} on {topology} with {workers} workers");
            let pool = pool(policy, topology, workers);

            assert_eq!(pool.install(|| fib(20)), fib_iter(20), "{what}: fib");

            let count = AtomicUsize::new(0);
            pool.scope(|s| {
                for _ in 0..100_000 {
                    s.spawn(|_| {
                        count.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
            assert_eq!(count.load(Ordering::Relaxed), 100_000, "{what}: spawns");

            // Nested scopes: each task opens its own scope, whose tasks write disjoint slots.
            let mut grid = vec![vec![0u32; 16]; 16];
            pool.scope(|s| {
                for (i, row) in grid.iter_mut().enumerate() {
                    s.spawn(move |_| {
                        hypersteal::scope(|inner| {
                            for (j, cell) in row.iter_mut().enumerate() {
                                inner.spawn(move |_| *cell = (i * 16 + j) as u32);
                            }
                        });
                    });
                }
            });
            let flat: Vec<u32> = grid.concat();
            assert_eq!(
                flat,
                (0..256).collect::<Vec<u32>>(),
                "{what}: nested scopes"
            );

            assert_balanced(&pool, &what);
            let total = pool.stats().total();
            // Every scope spawn is a task (100,000 + 16 + 256); of fib(20)'s fib(21) - 1 joins,
            // only those that did not run in place are (src/worker/mod.rs).
            let spawns = 100_000 + 16 + 256;
            assert!(
                total.spawned >= spawns && total.spawned <= fib_iter(21) - 1 + spawns,
                "{what}: spawned {}",
                total.spawned
            );
            if workers == 1 {
                assert_eq!(total.requests, 0, "{what}: nobody to ask");
                assert_eq!(total.executed_remote, 0, "{what}: nothing moves");
            }
        }
    }
}

#[test]
fn random_polling() {
    exercise("rp".parse().unwrap());
}

#[test]
fn nearest_neighbor() {
    exercise("nn".parse().unwrap());
}

#[test]
fn asynchronous_round_robin() {
    exercise("arr".parse().unwrap());
}

#[test]
fn global_round_robin() {
    exercise("grr".parse().unwrap());
}

#[test]
fn global_round_robin_with_combining() {
    exercise("grr-m".parse().unwrap());
    exercise("grr-m:window=0".parse().unwrap());
}

#[test]
fn scheduler_based() {
    exercise("sb".parse().unwrap());
}

#[test]
fn most_loaded() {
    exercise("most-loaded".parse().unwrap());
    exercise("most-loaded:scope=all,load=time".parse().unwrap());
}

#[test]
fn acwn() {
    exercise("acwn".parse().unwrap());
    exercise("acwn:low=1,high=4,interval=4".parse().unwrap());
}

#[test]
fn gradient() {
    exercise("gradient".parse().unwrap());
    exercise("gradient:low=2,high=4,interval=4".parse().unwrap());
}

#[test]
fn random_allocation() {
    exercise("random-alloc".parse().unwrap());
}

#[test]
fn single_level_managers() {
    exercise("sl".parse().unwrap());
}

#[test]
fn multi_level_managers() {
    exercise("ml".parse().unwrap());
    exercise("ml:levels=3".parse().unwrap());
    exercise("ml:group=2".parse().unwrap());
}

#[test]
fn policy_all_lists_every_policy_once() {
    let names: Vec<String> = Policy::all().iter().map(|p| p.to_string()).collect();
    assert_eq!(names, Policy::NAMES);
}

#[test]
fn idle_workers_take_work_from_a_busy_one() {
    // Receiver-initiated policies only: under the sender-initiated ones idle workers never ask.
    for policy in Policy::all()
        .into_iter()
        .filter(|p| !p.is_sender_initiated())
    {
        let pool = pool(policy, Topology::Hypercube, 4);
        // The first task to run blocks its worker until a task has run on another worker, so the
        // remaining tasks can only finish if some idle worker is woken and takes them.
        let blocker = AtomicUsize::new(usize::MAX);
        let elsewhere = AtomicUsize::new(0);
        pool.scope(|s| {
            for _ in 0..64 {
                s.spawn(|_| {
                    let me = hypersteal::current_thread_index().unwrap();
                    if blocker
                        .compare_exchange(usize::MAX, me, Ordering::SeqCst, Ordering::SeqCst)
                        .is_ok()
                    {
                        let deadline =
                            std::time::Instant::now() + std::time::Duration::from_secs(30);
                        while elsewhere.load(Ordering::SeqCst) == 0 {
                            assert!(
                                std::time::Instant::now() < deadline,
                                "{policy}: nobody took work"
                            );
                            std::thread::yield_now();
                        }
                    } else if blocker.load(Ordering::SeqCst) != me {
                        elsewhere.fetch_add(1, Ordering::SeqCst);
                    }
                });
            }
        });
        let total = pool.stats().total();
        assert!(total.executed_remote > 0, "{policy}: some task moved");
        // By a request, or, where the policy lets an idle worker ask only some workers (`sl`,
        // `ml`: the manager) and those were slow to come (a loaded machine), by a rescue after
        // the pool's rescue bound (src/worker/README.md, "Rescue").
        assert!(
            total.requests_ok + total.rescued > 0,
            "{policy}: some request or rescue succeeded"
        );
        assert_balanced(&pool, &policy.to_string());
    }
}

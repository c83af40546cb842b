//! `broadcast` and `spawn_broadcast`: one call per worker, on that worker, under every policy.

use crate::common;

use common::*;
use hypersteal::{Policy, ThreadPool, ThreadPoolBuilder, Topology};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

/// Every policy, at 1, 2, 3 and 16 workers (16 oversubscribes the 2-core test machine).
fn shapes() -> impl Iterator<Item = (Policy, usize)> {
    Policy::all()
        .into_iter()
        .flat_map(|p| [1usize, 2, 3, 16].into_iter().map(move |n| (p, n)))
}

fn build(policy: Policy, workers: usize) -> ThreadPool {
    ThreadPoolBuilder::new()
        .num_threads(workers)
        .policy(policy)
        .topology(Topology::Ring)
        .pin_threads(false)
        .build()
        .unwrap()
}

#[test]
fn every_worker_runs_the_call_once_on_itself() {
    within(LIMIT, "broadcasts", || {
        for (policy, n) in shapes() {
            let pool = build(policy, n);
            // From outside the pool, then from one of its workers.
            let outside = pool.broadcast(|ctx| {
                assert_eq!(ctx.num_threads(), n);
                (ctx.index(), hypersteal::current_thread_index())
            });
            let inside = pool.install(|| {
                hypersteal::broadcast(|ctx| (ctx.index(), hypersteal::current_thread_index()))
            });
            for got in [outside, inside] {
                let want: Vec<_> = (0..n).map(|i| (i, Some(i))).collect();
                assert_eq!(got, want, "{policy}, {n} workers");
            }
            // Every broadcast job counts as submitted and as injected where it ran.
            assert_balanced(&pool, &format!("{policy}, {n} workers"));
            assert_eq!(pool.stats().submitted, 1 + 1 + 2 * n as u64);
        }
    });
}

#[test]
fn a_broadcast_reaches_workers_that_are_busy_or_asleep() {
    within(LIMIT, "busy and sleeping workers", || {
        for policy in Policy::all() {
            let pool = build(policy, 4);
            // Asleep: the pool has been at rest for a while.
            std::thread::sleep(Duration::from_millis(20));
            assert_eq!(pool.broadcast(|ctx| ctx.index()), [0, 1, 2, 3], "{policy}");
            // Busy: a fine-grained tree keeps every worker working while one of them
            // broadcasts from inside it.
            let (tree, indices) = pool.install(|| {
                hypersteal::join(|| fib(22), || hypersteal::broadcast(|ctx| ctx.index()))
            });
            assert_eq!(tree, fib_iter(22), "{policy}");
            assert_eq!(indices, [0, 1, 2, 3], "{policy}");
        }
    });
}

#[test]
fn broadcasts_nest_and_cross_pools() {
    within(LIMIT, "nested broadcasts", || {
        for policy in ["rp", "grr-m", "acwn", "random-alloc"] {
            let policy: Policy = policy.parse().unwrap();
            let pool = build(policy, 3);
            // Every worker's call broadcasts again: 3 x 3 calls, each on its own worker.
            let grid = pool.broadcast(|outer| {
                let inner =
                    hypersteal::broadcast(|ctx| (ctx.index(), hypersteal::current_thread_index()));
                (outer.index(), inner)
            });
            for (i, (outer, inner)) in grid.into_iter().enumerate() {
                assert_eq!(outer, i, "{policy}");
                assert_eq!(
                    inner,
                    [(0, Some(0)), (1, Some(1)), (2, Some(2))],
                    "{policy}"
                );
            }
            // A worker of another pool broadcasting into this one waits for it.
            let other = build(policy, 2);
            let got = other.install(|| pool.broadcast(|ctx| ctx.index()));
            assert_eq!(got, [0, 1, 2], "{policy}");
        }
    });
}

#[test]
fn a_panic_reaches_the_broadcaster_after_every_call() {
    within(LIMIT, "panicking broadcast", || {
        for (policy, n) in shapes().filter(|&(_, n)| n >= 3) {
            let pool = build(policy, n);
            let calls = AtomicUsize::new(0);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.broadcast(|ctx| {
                    // Make the others late, so that a broadcaster returning early would be seen.
                    if ctx.index() == 0 {
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    calls.fetch_add(1, Ordering::SeqCst);
                    if ctx.index() == 1 || ctx.index() == 2 {
                        std::panic::panic_any(ctx.index());
                    }
                })
            }));
            assert_eq!(
                calls.load(Ordering::SeqCst),
                n,
                "{policy}, {n}: every call ran"
            );
            let payload = outcome.expect_err("the broadcast panicked");
            assert_eq!(
                payload.downcast_ref::<usize>(),
                Some(&1),
                "{policy}, {n}: the lowest index"
            );
            // The pool keeps working.
            assert_eq!(pool.broadcast(|ctx| ctx.index()).len(), n, "{policy}");
            assert_eq!(pool.install(|| fib(15)), fib_iter(15), "{policy}");
        }
    });
}

#[test]
fn spawn_broadcast_runs_once_per_worker_and_reports_panics() {
    within(LIMIT, "spawn_broadcast", || {
        for (policy, n) in shapes() {
            let panics = Arc::new(Mutex::new(Vec::new()));
            let p = Arc::clone(&panics);
            let pool = ThreadPoolBuilder::new()
                .num_threads(n)
                .policy(policy)
                .pin_threads(false)
                .panic_handler(move |payload| {
                    p.lock()
                        .unwrap()
                        .push(*payload.downcast::<usize>().unwrap());
                })
                .build()
                .unwrap();
            let (tx, rx) = mpsc::channel();
            let tx = Mutex::new(tx);
            pool.spawn_broadcast(move |ctx| {
                tx.lock()
                    .unwrap()
                    .send((ctx.index(), hypersteal::current_thread_index()))
                    .unwrap();
                if ctx.index() == n - 1 {
                    std::panic::panic_any(ctx.index());
                }
            });
            let mut got: Vec<_> = rx.iter().take(n).collect();
            got.sort();
            let want: Vec<_> = (0..n).map(|i| (i, Some(i))).collect();
            assert_eq!(got, want, "{policy}, {n} workers");
            // Shutting down waits for the root jobs, so the panic has been handled by then.
            pool.shutdown();
            assert_eq!(*panics.lock().unwrap(), [n - 1], "{policy}, {n} workers");
        }
    });
}

#[test]
fn the_free_functions_use_the_global_pool_outside_any_pool() {
    within(LIMIT, "global broadcast", || {
        let n = hypersteal::current_num_threads();
        let got = hypersteal::broadcast(|ctx| ctx.index());
        assert_eq!(got, (0..n).collect::<Vec<_>>());
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        hypersteal::spawn_broadcast(move |ctx| tx.lock().unwrap().send(ctx.index()).unwrap());
        let mut seen: Vec<usize> = rx.iter().take(n).collect();
        seen.sort();
        assert_eq!(seen, (0..n).collect::<Vec<_>>());
    });
}

#[test]
fn scope_broadcasts_borrow_and_are_awaited() {
    within(LIMIT, "scope broadcasts", || {
        for (policy, n) in shapes() {
            let pool = build(policy, n);
            let per_worker: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
            let spawned = AtomicUsize::new(0);
            pool.scope(|s| {
                s.spawn_broadcast(|s, ctx| {
                    assert_eq!(hypersteal::current_thread_index(), Some(ctx.index()));
                    per_worker[ctx.index()].fetch_add(1, Ordering::SeqCst);
                    // A broadcast task may spawn into the scope like any task.
                    s.spawn(|_| {
                        spawned.fetch_add(1, Ordering::SeqCst);
                    });
                });
            });
            // The scope returned: every call and every task it spawned ran, once.
            for (i, c) in per_worker.iter().enumerate() {
                assert_eq!(c.load(Ordering::SeqCst), 1, "{policy}, {n}: worker {i}");
            }
            assert_eq!(spawned.load(Ordering::SeqCst), n, "{policy}, {n}");
            // The FIFO scope, from outside the pool's workers (the caller blocks).
            let fifo_calls = AtomicUsize::new(0);
            pool.scope_fifo(|s| {
                s.spawn_broadcast(|_, ctx| {
                    assert_eq!(hypersteal::current_thread_index(), Some(ctx.index()));
                    fifo_calls.fetch_add(1, Ordering::SeqCst);
                });
            });
            assert_eq!(fifo_calls.load(Ordering::SeqCst), n, "{policy}, {n}");
            let total = pool.stats().total();
            assert_eq!(total.executed, total.spawned, "{policy}, {n}");
        }
    });
}

#[test]
fn a_panicking_scope_broadcast_reaches_the_scope_after_every_call() {
    within(LIMIT, "panicking scope broadcast", || {
        for policy in Policy::all() {
            let pool = build(policy, 3);
            let calls = AtomicUsize::new(0);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pool.scope(|s| {
                    s.spawn_broadcast(|_, ctx| {
                        calls.fetch_add(1, Ordering::SeqCst);
                        if ctx.index() == 2 {
                            panic!("worker two");
                        }
                    })
                })
            }));
            assert!(outcome.is_err(), "{policy}");
            assert_eq!(calls.load(Ordering::SeqCst), 3, "{policy}");
            assert_eq!(pool.install(|| fib(12)), fib_iter(12), "{policy}");
        }
    });
}

#[test]
fn yield_now_runs_this_workers_share_of_a_broadcast() {
    within(LIMIT, "yield to a broadcast", || {
        for policy in Policy::all() {
            // One worker: its share of the broadcast can only run when it yields or waits.
            let pool = build(policy, 1);
            let ran = Arc::new(AtomicUsize::new(0));
            let r = Arc::clone(&ran);
            pool.install(move || {
                hypersteal::spawn_broadcast(move |_| {
                    r.fetch_add(1, Ordering::SeqCst);
                });
                assert_eq!(hypersteal::yield_local(), Some(hypersteal::Yield::Idle));
                assert_eq!(hypersteal::yield_now(), Some(hypersteal::Yield::Executed));
            });
            assert_eq!(ran.load(Ordering::SeqCst), 1, "{policy}");
        }
    });
}

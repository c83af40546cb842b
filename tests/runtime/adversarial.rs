//! Adversarial tests of the private-stack / request / promotion / heartbeat core
//! (`src/worker/README.md`). Every test that could hang runs under `common::within`; tests that
//! may deadlock by design run in a child process (`common::in_child`).

use crate::common;

use common::{
    assert_balanced, fib, fib_iter, fib_migrations, in_child, pool, schedules, spin_for, within,
};
use hypersteal::iter::Schedule;
use hypersteal::prelude::*;
use hypersteal::{Policy, ThreadPool, ThreadPoolBuilder, Topology};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

const WORKERS: [usize; 4] = [2, 3, 5, 16];
const LIMIT: Duration = Duration::from_secs(120);

fn builder(policy: Policy, workers: usize) -> ThreadPoolBuilder {
    ThreadPoolBuilder::new()
        .num_threads(workers)
        .policy(policy)
        .pin_threads(false)
}

/// The invariants a quiescent pool's counters must satisfy, per worker and in total.
fn assert_stats_invariants(pool: &ThreadPool, what: &str) {
    assert_stats_invariants_with(pool, what, 0);
}

/// As [`assert_stats_invariants`], after a `reset_stats` made while `straddling` requests per
/// worker may have been in flight: an idle worker still searching when the reset came may
/// have posted its request before it and seen it withdrawn or answered after it (as
/// `reset_stats` documents, counters may straddle the reset).
fn assert_stats_invariants_with(pool: &ThreadPool, what: &str, straddling: u64) {
    assert_balanced(pool, what);
    let stats = pool.stats();
    for (i, w) in stats.workers.iter().enumerate() {
        let requests = w.requests + straddling;
        assert!(w.requests_ok <= requests, "{what}: worker {i}: {w:?}");
        assert!(w.withdrawn <= requests, "{what}: worker {i}: {w:?}");
        // A withdrawn request never obtains a task.
        assert!(
            w.withdrawn + w.requests_ok <= requests,
            "{what}: worker {i}: withdrawn + ok > requests: {w:?}"
        );
        assert_eq!(w.executed, w.executed_local + w.executed_remote, "{what}");
    }
    let t = stats.total();
    // Every receive follows one send.
    assert!(t.placed_in <= t.placed_out, "{what}: {t:?}");
    if !pool.policy().is_sender_initiated() {
        assert_eq!(t.placed_out, 0, "{what}: a receiver policy placed: {t:?}");
        assert_eq!(t.reclaimed, 0, "{what}: {t:?}");
    } else {
        assert_eq!(t.requests, 0, "{what}: a sender policy requested: {t:?}");
        assert_eq!(t.promoted, 0, "{what}: {t:?}");
    }
}

/// A binary tree of `join`s of depth `depth`; leaf `k` runs `leaf(k)`. Returns the leaf sum.
fn tree(lo: usize, depth: u32, leaf: &(dyn Fn(usize) -> usize + Sync)) -> usize {
    if depth == 0 {
        return leaf(lo);
    }
    let half = 1usize << (depth - 1);
    let (a, b) = hypersteal::join(
        || tree(lo, depth - 1, leaf),
        || tree(lo + half, depth - 1, leaf),
    );
    a + b
}

fn topologies_for(workers: usize) -> Vec<Topology> {
    if workers == 16 {
        vec![Topology::Hypercube, Topology::Ring]
    } else {
        Topology::ALL.to_vec()
    }
}

// ---------------------------------------------------------------------------------------------
// 1. Every policy x workers x topology: fine-grained joins, mixed with coarse leaves.

#[test]
fn matrix_every_policy_workers_topology() {
    within(LIMIT * 3, "matrix", || {
        for policy in Policy::all() {
            for workers in WORKERS {
                for topology in topologies_for(workers) {
                    let what = format!("{policy} {workers} {topology}");
                    let pool = pool(policy, topology, workers);
                    assert_eq!(pool.install(|| fib(17)), fib_iter(17), "{what}");
                    // Coarse leaves: a spin with no poll points, so requests withdraw.
                    let count: Vec<AtomicUsize> = (0..32).map(|_| AtomicUsize::new(0)).collect();
                    let sum = pool.install(|| {
                        tree(0, 5, &|k| {
                            count[k].fetch_add(1, Ordering::Relaxed);
                            if k % 7 == 0 {
                                spin_for(Duration::from_micros(300));
                            }
                            k
                        })
                    });
                    assert_eq!(sum, (0..32).sum::<usize>(), "{what}");
                    for (k, c) in count.iter().enumerate() {
                        assert_eq!(c.load(Ordering::Relaxed), 1, "{what}: leaf {k}");
                    }
                    assert_stats_invariants(&pool, &what);
                }
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 2. Panics in `a` or `b` at various depths while other workers request.

#[derive(Clone, Copy, Debug)]
enum Side {
    A,
    B,
}

/// Depth-`depth` tree; the leaf `target` panics. Nodes at level `level` are where a/b split
/// chooses whether the panicking leaf is in `a` or `b`. Every leaf, including the panicking one,
/// must run exactly once (`join` always runs both halves).
fn panic_case(pool: &ThreadPool, depth: u32, target: usize, what: &str) {
    let count: Vec<AtomicUsize> = (0..1usize << depth).map(|_| AtomicUsize::new(0)).collect();
    let r = catch_unwind(AssertUnwindSafe(|| {
        pool.install(|| {
            tree(0, depth, &|k| {
                count[k].fetch_add(1, Ordering::SeqCst);
                if k == target {
                    std::panic::panic_any(format!("leaf {k}"));
                }
                // A little work, so idle workers post requests meanwhile.
                spin_for(Duration::from_micros(20));
                k
            })
        })
    }));
    let payload = r.expect_err("the panic must reach the caller");
    assert_eq!(
        payload.downcast_ref::<String>().map(String::as_str),
        Some(format!("leaf {target}").as_str()),
        "{what}"
    );
    for (k, c) in count.iter().enumerate() {
        assert_eq!(
            c.load(Ordering::SeqCst),
            1,
            "{what}: leaf {k} ran wrong number of times"
        );
    }
}

#[test]
fn panics_in_a_or_b_at_every_depth_every_policy() {
    within(LIMIT * 2, "panics", || {
        for policy in Policy::all() {
            for workers in [2, 3, 5] {
                let pool = pool(policy, Topology::Hypercube, workers);
                let depth = 7;
                // Leaf 0 is reached through `a` at every level; the last leaf through `b` at
                // every level; the others mix.
                for (side, target) in [
                    (Side::A, 0usize),
                    (Side::B, (1 << depth) - 1),
                    (Side::A, 37),
                    (Side::B, 64),
                    (Side::B, 1),
                    (Side::A, 126),
                ] {
                    let what = format!("{policy} {workers}: {side:?} leaf {target}");
                    panic_case(&pool, depth, target, &what);
                }
                // The pool keeps working, and the books balance.
                assert_eq!(pool.install(|| fib(16)), fib_iter(16), "{policy} {workers}");
                assert_stats_invariants(&pool, &format!("{policy} {workers} after panics"));
            }
        }
    });
}

/// Both halves panic: `a`'s panic wins, `b` ran exactly once.
#[test]
fn both_halves_panic_a_wins() {
    within(LIMIT, "both panic", || {
        for policy in Policy::all() {
            for workers in [2, 3] {
                let pool = pool(policy, Topology::Ring, workers);
                for depth in [0u32, 1, 4] {
                    let ran_b = AtomicUsize::new(0);
                    let r = catch_unwind(AssertUnwindSafe(|| {
                        pool.install(|| {
                            // Fill the private stack first, so the last join may run in place.
                            fn nest(d: u32, f: &(dyn Fn() + Sync)) {
                                if d == 0 {
                                    return f();
                                }
                                hypersteal::join(
                                    || nest(d - 1, f),
                                    || spin_for(Duration::from_micros(5)),
                                );
                            }
                            nest(depth, &|| {
                                hypersteal::join(
                                    || -> () { panic!("a") },
                                    || {
                                        ran_b.fetch_add(1, Ordering::SeqCst);
                                        panic!("b")
                                    },
                                );
                            })
                        })
                    }));
                    let p = r.expect_err("panic reaches the caller");
                    assert_eq!(
                        p.downcast_ref::<&str>(),
                        Some(&"a"),
                        "{policy} {workers} {depth}"
                    );
                    assert_eq!(
                        ran_b.load(Ordering::SeqCst),
                        1,
                        "{policy} {workers} {depth}"
                    );
                }
                assert_eq!(pool.install(|| fib(12)), fib_iter(12));
                assert_stats_invariants(&pool, &format!("{policy} {workers}"));
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 3. `a` without poll points for a long time while the others are idle.

#[test]
fn long_a_without_poll_points() {
    within(LIMIT, "long a", || {
        for policy in Policy::all() {
            for workers in [2, 3, 5] {
                let pool = pool(policy, Topology::Complete, workers);
                for _ in 0..5 {
                    let b_thread = Mutex::new(None);
                    let caller = pool.install(|| {
                        let caller = thread::current().id();
                        let (x, y) = hypersteal::join(
                            || {
                                spin_for(Duration::from_millis(4));
                                1
                            },
                            || {
                                *b_thread.lock().unwrap() = Some(thread::current().id());
                                2
                            },
                        );
                        assert_eq!((x, y), (1, 2));
                        caller
                    });
                    assert!(b_thread.lock().unwrap().is_some());
                    let _ = caller;
                }
                // Nested: each level's `a` spins before recursing.
                fn nested(d: u32, hits: &AtomicUsize) {
                    if d == 0 {
                        hits.fetch_add(1, Ordering::Relaxed);
                        return;
                    }
                    hypersteal::join(
                        || {
                            spin_for(Duration::from_micros(500));
                            nested(d - 1, hits)
                        },
                        || nested(d - 1, hits),
                    );
                }
                let hits = AtomicUsize::new(0);
                pool.install(|| nested(6, &hits));
                assert_eq!(hits.load(Ordering::Relaxed), 64, "{policy} {workers}");
                assert_stats_invariants(&pool, &format!("{policy} {workers} long a"));
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 4. Nested pools, each policy on both sides, private tasks on both.

#[test]
fn nested_pools_every_policy_pair() {
    within(LIMIT * 2, "nested pools", || {
        let policies = Policy::all();
        for (i, &pa) in policies.iter().enumerate() {
            for shift in [0usize, 3, 7] {
                let pb = policies[(i + shift) % policies.len()];
                let what = format!("A={pa} B={pb}");
                let a = pool(pa, Topology::Ring, 3);
                let b = pool(pb, Topology::Hypercube, 2);
                let got = a.install(|| {
                    tree(0, 4, &|k| {
                        // Private tasks in A below this install; B makes its own.
                        let (x, y) =
                            hypersteal::join(|| b.install(|| fib(10 + (k % 3) as u64)), || fib(8));
                        (x + y) as usize
                    })
                });
                let want: usize = (0..16)
                    .map(|k| fib_iter(10 + (k % 3) as u64) as usize + fib_iter(8) as usize)
                    .sum();
                assert_eq!(got, want, "{what}");
                // And back: B's tasks install into A.
                let got = b.install(|| {
                    hypersteal::join(|| a.install(|| fib(14)), || a.install(|| fib(13)))
                });
                assert_eq!(got, (fib_iter(14), fib_iter(13)), "{what}");
                // A panic in B crosses into A's frame and then out.
                let r = catch_unwind(AssertUnwindSafe(|| {
                    a.install(|| {
                        hypersteal::join(
                            || fib(12),
                            || {
                                b.install(|| {
                                    hypersteal::join(|| fib(5), || -> u64 { panic!("in B") })
                                })
                            },
                        )
                    })
                }));
                assert_eq!(
                    r.unwrap_err().downcast_ref::<&str>(),
                    Some(&"in B"),
                    "{what}"
                );
                assert_stats_invariants(&a, &format!("{what}: A"));
                assert_stats_invariants(&b, &format!("{what}: B"));
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 5. Scopes mixing spawns, joins and sibling spawns, tiny and huge heartbeats.

fn scope_workload(pool: &ThreadPool, what: &str) {
    let n = 48;
    let hits: Vec<AtomicUsize> = (0..n * 4).map(|_| AtomicUsize::new(0)).collect();
    let hits = &hits;
    pool.install(|| {
        hypersteal::scope(|s| {
            for i in 0..n {
                s.spawn(move |s| {
                    hits[i].fetch_add(1, Ordering::Relaxed);
                    // A sibling spawned from a task.
                    s.spawn(move |_| {
                        hits[n + i].fetch_add(1, Ordering::Relaxed);
                    });
                    // A join inside a task, with a nested scope in one half.
                    hypersteal::join(
                        || {
                            hypersteal::scope(|s2| {
                                s2.spawn(move |_| {
                                    hits[2 * n + i].fetch_add(1, Ordering::Relaxed);
                                });
                                fib(6);
                            })
                        },
                        || {
                            if i % 5 == 0 {
                                spin_for(Duration::from_micros(200));
                            }
                            hits[3 * n + i].fetch_add(1, Ordering::Relaxed);
                        },
                    );
                });
            }
            // The body itself joins while its spawns are queued.
            assert_eq!(fib(12), fib_iter(12));
        })
    });
    for (k, h) in hits.iter().enumerate() {
        assert_eq!(h.load(Ordering::Relaxed), 1, "{what}: slot {k}");
    }
}

#[test]
fn scopes_with_tiny_and_huge_heartbeats() {
    within(LIMIT * 2, "scopes", || {
        for policy in Policy::all() {
            let beats: &[Option<Duration>] = if policy.is_sender_initiated() {
                &[
                    Some(Duration::from_micros(1)),
                    Some(Duration::from_secs(1)),
                    None,
                ]
            } else {
                &[None]
            };
            for &beat in beats {
                for workers in [2, 3, 5, 16] {
                    let mut b = builder(policy, workers);
                    if let Some(beat) = beat {
                        b = b.heartbeat(beat);
                    }
                    let pool = b.build().unwrap();
                    let what = format!("{policy} beat {beat:?} {workers}");
                    for _ in 0..3 {
                        scope_workload(&pool, &what);
                    }
                    assert_stats_invariants(&pool, &what);
                }
            }
        }
    });
}

/// A scope task panics while siblings are still being spawned and joined.
#[test]
fn scope_panics_with_siblings_under_every_policy() {
    within(LIMIT, "scope panics", || {
        for policy in Policy::all() {
            for workers in [2, 5] {
                let pool = builder(policy, workers)
                    .heartbeat(Duration::from_micros(1))
                    .build()
                    .unwrap();
                let ran = AtomicUsize::new(0);
                let r = catch_unwind(AssertUnwindSafe(|| {
                    pool.install(|| {
                        hypersteal::scope(|s| {
                            for i in 0..40 {
                                let ran = &ran;
                                s.spawn(move |s| {
                                    ran.fetch_add(1, Ordering::SeqCst);
                                    s.spawn(move |_| {
                                        ran.fetch_add(1, Ordering::SeqCst);
                                        if i == 17 {
                                            panic!("sibling 17");
                                        }
                                    });
                                    hypersteal::join(|| fib(5), || fib(4));
                                });
                            }
                        })
                    })
                }));
                assert_eq!(
                    r.unwrap_err().downcast_ref::<&str>(),
                    Some(&"sibling 17"),
                    "{policy} {workers}"
                );
                assert_eq!(ran.load(Ordering::SeqCst), 80, "{policy} {workers}");
                assert_eq!(pool.install(|| fib(14)), fib_iter(14));
                assert_stats_invariants(&pool, &format!("{policy} {workers}"));
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 6. join_context: `b` migrated iff it ran on another thread; `a` never migrates in the pool.

#[test]
fn join_context_migrated_iff_other_thread() {
    within(LIMIT, "join_context", || {
        for policy in Policy::all() {
            for workers in [2, 3, 5, 16] {
                for beat in [Duration::from_micros(1), Duration::from_secs(1)] {
                    let pool = builder(policy, workers).heartbeat(beat).build().unwrap();
                    let (wrong, migrated) = (AtomicUsize::new(0), AtomicUsize::new(0));
                    let got = pool.install(|| {
                        fib_migrations(16, Duration::from_micros(30), &migrated, &wrong)
                    });
                    assert_eq!(got, fib_iter(16));
                    assert_eq!(
                        wrong.load(Ordering::Relaxed),
                        0,
                        "{policy} {workers} {beat:?}: migrated() lied"
                    );
                    assert_stats_invariants(&pool, &format!("{policy} {workers}"));
                }
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 7. Parallel iterators, every schedule under every policy.

#[test]
fn iterators_every_schedule_every_policy() {
    within(LIMIT * 2, "iterators", || {
        for policy in Policy::all() {
            for workers in [2, 3, 5] {
                let pool = pool(policy, Topology::Torus, workers);
                for s in schedules() {
                    let what = format!("{policy} {workers} {s}");
                    let n = 3000usize;
                    let seen: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                    pool.install(|| {
                        (0..n).into_par_iter().with_schedule(s).for_each(|i| {
                            seen[i].fetch_add(1, Ordering::Relaxed);
                            if i % 500 == 0 {
                                spin_for(Duration::from_micros(200));
                            }
                            // Nested joins inside loop bodies.
                            if i % 97 == 0 {
                                assert_eq!(fib(8), 21);
                            }
                        })
                    });
                    for (i, c) in seen.iter().enumerate() {
                        assert_eq!(c.load(Ordering::Relaxed), 1, "{what}: index {i}");
                    }
                    let v: Vec<usize> = pool.install(|| {
                        (0..n)
                            .into_par_iter()
                            .with_schedule(s)
                            .map(|i| i * 3)
                            .collect()
                    });
                    assert_eq!(v, (0..n).map(|i| i * 3).collect::<Vec<_>>(), "{what}");
                    let sum: usize = pool.install(|| (0..n).into_par_iter().with_schedule(s).sum());
                    assert_eq!(sum, n * (n - 1) / 2, "{what}");
                    // Nested loops.
                    let inner: usize = pool.install(|| {
                        (0..20usize)
                            .into_par_iter()
                            .with_schedule(s)
                            .map(|i| (0..i).into_par_iter().with_schedule(s).sum::<usize>())
                            .sum()
                    });
                    assert_eq!(
                        inner,
                        (0..20usize).map(|i| i * i.saturating_sub(1) / 2).sum()
                    );
                }
                assert_stats_invariants(&pool, &format!("{policy} {workers} iter"));
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 8. `a` blocks waiting for `b` (no poll points while blocked).

/// Receiver-initiated policies, partner idle (asleep) at the push: `push_private` sees the
/// demand and promotes `b` before `a` blocks, so the pool's other worker runs `b`.
#[test]
fn blocking_a_waits_for_b_with_idle_partner_receiver_policies() {
    let name = "blocking_a_waits_for_b_with_idle_partner_receiver_policies";
    if let Some(out) = in_child(name, Duration::from_secs(60), |_| {}) {
        common::assert_child_passed(name, &out);
        return;
    }
    for policy in Policy::all()
        .into_iter()
        .filter(|p| !p.is_sender_initiated())
    {
        for _ in 0..5 {
            let pool = pool(policy, Topology::Complete, 2);
            pool.install(|| ());
            // Let the other worker go idle (its cell BLOCKED, the idle count up).
            thread::sleep(Duration::from_millis(30));
            let (tx, rx) = std::sync::mpsc::channel::<u32>();
            let got = pool.install(|| {
                hypersteal::join(move || rx.recv().unwrap(), move || tx.send(7).unwrap())
            });
            assert_eq!(got.0, 7, "{policy}");
        }
    }
}

#[test]
fn shutdown_and_drop_with_work_in_flight() {
    within(LIMIT, "shutdown", || {
        for policy in Policy::all() {
            for workers in [2, 3, 5, 16] {
                // shutdown waits for every spawn.
                let pool = pool(policy, Topology::Hypercube, workers);
                let done = Arc::new(AtomicUsize::new(0));
                for i in 0..20 {
                    let done = done.clone();
                    pool.spawn(move || {
                        let n = 10 + (i % 5);
                        assert_eq!(fib(n), fib_iter(n));
                        if i % 4 == 0 {
                            spin_for(Duration::from_micros(300));
                        }
                        done.fetch_add(1, Ordering::SeqCst);
                    });
                }
                pool.shutdown();
                assert_eq!(done.load(Ordering::SeqCst), 20, "{policy} {workers}");

                // drop does not block; the workers still finish the queued work.
                let pool = common::pool(policy, Topology::Ring, workers);
                let done = Arc::new(AtomicUsize::new(0));
                for i in 0..20 {
                    let done = done.clone();
                    pool.spawn(move || {
                        // Spawns from inside, and joins with coarse halves.
                        let d2 = done.clone();
                        hypersteal::spawn(move || {
                            fib(8);
                            d2.fetch_add(1, Ordering::SeqCst);
                        });
                        hypersteal::join(
                            || spin_for(Duration::from_micros(100 * (i % 3))),
                            || fib(9),
                        );
                        done.fetch_add(1, Ordering::SeqCst);
                    });
                }
                drop(pool);
                let start = Instant::now();
                while done.load(Ordering::SeqCst) < 40 {
                    assert!(
                        start.elapsed() < Duration::from_secs(30),
                        "{policy} {workers}: dropped pool lost work: {} of 40",
                        done.load(Ordering::SeqCst)
                    );
                    thread::sleep(Duration::from_millis(1));
                }
            }
        }
    });
}

/// Many short-lived pools: build, a burst of joins, drop at once (threads may still be requesting).
#[test]
fn churn_pools() {
    within(LIMIT, "churn", || {
        for round in 0..6 {
            for policy in Policy::all() {
                let workers = [2, 3, 5][round % 3];
                let pool = pool(policy, Topology::Mesh, workers);
                assert_eq!(pool.install(|| fib(12)), fib_iter(12));
                assert_stats_invariants(&pool, &format!("{policy}"));
                drop(pool);
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 10. Stats invariants on a mixed quiescent workload, and across reset_stats.

#[test]
fn stats_invariants_mixed_workload() {
    within(LIMIT, "stats", || {
        for policy in Policy::all() {
            for workers in WORKERS {
                let pool = pool(policy, Topology::Hypercube, workers);
                pool.install(|| {
                    hypersteal::scope(|s| {
                        for _ in 0..8 {
                            s.spawn(|_| {
                                fib(12);
                            });
                        }
                        hypersteal::join(|| fib(13), || spin_for(Duration::from_micros(500)));
                    });
                    (0..500u32).into_par_iter().for_each(|i| {
                        if i % 100 == 0 {
                            spin_for(Duration::from_micros(100));
                        }
                    });
                });
                assert_stats_invariants(&pool, &format!("{policy} {workers}"));
                pool.reset_stats();
                assert_eq!(pool.install(|| fib(14)), fib_iter(14));
                let what = format!("{policy} {workers} after reset");
                assert_stats_invariants_with(&pool, &what, 1);
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 11. Joins from many outside threads at once into one pool (several roots, private tasks on
// every worker).

#[test]
fn many_external_callers() {
    within(LIMIT, "external callers", || {
        for policy in Policy::all() {
            let pool = Arc::new(pool(policy, Topology::Torus, 3));
            let handles: Vec<_> = (0..4)
                .map(|t| {
                    let pool = pool.clone();
                    thread::spawn(move || {
                        for _ in 0..5 {
                            assert_eq!(pool.install(|| fib(13 + t)), fib_iter(13 + t));
                            let r = catch_unwind(AssertUnwindSafe(|| {
                                pool.join(|| fib(10), || -> u64 { panic!("x") })
                            }));
                            assert!(r.is_err());
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
            assert_stats_invariants(&pool, &format!("{policy} external"));
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 12. Scope tasks spawned from threads that are not the scope's pool's workers (a worker of
// another pool, a plain OS thread): they are injected, never ticketed.

#[test]
fn scope_spawn_from_foreign_threads() {
    within(LIMIT, "foreign scope spawn", || {
        let policies = Policy::all();
        for (i, &pa) in policies.iter().enumerate() {
            let pb = policies[(i + 5) % policies.len()];
            let what = format!("A={pa} B={pb}");
            let a = builder(pa, 3)
                .heartbeat(Duration::from_micros(1))
                .build()
                .unwrap();
            let b = pool(pb, Topology::Ring, 2);
            let hits: Vec<AtomicUsize> = (0..60).map(|_| AtomicUsize::new(0)).collect();
            let hits = &hits;
            let b = &b;
            a.install(|| {
                hypersteal::scope(|s| {
                    for i in 0..20 {
                        s.spawn(move |s| {
                            hits[i].fetch_add(1, Ordering::SeqCst);
                            // From a worker of pool B.
                            b.install(|| {
                                s.spawn(move |_| {
                                    hits[20 + i].fetch_add(1, Ordering::SeqCst);
                                    fib(6);
                                });
                                fib(7)
                            });
                            // From a plain OS thread.
                            thread::scope(|ts| {
                                ts.spawn(|| {
                                    s.spawn(move |_| {
                                        hits[40 + i].fetch_add(1, Ordering::SeqCst);
                                        hypersteal::join(|| fib(5), || fib(5));
                                    });
                                });
                            });
                        });
                    }
                })
            });
            for (k, h) in hits.iter().enumerate() {
                assert_eq!(h.load(Ordering::SeqCst), 1, "{what}: slot {k}");
            }
            assert_stats_invariants(&a, &format!("{what}: A"));
            assert_stats_invariants(b, &format!("{what}: B"));
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 13. Waits nested deeper than HELP_DEPTH (16) under sender-initiated policies: a long chain of
// joins whose `b`s are placed with a 1 µs heartbeat, and deep chains of nested scopes.

fn chain(d: u32, hits: &AtomicUsize) {
    if d == 0 {
        return;
    }
    hypersteal::join(
        || chain(d - 1, hits),
        || {
            spin_for(Duration::from_micros(20));
            hits.fetch_add(1, Ordering::Relaxed);
            // Each `b` opens a short chain of its own, so waiters run tasks that wait.
            if d.is_multiple_of(3) {
                chain(d / 3, hits);
            }
        },
    );
}

fn chain_count(d: u32) -> usize {
    if d == 0 {
        return 0;
    }
    chain_count(d - 1)
        + 1
        + if d.is_multiple_of(3) {
            chain_count(d / 3)
        } else {
            0
        }
}

fn nested_scopes(d: u32, hits: &AtomicUsize) {
    if d == 0 {
        return;
    }
    hypersteal::scope(|s| {
        s.spawn(|_| nested_scopes(d - 1, hits));
        s.spawn(|_| {
            spin_for(Duration::from_micros(10));
            hits.fetch_add(1, Ordering::Relaxed);
        });
        hypersteal::join(|| nested_scopes(d / 4, hits), || fib(4));
    });
}

fn nested_scopes_count(d: u32) -> usize {
    if d == 0 {
        return 0;
    }
    1 + nested_scopes_count(d - 1) + nested_scopes_count(d / 4)
}

#[test]
fn waits_nested_past_help_depth() {
    within(LIMIT * 2, "deep waits", || {
        for policy in Policy::all() {
            for workers in [2, 3, 5, 16] {
                let pool = builder(policy, workers)
                    .heartbeat(Duration::from_micros(1))
                    .stack_size(64 << 20)
                    .build()
                    .unwrap();
                let what = format!("{policy} {workers}");
                for d in [20u32, 60] {
                    let hits = AtomicUsize::new(0);
                    pool.install(|| chain(d, &hits));
                    assert_eq!(
                        hits.load(Ordering::Relaxed),
                        chain_count(d),
                        "{what} chain {d}"
                    );
                }
                let hits = AtomicUsize::new(0);
                pool.install(|| nested_scopes(30, &hits));
                assert_eq!(
                    hits.load(Ordering::Relaxed),
                    nested_scopes_count(30),
                    "{what}"
                );
                assert_stats_invariants(&pool, &what);
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 14. `a` leaves spawned work above `b` on the private stack (sender-initiated policies): static
// spawns and scope spawns from inside `a`, with `b` needing to run exactly once.

#[test]
fn spawns_left_above_b() {
    within(LIMIT, "spawns above b", || {
        for policy in Policy::all() {
            for beat in [Duration::from_micros(1), Duration::from_secs(1)] {
                for workers in [2, 3] {
                    let pool = builder(policy, workers).heartbeat(beat).build().unwrap();
                    let what = format!("{policy} {beat:?} {workers}");
                    let statics = Arc::new(AtomicUsize::new(0));
                    let ran = [
                        AtomicUsize::new(0),
                        AtomicUsize::new(0),
                        AtomicUsize::new(0),
                    ];
                    pool.install(|| {
                        hypersteal::scope(|s| {
                            for _ in 0..10 {
                                let st = statics.clone();
                                let ran = &ran;
                                hypersteal::join(
                                    || {
                                        for _ in 0..3 {
                                            let st = st.clone();
                                            hypersteal::spawn(move || {
                                                st.fetch_add(1, Ordering::SeqCst);
                                            });
                                            s.spawn(move |_| {
                                                ran[0].fetch_add(1, Ordering::SeqCst);
                                            });
                                        }
                                        ran[1].fetch_add(1, Ordering::SeqCst);
                                    },
                                    || {
                                        ran[2].fetch_add(1, Ordering::SeqCst);
                                    },
                                );
                            }
                        })
                    });
                    assert_eq!(ran[0].load(Ordering::SeqCst), 30, "{what}");
                    assert_eq!(ran[1].load(Ordering::SeqCst), 10, "{what}");
                    assert_eq!(ran[2].load(Ordering::SeqCst), 10, "{what}");
                    // The static spawns finish eventually (shutdown waits for them).
                    pool.shutdown();
                    assert_eq!(statics.load(Ordering::SeqCst), 30, "{what}");
                }
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// 15. Several roots at once on a 16-worker pool with a 1 µs heartbeat: scopes, joins and loops
// from many external threads, repeated.

#[test]
fn concurrent_roots_sixteen_workers() {
    within(LIMIT * 2, "concurrent roots", || {
        for policy in Policy::all() {
            let pool = Arc::new(
                builder(policy, 16)
                    .heartbeat(Duration::from_micros(1))
                    .build()
                    .unwrap(),
            );
            let handles: Vec<_> = (0..3)
                .map(|t| {
                    let pool = pool.clone();
                    thread::spawn(move || {
                        for _ in 0..4 {
                            let what = format!("{policy} thread {t}");
                            scope_workload(&pool, &what);
                            let sum: u64 = pool.install(|| {
                                (0..2000u64)
                                    .into_par_iter()
                                    .with_schedule(Schedule::Guided)
                                    .sum()
                            });
                            assert_eq!(sum, 1999 * 2000 / 2);
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
            assert_stats_invariants(&pool, &format!("{policy} 16 roots"));
        }
    });
}

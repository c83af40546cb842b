//! Nested use: join in join, scope in tasks, install of another pool from inside a pool,
//! shutdown with queued work, and idle pools that sleep.

use crate::common;

use common::*;
use hypersteal::{Policy, ThreadPoolBuilder, Topology};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

#[test]
fn install_of_another_pool_from_inside_a_pool() {
    for policy in Policy::all() {
        for (na, nb) in [(1, 1), (1, 2), (2, 1), (3, 4)] {
            let a = pool(policy, Topology::Mesh, na);
            let b = pool(policy, Topology::Ring, nb);
            // A's worker waits for B; B's task calls back into A, which must still make
            // progress (the waiting worker of A keeps running A's work).
            let got = a.install(|| {
                let (x, y) =
                    hypersteal::join(|| b.install(|| fib(16) + a.install(|| fib(12))), || fib(14));
                x + y
            });
            assert_eq!(
                got,
                fib_iter(16) + fib_iter(12) + fib_iter(14),
                "{policy} {na} {nb}"
            );
            assert_eq!(a.current_thread_index(), None);
            assert_balanced(&a, "a");
            assert_balanced(&b, "b");
        }
    }
}

fn pool_of(topology: Topology, n: usize) -> hypersteal::ThreadPool {
    pool(Policy::default(), topology, n)
}

#[test]
fn current_thread_index_and_num_threads() {
    let pool = pool_of(Topology::Complete, 3);
    assert_eq!(pool.install(hypersteal::current_num_threads), 3);
    let idx = pool.install(hypersteal::current_thread_index).unwrap();
    assert!(idx < 3);
    let (own, any) = pool.install(|| {
        (
            pool.current_thread_index(),
            hypersteal::current_thread_index(),
        )
    });
    assert!(own.is_some());
    assert_eq!(own, any);
    let other = pool_of(Topology::Ring, 2);
    assert_eq!(
        other.install(|| pool.current_thread_index()),
        None,
        "not a worker of `pool`"
    );
    assert_eq!(hypersteal::current_thread_index(), None);
}

#[test]
fn free_functions_use_the_global_pool_outside_any_pool() {
    assert_eq!(fib(18), fib_iter(18));
    let mut v = vec![0; 100];
    hypersteal::scope(|s| {
        for (i, x) in v.iter_mut().enumerate() {
            s.spawn(move |_| *x = i * 2);
        }
    });
    assert_eq!(v, (0..100).map(|i| i * 2).collect::<Vec<_>>());
    let (tx, rx) = std::sync::mpsc::channel();
    hypersteal::spawn(move || {
        tx.send(hypersteal::current_thread_index().is_some())
            .unwrap()
    });
    assert!(rx.recv().unwrap());
    assert!(hypersteal::current_num_threads() >= 1);
}

/// `shutdown` runs every queued task (and what those spawn) and joins the threads; dropping
/// does the same without waiting for it. Either way nothing queued is lost.
#[test]
fn a_stopped_pool_runs_its_queued_work_and_ends_its_threads() {
    for policy in Policy::all() {
        for blocking in [true, false] {
            let ran = Arc::new(AtomicUsize::new(0));
            // Held by every closure: once no thread holds one, every closure was dropped.
            let token = Arc::new(());
            let pool = pool(policy, Topology::Hypercube, 3);
            for _ in 0..1000 {
                let (ran, token) = (ran.clone(), token.clone());
                pool.spawn(move || {
                    // Spawned work may spawn more work; it all runs before the threads end.
                    let (inner, inner_token) = (ran.clone(), token.clone());
                    hypersteal::spawn(move || {
                        inner.fetch_add(1, Ordering::SeqCst);
                        drop(inner_token);
                    });
                    ran.fetch_add(1, Ordering::SeqCst);
                    drop(token);
                });
            }
            let weak = Arc::downgrade(&token);
            drop(token);
            if blocking {
                pool.shutdown();
                assert_eq!(ran.load(Ordering::SeqCst), 2000, "{policy}");
            } else {
                drop(pool);
            }
            // Every closure is run and dropped: at once after `shutdown`; after a drop, once
            // the workers are done.
            let start = std::time::Instant::now();
            while weak.upgrade().is_some() || ran.load(Ordering::SeqCst) != 2000 {
                assert!(!blocking, "{policy}: a worker outlived `shutdown`");
                assert!(
                    start.elapsed() < std::time::Duration::from_secs(30),
                    "{policy}: queued work never finished after the drop"
                );
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
        }
    }
}

#[test]
fn builder_options_reach_the_threads() {
    let pool = ThreadPoolBuilder::new()
        .num_threads(2)
        .thread_name(|i| format!("custom-{i}"))
        .stack_size(4 << 20)
        .build()
        .unwrap();
    let name = pool.install(|| std::thread::current().name().unwrap().to_string());
    assert!(name.starts_with("custom-"), "{name}");
    // Deep recursion needs the bigger stack.
    fn depth(n: u32) -> u32 {
        let pad = std::hint::black_box([0u8; 256]);
        if n == 0 {
            pad[0] as u32
        } else {
            1 + depth(n - 1)
        }
    }
    assert_eq!(pool.install(|| depth(5000)), 5000);
    assert_eq!(pool.policy(), Policy::RandomPolling);
    assert_eq!(pool.topology(), Topology::Hypercube);
    assert_eq!(pool.graph().len(), 2);
}

#[test]
fn stats_reset_starts_the_books_afresh() {
    let pool = pool(Policy::default(), Topology::Hypercube, 2);
    pool.install(|| fib(15));
    assert!(pool.stats().total().spawned > 0);
    pool.reset_stats();
    assert_eq!(pool.stats().total().spawned, 0);
    pool.install(|| fib(10));
    let total = pool.stats().total();
    // Tasks are made only for joins that do not run in place (src/worker/mod.rs): at least
    // one, at most one per join.
    assert!(
        total.spawned >= 1 && total.spawned < fib_iter(11),
        "{total:?}"
    );
    assert_eq!(total.executed, total.spawned);
    // Idle time counts only what passed since the reset (workers were asleep across it).
    let stats = pool.stats();
    let capacity = stats.elapsed * stats.workers.len() as u32;
    assert!(
        stats.total().idle <= capacity,
        "idle {:?} exceeds workers × elapsed {capacity:?}",
        stats.total().idle
    );
}

#[cfg(target_os = "linux")]
#[test]
fn an_idle_pool_uses_no_cpu() {
    let pools: Vec<_> = Policy::all().into_iter().map(|p| (p, 4)).collect();
    come_to_rest(&pools, "idle", std::time::Duration::from_secs(10));
}

/// The longest idle linger still lets the pool come to rest, under a receiver- and a
/// sender-initiated policy; new work still wakes it.
#[cfg(target_os = "linux")]
#[test]
fn the_longest_idle_linger_still_comes_to_rest() {
    use hypersteal::MAX_IDLE_LINGER;
    for policy in [Policy::RandomPolling, "acwn".parse().unwrap()] {
        let pool = ThreadPoolBuilder::new()
            .num_threads(4)
            .policy(policy)
            .idle_linger(MAX_IDLE_LINGER)
            .pin_threads(false)
            .thread_name(|i| format!("lngr-{i}"))
            .build()
            .unwrap();
        assert_eq!(pool.install(|| common::fib(18)), common::fib_iter(18));
        common::assert_at_rest(
            "lngr-",
            4,
            std::time::Duration::from_secs(10),
            &format!("{policy}, idle_linger {MAX_IDLE_LINGER:?}"),
        );
        assert_eq!(pool.install(|| common::fib(14)), common::fib_iter(14));
        pool.shutdown();
    }
}

/// Every value the parser accepts idles at no CPU, at the extremes of
/// every range, also with more workers than cores; and new work still wakes the pool.
#[cfg(target_os = "linux")]
#[test]
fn extreme_accepted_parameters_still_idle_at_no_cpu() {
    let extremes = [
        "grr-m:window=1024",
        "grr-m:window=0",
        "most-loaded:scope=all,min=1,load=time",
        "most-loaded:min=1000000",
        "acwn:low=0,high=1,interval=1",
        "acwn:low=1000000,high=1000000,interval=1000000",
        "gradient:low=0,high=1,interval=1",
        "gradient:low=1000000,high=1000000,interval=1000000",
    ];
    let pools: Vec<(Policy, usize)> = extremes
        .iter()
        .flat_map(|spec| [2, 16].map(|workers| (spec.parse().unwrap(), workers)))
        .collect();
    come_to_rest(&pools, "xtrm", std::time::Duration::from_secs(10));
}

/// An inner loop that starts while every worker is busy is shared with a worker that frees up
/// while it runs, even late: it runs in chunks and halves what is left at a chunk boundary once
/// a worker is idle. (Cut into two halves at its start, it would be out of reach once its
/// worker has begun the second half, which has no poll points.) In each attempt outer item 1
/// holds the second worker until three quarters of item 0's inner loop are done (item 0 starts
/// its loop only once item 1 has started), then returns; item 0's inner loop counts the items
/// run on another thread than its own. Attempts repeat for at most ten seconds, in case the
/// second worker never got item 1.
#[test]
fn a_long_inner_loop_is_shared_with_a_worker_that_frees_up() {
    use hypersteal::prelude::*;
    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};
    const N: u64 = 1 << 20;
    let item = |i: u64| (0..8).fold(i, |x, _| std::hint::black_box(x.wrapping_mul(3)) + 1) % 7;
    let expected: u64 = (0..N).map(item).sum();
    let pool = pool(Policy::default(), Topology::Hypercube, 2);
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut attempts = 0;
    loop {
        attempts += 1;
        let started = AtomicBool::new(false);
        let done = AtomicUsize::new(0);
        let elsewhere = AtomicUsize::new(0);
        let sum: u64 = pool.install(|| {
            (0..2usize)
                .into_par_iter()
                .map(|outer| {
                    let waiting = Instant::now();
                    if outer == 1 {
                        started.store(true, Ordering::SeqCst);
                        while done.load(Ordering::Relaxed) < (N as usize) / 4 * 3
                            && waiting.elapsed() < Duration::from_secs(2)
                        {
                            std::thread::yield_now();
                        }
                        return 0;
                    }
                    while !started.load(Ordering::SeqCst)
                        && waiting.elapsed() < Duration::from_secs(1)
                    {
                        std::hint::spin_loop();
                    }
                    let me = hypersteal::current_thread_index();
                    (0..N)
                        .into_par_iter()
                        .map(|i| {
                            if hypersteal::current_thread_index() == me {
                                done.fetch_add(1, Ordering::Relaxed);
                            } else {
                                elsewhere.fetch_add(1, Ordering::Relaxed);
                            }
                            item(i)
                        })
                        .sum::<u64>()
                })
                .sum()
        });
        assert_eq!(sum, expected);
        if elsewhere.load(Ordering::Relaxed) > 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "in {attempts} attempts, no item of the inner loop ran on the worker that freed up"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

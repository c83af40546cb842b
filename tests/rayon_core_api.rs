//! The rayon-core API items beyond `join`/`scope`/`spawn`: what a program switching from rayon
//! to hypersteal by changing its imports would notice.

mod common;

use common::*;
use hypersteal::{Policy, ThreadPool, ThreadPoolBuildError, ThreadPoolBuilder, Topology, Yield};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// The policies every behavioural test here runs under: two receiver-initiated (one with a
/// pool-wide combining tree) and two sender-initiated.
const POLICIES: [&str; 4] = ["rp", "grr-m", "acwn", "random-alloc"];

/// Worker counts: 1 is the deterministic case; 4 oversubscribes the 2-core test machine.
const COUNTS: [usize; 3] = [1, 2, 4];

const LIMIT: Duration = Duration::from_secs(60);

fn policies() -> impl Iterator<Item = Policy> {
    POLICIES.iter().map(|p| p.parse().expect("a policy name"))
}

/// Every (policy, worker count) pair.
fn shapes() -> impl Iterator<Item = (Policy, usize)> {
    policies().flat_map(|p| COUNTS.iter().map(move |&n| (p, n)))
}

fn counters(n: usize) -> Vec<AtomicUsize> {
    (0..n).map(|_| AtomicUsize::new(0)).collect()
}

fn assert_each_ran_once(runs: &[AtomicUsize], what: &str) {
    for (i, r) in runs.iter().enumerate() {
        assert_eq!(
            r.load(Ordering::SeqCst),
            1,
            "{what}: task {i} ran that many times"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Item 1: ThreadPoolBuildError, max_num_threads, current_thread_has_pending_tasks

#[test]
fn thread_pool_build_error_is_the_builders_error() {
    // rayon code names the error `ThreadPoolBuildError`; it is the same type as `BuildError`.
    let err: ThreadPoolBuildError = ThreadPoolBuilder::new()
        .num_threads(hypersteal::max_num_threads() + 1)
        .build()
        .unwrap_err();
    let same: hypersteal::BuildError = err.clone();
    assert_eq!(same, err);
    let boxed: Box<dyn std::error::Error> = Box::new(err);
    let text = boxed.to_string();
    let max = hypersteal::max_num_threads();
    assert!(text.contains("num_threads"), "{text}");
    assert!(text.contains(&(max + 1).to_string()), "{text}");
    assert!(text.contains(&max.to_string()), "{text}");
}

#[test]
fn max_num_threads_is_the_builders_limit() {
    let max = hypersteal::max_num_threads();
    assert_eq!(max, hypersteal::MAX_WORKERS);
    assert!(max >= num_cpus_available());
    match ThreadPoolBuilder::new().num_threads(max + 1).build() {
        Err(ThreadPoolBuildError::TooManyThreads { requested, max: m }) => {
            assert_eq!((requested, m), (max + 1, max));
        }
        other => panic!("expected TooManyThreads, got {other:?}"),
    }
}

fn num_cpus_available() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

#[test]
fn pending_tasks_is_none_off_a_worker() {
    assert_eq!(hypersteal::current_thread_has_pending_tasks(), None);
    let pool = pool(Policy::default(), Topology::Hypercube, 2);
    assert_eq!(pool.current_thread_has_pending_tasks(), None);
    // On a worker of another pool: the free function answers, the other pool's method does not.
    let other = pool_of(Policy::default(), 1);
    other.install(|| {
        assert_eq!(hypersteal::current_thread_has_pending_tasks(), Some(false));
        assert_eq!(pool.current_thread_has_pending_tasks(), None);
    });
}

fn pool_of(policy: Policy, workers: usize) -> ThreadPool {
    pool(policy, Topology::Hypercube, workers)
}

#[test]
fn pending_tasks_sees_spawns_on_a_single_worker() {
    for policy in policies() {
        let pool = pool_of(policy, 1);
        pool.scope(|s| {
            assert_eq!(hypersteal::current_thread_has_pending_tasks(), Some(false));
            assert_eq!(pool.current_thread_has_pending_tasks(), Some(false));
            s.spawn(|_| ());
            s.spawn(|_| ());
            // One worker: nobody else can take them.
            assert_eq!(hypersteal::current_thread_has_pending_tasks(), Some(true));
            assert_eq!(pool.current_thread_has_pending_tasks(), Some(true));
            assert_eq!(hypersteal::yield_local(), Some(Yield::Executed));
            assert_eq!(hypersteal::current_thread_has_pending_tasks(), Some(true));
            assert_eq!(hypersteal::yield_local(), Some(Yield::Executed));
            assert_eq!(hypersteal::current_thread_has_pending_tasks(), Some(false));
        });
        assert_balanced(&pool, &format!("{policy}"));
    }
}

#[test]
fn pending_tasks_sees_a_joins_exposed_half() {
    // With more than one worker, a `join` made outside any other task's frame puts `b` on the
    // private stack; unless a thief took it already, `a` sees it pending. Either answer is
    // allowed, but a worker always answers, and after the join nothing of it is left.
    for (policy, workers) in shapes() {
        let pool = pool_of(policy, workers);
        let seen = pool.install(|| {
            let (seen, ()) = hypersteal::join(hypersteal::current_thread_has_pending_tasks, || ());
            assert_eq!(hypersteal::current_thread_has_pending_tasks(), Some(false));
            seen
        });
        assert!(seen.is_some(), "{policy}, {workers}");
        if workers == 1 {
            // A pool of one runs both halves in place: no task was made.
            assert_eq!(seen, Some(false));
        }
        assert_balanced(&pool, &format!("{policy}, {workers}"));
    }
}

// ---------------------------------------------------------------------------------------------
// Item 2: yield_now, yield_local, Yield

#[test]
fn yields_are_none_off_a_worker_and_in_other_pools() {
    assert_eq!(hypersteal::yield_now(), None);
    assert_eq!(hypersteal::yield_local(), None);
    let a = pool_of(Policy::default(), 2);
    let b = pool_of(Policy::default(), 1);
    assert_eq!(a.yield_now(), None);
    assert_eq!(a.yield_local(), None);
    b.install(|| {
        assert_eq!(a.yield_now(), None);
        assert_eq!(a.yield_local(), None);
        assert_eq!(b.yield_local(), Some(Yield::Idle));
        assert_eq!(b.yield_now(), Some(Yield::Idle));
    });
}

#[test]
fn yield_local_runs_every_local_task_once_on_one_worker() {
    for policy in policies() {
        let pool = pool_of(policy, 1);
        let runs = counters(20);
        let executed = pool.scope(|s| {
            for r in &runs {
                s.spawn(move |_| {
                    r.fetch_add(1, Ordering::SeqCst);
                });
            }
            let mut executed = 0;
            while pool.yield_local() == Some(Yield::Executed) {
                executed += 1;
            }
            executed
        });
        assert_eq!(executed, runs.len(), "{policy}: yields that ran a task");
        assert_each_ran_once(&runs, &format!("{policy}"));
        assert_balanced(&pool, &format!("{policy}"));
    }
}

#[test]
fn yield_local_inside_a_join_may_run_its_own_other_half() {
    // `b` sits on the worker's private stack while `a` runs: a yield in `a` may run it, and the
    // join must still return both results, with `b` run exactly once.
    for (policy, workers) in shapes() {
        let pool = pool_of(policy, workers);
        let runs = AtomicUsize::new(0);
        let (a, b) = within(LIMIT, "yield inside join", {
            let pool = Arc::new(pool);
            let p = Arc::clone(&pool);
            move || {
                let runs = &runs;
                let r = p.install(|| {
                    hypersteal::join(
                        || {
                            let y = hypersteal::yield_local();
                            assert!(y.is_some());
                            (y, fib(10))
                        },
                        || {
                            runs.fetch_add(1, Ordering::SeqCst);
                            fib(11)
                        },
                    )
                });
                assert_eq!(runs.load(Ordering::SeqCst), 1, "{policy}, {workers}: b ran");
                assert_balanced(&p, &format!("{policy}, {workers}"));
                r
            }
        });
        assert_eq!((a.1, b), (fib_iter(10), fib_iter(11)));
    }
}

#[test]
fn yield_now_runs_work_injected_from_outside() {
    // A single worker busy in `install` can only run an injected task by yielding to it.
    for policy in policies() {
        let pool = Arc::new(pool_of(policy, 1));
        let flag = Arc::new(AtomicBool::new(false));
        let (started_tx, started_rx) = mpsc::channel();
        let yields = {
            let pool = Arc::clone(&pool);
            let flag = Arc::clone(&flag);
            std::thread::spawn(move || {
                within(LIMIT, "yield_now to injected work", move || {
                    pool.install(|| {
                        started_tx.send(()).unwrap();
                        let mut executed = 0;
                        while !flag.load(Ordering::SeqCst) {
                            match hypersteal::yield_now() {
                                Some(Yield::Executed) => executed += 1,
                                Some(Yield::Idle) => std::thread::yield_now(),
                                None => panic!("install runs on a worker"),
                            }
                        }
                        executed
                    })
                })
            })
        };
        started_rx.recv().unwrap();
        let f = Arc::clone(&flag);
        pool.spawn(move || f.store(true, Ordering::SeqCst));
        let executed = yields.join().unwrap();
        assert_eq!(executed, 1, "{policy}");
        assert_balanced(&pool, &format!("{policy}"));
    }
}

#[test]
fn yield_now_in_a_polling_loop_runs_every_task_exactly_once() {
    // The scope's body spins on `yield_now` until all its tasks are done: tasks it keeps run
    // through the yields, tasks other workers took run there; none runs twice or is lost.
    for (policy, workers) in shapes() {
        let pool = Arc::new(pool_of(policy, workers));
        let p = Arc::clone(&pool);
        let (executed, runs) = within(LIMIT, "yield_now polling loop", move || {
            let runs = counters(64);
            let done = AtomicUsize::new(0);
            let executed = p.scope(|s| {
                for r in &runs {
                    let done = &done;
                    s.spawn(move |_| {
                        r.fetch_add(1, Ordering::SeqCst);
                        done.fetch_add(1, Ordering::SeqCst);
                    });
                }
                let mut executed = 0;
                while done.load(Ordering::SeqCst) < runs.len() {
                    match hypersteal::yield_now() {
                        Some(Yield::Executed) => executed += 1,
                        Some(Yield::Idle) => std::thread::yield_now(),
                        None => panic!("a scope's body runs on a worker"),
                    }
                }
                executed
            });
            (executed, runs)
        });
        let what = format!("{policy}, {workers}");
        assert_each_ran_once(&runs, &what);
        assert!(executed <= runs.len(), "{what}");
        if workers == 1 {
            assert_eq!(
                executed,
                runs.len(),
                "{what}: only the yields could run them"
            );
        }
        assert_balanced(&pool, &what);
    }
}

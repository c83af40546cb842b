//! Pools whose threads the user starts: `spawn_handler` with `ThreadBuilder`, and
//! `build_scoped`. Every test runs under a watchdog: a worker that never starts must show up as
//! a failure, not a stuck run.

use crate::common;

use common::within;
use hypersteal::{BuildError, Policy, ThreadBuilder, ThreadPoolBuilder};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn a_spawn_handler_starts_every_worker_once_and_the_pool_computes_under_every_policy() {
    within(LIMIT, "spawn handler pools", || {
        for policy in Policy::all() {
            for n in [1usize, 2, 3, 4] {
                let seen = Arc::new(Mutex::new(Vec::new()));
                let log = Arc::clone(&seen);
                let pool = ThreadPoolBuilder::new()
                    .num_threads(n)
                    .policy(policy)
                    .pin_threads(false)
                    .thread_name(|i| format!("custom-{i}"))
                    .stack_size(1 << 20)
                    .spawn_handler(move |thread| {
                        log.lock().unwrap().push((
                            thread.index(),
                            thread.name().map(str::to_owned),
                            thread.stack_size(),
                        ));
                        let mut b =
                            std::thread::Builder::new().name(format!("mine-{}", thread.index()));
                        if let Some(size) = thread.stack_size() {
                            b = b.stack_size(size);
                        }
                        b.spawn(move || thread.run())?;
                        Ok(())
                    })
                    .build()
                    .unwrap();
                let fib = pool.install(|| common::fib(18));
                assert_eq!(fib, common::fib_iter(18), "{policy} n={n}");
                let names: BTreeSet<String> = pool
                    .broadcast(|_| std::thread::current().name().unwrap_or_default().to_owned())
                    .into_iter()
                    .collect();
                let expected: BTreeSet<String> = (0..n).map(|i| format!("mine-{i}")).collect();
                assert_eq!(
                    names, expected,
                    "{policy} n={n}: the handler's threads run the pool"
                );
                common::assert_balanced(&pool, &format!("{policy} n={n}"));
                pool.shutdown();
                let mut seen = seen.lock().unwrap().clone();
                seen.sort();
                let want: Vec<_> = (0..n)
                    .map(|i| (i, Some(format!("custom-{i}")), Some(1 << 20)))
                    .collect();
                assert_eq!(seen, want, "{policy} n={n}: one ThreadBuilder per worker");
            }
        }
    });
}

#[test]
fn shutdown_waits_for_workers_started_by_a_spawn_handler() {
    within(LIMIT, "shutdown with custom threads", || {
        for policy in ["rp", "acwn", "grr-m"] {
            let exited = Arc::new(AtomicUsize::new(0));
            let done = Arc::new(AtomicUsize::new(0));
            let count = Arc::clone(&exited);
            let pool = ThreadPoolBuilder::new()
                .num_threads(3)
                .policy(policy.parse().unwrap())
                .pin_threads(false)
                .exit_handler(move |_| {
                    std::thread::sleep(Duration::from_millis(20));
                    count.fetch_add(1, Ordering::SeqCst);
                })
                .spawn_handler(|thread| {
                    std::thread::spawn(move || thread.run());
                    Ok(())
                })
                .build()
                .unwrap();
            for _ in 0..50 {
                let done = Arc::clone(&done);
                pool.spawn(move || {
                    std::thread::sleep(Duration::from_millis(1));
                    done.fetch_add(1, Ordering::SeqCst);
                });
            }
            pool.shutdown();
            assert_eq!(done.load(Ordering::SeqCst), 50, "{policy}: every spawn ran");
            assert_eq!(
                exited.load(Ordering::SeqCst),
                3,
                "{policy}: every exit handler ran"
            );
        }
    });
}

#[test]
fn a_failing_spawn_handler_fails_the_build_and_leaves_no_worker_behind() {
    within(LIMIT, "failing spawn handler", || {
        for fail_at in 0..4usize {
            let running = Arc::new(AtomicUsize::new(0));
            let live = Arc::clone(&running);
            let err = ThreadPoolBuilder::new()
                .num_threads(4)
                .pin_threads(false)
                .spawn_handler(move |thread| {
                    if thread.index() == fail_at {
                        return Err(std::io::Error::other("no threads today"));
                    }
                    let live = Arc::clone(&live);
                    live.fetch_add(1, Ordering::SeqCst);
                    std::thread::spawn(move || {
                        thread.run();
                        live.fetch_sub(1, Ordering::SeqCst);
                    });
                    Ok(())
                })
                .build()
                .unwrap_err();
            match &err {
                BuildError::ThreadSpawn { index, error, .. } => {
                    assert_eq!(*index, fail_at);
                    assert!(error.contains("no threads today"), "{error}");
                }
                other => panic!("expected ThreadSpawn, got {other:?}"),
            }
            assert!(err.to_string().contains("no threads today"), "{err}");
            // The build waited for the workers it had started: they have left their loops.
            // (A thread may still be between `run` returning and the decrement.)
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while running.load(Ordering::SeqCst) != 0 {
                assert!(
                    std::time::Instant::now() < deadline,
                    "a started worker kept running"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    });
}

#[test]
fn a_panicking_spawn_handler_is_a_build_error_not_an_unwind() {
    within(LIMIT, "panicking spawn handler", || {
        let err = ThreadPoolBuilder::new()
            .num_threads(3)
            .pin_threads(false)
            .spawn_handler(|thread| {
                if thread.index() == 1 {
                    panic!("handler exploded");
                }
                std::thread::spawn(move || thread.run());
                Ok(())
            })
            .build()
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("handler exploded") && text.contains("panicked"),
            "{text}"
        );
    });
}

/// A handler that drops a builder unrun would build a pool with a worker that never starts
/// (its first `broadcast` would never return): the build fails instead, naming the worker, and
/// leaves no thread behind.
#[test]
fn a_thread_builder_dropped_unrun_is_a_build_error() {
    within(LIMIT, "dropped ThreadBuilder", || {
        let error = worker_1_spawn_error(2, |thread| {
            if thread.index() == 1 {
                drop(thread); // a buggy handler
            } else {
                std::thread::spawn(move || thread.run());
            }
            Ok(())
        });
        assert!(error.contains("dropped"), "{error}");
    });
}

/// The message of the error naming worker 1 that a build of `threads` workers through
/// `handler` must fail with.
fn worker_1_spawn_error(
    threads: usize,
    handler: impl FnMut(ThreadBuilder) -> std::io::Result<()>,
) -> String {
    let err = ThreadPoolBuilder::new()
        .num_threads(threads)
        .pin_threads(false)
        .spawn_handler(handler)
        .build()
        .map(|_| ())
        .unwrap_err();
    match err {
        BuildError::ThreadSpawn {
            index: 1, error, ..
        } => error,
        other => panic!("expected ThreadSpawn for worker 1, got {other:?}"),
    }
}

/// The same through `build_scoped`: a wrapper that never runs its builder (drops or forgets
/// it) fails the build, naming the worker, and `with_pool` never runs on a pool that could
/// not finish a `broadcast`.
#[test]
fn build_scoped_with_a_wrapper_that_never_runs_its_builder_is_a_build_error() {
    within(LIMIT, "build_scoped, builder not run", || {
        for forget in [false, true] {
            let result = ThreadPoolBuilder::new()
                .num_threads(2)
                .pin_threads(false)
                .build_scoped(
                    move |thread| {
                        if thread.index() == 1 {
                            if forget {
                                std::mem::forget(thread);
                            }
                            return;
                        }
                        thread.run();
                    },
                    |pool| pool.broadcast(|ctx| ctx.index()),
                );
            match result {
                Err(BuildError::ThreadSpawn { index: 1, .. }) => {}
                other => {
                    panic!("forget = {forget}: expected ThreadSpawn for worker 1, got {other:?}")
                }
            }
        }
    });
}

/// A handler that forgets a builder (`mem::forget`: neither run nor dropped) cannot hang the
/// build, whether it then returns `Ok` (the pool would never finish a `broadcast`) or an error
/// (the build would wait for that worker to stop): after the deadline the build fails,
/// naming the worker. The two cases wait out the deadline side by side.
#[test]
fn a_forgotten_thread_builder_is_a_build_error_not_a_hang() {
    within(LIMIT, "forgotten ThreadBuilder", || {
        std::thread::scope(|s| {
            for then_fail in [false, true] {
                s.spawn(move || forgotten_builder_case(then_fail));
            }
        });
    });
}

/// One case of [`a_forgotten_thread_builder_is_a_build_error_not_a_hang`].
fn forgotten_builder_case(then_fail: bool) {
    let error = worker_1_spawn_error(3, move |thread| {
        if thread.index() == 1 {
            std::mem::forget(thread);
            if then_fail {
                return Err(std::io::Error::other("forgot and failed"));
            }
            return Ok(());
        }
        std::thread::spawn(move || thread.run());
        Ok(())
    });
    let expected = if then_fail {
        "forgot and failed"
    } else {
        "neither ran nor dropped"
    };
    assert!(error.contains(expected), "{error}");
}

#[test]
fn build_scoped_workers_borrow_from_the_caller_and_end_with_the_call() {
    within(LIMIT, "build_scoped", || {
        for policy in ["rp", "nn", "acwn", "random-alloc"] {
            let wrapped = AtomicUsize::new(0);
            let finished = AtomicUsize::new(0);
            let data: Vec<u64> = (1..=1000).collect();
            let total = ThreadPoolBuilder::new()
                .num_threads(3)
                .policy(policy.parse().unwrap())
                .pin_threads(false)
                .build_scoped(
                    |thread| {
                        wrapped.fetch_add(1, Ordering::SeqCst);
                        thread.run();
                        finished.fetch_add(1, Ordering::SeqCst);
                    },
                    |pool| {
                        pool.install(|| {
                            use hypersteal::prelude::*;
                            data.par_iter().sum::<u64>()
                        })
                    },
                )
                .unwrap();
            assert_eq!(total, 500_500, "{policy}");
            assert_eq!(wrapped.load(Ordering::SeqCst), 3, "{policy}");
            // Scoped threads: all of them ended before `build_scoped` returned.
            assert_eq!(finished.load(Ordering::SeqCst), 3, "{policy}");
        }
    });
}

#[test]
fn build_scoped_passes_a_panic_on_after_its_threads_ended() {
    within(LIMIT, "build_scoped panic", || {
        let finished = AtomicUsize::new(0);
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ThreadPoolBuilder::new()
                .num_threads(2)
                .pin_threads(false)
                .build_scoped(
                    |thread| {
                        thread.run();
                        finished.fetch_add(1, Ordering::SeqCst);
                    },
                    |pool| -> () {
                        pool.install(|| hypersteal::join(|| (), || ()));
                        panic!("with_pool failed")
                    },
                )
                .unwrap()
        }));
        let payload = result.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"with_pool failed"));
        assert_eq!(finished.load(Ordering::SeqCst), 2);
    });
}

#[test]
fn build_scoped_reports_bad_settings_without_starting_anything() {
    let called = AtomicUsize::new(0);
    let err = ThreadPoolBuilder::new()
        .num_threads(100_000)
        .build_scoped(
            |thread| thread.run(),
            |_| called.fetch_add(1, Ordering::SeqCst),
        )
        .unwrap_err();
    assert!(err.to_string().contains("100000"), "{err}");
    assert_eq!(called.load(Ordering::SeqCst), 0);
}

/// `ThreadBuilder::run` on a thread that is already a worker (here, of another pool) panics;
/// the builder unwinds unrun, and the build it belongs to fails naming that worker.
#[test]
fn running_a_thread_builder_on_a_worker_panics() {
    within(LIMIT, "run on a worker", || {
        let outer = Arc::new(
            ThreadPoolBuilder::new()
                .num_threads(1)
                .pin_threads(false)
                .build()
                .unwrap(),
        );
        let (tx, rx) = std::sync::mpsc::channel();
        let on = Arc::clone(&outer);
        let err = ThreadPoolBuilder::new()
            .num_threads(1)
            .pin_threads(false)
            .spawn_handler(move |thread| {
                let tx = tx.clone();
                on.spawn(move || {
                    let result =
                        std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                            thread.run()
                        }));
                    let payload = result.unwrap_err();
                    let text = payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_default();
                    tx.send(text).unwrap();
                });
                Ok(())
            })
            .build()
            .map(|_| ())
            .unwrap_err();
        let text = rx.recv().unwrap();
        assert!(text.contains("already a pool worker"), "{text}");
        // The builder unwound out of `run` unrun: its worker never started, and the build
        // says so.
        assert!(
            matches!(&err, BuildError::ThreadSpawn { index: 0, error, .. } if error.contains("dropped")),
            "{err:?}"
        );
    });
}

#[test]
#[allow(deprecated)]
fn a_breadth_first_pool_runs_one_workers_spawns_in_spawn_order() {
    within(LIMIT, "breadth_first", || {
        for policy in Policy::all() {
            let pool = ThreadPoolBuilder::new()
                .num_threads(1)
                .policy(policy)
                .breadth_first()
                .build()
                .unwrap();
            // A scope's spawns, from inside the pool.
            let order = Mutex::new(Vec::new());
            pool.scope(|s| {
                for i in 0..20 {
                    let order = &order;
                    s.spawn(move |_| order.lock().unwrap().push(i));
                }
            });
            assert_eq!(
                order.into_inner().unwrap(),
                (0..20).collect::<Vec<_>>(),
                "{policy}"
            );
            // `'static` spawns made by a worker.
            let (tx, rx) = std::sync::mpsc::channel();
            pool.install(|| {
                for i in 0..20 {
                    let tx = tx.clone();
                    hypersteal::spawn(move || tx.send(i).unwrap());
                }
            });
            drop(tx);
            assert_eq!(
                rx.iter().collect::<Vec<_>>(),
                (0..20).collect::<Vec<_>>(),
                "{policy}"
            );
            // The same without the hint: newest first.
            let lifo = ThreadPoolBuilder::new()
                .num_threads(1)
                .policy(policy)
                .build()
                .unwrap();
            let order = Mutex::new(Vec::new());
            lifo.scope(|s| {
                for i in 0..20 {
                    let order = &order;
                    s.spawn(move |_| order.lock().unwrap().push(i));
                }
            });
            assert_ne!(
                order.into_inner().unwrap(),
                (0..20).collect::<Vec<_>>(),
                "{policy}"
            );
        }
    });
}

#[test]
#[allow(deprecated)]
fn a_breadth_first_pool_runs_every_task_of_a_spawn_tree_once() {
    fn grow<'s>(s: &hypersteal::Scope<'s>, depth: u32, count: &'s AtomicUsize) {
        count.fetch_add(1, Ordering::Relaxed);
        if depth > 0 {
            for _ in 0..3 {
                s.spawn(move |s| grow(s, depth - 1, count));
            }
        }
    }
    within(LIMIT, "breadth_first trees", || {
        for policy in Policy::all() {
            for n in [2usize, 4, 16] {
                let pool = ThreadPoolBuilder::new()
                    .num_threads(n)
                    .policy(policy)
                    .pin_threads(false)
                    .breadth_first()
                    .build()
                    .unwrap();
                let count = AtomicUsize::new(0);
                pool.scope(|s| grow(s, 6, &count));
                // 1 + 3 + ... + 3^6 tasks.
                assert_eq!(count.into_inner(), 1093, "{policy}, {n} workers");
                common::assert_balanced(&pool, &format!("{policy}, {n} workers"));
            }
        }
    });
}

/// Runs `body` on a fresh thread (a thread that builds with `use_current_thread` stays worker 0
/// for the rest of its life).
fn on_fresh_thread<R: Send + 'static>(body: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::spawn(body).join().unwrap()
}

fn receiver_initiated() -> Vec<Policy> {
    Policy::all()
        .into_iter()
        .filter(|p| !p.is_sender_initiated())
        .collect()
}

#[test]
fn use_current_thread_makes_the_builder_worker_0_and_the_others_run_the_pool() {
    within(LIMIT, "use_current_thread", || {
        for policy in receiver_initiated() {
            for n in [2usize, 3, 4] {
                on_fresh_thread(move || {
                    let started = Arc::new(Mutex::new(Vec::new()));
                    let log = Arc::clone(&started);
                    let pool = ThreadPoolBuilder::new()
                        .num_threads(n)
                        .policy(policy)
                        .pin_threads(false)
                        .use_current_thread()
                        .start_handler(move |i| log.lock().unwrap().push(i))
                        .build()
                        .unwrap();
                    assert_eq!(
                        hypersteal::current_thread_index(),
                        Some(0),
                        "{policy} n={n}"
                    );
                    assert_eq!(pool.current_thread_index(), Some(0));
                    // A spawn runs elsewhere while this thread blocks without helping.
                    let (tx, rx) = std::sync::mpsc::channel();
                    pool.spawn(move || tx.send(hypersteal::current_thread_index()).unwrap());
                    let ran_on = rx
                        .recv_timeout(Duration::from_secs(20))
                        .unwrap_or_else(|e| panic!("{policy} n={n}: the spawn did not run: {e}"));
                    assert!(matches!(ran_on, Some(i) if i > 0 && i < n), "{ran_on:?}");
                    // Calls into the pool run inline and share work both ways.
                    assert_eq!(pool.install(|| common::fib(20)), common::fib_iter(20));
                    assert_eq!(common::fib(20), common::fib_iter(20));
                    let sum: u64 = pool.install(|| {
                        use hypersteal::prelude::*;
                        (0..100_000u64).into_par_iter().sum()
                    });
                    assert_eq!(sum, 4_999_950_000);
                    let count = AtomicUsize::new(0);
                    hypersteal::scope(|s| {
                        for _ in 0..100 {
                            s.spawn(|_| {
                                count.fetch_add(1, Ordering::Relaxed);
                            });
                        }
                    });
                    assert_eq!(count.into_inner(), 100);
                    common::assert_balanced(&pool, &format!("{policy} n={n}"));
                    pool.shutdown();
                    let mut started = started.lock().unwrap().clone();
                    started.sort();
                    // No start handler for the adopted thread.
                    assert_eq!(started, (1..n).collect::<Vec<_>>(), "{policy} n={n}");
                });
            }
        }
    });
}

#[test]
fn use_current_thread_refuses_what_it_cannot_honour() {
    within(LIMIT, "use_current_thread errors", || {
        on_fresh_thread(|| {
            let one = ThreadPoolBuilder::new()
                .num_threads(1)
                .use_current_thread()
                .build()
                .unwrap_err();
            assert!(matches!(one, BuildError::UseCurrentThread(_)), "{one:?}");
            assert!(one.to_string().contains("num_threads is 1"), "{one}");
            let sender = ThreadPoolBuilder::new()
                .num_threads(2)
                .policy("acwn".parse().unwrap())
                .use_current_thread()
                .build()
                .unwrap_err();
            assert!(sender.to_string().contains("acwn"), "{sender}");
            // Nothing was adopted by the refusals.
            assert_eq!(hypersteal::current_thread_index(), None);
            let _pool = ThreadPoolBuilder::new()
                .num_threads(2)
                .pin_threads(false)
                .use_current_thread()
                .build()
                .unwrap();
            let again = ThreadPoolBuilder::new()
                .num_threads(2)
                .use_current_thread()
                .build()
                .unwrap_err();
            assert!(again.to_string().contains("already worker 0"), "{again}");
        });
        // A worker of an ordinary pool cannot be adopted either.
        let pool = ThreadPoolBuilder::new()
            .num_threads(1)
            .pin_threads(false)
            .build()
            .unwrap();
        let inside = pool.install(|| {
            ThreadPoolBuilder::new()
                .num_threads(2)
                .use_current_thread()
                .build()
                .unwrap_err()
        });
        assert!(inside.to_string().contains("already worker 0"), "{inside}");
    });
}

#[test]
fn use_current_thread_with_a_spawn_handler_spawns_only_the_other_workers() {
    within(LIMIT, "use_current_thread with spawn_handler", || {
        on_fresh_thread(|| {
            let spawned = Arc::new(Mutex::new(Vec::new()));
            let log = Arc::clone(&spawned);
            let pool = ThreadPoolBuilder::new()
                .num_threads(3)
                .pin_threads(false)
                .use_current_thread()
                .spawn_handler(move |thread| {
                    log.lock().unwrap().push(thread.index());
                    std::thread::spawn(move || thread.run());
                    Ok(())
                })
                .build()
                .unwrap();
            assert_eq!(*spawned.lock().unwrap(), [1, 2]);
            let done = Arc::new(AtomicUsize::new(0));
            for _ in 0..20 {
                let done = Arc::clone(&done);
                pool.spawn(move || {
                    done.fetch_add(1, Ordering::SeqCst);
                });
            }
            // Shutdown from the adopted thread waits for the others to finish the spawns.
            pool.shutdown();
            assert_eq!(done.load(Ordering::SeqCst), 20);
        });
    });
}

/// The thread that builds with `use_current_thread` counts as idle only while it waits: counted
/// for good, every poll point of every worker would see an idle worker, and the pool would
/// promote (publish) nearly every task it makes. Fine-grained fib on a pool with the thread
/// adopted publishes about as many tasks as on a pool of its own threads, not hundreds of times
/// more.
#[test]
fn an_adopted_thread_is_idle_only_while_it_waits() {
    within(LIMIT, "adopted idle", || {
        for policy in receiver_initiated() {
            let promoted = |adopt: bool| {
                on_fresh_thread(move || {
                    let mut builder = ThreadPoolBuilder::new()
                        .num_threads(2)
                        .policy(policy)
                        .pin_threads(false);
                    if adopt {
                        builder = builder.use_current_thread();
                    }
                    let pool = builder.build().unwrap();
                    let mut total = 0;
                    for _ in 0..3 {
                        pool.reset_stats();
                        assert_eq!(pool.install(|| common::fib(25)), common::fib_iter(25));
                        total += pool.stats().total().promoted;
                    }
                    pool.shutdown();
                    total
                })
            };
            let own = promoted(false);
            let adopted = promoted(true);
            assert!(
                adopted <= 10 * own.max(100),
                "{policy}: {adopted} tasks promoted with the thread adopted, {own} without"
            );
        }
    });
}

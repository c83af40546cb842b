//! The rayon-core API items beyond `join`/`scope`/`spawn`: what a program switching from rayon
//! to hypersteal by changing its imports would notice.

use crate::common;

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

/// Shuts down pools whose other handles are gone, each under the watchdog: a scope or a
/// broadcast must not leave a pool unable to stop.
fn shut_down(pools: impl IntoIterator<Item = Arc<ThreadPool>>, what: &str) {
    for pool in pools {
        let pool = Arc::try_unwrap(pool).expect("the only handle");
        within(LIMIT, what, move || pool.shutdown());
    }
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
    within(
        LIMIT,
        "pending_tasks_sees_spawns_on_a_single_worker",
        || {
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
        },
    );
}

#[test]
fn pending_tasks_sees_a_joins_exposed_half() {
    within(LIMIT, "pending_tasks_sees_a_joins_exposed_half", || {
        // With more than one worker, a `join` made outside any other task's frame puts `b` on the
        // private stack; unless a thief took it already, `a` sees it pending. Either answer is
        // allowed, but a worker always answers, and after the join nothing of it is left.
        for (policy, workers) in shapes() {
            let pool = pool_of(policy, workers);
            let seen = pool.install(|| {
                let (seen, ()) =
                    hypersteal::join(hypersteal::current_thread_has_pending_tasks, || ());
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
    });
}

// ---------------------------------------------------------------------------------------------
// Item 2: yield_now, yield_local, Yield

#[test]
fn yields_are_none_off_a_worker_and_in_other_pools() {
    within(
        LIMIT,
        "yields_are_none_off_a_worker_and_in_other_pools",
        || {
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
        },
    );
}

#[test]
fn yield_local_runs_every_local_task_once_on_one_worker() {
    within(
        LIMIT,
        "yield_local_runs_every_local_task_once_on_one_worker",
        || {
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
        },
    );
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

// ---------------------------------------------------------------------------------------------
// Item 3: in_place_scope

fn message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

#[test]
fn in_place_scope_runs_its_body_here_and_its_tasks_in_the_global_pool() {
    within(LIMIT, "in_place_scope from outside", || {
        let me = std::thread::current().id();
        // Not `Send`: allowed in the body, which never leaves this thread.
        let local = std::rc::Rc::new(std::cell::Cell::new(0));
        let in_pool = AtomicUsize::new(0);
        let runs = counters(32);
        let body_thread = hypersteal::in_place_scope(|s| {
            for r in &runs {
                local.set(local.get() + 1);
                let in_pool = &in_pool;
                s.spawn(move |_| {
                    if hypersteal::current_thread_index().is_some() {
                        in_pool.fetch_add(1, Ordering::SeqCst);
                    }
                    r.fetch_add(1, Ordering::SeqCst);
                });
            }
            assert_eq!(hypersteal::current_thread_index(), None);
            std::thread::current().id()
        });
        assert_eq!(body_thread, me);
        assert_eq!(local.get(), runs.len());
        // Returned only after every task ran, each once, all on workers.
        assert_each_ran_once(&runs, "global in_place_scope");
        assert_eq!(in_pool.load(Ordering::SeqCst), runs.len());
    });
}

/// Spawns `n` tasks into `s`, each spawning one nested task; every one counts its runs.
fn spawn_tree<'s>(s: &hypersteal::Scope<'s>, runs: &'s [AtomicUsize], pool: &'s ThreadPool) {
    let (outer, inner) = runs.split_at(runs.len() / 2);
    for (o, i) in outer.iter().zip(inner) {
        s.spawn(move |s| {
            assert!(
                pool.current_thread_index().is_some(),
                "a task ran outside its pool"
            );
            o.fetch_add(1, Ordering::SeqCst);
            s.spawn(move |_| {
                assert!(pool.current_thread_index().is_some());
                i.fetch_add(1, Ordering::SeqCst);
            });
        });
    }
}

#[test]
fn thread_pool_in_place_scope_from_outside_waits_for_every_task() {
    for (policy, workers) in shapes() {
        let what = format!("{policy}, {workers}");
        let pool = Arc::new(pool_of(policy, workers));
        let p = Arc::clone(&pool);
        within(LIMIT, &what.clone(), move || {
            let runs = counters(64);
            let me = std::thread::current().id();
            let body = p.in_place_scope(|s| {
                spawn_tree(s, &runs, &p);
                std::thread::current().id()
            });
            assert_eq!(body, me, "{what}: the body ran on the calling thread");
            assert_each_ran_once(&runs, &what);
            assert_balanced(&p, &what);
        });
        // The scope did not leave the pool unable to stop.
        let pool = Arc::try_unwrap(pool).expect("the only handle");
        within(LIMIT, "shutdown after in_place_scope", move || {
            pool.shutdown()
        });
    }
}

#[test]
fn in_place_scope_on_a_worker_uses_that_workers_pool() {
    for (policy, workers) in shapes() {
        let what = format!("{policy}, {workers}");
        let pool = Arc::new(pool_of(policy, workers));
        let p = Arc::clone(&pool);
        within(LIMIT, &what.clone(), move || {
            let runs = counters(64);
            p.install(|| {
                let me = std::thread::current().id();
                let body = hypersteal::in_place_scope(|s| {
                    spawn_tree(s, &runs, &p);
                    std::thread::current().id()
                });
                assert_eq!(body, me, "{what}");
            });
            assert_each_ran_once(&runs, &what);
            assert_balanced(&p, &what);
        });
    }
}

#[test]
fn in_place_scope_of_one_pool_on_a_worker_of_another() {
    // The body runs on a worker of `a`; the tasks run in `b`; the worker of `a` keeps working
    // for `a` while it waits (here: nothing else to do), and is woken by `b`'s workers.
    for (policy, workers) in shapes() {
        let what = format!("{policy}, {workers}");
        let a = Arc::new(pool_of(policy, workers));
        let b = Arc::new(pool_of(policy, workers));
        let (pa, pb) = (Arc::clone(&a), Arc::clone(&b));
        within(LIMIT, &what.clone(), move || {
            let runs = counters(64);
            pa.install(|| {
                let index = pa.current_thread_index();
                assert!(index.is_some());
                let body_index = pb.in_place_scope(|s| {
                    spawn_tree(s, &runs, &pb);
                    pa.current_thread_index()
                });
                assert_eq!(body_index, index, "{what}: the body stayed on a's worker");
            });
            assert_each_ran_once(&runs, &what);
            assert_balanced(&pa, &what);
            assert_balanced(&pb, &what);
        });
        shut_down([a, b], "shutdown");
    }
}

#[test]
fn in_place_scope_resumes_the_first_panic_after_every_task() {
    for (policy, workers) in shapes() {
        let what = format!("{policy}, {workers}");
        let pool = Arc::new(pool_of(policy, workers));
        let p = Arc::clone(&pool);
        within(LIMIT, &what.clone(), move || {
            // The body panics while a task is still running: the task finishes first.
            let done = AtomicBool::new(false);
            let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                p.in_place_scope(|s| {
                    s.spawn(|_| {
                        std::thread::sleep(Duration::from_millis(20));
                        done.store(true, Ordering::SeqCst);
                    });
                    panic!("body failed");
                })
            }))
            .unwrap_err();
            assert_eq!(message(err), "body failed", "{what}");
            assert!(
                done.load(Ordering::SeqCst),
                "{what}: returned before its task"
            );

            // A task panics; its siblings still run; the panic reaches the caller.
            let runs = counters(16);
            let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                p.in_place_scope(|s| {
                    for (i, r) in runs.iter().enumerate() {
                        s.spawn(move |_| {
                            r.fetch_add(1, Ordering::SeqCst);
                            if i == 3 {
                                panic!("task failed");
                            }
                        });
                    }
                })
            }))
            .unwrap_err();
            assert_eq!(message(err), "task failed", "{what}");
            assert_each_ran_once(&runs, &what);
            assert_balanced(&p, &what);
        });
    }
}

// ---------------------------------------------------------------------------------------------
// Item 4: start_handler, exit_handler

thread_local! {
    static STARTED_AS: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

type Log = Arc<std::sync::Mutex<Vec<usize>>>;

fn sorted(log: &Log) -> Vec<usize> {
    let mut v = log.lock().unwrap().clone();
    v.sort_unstable();
    v
}

#[test]
fn start_and_exit_handlers_run_once_per_worker_on_that_worker() {
    for (policy, workers) in shapes() {
        let what = format!("{policy}, {workers}");
        let (started, exited): (Log, Log) = Default::default();
        let wrong = Arc::new(AtomicUsize::new(0));
        let (s, e, w1, w2) = (
            Arc::clone(&started),
            Arc::clone(&exited),
            Arc::clone(&wrong),
            Arc::clone(&wrong),
        );
        let pool = ThreadPoolBuilder::new()
            .num_threads(workers)
            .policy(policy)
            .pin_threads(false)
            .start_handler(move |i| {
                if hypersteal::current_thread_index() != Some(i) {
                    w1.fetch_add(1, Ordering::SeqCst);
                }
                STARTED_AS.with(|c| c.set(Some(i)));
                s.lock().unwrap().push(i);
            })
            .exit_handler(move |i| {
                // On the same thread the start handler ran on, still a worker.
                if STARTED_AS.with(|c| c.get()) != Some(i)
                    || hypersteal::current_thread_index() != Some(i)
                {
                    w2.fetch_add(1, Ordering::SeqCst);
                }
                e.lock().unwrap().push(i);
            })
            .build()
            .unwrap();
        // Every task runs on a thread whose start handler already ran.
        let unstarted = AtomicUsize::new(0);
        pool.scope(|s| {
            for _ in 0..64 {
                s.spawn(|_| {
                    if STARTED_AS.with(|c| c.get()) != hypersteal::current_thread_index() {
                        unstarted.fetch_add(1, Ordering::SeqCst);
                    }
                });
            }
        });
        assert_eq!(unstarted.load(Ordering::SeqCst), 0, "{what}");
        assert!(
            exited.lock().unwrap().is_empty(),
            "{what}: exited while running"
        );
        within(LIMIT, "shutdown", move || pool.shutdown());
        let all: Vec<usize> = (0..workers).collect();
        assert_eq!(sorted(&started), all, "{what}: start handler calls");
        assert_eq!(sorted(&exited), all, "{what}: exit handler calls");
        assert_eq!(
            wrong.load(Ordering::SeqCst),
            0,
            "{what}: handler on the wrong thread"
        );
    }
}

/// Two tasks that can only finish together: both workers of a 2-worker pool must be alive.
fn rendezvous_on_two_workers(pool: &ThreadPool) {
    let barrier = Arc::new(std::sync::Barrier::new(2));
    let (tx, rx) = mpsc::channel();
    for _ in 0..2 {
        let (barrier, tx) = (Arc::clone(&barrier), tx.clone());
        pool.spawn(move || {
            barrier.wait();
            tx.send(hypersteal::current_thread_index().unwrap())
                .unwrap();
        });
    }
    let mut ran_on = [rx.recv().unwrap(), rx.recv().unwrap()];
    ran_on.sort_unstable();
    assert_eq!(ran_on, [0, 1]);
}

#[test]
fn a_panicking_start_handler_leaves_a_working_worker() {
    for policy in policies() {
        let what = format!("{policy}");
        // With a panic handler: it receives each worker's payload.
        let payloads: Log = Default::default();
        let p = Arc::clone(&payloads);
        let pool = Arc::new(
            ThreadPoolBuilder::new()
                .num_threads(2)
                .policy(policy)
                .pin_threads(false)
                .start_handler(|i| std::panic::panic_any(i))
                .panic_handler(move |payload| {
                    p.lock()
                        .unwrap()
                        .push(*payload.downcast::<usize>().unwrap());
                })
                .build()
                .unwrap(),
        );
        let p = Arc::clone(&pool);
        within(LIMIT, &what, move || rendezvous_on_two_workers(&p));
        // Both workers have run a task, so both start handlers ran.
        assert_eq!(sorted(&payloads), [0, 1], "{what}");
        assert_eq!(pool.stats().total().panics, 2, "{what}");
        assert_eq!(pool.install(|| fib(12)), fib_iter(12));

        // Without one: counted and dropped; the workers work all the same.
        let pool = Arc::new(
            ThreadPoolBuilder::new()
                .num_threads(2)
                .policy(policy)
                .pin_threads(false)
                .start_handler(|_| panic!("start failed"))
                .build()
                .unwrap(),
        );
        let p = Arc::clone(&pool);
        within(LIMIT, &what, move || rendezvous_on_two_workers(&p));
        assert_eq!(pool.stats().total().panics, 2, "{what}");
        let pool = Arc::try_unwrap(pool).unwrap();
        within(LIMIT, "shutdown", move || pool.shutdown());
    }
}

#[test]
fn a_panicking_exit_handler_does_not_stop_the_shutdown() {
    for (policy, workers) in shapes() {
        let what = format!("{policy}, {workers}");
        let payloads: Log = Default::default();
        let p = Arc::clone(&payloads);
        let pool = ThreadPoolBuilder::new()
            .num_threads(workers)
            .policy(policy)
            .pin_threads(false)
            .exit_handler(|i| std::panic::panic_any(i))
            .panic_handler(move |payload| {
                p.lock()
                    .unwrap()
                    .push(*payload.downcast::<usize>().unwrap());
            })
            .build()
            .unwrap();
        assert_eq!(pool.install(|| fib(12)), fib_iter(12));
        within(LIMIT, &what, move || pool.shutdown());
        assert_eq!(
            sorted(&payloads),
            (0..workers).collect::<Vec<_>>(),
            "{what}"
        );

        // Without a panic handler, and with a panic handler that panics too: nothing aborts,
        // every thread exits.
        let exits = Arc::new(AtomicUsize::new(0));
        let (e1, e2) = (Arc::clone(&exits), Arc::clone(&exits));
        let quiet = ThreadPoolBuilder::new()
            .num_threads(workers)
            .policy(policy)
            .pin_threads(false)
            .exit_handler(move |_| {
                e1.fetch_add(1, Ordering::SeqCst);
                panic!("exit failed")
            })
            .build()
            .unwrap();
        let loud = ThreadPoolBuilder::new()
            .num_threads(workers)
            .policy(policy)
            .pin_threads(false)
            .exit_handler(move |_| {
                e2.fetch_add(1, Ordering::SeqCst);
                panic!("exit failed")
            })
            .panic_handler(|_| panic!("the handler failed too"))
            .build()
            .unwrap();
        within(LIMIT, &what, move || {
            quiet.shutdown();
            loud.shutdown();
        });
        assert_eq!(exits.load(Ordering::SeqCst), 2 * workers, "{what}");
    }
}

#[test]
fn an_exit_handler_may_still_use_the_pool() {
    // A scope in the exit handler: its tasks run even though the pool is stopping.
    for (policy, workers) in shapes() {
        let what = format!("{policy}, {workers}");
        let sums: Log = Default::default();
        let s = Arc::clone(&sums);
        let pool = ThreadPoolBuilder::new()
            .num_threads(workers)
            .policy(policy)
            .pin_threads(false)
            .exit_handler(move |_| {
                let total = AtomicUsize::new(0);
                hypersteal::scope(|sc| {
                    for k in 1..=10 {
                        let total = &total;
                        sc.spawn(move |_| {
                            total.fetch_add(k, Ordering::SeqCst);
                        });
                    }
                });
                let (a, b) = hypersteal::join(|| fib(10), || fib(11));
                s.lock()
                    .unwrap()
                    .push(total.into_inner() + (a + b) as usize);
            })
            .build()
            .unwrap();
        within(LIMIT, &what, move || pool.shutdown());
        let expected = 55 + fib_iter(12) as usize;
        assert_eq!(*sums.lock().unwrap(), vec![expected; workers], "{what}");
    }
}

// ---------------------------------------------------------------------------------------------
// Item 5: spawn_fifo, scope_fifo, ScopeFifo, in_place_scope_fifo

/// What one FIFO task saw: the worker that spawned it (`usize::MAX` outside the pool) and its
/// place among that worker's FIFO spawns, and the worker that ran it.
#[derive(Clone, Copy, Debug)]
struct Start {
    spawner: usize,
    seq: usize,
    runner: usize,
}

/// Numbers the FIFO spawns of each worker (index `workers` stands for "outside the pool").
struct Seqs(Vec<AtomicUsize>);

impl Seqs {
    fn new(workers: usize) -> Self {
        Seqs(counters(workers + 1))
    }

    /// The calling thread's worker (or the outside slot) and its next number.
    fn next(&self, pool: &ThreadPool) -> (usize, usize) {
        self.next_at(pool.current_thread_index().unwrap_or(self.0.len() - 1))
    }

    /// Worker `me`'s next number (called on worker `me`).
    fn next_at(&self, me: usize) -> (usize, usize) {
        (me, self.0[me].fetch_add(1, Ordering::SeqCst))
    }
}

/// Per worker, the FIFO tasks of each spawner that it ran started in spawn order.
fn assert_fifo_per_worker(starts: &[Start], workers: usize, what: &str) {
    for runner in 0..workers {
        let mut last = std::collections::HashMap::new();
        for s in starts.iter().filter(|s| s.runner == runner) {
            if let Some(prev) = last.insert(s.spawner, s.seq) {
                assert!(
                    prev < s.seq,
                    "{what}: worker {runner} ran spawn {} of {} after spawn {prev}",
                    s.seq,
                    s.spawner
                );
            }
        }
    }
}

/// A tree of FIFO tasks: `n` from the body, each spawning two more; every task records its
/// start and counts its runs.
fn fifo_tree<'s>(
    s: &hypersteal::ScopeFifo<'s>,
    pool: &'s ThreadPool,
    seqs: &'s Seqs,
    starts: &'s std::sync::Mutex<Vec<Start>>,
    runs: &'s [AtomicUsize],
) {
    let third = runs.len() / 3;
    let (outer, inner) = runs.split_at(third);
    for (k, run) in outer.iter().enumerate() {
        let (spawner, seq) = seqs.next(pool);
        let children = &inner[2 * k..2 * k + 2];
        s.spawn_fifo(move |s| {
            let runner = pool
                .current_thread_index()
                .expect("a task runs in its pool");
            starts.lock().unwrap().push(Start {
                spawner,
                seq,
                runner,
            });
            run.fetch_add(1, Ordering::SeqCst);
            for child in children {
                let (spawner, seq) = seqs.next(pool);
                s.spawn_fifo(move |_| {
                    let runner = pool
                        .current_thread_index()
                        .expect("a task runs in its pool");
                    starts.lock().unwrap().push(Start {
                        spawner,
                        seq,
                        runner,
                    });
                    child.fetch_add(1, Ordering::SeqCst);
                });
            }
        });
    }
}

#[test]
fn scope_fifo_on_one_worker_runs_tasks_in_spawn_order() {
    within(
        LIMIT,
        "scope_fifo_on_one_worker_runs_tasks_in_spawn_order",
        || {
            for policy in policies() {
                let pool = pool_of(policy, 1);
                let order = std::sync::Mutex::new(Vec::new());
                pool.scope_fifo(|s| {
                    for i in 0..50 {
                        let order = &order;
                        s.spawn_fifo(move |s| {
                            order.lock().unwrap().push(i);
                            s.spawn_fifo(move |_| order.lock().unwrap().push(100 + i));
                        });
                    }
                });
                let expected: Vec<i32> = (0..50).chain(100..150).collect();
                assert_eq!(order.into_inner().unwrap(), expected, "{policy}");
                // The plain scope, for contrast, runs its own spawns newest first.
                let order = std::sync::Mutex::new(Vec::new());
                pool.scope(|s| {
                    for i in 0..5 {
                        let order = &order;
                        s.spawn(move |_| order.lock().unwrap().push(i));
                    }
                });
                assert_eq!(order.into_inner().unwrap(), [4, 3, 2, 1, 0], "{policy}");
                assert_balanced(&pool, &format!("{policy}"));
            }
        },
    );
}

#[test]
fn spawn_fifo_on_one_worker_runs_tasks_in_spawn_order() {
    for policy in policies() {
        let pool = Arc::new(pool_of(policy, 1));
        let p = Arc::clone(&pool);
        let (from_inside, from_outside) = within(LIMIT, "spawn_fifo order", move || {
            // From the worker: through its lane.
            let (tx, rx) = mpsc::channel();
            p.install(|| {
                for i in 0..50 {
                    let tx = tx.clone();
                    hypersteal::spawn_fifo(move || tx.send(i).unwrap());
                }
            });
            let inside: Vec<i32> = (0..50).map(|_| rx.recv().unwrap()).collect();
            // From outside: through the injector; the pool method and the worker's own nested
            // FIFO spawns too.
            let (tx, rx) = mpsc::channel();
            for i in 0..50 {
                let tx = tx.clone();
                p.spawn_fifo(move || tx.send(i).unwrap());
            }
            let outside: Vec<i32> = (0..50).map(|_| rx.recv().unwrap()).collect();
            (inside, outside)
        });
        let expected: Vec<i32> = (0..50).collect();
        assert_eq!(from_inside, expected, "{policy}");
        assert_eq!(from_outside, expected, "{policy}");
        let pool = Arc::try_unwrap(pool).unwrap();
        within(LIMIT, "shutdown", move || pool.shutdown());
    }
}

#[test]
fn scope_fifo_runs_every_task_once_in_order_per_worker() {
    for (policy, workers) in shapes() {
        let what = format!("{policy}, {workers}");
        let pool = Arc::new(pool_of(policy, workers));
        let p = Arc::clone(&pool);
        within(LIMIT, &what.clone(), move || {
            let runs = counters(300);
            let seqs = Seqs::new(workers);
            let starts = std::sync::Mutex::new(Vec::new());
            p.scope_fifo(|s| fifo_tree(s, &p, &seqs, &starts, &runs));
            assert_each_ran_once(&runs, &what);
            assert_fifo_per_worker(&starts.into_inner().unwrap(), workers, &what);
            assert_balanced(&p, &what);
        });
    }
}

#[test]
fn in_place_scope_fifo_runs_every_task_once_in_order_per_worker() {
    for (policy, workers) in shapes() {
        let what = format!("{policy}, {workers}");
        let pool = Arc::new(pool_of(policy, workers));
        let other = Arc::new(pool_of(policy, workers));
        let (p, o) = (Arc::clone(&pool), Arc::clone(&other));
        within(LIMIT, &what.clone(), move || {
            // From outside the pool, on one of its workers, and on a worker of another pool.
            for case in ["outside", "on a worker", "from another pool"] {
                let what = format!("{what}, {case}");
                let runs = counters(300);
                let seqs = Seqs::new(workers);
                let starts = std::sync::Mutex::new(Vec::new());
                let me = std::thread::current().id();
                let body = || {
                    p.in_place_scope_fifo(|s| {
                        fifo_tree(s, &p, &seqs, &starts, &runs);
                        std::thread::current().id()
                    })
                };
                match case {
                    "outside" => assert_eq!(body(), me, "{what}"),
                    "on a worker" => {
                        p.install(|| {
                            let here = std::thread::current().id();
                            assert_eq!(body(), here, "{what}");
                        });
                    }
                    _ => {
                        o.install(|| {
                            let here = std::thread::current().id();
                            assert_eq!(body(), here, "{what}");
                        });
                    }
                }
                assert_each_ran_once(&runs, &what);
                assert_fifo_per_worker(&starts.into_inner().unwrap(), workers, &what);
                assert_balanced(&p, &what);
            }
            assert_balanced(&o, &what);
        });
        shut_down([pool, other], "shutdown");
    }
}

#[test]
fn spawn_fifo_runs_every_task_once_in_order_per_worker() {
    for (policy, workers) in shapes() {
        let what = format!("{policy}, {workers}");
        let pool = Arc::new(pool_of(policy, workers));
        let p = Arc::clone(&pool);
        let starts = within(LIMIT, &what.clone(), move || {
            let seqs = Arc::new(Seqs::new(workers));
            let (tx, rx) = mpsc::channel::<(Start, usize)>();
            let n = 100;
            let here = || hypersteal::current_thread_index().expect("a task runs on a worker");
            // Each of `n` FIFO spawns from outside spawns two more FIFO from its worker.
            for k in 0..n {
                let (spawner, seq) = seqs.next(&p);
                let (tx, seqs) = (tx.clone(), Arc::clone(&seqs));
                p.spawn_fifo(move || {
                    let runner = here();
                    tx.send((
                        Start {
                            spawner,
                            seq,
                            runner,
                        },
                        k,
                    ))
                    .unwrap();
                    for c in 0..2 {
                        let (spawner, seq) = seqs.next_at(here());
                        let tx = tx.clone();
                        hypersteal::spawn_fifo(move || {
                            let runner = here();
                            tx.send((
                                Start {
                                    spawner,
                                    seq,
                                    runner,
                                },
                                n + 2 * k + c,
                            ))
                            .unwrap();
                        });
                    }
                });
            }
            drop(tx);
            let got: Vec<(Start, usize)> = rx.iter().take(3 * n).collect();
            let mut ids: Vec<usize> = got.iter().map(|g| g.1).collect();
            ids.sort_unstable();
            assert_eq!(
                ids,
                (0..3 * n).collect::<Vec<_>>(),
                "{what}: each task once"
            );
            got.into_iter().map(|g| g.0).collect::<Vec<_>>()
        });
        assert_fifo_per_worker(&starts, workers, &format!("{policy}, {workers}"));
        drop(pool);
    }
}

#[test]
fn a_panicking_fifo_task_reaches_the_scope_after_every_sibling() {
    for (policy, workers) in shapes() {
        let what = format!("{policy}, {workers}");
        let pool = Arc::new(pool_of(policy, workers));
        let p = Arc::clone(&pool);
        within(LIMIT, &what.clone(), move || {
            let runs = counters(40);
            let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                p.scope_fifo(|s| {
                    for (i, r) in runs.iter().enumerate() {
                        s.spawn_fifo(move |_| {
                            r.fetch_add(1, Ordering::SeqCst);
                            if i == 7 {
                                panic!("fifo task failed");
                            }
                        });
                    }
                })
            }))
            .unwrap_err();
            assert_eq!(message(err), "fifo task failed", "{what}");
            assert_each_ran_once(&runs, &what);
            // A 'static FIFO spawn's panic goes to the (absent) panic handler: counted.
            let (tx, rx) = mpsc::channel();
            p.spawn_fifo(|| panic!("static fifo failed"));
            p.spawn_fifo(move || tx.send(()).unwrap());
            rx.recv().unwrap();
            assert_eq!(p.install(|| fib(10)), fib_iter(10));
        });
        let pool = Arc::try_unwrap(pool).unwrap();
        within(LIMIT, "shutdown", move || pool.shutdown());
    }
}

// ---------------------------------------------------------------------------------------------
// Across items

#[test]
fn yield_local_leaves_injected_work_to_yield_now() {
    // One worker, busy in `install`: a task injected from outside is not local, so
    // `yield_local` does not run it and `yield_now` does.
    for policy in policies() {
        let pool = Arc::new(pool_of(policy, 1));
        let (started_tx, started_rx) = mpsc::channel();
        let (queued_tx, queued_rx) = mpsc::channel::<()>();
        let ran = Arc::new(AtomicBool::new(false));
        let body = {
            let (pool, ran) = (Arc::clone(&pool), Arc::clone(&ran));
            std::thread::spawn(move || {
                within(LIMIT, "yield_local vs injected", move || {
                    pool.install(move || {
                        started_tx.send(()).unwrap();
                        queued_rx.recv().unwrap();
                        let local = hypersteal::yield_local();
                        let ran_locally = ran.load(Ordering::SeqCst);
                        let pending = hypersteal::current_thread_has_pending_tasks();
                        let now = hypersteal::yield_now();
                        (local, ran_locally, pending, now, ran.load(Ordering::SeqCst))
                    })
                })
            })
        };
        started_rx.recv().unwrap();
        let r = Arc::clone(&ran);
        pool.spawn(move || r.store(true, Ordering::SeqCst));
        queued_tx.send(()).unwrap();
        let got = body.join().unwrap();
        assert_eq!(
            got,
            (
                Some(Yield::Idle),
                false,
                Some(false),
                Some(Yield::Executed),
                true
            ),
            "{policy}"
        );
        assert_balanced(&pool, &format!("{policy}"));
    }
}

#[test]
fn fifo_scopes_and_yields_under_every_policy() {
    // The other policies and a topology with neighbours (`nn`, `most-loaded:scope=neighbors`
    // steal from neighbours only): exactly once and per-worker order still hold.
    for policy in Policy::all() {
        for workers in [3, 4] {
            let what = format!("{policy}, {workers}");
            let pool = Arc::new(pool(policy, Topology::Ring, workers));
            let p = Arc::clone(&pool);
            within(LIMIT, &what.clone(), move || {
                let runs = counters(150);
                let seqs = Seqs::new(workers);
                let starts = std::sync::Mutex::new(Vec::new());
                p.scope_fifo(|s| {
                    fifo_tree(s, &p, &seqs, &starts, &runs);
                    while runs.iter().any(|r| r.load(Ordering::SeqCst) == 0) {
                        if hypersteal::yield_now() == Some(Yield::Idle) {
                            std::thread::yield_now();
                        }
                    }
                });
                assert_each_ran_once(&runs, &what);
                assert_fifo_per_worker(&starts.into_inner().unwrap(), workers, &what);
                assert_balanced(&p, &what);
            });
        }
    }
}

#[test]
fn work_spawned_by_exit_handlers_runs_before_the_threads_go() {
    // Each worker's exit handler spawns tasks (plain and FIFO) that spawn more; a
    // sender-initiated policy may place them on any worker, including one whose own handler
    // already returned: all of them run, and shutdown still returns.
    for (policy, workers) in shapes() {
        let what = format!("{policy}, {workers}");
        let ran = Arc::new(AtomicUsize::new(0));
        let r = Arc::clone(&ran);
        let pool = ThreadPoolBuilder::new()
            .num_threads(workers)
            .policy(policy)
            .pin_threads(false)
            .exit_handler(move |_| {
                for _ in 0..10 {
                    let (a, b) = (Arc::clone(&r), Arc::clone(&r));
                    hypersteal::spawn(move || {
                        a.fetch_add(1, Ordering::SeqCst);
                        hypersteal::spawn_fifo(move || {
                            b.fetch_add(1, Ordering::SeqCst);
                        });
                    });
                }
            })
            .build()
            .unwrap();
        assert_eq!(pool.install(|| fib(12)), fib_iter(12));
        within(LIMIT, &what, move || pool.shutdown());
        assert_eq!(ran.load(Ordering::SeqCst), 20 * workers, "{what}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn workers_waiting_for_a_slow_exit_handler_sleep() {
    // Worker 0's exit handler blocks for a while; the others, their handlers done, wait for it
    // (the handler could still submit work) and must do so asleep, not spinning.
    // Thread names are cut to 15 bytes in /proc: short prefixes.
    for (policy, prefix) in [("rp", "sx-rp-"), ("random-alloc", "sx-ra-")] {
        let policy: Policy = policy.parse().unwrap();
        let prefix = prefix.to_string();
        let name = prefix.clone();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let release_rx = std::sync::Mutex::new(release_rx);
        let pool = ThreadPoolBuilder::new()
            .num_threads(4)
            .policy(policy)
            .pin_threads(false)
            .thread_name(move |i| format!("{name}{i}"))
            .exit_handler(move |i| {
                if i == 0 {
                    let _ = release_rx.lock().unwrap().recv();
                }
            })
            .build()
            .unwrap();
        assert_eq!(pool.install(|| fib(16)), fib_iter(16));
        let done = std::thread::spawn(move || pool.shutdown());
        // Let the three other handlers return and their workers settle into the wait.
        assert!(
            common::quiet_within(&prefix, Duration::from_secs(5)),
            "{policy}: workers kept using CPU while an exit handler blocked"
        );
        let (threads, before) = common::cpu_ticks(&prefix);
        assert_eq!(threads, 4, "{policy}");
        std::thread::sleep(Duration::from_millis(400));
        let (_, after) = common::cpu_ticks(&prefix);
        assert!(after - before <= 2, "{policy}: {} ticks", after - before);
        release_tx.send(()).unwrap();
        within(LIMIT, "shutdown after the slow handler", move || {
            done.join().unwrap()
        });
    }
}

#[test]
fn a_second_global_pool_is_refused_with_rayons_message() {
    // Whether or not another test made the global pool first, a second attempt must fail,
    // with the text rayon gives (programs that match on it keep working).
    let _ = ThreadPoolBuilder::new().build_global();
    let err = ThreadPoolBuilder::new().build_global().unwrap_err();
    assert_eq!(
        err.to_string(),
        "The global thread pool has already been initialized."
    );
    assert!(std::error::Error::source(&err).is_none());
}

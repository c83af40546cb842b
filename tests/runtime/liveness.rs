//! Liveness under every policy: a worker that stays idle while another holds work it could run
//! gets some of it within a bounded time, whatever the policy decides (`src/worker/README.md`,
//! "Rescue"). Each case is a program rayon always completes: a task that spawns work and then
//! blocks outside the pool until that work ran, a `join` whose `a` waits for its `b`, a search
//! over a range no single worker can walk, a worker whose neighbours are all busy, and waits
//! nested across pools deeper than the deep waiters' threshold. Every case runs in a child
//! process under a time limit, so a hang fails its test.

use crate::common;

use common::*;
use hypersteal::{Policy, ThreadPool, ThreadPoolBuilder, Topology};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::time::Duration;

/// The limit of each child process: every case finishes in well under a second a trial; a
/// trial that hangs holds the child until this kills it.
const CHILD_LIMIT: Duration = Duration::from_secs(120);

/// Runs `body` in a child process named after the test and asserts that it passed in time.
fn run_in_child(name: &str, body: impl FnOnce()) {
    if let Some(out) = in_child(name, CHILD_LIMIT, |_| {}) {
        assert_child_passed(name, &out);
        return;
    }
    body();
}

/// Policies with parameters at their extremes, where a policy refuses what is visible (a
/// `min` no queue reaches, a manager that serves only its own workers) or decides rarely.
const EXTREMES: [&str; 8] = [
    "most-loaded:min=4",
    "most-loaded:min=1000000,scope=neighbors",
    "most-loaded:load=time",
    "sl",
    "ml:levels=2,group=2",
    "acwn:interval=1000000,low=0,high=1000000",
    "gradient:interval=1000000,low=1000000,high=1000000",
    "nn",
];

/// The ways a task can hand work to the pool and then block until that work has run.
const FORMS: [&str; 5] = [
    "spawn",
    "spawn after 16 others",
    "scope",
    "scope after 40 siblings",
    "scope_fifo",
];

/// Inside `pool`, makes work in the way `form` names, and blocks on a channel until it ran.
fn spawn_then_block(pool: &ThreadPool, form: &str) -> u32 {
    let (tx, rx) = mpsc::channel::<u32>();
    let noise = Arc::new(AtomicUsize::new(0));
    pool.install(move || match form {
        "spawn" => {
            hypersteal::spawn(move || tx.send(7).unwrap());
            rx.recv().unwrap()
        }
        "spawn after 16 others" => {
            for _ in 0..16 {
                let noise = Arc::clone(&noise);
                hypersteal::spawn(move || {
                    noise.fetch_add(1, Ordering::Relaxed);
                });
            }
            hypersteal::spawn(move || tx.send(7).unwrap());
            rx.recv().unwrap()
        }
        "scope" => hypersteal::scope(move |s| {
            s.spawn(move |_| tx.send(7).unwrap());
            rx.recv().unwrap()
        }),
        "scope after 40 siblings" => hypersteal::scope(move |s| {
            for _ in 0..40 {
                let noise = Arc::clone(&noise);
                s.spawn(move |_| {
                    noise.fetch_add(1, Ordering::Relaxed);
                });
            }
            s.spawn(move |_| tx.send(7).unwrap());
            rx.recv().unwrap()
        }),
        "scope_fifo" => hypersteal::scope_fifo(move |s| {
            s.spawn_fifo(move |_| tx.send(7).unwrap());
            rx.recv().unwrap()
        }),
        other => unreachable!("unknown form {other}"),
    })
}

/// A task that spawns work and then blocks outside the pool (a channel's `recv`) until that work
/// has run, with the pool's other workers idle: the work must reach one of them.
#[test]
fn work_spawned_before_a_blocking_wait_reaches_an_idle_worker() {
    let name = "work_spawned_before_a_blocking_wait_reaches_an_idle_worker";
    run_in_child(name, || {
        for policy in Policy::all() {
            for workers in [2, 4, 8] {
                for form in FORMS {
                    for trial in 0..3 {
                        let pool = pool(policy, Topology::Hypercube, workers);
                        let got = spawn_then_block(&pool, form);
                        assert_eq!(got, 7, "{policy}, {workers} workers, {form}, trial {trial}");
                    }
                }
            }
        }
    });
}

/// Waits, on a worker of `pool`, until every other worker of it has been idle for a while
/// (its idle time grew by at least 4 ms over 5 ms): the state a `join` below must find.
fn until_the_others_idle(pool: &ThreadPool) {
    let me = hypersteal::current_thread_index().expect("called on a worker");
    let idle = |w: usize| pool.stats().workers[w].idle;
    let others = (0..pool.current_num_threads()).filter(|&w| w != me);
    for w in others {
        loop {
            let before = idle(w);
            std::thread::sleep(Duration::from_millis(5));
            if idle(w).saturating_sub(before) >= Duration::from_millis(4) {
                break;
            }
        }
    }
}

/// A `join` whose `a` waits (on a channel, at a barrier) until `b` has run, while the pool's
/// other worker is idle: `b` must reach it (rayon's `join_context_second`). Every policy gives
/// this guarantee when some worker is idle at the `join`; a `b` pushed while every worker is
/// busy, by an `a` that then blocks, may stay hidden (`src/worker/README.md`, "Promotion").
#[test]
fn a_join_whose_a_waits_for_b_completes_under_every_policy() {
    let name = "a_join_whose_a_waits_for_b_completes_under_every_policy";
    run_in_child(name, || {
        for policy in Policy::all() {
            for trial in 0..5 {
                let pool = pool(policy, Topology::Complete, 2);
                pool.install(|| ());
                let (tx, rx) = mpsc::channel::<u32>();
                let got = pool.install(|| {
                    until_the_others_idle(&pool);
                    hypersteal::join(move || rx.recv().unwrap(), move || tx.send(7).unwrap())
                });
                assert_eq!(got.0, 7, "{policy}, channel, trial {trial}");
                let barrier = Barrier::new(2);
                let (a, b) = pool.install(|| {
                    until_the_others_idle(&pool);
                    hypersteal::join_context(
                        |_| {
                            barrier.wait();
                            1
                        },
                        |ctx| {
                            barrier.wait();
                            ctx.migrated()
                        },
                    )
                });
                assert_eq!(a, 1);
                assert!(b, "{policy}: b ran elsewhere, trial {trial}");
            }
        }
    });
}

/// Searches over ranges no single worker could walk (10^27 items): the match sits near one end
/// and only the half holding it finishes, so the search ends only if the idle worker gets that
/// half.
#[test]
fn searches_too_long_for_one_worker_finish_under_every_policy() {
    use hypersteal::prelude::*;
    let name = "searches_too_long_for_one_worker_finish_under_every_policy";
    run_in_child(name, || {
        let len: u128 = 10u128.pow(27);
        // Every leaf here is far too long to finish: the searches end only because a leaf
        // splits what is left of it whenever the other worker is idle (`src/iter/divide.rs`).
        for policy in Policy::all() {
            let pool = pool(policy, Topology::Hypercube, 2);
            for trial in 0..3 {
                let last = pool.install(|| (0..len).into_par_iter().find_last(|&x| x % 5 == 0));
                assert_eq!(last, Some(len - 5), "{policy}: find_last, trial {trial}");
                let first = pool.install(|| (0..len).into_par_iter().find_first(|&x| x == 3));
                assert_eq!(first, Some(3), "{policy}: find_first, trial {trial}");
                let any = pool.install(|| {
                    (0..len)
                        .into_par_iter()
                        .find_any(|&x| x == len - 2 || x == 1)
                });
                assert!(
                    any == Some(1) || any == Some(len - 2),
                    "{policy}: find_any gave {any:?}, trial {trial}"
                );
            }
        }
    });
}

/// A worker whose only neighbours are blocked in user code while a worker two hops away holds
/// work: under `nn` nobody in its neighbourhood has anything to give, yet it must get the work
/// (ring of four: 0 holds the work, 1 and 3 are blocked, 2 is idle).
#[test]
fn an_idle_worker_whose_neighbours_are_blocked_gets_work_from_further_away() {
    let name = "an_idle_worker_whose_neighbours_are_blocked_gets_work_from_further_away";
    run_in_child(name, || {
        for policy in Policy::all() {
            let pool = ThreadPoolBuilder::new()
                .num_threads(4)
                .policy(policy)
                .topology(Topology::Ring)
                .pin_threads(false)
                .build()
                .unwrap();
            // Two tasks that block until released, on workers 1 and 3 (broadcast places one
            // on every worker; 0 and 2 return at once).
            let release = Arc::new(Barrier::new(3));
            let blocked = Arc::new(Barrier::new(3));
            {
                let (release, blocked) = (Arc::clone(&release), Arc::clone(&blocked));
                pool.spawn_broadcast(move |ctx| {
                    if ctx.index() % 2 == 1 {
                        blocked.wait();
                        release.wait();
                    }
                });
            }
            blocked.wait();
            // The work: a task that makes another and waits for it on a channel, from outside.
            let (tx, rx) = mpsc::channel::<u32>();
            let got = pool.install(move || {
                hypersteal::spawn(move || tx.send(7).unwrap());
                rx.recv().unwrap()
            });
            assert_eq!(got, 7, "{policy}");
            release.wait();
        }
    });
}

/// Two pools that call into each other 40 times, so the second pool's workers wait more than
/// the deep waiters' threshold deep; at the bottom a worker of the first pool opens an in-place
/// scope in the second and spawns a task that spawns a sibling through its `&Scope`. The
/// sibling must run.
#[test]
fn a_sibling_spawned_by_a_deep_waiter_runs() {
    let name = "a_sibling_spawned_by_a_deep_waiter_runs";
    run_in_child(name, || {
        fn dive(a: &ThreadPool, b: &ThreadPool, depth: usize, ran: &AtomicUsize) {
            if depth == 0 {
                b.in_place_scope(|s| {
                    s.spawn(|s| {
                        ran.fetch_add(1, Ordering::Relaxed);
                        s.spawn(|_| {
                            ran.fetch_add(1, Ordering::Relaxed);
                        });
                    });
                });
                return;
            }
            if depth.is_multiple_of(2) {
                b.install(|| dive(a, b, depth - 1, ran));
            } else {
                a.install(|| dive(a, b, depth - 1, ran));
            }
        }
        for policy in Policy::all() {
            for trial in 0..3 {
                let a = pool(Policy::default(), Topology::Complete, 1);
                let b = pool(policy, Topology::Complete, 2);
                let ran = AtomicUsize::new(0);
                a.install(|| dive(&a, &b, 40, &ran));
                assert_eq!(ran.load(Ordering::Relaxed), 2, "{policy}, trial {trial}");
            }
        }
    });
}

/// The same 40 nested calls; at the bottom a `join` on a worker of the second pool whose `a`
/// waits until another worker took `b`, and `b` spawns a task and blocks until it ran. The
/// worker running the `join` then waits deeper than the deep waiters' threshold while the task
/// sits with a worker blocked in user code: the waiter must rescue it.
#[test]
fn a_deep_waiter_rescues_work_a_blocked_worker_holds() {
    let name = "a_deep_waiter_rescues_work_a_blocked_worker_holds";
    run_in_child(name, || {
        fn bottom() -> bool {
            let started = std::sync::atomic::AtomicBool::new(false);
            let home = hypersteal::current_thread_index();
            let ((), moved) = hypersteal::join(
                || {
                    // Joins are poll points: the waiting `b` is handed over at one.
                    while !started.load(Ordering::Acquire) {
                        hypersteal::join(|| (), || ());
                        std::thread::yield_now();
                    }
                },
                || {
                    started.store(true, Ordering::Release);
                    let (tx, rx) = mpsc::channel();
                    hypersteal::spawn(move || tx.send(()).unwrap());
                    rx.recv().unwrap();
                    hypersteal::current_thread_index() != home
                },
            );
            moved
        }
        fn dive(a: &ThreadPool, b: &ThreadPool, depth: usize) -> bool {
            match depth {
                0 => b.install(bottom),
                _ if depth.is_multiple_of(2) => b.install(|| dive(a, b, depth - 1)),
                _ => a.install(|| dive(a, b, depth - 1)),
            }
        }
        for policy in Policy::all() {
            // The waiter may run `b` itself (from inside one of `a`'s joins, whose own `b` was
            // taken): then nothing is stranded and the scenario is not exercised. Every trial
            // must end; three in which `b` moved must be seen.
            let mut moved = 0;
            for _ in 0..30 {
                let a = pool(Policy::default(), Topology::Complete, 1);
                let b = pool(policy, Topology::Complete, 2);
                moved += usize::from(a.install(|| dive(&a, &b, 40)));
                if moved == 3 {
                    break;
                }
            }
            assert_eq!(
                moved, 3,
                "{policy}: b ran where the join was in too many trials"
            );
        }
    });
}

/// An idle worker beside a task its policy refuses (below `most-loaded`'s `min`, with a worker
/// its manager does not serve, decided rarely) neither spins nor leaves the task stranded: it
/// sleeps until the rescue bound passes, takes the task, and the pool comes to rest.
#[cfg(target_os = "linux")]
#[test]
fn a_task_the_policy_refuses_runs_and_the_pool_comes_to_rest() {
    let name = "a_task_the_policy_refuses_runs_and_the_pool_comes_to_rest";
    run_in_child(name, || {
        for spec in EXTREMES {
            let policy: Policy = spec.parse().unwrap();
            let pool = ThreadPoolBuilder::new()
                .num_threads(4)
                .policy(policy)
                .topology(Topology::Ring)
                .pin_threads(false)
                .thread_name(|i| format!("refuse-{i}"))
                .build()
                .unwrap();
            for form in FORMS {
                assert_eq!(spawn_then_block(&pool, form), 7, "{spec}, {form}");
            }
            assert_at_rest("refuse-", 4, Duration::from_secs(5), spec);
            pool.shutdown();
        }
    });
}

/// Outer iterations of [`locked_loops`].
const LOCKED_OUTER: u64 = 64;
/// Inner iterations of [`locked_loops`], each a little work.
const LOCKED_INNER: u64 = 2000;

/// A little work the optimiser cannot remove.
fn churn(x: u64) -> u64 {
    (0..16).fold(x, |acc, k| {
        std::hint::black_box(acc.wrapping_mul(31).wrapping_add(k))
    })
}

/// The re-entrancy deadlock `isolate` exists for: each iteration of an outer parallel loop
/// takes a lock and runs an inner parallel loop while it holds it. A worker that waits inside
/// the inner loop and picks up another outer iteration blocks on the lock its own stack holds.
/// `progress` counts finished outer iterations. Returns the sum the lock guards.
fn locked_loops(pool: &ThreadPool, isolated: bool, progress: &AtomicUsize) -> u64 {
    use hypersteal::prelude::*;
    let total = std::sync::Mutex::new(0u64);
    pool.install(|| {
        (0..LOCKED_OUTER).into_par_iter().for_each(|i| {
            let mut total = total.lock().unwrap();
            let inner = || {
                (0..LOCKED_INNER)
                    .into_par_iter()
                    .map(|j| churn(i * LOCKED_INNER + j) & 1)
                    .sum::<u64>()
            };
            *total += if isolated {
                hypersteal::isolate(inner)
            } else {
                inner()
            };
            progress.fetch_add(1, Ordering::Relaxed);
        })
    });
    total.into_inner().unwrap()
}

/// What [`locked_loops`] must return, computed sequentially.
fn locked_loops_expected() -> u64 {
    (0..LOCKED_OUTER * LOCKED_INNER).map(|k| churn(k) & 1).sum()
}

/// Without isolation the program above deadlocks: a worker holding the lock runs another outer
/// iteration while it waits, which blocks on the same lock. The child runs it until a watchdog
/// sees no outer iteration finish for two seconds, reports the deadlock and exits (the pool's
/// threads are stuck for good); a child that finishes 200 runs without one fails the test.
#[test]
fn without_isolation_a_lock_held_across_an_inner_parallel_loop_deadlocks() {
    let name = "without_isolation_a_lock_held_across_an_inner_parallel_loop_deadlocks";
    if let Some(out) = in_child(name, CHILD_LIMIT, |_| {}) {
        assert!(
            out.stdout
                .contains("deadlocked: the lock's holder ran its own outer loop"),
            "the program did not deadlock without isolation: {out:?}"
        );
        return;
    }
    let progress = Arc::new(AtomicUsize::new(0));
    let watched = Arc::clone(&progress);
    std::thread::spawn(move || {
        let mut last = usize::MAX;
        loop {
            std::thread::sleep(Duration::from_secs(2));
            let now = watched.load(Ordering::Relaxed);
            if now == last {
                println!("deadlocked: the lock's holder ran its own outer loop");
                std::process::exit(0);
            }
            last = now;
        }
    });
    let pool = common::pool(Policy::RandomPolling, Topology::Complete, 4);
    for _ in 0..200 {
        assert_eq!(
            locked_loops(&pool, false, &progress),
            locked_loops_expected()
        );
    }
    println!("no deadlock in 200 runs");
    std::process::exit(1);
}

/// The same program with the inner loop in `isolate` completes under every policy, with the
/// right sum, at 2 and 4 workers (in a child process: a deadlock fails the test at the limit).
#[test]
fn isolation_lets_a_lock_be_held_across_an_inner_parallel_loop_under_every_policy() {
    run_in_child(
        "isolation_lets_a_lock_be_held_across_an_inner_parallel_loop_under_every_policy",
        || {
            let expected = locked_loops_expected();
            for policy in Policy::all() {
                for workers in [2, 4] {
                    let pool = common::pool(policy, Topology::Hypercube, workers);
                    for _ in 0..5 {
                        let progress = AtomicUsize::new(0);
                        assert_eq!(
                            locked_loops(&pool, true, &progress),
                            expected,
                            "{policy} at {workers} workers"
                        );
                    }
                    assert_balanced(&pool, &format!("{policy} at {workers} workers"));
                }
            }
        },
    );
}

std::thread_local! {
    /// Set on a thread while it is inside an isolated region of the tests below.
    static IN_REGION: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` in an isolated region, with [`IN_REGION`] set on this thread meanwhile.
fn in_region<R>(f: impl FnOnce() -> R) -> R {
    hypersteal::isolate(|| {
        let outer = IN_REGION.with(|r| r.replace(true));
        let result = f();
        IN_REGION.with(|r| r.set(outer));
        result
    })
}

/// A waiter inside a region runs none of the outer tasks, whatever it waits for (joins,
/// scopes, a parallel iterator, `yield_now`), under every policy; every task still runs
/// exactly once. Outer tasks are spawns into a scope (public at once) and the joins of an
/// outer parallel loop; each records whether its thread was inside a region when it started.
#[test]
fn isolated_waits_run_no_task_from_outside_the_region_under_every_policy() {
    run_in_child(
        "isolated_waits_run_no_task_from_outside_the_region_under_every_policy",
        || {
            use hypersteal::prelude::*;
            for policy in Policy::all() {
                let pool = common::pool(policy, Topology::Hypercube, 4);
                let (intruders, outer_runs, inner_runs) = (
                    AtomicUsize::new(0),
                    AtomicUsize::new(0),
                    AtomicUsize::new(0),
                );
                let outer = |_: u64| {
                    if IN_REGION.with(|r| r.get()) {
                        intruders.fetch_add(1, Ordering::Relaxed);
                    }
                    outer_runs.fetch_add(1, Ordering::Relaxed);
                };
                pool.install(|| {
                    hypersteal::scope(|s| {
                        for i in 0..100 {
                            s.spawn(move |_| outer(i));
                        }
                        (0..100u64).into_par_iter().for_each(|i| {
                            outer(i);
                            in_region(|| {
                                let sum: u64 = (0..200u64)
                                    .into_par_iter()
                                    .map(|j| {
                                        inner_runs.fetch_add(1, Ordering::Relaxed);
                                        churn(j) & 1
                                    })
                                    .sum();
                                hypersteal::scope(|s2| {
                                    for _ in 0..4 {
                                        s2.spawn(|_| {
                                            inner_runs.fetch_add(1, Ordering::Relaxed);
                                        });
                                    }
                                    hypersteal::yield_now();
                                });
                                std::hint::black_box(sum);
                            });
                        });
                    });
                });
                assert_eq!(
                    intruders.into_inner(),
                    0,
                    "{policy}: an outer task ran inside a region"
                );
                assert_eq!(outer_runs.into_inner(), 200, "{policy}");
                assert_eq!(inner_runs.into_inner(), 100 * 204, "{policy}");
                assert_balanced(&pool, &format!("{policy}"));
            }
        },
    );
}

/// `yield_now` and `yield_local` inside a region take only the region's tasks: on a pool of one
/// the outer task waits for the region to end, then runs.
#[test]
fn yielding_inside_a_region_runs_only_the_regions_tasks() {
    run_in_child(
        "yielding_inside_a_region_runs_only_the_regions_tasks",
        || {
            use hypersteal::Yield;
            let pool = common::pool(Policy::RandomPolling, Topology::Complete, 1);
            let (outer, inner) = (AtomicUsize::new(0), AtomicUsize::new(0));
            pool.scope(|s| {
                s.spawn(|_| {
                    outer.fetch_add(1, Ordering::Relaxed);
                });
                hypersteal::isolate(|| {
                    assert_eq!(hypersteal::yield_now(), Some(Yield::Idle));
                    assert_eq!(hypersteal::yield_local(), Some(Yield::Idle));
                    s.spawn(|_| {
                        inner.fetch_add(1, Ordering::Relaxed);
                    });
                    assert_eq!(hypersteal::yield_local(), Some(Yield::Executed));
                    assert_eq!(inner.load(Ordering::Relaxed), 1);
                    assert_eq!(
                        outer.load(Ordering::Relaxed),
                        0,
                        "the outer task ran in the region"
                    );
                });
                assert_eq!(hypersteal::yield_now(), Some(Yield::Executed));
                assert_eq!(outer.load(Ordering::Relaxed), 1);
            });
            assert_balanced(&pool, "yielding in a region");
        },
    );
}

/// Regions nest and end however their closure ends: a panic passes through `isolate` and the
/// outer region (or none) is current again; outside every pool `isolate` just runs its closure;
/// a broadcast and FIFO spawns made inside a region complete.
#[test]
fn isolate_nests_passes_panics_on_and_keeps_broadcasts_and_fifo_spawns_working() {
    run_in_child(
        "isolate_nests_passes_panics_on_and_keeps_broadcasts_and_fifo_spawns_working",
        || {
            assert_eq!(hypersteal::isolate(|| 7), 7);
            for policy in Policy::all() {
                let pool = common::pool(policy, Topology::Hypercube, 3);
                let outer = AtomicUsize::new(0);
                pool.install(|| {
                    hypersteal::scope(|s| {
                        s.spawn(|_| {
                            outer.fetch_add(1, Ordering::Relaxed);
                        });
                        let nested = hypersteal::isolate(|| {
                            let (a, b) =
                                hypersteal::join(|| hypersteal::isolate(|| fib(15)), || fib(14));
                            a + b
                        });
                        assert_eq!(nested, fib_iter(16), "{policy}");
                        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            hypersteal::isolate(|| {
                                hypersteal::join(|| fib(10), || panic!("inside the region"))
                            })
                        }));
                        assert!(caught.is_err(), "{policy}: the panic passed through");
                        let shares =
                            hypersteal::isolate(|| hypersteal::broadcast(|ctx| ctx.index()));
                        assert_eq!(shares, vec![0, 1, 2], "{policy}");
                        let fifo = AtomicUsize::new(0);
                        hypersteal::isolate(|| {
                            hypersteal::scope_fifo(|s| {
                                for _ in 0..50 {
                                    s.spawn_fifo(|_| {
                                        fifo.fetch_add(1, Ordering::Relaxed);
                                    });
                                }
                            })
                        });
                        assert_eq!(fifo.into_inner(), 50, "{policy}");
                    });
                });
                assert_eq!(outer.into_inner(), 1, "{policy}");
                assert_balanced(&pool, &format!("{policy}"));
            }
        },
    );
}

/// A one-shot future that a task completes (what a worker blocked on async work waits for).
#[derive(Default)]
struct Shot(std::sync::Mutex<(bool, Option<std::task::Waker>)>);

impl Shot {
    fn complete(&self) {
        let waker = {
            let mut s = self.0.lock().unwrap();
            s.0 = true;
            s.1.take()
        };
        if let Some(w) = waker {
            w.wake();
        }
    }
}

/// The future of a [`Shot`].
struct ShotFired(Arc<Shot>);

impl std::future::Future for ShotFired {
    type Output = ();
    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        let mut s = self.0 .0.lock().unwrap();
        if s.0 {
            std::task::Poll::Ready(())
        } else {
            s.1 = Some(cx.waker().clone());
            std::task::Poll::Pending
        }
    }
}

/// A region task that another worker took, while it waited outside every region, leaves a
/// task of the region in that worker's public deque (a spawn into the region's scope, or a
/// spawn with a handle the region joins) and goes on to block on the lock the region's caller
/// holds. The isolated waiter must take that task from the other worker's deque: nobody else
/// will. Under every policy, 2 workers.
#[test]
fn a_region_task_left_in_a_blocked_workers_deque_is_run_by_the_isolated_waiter() {
    run_in_child(
        "a_region_task_left_in_a_blocked_workers_deque_is_run_by_the_isolated_waiter",
        || {
            for policy in Policy::all() {
                for with_handle in [false, true] {
                    let pool = common::pool(policy, Topology::Complete, 2);
                    let lock = std::sync::Mutex::new(());
                    let started = std::sync::atomic::AtomicBool::new(false);
                    let shot = Arc::new(Shot::default());
                    pool.install(|| {
                        hypersteal::scope(|s| {
                            let fired = ShotFired(Arc::clone(&shot));
                            let (lock, started) = (&lock, &started);
                            // An outer task, public at once: the other worker takes it, waits
                            // (taking a region task meanwhile), then blocks on the lock.
                            s.spawn(move |_| {
                                started.store(true, Ordering::SeqCst);
                                hypersteal::block_on(fired);
                                drop(lock.lock().unwrap());
                            });
                            while !started.load(Ordering::SeqCst) {
                                std::hint::spin_loop();
                            }
                            let _held = lock.lock().unwrap();
                            let spin = || {
                                let t = std::time::Instant::now();
                                while t.elapsed() < Duration::from_millis(50) {
                                    std::hint::spin_loop();
                                }
                            };
                            hypersteal::isolate(|| {
                                let shot = Arc::clone(&shot);
                                if with_handle {
                                    let (tx, rx) = mpsc::channel();
                                    let h = hypersteal::spawn_with_handle(move || {
                                        tx.send(hypersteal::spawn_with_handle(|| 5)).unwrap();
                                        shot.complete();
                                    });
                                    spin();
                                    h.join();
                                    assert_eq!(rx.recv().unwrap().join(), 5);
                                } else {
                                    hypersteal::scope(|r| {
                                        r.spawn(move |r| {
                                            r.spawn(|_| {});
                                            shot.complete();
                                        });
                                        spin();
                                    });
                                }
                            });
                        });
                    });
                    assert_balanced(&pool, &format!("{policy}, handle {with_handle}"));
                }
            }
        },
    );
}

/// A broadcast made inside a region runs its shares inside it: the share that runs on the
/// region's own worker, waiting inside, takes no outer task. And a `yield_now` in a region
/// nested in another takes no outer task that the enclosing region's `join` would then run.
/// Every policy, 3 workers.
#[test]
fn broadcasts_and_nested_yields_keep_outer_tasks_out_of_a_region() {
    run_in_child(
        "broadcasts_and_nested_yields_keep_outer_tasks_out_of_a_region",
        || {
            use hypersteal::prelude::*;
            for policy in Policy::all() {
                let pool = common::pool(policy, Topology::Complete, 3);
                let intruders = AtomicUsize::new(0);
                let outer = || {
                    if IN_REGION.with(|r| r.get()) {
                        intruders.fetch_add(1, Ordering::Relaxed);
                    }
                    std::hint::black_box(churn(9));
                };
                for _ in 0..5 {
                    pool.install(|| {
                        hypersteal::scope(|s| {
                            (0..32u64).into_par_iter().for_each(|i| {
                                for _ in 0..8 {
                                    s.spawn(|_| outer());
                                }
                                in_region(|| {
                                    let sums = hypersteal::broadcast(|_| {
                                        (0..500u64)
                                            .into_par_iter()
                                            .map(|j| churn(i + j) & 1)
                                            .sum::<u64>()
                                    });
                                    std::hint::black_box(sums);
                                    hypersteal::join(
                                        || {
                                            hypersteal::isolate(|| {
                                                for _ in 0..4 {
                                                    hypersteal::yield_now();
                                                }
                                            })
                                        },
                                        || std::hint::black_box(churn(1)),
                                    );
                                });
                            });
                        });
                    });
                }
                assert_eq!(
                    intruders.into_inner(),
                    0,
                    "{policy}: an outer task ran inside a region"
                );
                assert_balanced(&pool, &format!("{policy}"));
            }
        },
    );
}

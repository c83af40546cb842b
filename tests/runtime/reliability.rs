//! Regression tests for faults found by adversarial testing: each ran into a hang,
//! a use-after-free, a dead worker or an accepted value that misbehaved. Cases that could hang
//! run under a watchdog; cases that could abort or corrupt memory run in a child process.

use crate::common;

use common::*;
use hypersteal::{Policy, Scope, ThreadPool, ThreadPoolBuilder, Topology};
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

// ---------------------------------------------------------------------------------------------
// Fault 1: random trees of join / scope / sibling spawns / 'static spawns.

/// What a node of a random task tree does with its children.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Leaf,
    /// `join` of the first two children (the rest run inline after it).
    Join,
    /// A new scope; every child is a scope task.
    Scope,
    /// Inside a scope: spawn every child as a sibling, through the `&Scope` this task received.
    Siblings,
    /// Every child as a `'static` spawn into the pool.
    Static,
}

struct Tree {
    kind: Vec<Kind>,
    children: Vec<Vec<usize>>,
    /// Times each node ran: must end at exactly 1.
    runs: Vec<AtomicU8>,
    /// `'static` subtrees started but not finished.
    pending_static: AtomicUsize,
}

/// splitmix64: a deterministic stream for building trees from a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

impl Tree {
    /// A random tree of about `size` nodes, built breadth-first.
    fn random(seed: u64, size: usize) -> Tree {
        let mut rng = Rng(seed);
        let mut kind = vec![Kind::Scope];
        let mut children: Vec<Vec<usize>> = vec![Vec::new()];
        let mut next = 0;
        while next < kind.len() {
            let k = if next == 0 {
                Kind::Scope
            } else if kind.len() >= size {
                Kind::Leaf
            } else {
                match rng.below(10) {
                    0..=2 => Kind::Join,
                    3..=4 => Kind::Scope,
                    5..=6 => Kind::Siblings,
                    7 => Kind::Static,
                    _ => Kind::Leaf,
                }
            };
            kind[next] = k;
            let n = match k {
                Kind::Leaf => 0,
                Kind::Join => 2,
                _ => 1 + rng.below(4) as usize,
            };
            for _ in 0..n {
                children[next].push(kind.len());
                kind.push(Kind::Leaf);
                children.push(Vec::new());
            }
            next += 1;
        }
        let runs = (0..kind.len()).map(|_| AtomicU8::new(0)).collect();
        Tree {
            kind,
            children,
            runs,
            pending_static: AtomicUsize::new(0),
        }
    }

    /// Runs node `id`; `scope` is the scope it runs in as a task, if any.
    fn run<'s>(self: &Arc<Self>, id: usize, scope: Option<&Scope<'s>>) {
        self.runs[id].fetch_add(1, Ordering::Relaxed);
        let kids = &self.children[id];
        match (self.kind[id], scope) {
            (Kind::Leaf, _) => {}
            (Kind::Join, _) => {
                hypersteal::join(|| self.run(kids[0], None), || self.run(kids[1], None));
            }
            (Kind::Siblings, Some(s)) => {
                for &c in kids {
                    let tree = Arc::clone(self);
                    s.spawn(move |s2| tree.run(c, Some(s2)));
                }
            }
            (Kind::Scope | Kind::Siblings, _) => hypersteal::scope(|s| {
                for &c in kids {
                    let tree = Arc::clone(self);
                    s.spawn(move |s2| tree.run(c, Some(s2)));
                }
            }),
            (Kind::Static, _) => {
                for &c in kids {
                    let tree = Arc::clone(self);
                    tree.pending_static.fetch_add(1, Ordering::SeqCst);
                    hypersteal::spawn(move || {
                        tree.run(c, None);
                        tree.pending_static.fetch_sub(1, Ordering::SeqCst);
                    });
                }
            }
        }
    }
}

/// Runs a random tree in `pool` and checks that every node ran exactly once.
fn run_tree(pool: &ThreadPool, seed: u64, size: usize) -> Result<(), String> {
    let tree = Arc::new(Tree::random(seed, size));
    pool.install(|| tree.run(0, None));
    // 'static subtrees are not awaited by `install`: wait until they are done.
    let start = std::time::Instant::now();
    while tree.pending_static.load(Ordering::SeqCst) != 0 {
        if start.elapsed() > Duration::from_secs(30) {
            return Err(format!("seed {seed}: 'static subtrees never finished"));
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    for (id, r) in tree.runs.iter().enumerate() {
        let r = r.load(Ordering::Relaxed);
        if r != 1 {
            return Err(format!("seed {seed}: node {id} ran {r} times"));
        }
    }
    Ok(())
}

/// Fault 1: scope tasks that spawn siblings through the `&Scope` they received, inside random
/// trees, hung sender-initiated pools (the scope owner slept through a sibling joining the set
/// it waited for). Every seed must finish, and every node run exactly once.
#[test]
fn random_trees_with_sibling_spawns_finish_under_every_sender_policy() {
    for policy in ["random-alloc", "acwn", "gradient"] {
        run_trees(policy.parse().unwrap(), Topology::Hypercube, 0..24);
    }
}

/// The same random trees under every receiver-initiated policy (fewer seeds).
#[test]
fn random_trees_finish_under_every_receiver_policy() {
    for policy in Policy::all()
        .into_iter()
        .filter(|p| !p.is_sender_initiated())
    {
        run_trees(policy, Topology::Ring, 100..104);
    }
}

/// Runs the random trees of `seeds` (20,000 nodes each) on a 3-worker pool under a watchdog;
/// afterwards the pool is quiescent, so every task made available ran exactly once.
fn run_trees(policy: Policy, topology: Topology, seeds: std::ops::Range<u64>) {
    within(
        Duration::from_secs(240),
        &format!("{policy}: random trees"),
        move || {
            let pool = pool(policy, topology, 3);
            for seed in seeds {
                run_tree(&pool, seed, 20_000).unwrap();
            }
            assert_balanced(&pool, &policy.to_string());
        },
    );
}

/// Fault 1, made deterministic. The scope owner `O` is asleep, having found nothing to take
/// back; a task `T` of the scope, running on the other worker `W`, spawns a sibling `S` through
/// the `&Scope` it received and waits until `S` has run. ACWN with `low=0` decides every
/// placement here (2 workers, diameter 1, standing phase off):
///
/// - a dummy task `D`, spawned first, stays with `O` (both loads 0);
/// - `T` goes to `W` (`O` now holds `D`, so `W` is less loaded), and stays there (one hop is the
///   diameter);
/// - `S` stays with `W` (both loads 0), in the deque of a worker blocked in `T`.
///
/// So only `O` can run `S`, by taking it back or (once its rescue bound has passed) rescuing it
/// from `W`'s deque, and only if it learns that `S` exists: the spawner must wake it. Before the
/// fix `O` slept on and this hung.
#[test]
fn a_sleeping_scope_owner_runs_a_sibling_spawned_by_a_busy_task() {
    let policy: Policy = "acwn:low=0,high=1000000,interval=1000000".parse().unwrap();
    within(
        Duration::from_secs(60),
        "sibling spawned by a busy task",
        move || {
            let pool = pool(policy, Topology::Complete, 2);
            let busy_runs = AtomicUsize::new(0);
            // `O` may take `T` back before `W` wakes up to claim it; then nothing is tested, and
            // the scenario is tried again.
            for _ in 0..10 {
                pool.scope(|s| {
                    let owner = pool.current_thread_index();
                    let d_done = Arc::new(AtomicU8::new(0));
                    let done = Arc::clone(&d_done);
                    s.spawn(move |_| {
                        std::thread::sleep(Duration::from_millis(30));
                        done.store(1, Ordering::Release);
                    });
                    let (busy_runs, pool) = (&busy_runs, &pool);
                    s.spawn(move |s2| {
                        if pool.current_thread_index() == owner {
                            return;
                        }
                        busy_runs.fetch_add(1, Ordering::Relaxed);
                        // `O` runs `D`, then finds nothing and falls asleep.
                        while d_done.load(Ordering::Acquire) == 0 {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        std::thread::sleep(Duration::from_millis(50));
                        let ran = Arc::new(AtomicU8::new(0));
                        let flag = Arc::clone(&ran);
                        s2.spawn(move |_| flag.store(1, Ordering::Release));
                        while ran.load(Ordering::Acquire) == 0 {
                            std::thread::sleep(Duration::from_micros(200));
                        }
                    });
                });
                if busy_runs.load(Ordering::Relaxed) > 0 {
                    break;
                }
            }
            assert!(
                busy_runs.load(Ordering::Relaxed) > 0,
                "the task never ran away from the owner: the scenario was not exercised"
            );
            assert_balanced(&pool, &policy.to_string());
            let stats = pool.stats();
            // `O` reaches `S` either by taking it back (`reclaimed`) or, once its rescue bound
            // has passed, by rescuing it from `W`'s deque (`rescued`): either way it is counted.
            let total = stats.total();
            assert!(
                total.reclaimed + total.rescued >= 1,
                "the owner ran the sibling, but the statistics counted neither a reclaim nor a rescue: {total:?}"
            );
        },
    );
}

// ---------------------------------------------------------------------------------------------
// Faults 2 and 3: panic payloads whose destructor panics.

/// A panic payload whose `Drop` panics too.
struct Hostile;

impl Drop for Hostile {
    fn drop(&mut self) {
        // Even during an unwind, where this would abort the process: the runtime must drop
        // such payloads only where nothing else is unwinding, inside a catch.
        panic!("the payload's destructor panics");
    }
}

/// A `'static` closure that tells which worker of the pool runs it.
fn pool_index(_pool: &ThreadPool) -> impl Fn() -> usize {
    || hypersteal::current_thread_index().expect("runs on a worker")
}

fn quiet_panics() {
    // The default hook would print every one of the many panics below.
    std::panic::set_hook(Box::new(|_| {}));
}

/// Fault 2: one task panics, a second panics with a payload whose destructor panics, a third
/// runs long and writes into the scope's frame. The scope must not return before the third has
/// finished, and the first panic reaches the caller. (Before the fix the scope returned early
/// and the third task wrote into freed stack: a child process, so a corruption cannot take the
/// test runner with it.)
#[test]
fn scope_waits_for_every_task_whatever_a_panic_payload_does() {
    const NAME: &str = "scope_waits_for_every_task_whatever_a_panic_payload_does";
    if let Some(outcome) = in_child(NAME, Duration::from_secs(120), |_| {}) {
        assert_child_passed(NAME, &outcome);
        return;
    }
    quiet_panics();
    for policy in Policy::all() {
        for workers in [1, 2, 3] {
            let pool = pool(policy, Topology::Hypercube, workers);
            for round in 0..4 {
                let mut slot = [0u64; 8];
                let finished = AtomicUsize::new(0);
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    pool.scope(|s| {
                        let finished = &finished;
                        s.spawn(|_| {
                            std::thread::sleep(Duration::from_millis(20));
                            slot.iter_mut().for_each(|x| *x = 7);
                            finished.fetch_add(1, Ordering::SeqCst);
                        });
                        s.spawn(move |_| {
                            std::thread::sleep(Duration::from_millis(round));
                            std::panic::panic_any(Hostile)
                        });
                        s.spawn(|_| panic!("first"));
                    })
                }));
                let payload = result.expect_err("the scope resumes a panic");
                // Whichever panic came first is resumed; the other was dropped inside.
                let first = payload.downcast_ref::<&str>() == Some(&"first");
                if !first {
                    assert!(payload.is::<Hostile>(), "{policy}: an unexpected payload");
                    std::mem::forget(payload);
                }
                assert_eq!(
                    finished.load(Ordering::SeqCst),
                    1,
                    "{policy}, {workers} workers: the scope returned before its slow task ended"
                );
                assert_eq!(slot, [7; 8]);
            }
            // The pool still works.
            assert_eq!(pool.install(|| fib(12)), 144, "{policy}");
        }
    }
}

/// Fault 2's `join` form: both halves panic and `b`'s payload panics when dropped.
#[test]
fn join_drops_the_second_payload_safely() {
    const NAME: &str = "join_drops_the_second_payload_safely";
    if let Some(outcome) = in_child(NAME, Duration::from_secs(60), |_| {}) {
        assert_child_passed(NAME, &outcome);
        return;
    }
    quiet_panics();
    for policy in Policy::all() {
        let pool = pool(policy, Topology::Hypercube, 2);
        let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.join(
                || -> () { panic!("a") },
                || -> () { std::panic::panic_any(Hostile) },
            )
        }))
        .unwrap_err();
        assert_eq!(err.downcast_ref::<&str>(), Some(&"a"), "{policy}");
        assert_eq!(pool.install(|| fib(10)), 55);
    }
}

/// Fault 3: `'static` spawns that panic with a payload whose destructor panics, and a panic
/// handler that panics with one too. No worker may die: afterwards every worker still runs
/// tasks, the panics are counted, and dropping the pool does not hang. With stderr a closed
/// pipe, nothing the library does may panic either.
#[test]
fn spawn_panics_never_kill_a_worker() {
    const NAME: &str = "spawn_panics_never_kill_a_worker";
    let outcome = in_child(NAME, Duration::from_secs(60), |cmd| {
        cmd.stderr(std::process::Stdio::null());
    });
    if let Some(outcome) = outcome {
        assert_child_passed(NAME, &outcome);
        // And again with stderr a pipe whose reader is gone.
        let outcome = in_child(NAME, Duration::from_secs(60), |cmd| {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            cmd.stderr(writer);
        });
        if let Some(outcome) = outcome {
            assert_child_passed(NAME, &outcome);
        }
        return;
    }
    for with_handler in [false, true] {
        let workers = 3;
        let mut builder = ThreadPoolBuilder::new()
            .num_threads(workers)
            .pin_threads(false);
        if with_handler {
            builder = builder.panic_handler(|payload| {
                // Not dropped here (its destructor would panic first): the handler's own panic
                // carries another hostile payload.
                std::mem::forget(payload);
                std::panic::panic_any(Hostile);
            });
        }
        let pool = builder.build().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..30 {
            pool.spawn(|| std::panic::panic_any(Hostile));
            let tx = tx.clone();
            pool.spawn(move || tx.send(()).unwrap());
        }
        for _ in 0..30 {
            rx.recv_timeout(Duration::from_secs(20))
                .expect("tasks spawned after the panics run");
        }
        // Every worker is alive: a barrier only all of them together can pass.
        let barrier = Arc::new(std::sync::Barrier::new(workers));
        let seen = Arc::new(std::sync::Mutex::new(std::collections::BTreeSet::new()));
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        for _ in 0..workers {
            let (barrier, seen, done) = (barrier.clone(), seen.clone(), done_tx.clone());
            let index = pool_index(&pool);
            pool.spawn(move || {
                seen.lock().unwrap().insert(index());
                barrier.wait();
                done.send(()).unwrap();
            });
        }
        for _ in 0..workers {
            done_rx
                .recv_timeout(Duration::from_secs(20))
                .expect("every worker takes one barrier task");
        }
        assert_eq!(seen.lock().unwrap().len(), workers, "every worker answered");
        let stats = pool.stats();
        assert_eq!(stats.total().panics, 30, "the panics are counted");
        drop(pool);
    }
}

// ---------------------------------------------------------------------------------------------
// Fault 4: dropping a pool.

/// Dropping a pool inside a task of another pool, while the dropped pool's queued task calls
/// back into that other pool, whose only worker is the one dropping: dropping must not block.
#[test]
fn dropping_a_pool_inside_another_pools_task_does_not_deadlock() {
    within(Duration::from_secs(60), "drop inside a task", || {
        let outer = Arc::new(
            ThreadPoolBuilder::new()
                .num_threads(1)
                .pin_threads(false)
                .build()
                .unwrap(),
        );
        let (tx, rx) = std::sync::mpsc::channel();
        outer.install(|| {
            let inner = ThreadPoolBuilder::new()
                .num_threads(1)
                .pin_threads(false)
                .build()
                .unwrap();
            let (outer2, tx) = (Arc::clone(&outer), tx.clone());
            inner.spawn(move || {
                // Needs `outer`'s only worker, busy dropping `inner` right now.
                let v = outer2.install(|| 40 + 2);
                tx.send(v).unwrap();
            });
            drop(inner);
        });
        assert_eq!(rx.recv_timeout(Duration::from_secs(30)), Ok(42));
    });
}

/// Dropping a pool while a spawned task waits for a message that is only sent after the drop:
/// the drop returns at once, and the task still runs to the end.
#[test]
fn a_pool_dropped_while_a_task_waits_finishes_that_task() {
    within(Duration::from_secs(60), "drop while a task waits", || {
        for policy in Policy::all() {
            let (to_task, task_rx) = std::sync::mpsc::channel::<u32>();
            let (from_task, rx) = std::sync::mpsc::channel::<u32>();
            {
                let pool = pool(policy, Topology::Hypercube, 2);
                pool.spawn(move || {
                    let v = task_rx.recv().unwrap();
                    // And work spawned after the drop is not lost either.
                    hypersteal::spawn(move || from_task.send(v + 1).unwrap());
                });
            }
            to_task.send(41).unwrap();
            assert_eq!(rx.recv_timeout(Duration::from_secs(20)), Ok(42), "{policy}");
        }
    });
}

/// `shutdown` is the blocking form: when it returns every queued task ran and the workers are
/// gone (their threads no longer exist).
#[test]
fn shutdown_waits_for_queued_work_and_the_threads() {
    within(Duration::from_secs(60), "shutdown", || {
        for policy in Policy::all() {
            let pool = ThreadPoolBuilder::new()
                .num_threads(3)
                .policy(policy)
                .pin_threads(false)
                .thread_name(|i| format!("shutdown-check-{i}"))
                .build()
                .unwrap();
            let done = Arc::new(AtomicUsize::new(0));
            for _ in 0..50 {
                let done = Arc::clone(&done);
                pool.spawn(move || {
                    std::thread::sleep(Duration::from_micros(300));
                    done.fetch_add(1, Ordering::SeqCst);
                });
            }
            pool.shutdown();
            assert_eq!(done.load(Ordering::SeqCst), 50, "{policy}");
            // A joined thread may linger in /proc for a moment after its joiner woke.
            let start = std::time::Instant::now();
            while threads_named("shutdown-check") != 0 {
                assert!(
                    start.elapsed() < Duration::from_secs(5),
                    "{policy}: threads left after shutdown"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
        }
    });
}

/// `shutdown` from one of the pool's own workers cannot wait for itself: a panic that says so.
#[test]
fn shutdown_from_inside_the_pool_is_refused() {
    within(Duration::from_secs(30), "shutdown inside", || {
        let pool = Arc::new(pool(Policy::default(), Topology::Hypercube, 2));
        let (tx, rx) = std::sync::mpsc::channel();
        let inner = Arc::clone(&pool);
        pool.spawn(move || {
            // Wait until the test dropped its handle, so this task holds the last one.
            while Arc::strong_count(&inner) > 1 {
                std::thread::sleep(Duration::from_millis(1));
            }
            let pool = Arc::try_unwrap(inner).unwrap_or_else(|_| panic!("not the last handle"));
            let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pool.shutdown()));
            tx.send(err.is_err()).unwrap();
        });
        drop(pool);
        assert_eq!(rx.recv_timeout(Duration::from_secs(20)), Ok(true));
    });
}

//! Sender-initiated placement: hop limits and the behaviour the papers report, over stats.

use crate::common;

use common::*;
use hypersteal::{Policy, Topology};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Runs fib(n), a join at every call, on `pool` until some task has been placed, checking
/// every result; gives up after ten seconds (the assertions after it then fail). A decision
/// waits for a hungry worker: while nobody is hungry a busy worker runs its joins in place and
/// its heartbeat pauses (`src/worker/in_place.rs`), and an idle worker counts as hungry only
/// after its first search rounds. On a machine busier than the pool (more threads than cores)
/// the idle workers may get no CPU time for those rounds during a short run, which then places
/// nothing, run after run (seen with `gradient` beside busy processes on two cores); the pause
/// between runs lets them reach their linger.
fn fib_until_placed(pool: &hypersteal::ThreadPool, n: u64, what: &str) {
    let start = std::time::Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        assert_eq!(pool.install(|| fib(n)), fib_iter(n), "{what}");
        if pool.stats().total().placed_out > 0 {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn acwn_never_moves_a_task_further_than_the_diameter() {
    for topology in Topology::ALL {
        for workers in [2, 3, 5, 8] {
            let pool = pool(
                "acwn:low=4,high=64,interval=1".parse().unwrap(),
                topology,
                workers,
            );
            fib_until_placed(&pool, 22, &format!("{topology} {workers}"));
            let stats = pool.stats().total();
            let d = pool.graph().diameter() as u64;
            assert!(
                stats.placed_out > 0,
                "{topology} {workers}: acwn placed work"
            );
            assert!(
                stats.max_hops <= d,
                "{topology} {workers}: {} hops > d = {d}",
                stats.max_hops
            );
            assert_balanced(&pool, "acwn");
        }
    }
}

#[test]
fn placements_are_received_exactly_once() {
    for policy in ["acwn", "gradient:interval=1", "random-alloc"] {
        let policy: Policy = policy.parse().unwrap();
        let pool = pool(policy, Topology::Hypercube, 4);
        fib_until_placed(&pool, 20, &policy.to_string());
        let total = pool.stats().total();
        // A placed task either arrives or is taken back by its waiting creator before it does.
        assert!(total.placed_in <= total.placed_out, "{policy}: {total:?}");
        assert!(total.placed_out > 0, "{policy}: work was placed");
        assert_eq!(
            total.requests, 0,
            "{policy}: pure sender-initiated policies never steal"
        );
        assert_balanced(&pool, &policy.to_string());
    }
}

/// fib(n) as Charm's chares compute it: every call is a task that creates its two children and
/// nobody blocks waiting for a particular child (the scope waits for all of them at the end).
/// Each chare also works for `grain` (a busy wait), as the papers' chares did.
fn fib_chares(n: u64, grain: Duration) -> u64 {
    fn chare<'s>(s: &hypersteal::Scope<'s>, n: u64, sum: &'s AtomicU64, grain: Duration) {
        spin_for(grain);
        if n < 2 {
            sum.fetch_add(n, Ordering::Relaxed);
        } else {
            s.spawn(move |s| chare(s, n - 1, sum, grain));
            s.spawn(move |s| chare(s, n - 2, sum, grain));
        }
    }
    let sum = AtomicU64::new(0);
    hypersteal::scope(|s| chare(s, n, &sum, grain));
    sum.into_inner()
}

#[test]
fn random_allocation_spreads_tasks_and_acwn_keeps_them_local() {
    // The papers' observation (seed 000, Figure 9) on fib without cutoff, 4 workers, hypercube,
    // chares of 0.2 ms (the papers' grain): randomized allocation runs most tasks away from
    // their creator (locality near 1/P), ACWN keeps most of them where they were created. The
    // heartbeat (20 µs) is far shorter than a chare, so every chare is decided.
    let run = |policy: &str| {
        let pool = pool(policy.parse().unwrap(), Topology::Hypercube, 4);
        let grain = Duration::from_micros(200);
        assert_eq!(pool.install(|| fib_chares(15, grain)), fib_iter(15));
        assert_balanced(&pool, policy);
        pool.stats().total()
    };
    let random = run("random-alloc");
    let acwn = run("acwn");
    eprintln!(
        "locality: random-alloc {:.2}, acwn {:.2}",
        random.locality(),
        acwn.locality()
    );
    let p = 4.0;
    assert!(
        (random.locality() - 1.0 / p).abs() < 0.1,
        "random-alloc locality {} should be near 1/P: {random:?}",
        random.locality()
    );
    assert!(random.placed_out > random.executed / 2);
    assert!(acwn.placed_out > 0, "acwn placed work");
    assert!(
        acwn.locality() > random.locality() + 0.3,
        "acwn locality {} well above random-alloc's {}",
        acwn.locality(),
        random.locality()
    );
}

#[test]
fn join_based_fib_under_every_sender_policy_keeps_stacks_bounded() {
    // Joins whose `b` is placed elsewhere make the waiting creator run other tasks on top of its
    // stack; past a nesting bound it takes back its own unstarted `b` instead. fib(27) at join
    // granularity would overflow the default 2 MiB stacks without that bound.
    for policy in ["random-alloc", "acwn", "gradient:interval=1,high=1"] {
        let pool = pool(policy.parse().unwrap(), Topology::Hypercube, 4);
        assert_eq!(pool.install(|| fib(27)), fib_iter(27), "{policy}");
        assert_balanced(&pool, policy);
    }
}

#[test]
fn sender_policy_names_and_parameters() {
    let p: Policy = "acwn:low=3,high=9,interval=32".parse().unwrap();
    assert_eq!(
        p,
        Policy::Acwn {
            low: 3,
            high: 9,
            interval: 32
        }
    );
    assert_eq!(p.to_string(), "acwn:low=3,high=9,interval=32");
    assert_eq!(
        "acwn".parse::<Policy>().unwrap(),
        Policy::Acwn {
            low: 2,
            high: 8,
            interval: 16
        }
    );
    assert!(p.is_sender_initiated() && !Policy::RandomPolling.is_sender_initiated());
    let e = "gradient:low=5,high=2"
        .parse::<Policy>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("low=5") && e.contains("high=2"), "{e}");
    let e = "acwn:interval=0".parse::<Policy>().unwrap_err().to_string();
    assert!(
        e.contains("interval=0") && e.contains("1 to 1000000"),
        "{e}"
    );
    let e = "random-alloc:low=1"
        .parse::<Policy>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("takes no parameters"), "{e}");
}

#[test]
fn tasks_a_policy_keeps_are_taken_back_from_the_standing_queue() {
    // `gradient` whose high water mark nobody reaches never moves a task, and the other worker
    // stays hungry, so every `b` and every spawn the allocating phase decides is kept: it waits
    // in its creator's standing queue, off the private stack. A `join` whose `b` was kept takes
    // it back from there, after running the spawns its `a` queued above it. Every closure must
    // run exactly once, nothing may be placed, and the books must balance.
    within(Duration::from_secs(120), "kept tasks", || {
        fn tree<'s>(
            s: &hypersteal::Scope<'s>,
            depth: u32,
            leaves: &'s AtomicU64,
            spawns: &'s AtomicU64,
        ) {
            if depth == 0 {
                leaves.fetch_add(1, Ordering::Relaxed);
                return;
            }
            hypersteal::join(
                || {
                    // Heartbeats pass, so the `b` just pushed is decided (and kept) at the next
                    // poll point, and the spawn below lands above it.
                    spin_for(Duration::from_micros(30));
                    s.spawn(move |_| {
                        spawns.fetch_add(1, Ordering::Relaxed);
                    });
                    tree(s, depth - 1, leaves, spawns)
                },
                || tree(s, depth - 1, leaves, spawns),
            );
        }
        let policy: Policy = "gradient:high=1000000".parse().unwrap();
        for workers in [2, 3] {
            let pool = pool(policy, Topology::Hypercube, workers);
            for _ in 0..3 {
                let (leaves, spawns) = (AtomicU64::new(0), AtomicU64::new(0));
                pool.install(|| hypersteal::scope(|s| tree(s, 8, &leaves, &spawns)));
                assert_eq!(
                    leaves.into_inner(),
                    1 << 8,
                    "{workers} workers: every leaf once"
                );
                assert_eq!(
                    spawns.into_inner(),
                    (1 << 8) - 1,
                    "{workers} workers: every spawn once"
                );
            }
            let total = pool.stats().total();
            assert_eq!(
                total.placed_out, 0,
                "{workers} workers: nothing moves: {total:?}"
            );
            assert_balanced(&pool, &format!("kept tasks, {workers} workers"));
        }
    });
}

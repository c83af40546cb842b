//! Loom models of the request/answer and promotion protocols (`README.md` beside this file,
//! `docs/loom.md`), on a real two-worker pool.

use super::WorkerThread;
use crate::sync::loom_check::{model, model_preempting, pool};
use crate::sync::{Arc, AtomicUsize, Ordering};

/// Worker 0 runs `join(a, b)`; both workers start idle, so `b` is promoted at once (the demand
/// signal) and worker 1 takes it. While worker 1 runs `b` (until `a2` lets it finish), `a` runs
/// `join(a2, b2)` with two poll points inside `a2`: `b2` is pushed while nobody is idle, so it
/// stays private and can reach worker 1 only through a request and its answer. `b2` is popped
/// back or answered to a request, exactly once in every case, and both `join`s return their
/// results.
fn request_and_answer() {
    let pool = pool(2);
    let runs = Arc::new(AtomicUsize::new(0));
    let (started, go) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (b_started, b_go) = (started.clone(), go.clone());
    let b2_runs = runs.clone();
    let (a, b) = pool.install(move || {
        crate::join(
            || {
                while started.load(Ordering::Acquire) == 0 {
                    crate::sync::yield_now();
                }
                crate::join(
                    || {
                        go.store(1, Ordering::Release);
                        // SAFETY: `a2` runs on the worker that called `join`, which outlives it.
                        let worker = unsafe { &*WorkerThread::current() };
                        worker.poll();
                        worker.poll();
                        1u32
                    },
                    || {
                        b2_runs.fetch_add(1, Ordering::Relaxed);
                        3u32
                    },
                )
            },
            || {
                b_started.store(1, Ordering::Release);
                while b_go.load(Ordering::Acquire) == 0 {
                    crate::sync::yield_now();
                }
                2u32
            },
        )
    });
    assert_eq!((a, b), ((1, 3), 2));
    pool.shutdown();
    assert_eq!(runs.load(Ordering::Relaxed), 1, "`b2` ran exactly once");
}

#[test]
fn request_answer_hands_over_once() {
    // Three preemptions: worker 1 must take the promoted `b`, then ask for `b2`, give up and
    // race the answer; with two, a withdrawal by plain store (`Broken::Withdraw`) is not
    // found. The largest model: 855,351 executions (`.ci/loom` prints the count).
    model_preempting(3, request_and_answer);
}

/// An answer published with a Relaxed store: the thief reads the slot without seeing the
/// victim's write.
#[test]
fn request_answer_relaxed_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, CAUSALITY};
    use crate::sync::Broken;
    assert_rejected(
        Broken::Answer,
        "worker::loom_tests::request_answer_hands_over_once",
        &[CAUSALITY],
    );
}

/// A withdrawal by plain store cannot tell that the victim claimed the request: the victim's
/// answer, `b2`, is never read, and `join` waits for it forever.
#[test]
fn request_answer_withdraw_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK};
    use crate::sync::Broken;
    assert_rejected(
        Broken::Withdraw,
        "worker::loom_tests::request_answer_hands_over_once",
        &[DEADLOCK, "exactly once"],
    );
}

/// Blocking by plain store overwrites a request posted meanwhile: its thief waits for an answer
/// nobody will give.
#[test]
fn request_answer_block_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK, SPINS};
    use crate::sync::Broken;
    assert_rejected(
        Broken::Block,
        "worker::loom_tests::request_answer_hands_over_once",
        &[DEADLOCK, SPINS],
    );
}

/// Worker 0 promotes `b` and then waits, inside `a`, until `b` has run: only worker 1 can run
/// it, so the promotion must reach worker 1 whether it is searching or asleep.
fn promotion_reaches_a_sleeper() {
    let pool = pool(2);
    let done = Arc::new(AtomicUsize::new(0));
    let b_done = done.clone();
    pool.install(move || {
        crate::join(
            || {
                // SAFETY: `a` runs on the worker that called `join`, which outlives it.
                let worker = unsafe { &*WorkerThread::current() };
                worker.promote();
                while done.load(Ordering::Acquire) == 0 {
                    crate::sync::yield_now();
                }
            },
            || b_done.store(1, Ordering::Release),
        );
    });
    pool.shutdown();
}

#[test]
fn promotion_wakes_a_sleeper() {
    model(promotion_reaches_a_sleeper);
}

/// A promotion that wakes nobody leaves the task in the deque of a worker that spins, while the
/// only worker that could take it sleeps.
#[test]
fn promotion_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK, SPINS};
    use crate::sync::Broken;
    assert_rejected(
        Broken::Promote,
        "worker::loom_tests::promotion_wakes_a_sleeper",
        &[DEADLOCK, SPINS],
    );
}

/// Worker 0 runs `join(a, o)` and, inside `a`, an isolated region (`isolated.rs`) that runs
/// `join(a2, r)`. Both workers start idle, so `o` (a task from outside the region) may be
/// promoted at once and `r` handed to worker 1 through its request, leaving worker 0 to wait for
/// `r` with `o` on its own deque. The isolated waiter must not run `o` while in the region (a
/// flag set only by worker 0 inside it, read by `o`), and must still end: `r`'s latch wakes it.
/// Both tasks run exactly once.
fn isolated_wait() {
    use crate::sync::AtomicBool;
    let pool = pool(2);
    let in_region = Arc::new(AtomicBool::new(false));
    let violated = Arc::new(AtomicBool::new(false));
    let runs = Arc::new(AtomicUsize::new(0));
    let (flag, seen, o_runs) = (in_region.clone(), violated.clone(), runs.clone());
    let r_runs = runs.clone();
    pool.install(move || {
        let me = crate::current_thread_index();
        crate::join(
            || {
                crate::isolate(|| {
                    in_region.store(true, Ordering::Relaxed);
                    let ((), r) = crate::join(
                        || (),
                        || {
                            r_runs.fetch_add(1, Ordering::Relaxed);
                            1u32
                        },
                    );
                    assert_eq!(r, 1);
                    in_region.store(false, Ordering::Relaxed);
                })
            },
            || {
                // Only worker 0 writes the flag, so on its thread it is exact.
                if crate::current_thread_index() == me && flag.load(Ordering::Relaxed) {
                    seen.store(true, Ordering::Relaxed);
                }
                o_runs.fetch_add(1, Ordering::Relaxed);
            },
        )
    });
    pool.shutdown();
    assert_eq!(
        runs.load(Ordering::Relaxed),
        2,
        "each task ran exactly once"
    );
    assert!(
        !violated.load(Ordering::Relaxed),
        "an outer task ran inside the isolated region"
    );
}

#[test]
fn an_isolated_wait_runs_only_its_region() {
    model(isolated_wait);
}

/// A waiter that waits as if outside every region pops `o` from its deque while `r` runs on
/// the other worker.
#[test]
fn an_isolated_wait_rejects_broken_variant() {
    use crate::sync::loom_check::assert_rejected;
    use crate::sync::Broken;
    assert_rejected(
        Broken::Isolate,
        "worker::loom_tests::an_isolated_wait_runs_only_its_region",
        &["an outer task ran inside the isolated region"],
    );
}

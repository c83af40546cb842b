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
    // found. About half a million executions, a minute.
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

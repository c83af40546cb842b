//! Loom models of the request/answer and promotion protocols (`README.md` beside this file,
//! `docs/loom.md`), on a real two-worker pool.

use super::WorkerThread;
use crate::sync::loom_check::{model, pool};
use crate::sync::{Arc, AtomicUsize, Ordering};

/// Worker 0 runs `join(a, b)` with two poll points inside `a`; worker 1 is idle and asks it for
/// work. `b` is popped back, answered to a request, or promoted and stolen: exactly once in
/// every case, and `join` returns its result.
fn request_and_answer() {
    let pool = pool(2);
    let runs = Arc::new(AtomicUsize::new(0));
    let b_runs = runs.clone();
    let (a, b) = pool.install(move || {
        crate::join(
            || {
                // SAFETY: `a` runs on the worker that called `join`, which outlives it.
                let worker = unsafe { &*WorkerThread::current() };
                worker.poll();
                worker.poll();
                1u32
            },
            || {
                b_runs.fetch_add(1, Ordering::Relaxed);
                2u32
            },
        )
    });
    assert_eq!((a, b), (1, 2));
    pool.shutdown();
    assert_eq!(runs.load(Ordering::Relaxed), 1, "`b` ran exactly once");
}

#[test]
#[cfg_attr(
    any(
        feature = "loom-broken-answer",
        feature = "loom-broken-withdraw",
        feature = "loom-broken-block"
    ),
    ignore = "broken variant on"
)]
fn request_answer_hands_over_once() {
    model(request_and_answer);
}

/// An answer published with a Relaxed store: the thief reads the slot without seeing the
/// victim's write.
#[test]
#[cfg(feature = "loom-broken-answer")]
fn request_answer_relaxed_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, CAUSALITY};
    assert_rejected(
        "worker::loom_tests::request_answer_hands_over_once",
        &[CAUSALITY],
    );
}

/// A withdrawal by plain store cannot tell that the victim claimed the request: the victim's
/// answer, `b`, is never read, and `join` waits for it forever.
#[test]
#[cfg(feature = "loom-broken-withdraw")]
fn request_answer_withdraw_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK};
    assert_rejected(
        "worker::loom_tests::request_answer_hands_over_once",
        &[DEADLOCK, "ran exactly once"],
    );
}

/// Blocking by plain store overwrites a request posted meanwhile: its thief waits for an answer
/// nobody will give.
#[test]
#[cfg(feature = "loom-broken-block")]
fn request_answer_block_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK, SPINS};
    assert_rejected(
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
#[cfg_attr(feature = "loom-broken-promote", ignore = "broken variant on")]
fn promotion_wakes_a_sleeper() {
    model(promotion_reaches_a_sleeper);
}

/// A promotion that wakes nobody leaves the task in the deque of a worker that spins, while the
/// only worker that could take it sleeps.
#[test]
#[cfg(feature = "loom-broken-promote")]
fn promotion_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK, SPINS};
    assert_rejected(
        "worker::loom_tests::promotion_wakes_a_sleeper",
        &[DEADLOCK, SPINS],
    );
}

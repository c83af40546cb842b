//! Loom model of `join` on a real two-worker pool (`docs/loom.md`): `b` is either popped back
//! by the worker running `join` or stolen by the other worker, and runs exactly once either way.

use crate::sync::loom_check::{model, pool};
use crate::sync::{Arc, AtomicUsize, Ordering};

fn join_two_workers() {
    let pool = pool(2);
    let runs = Arc::new(AtomicUsize::new(0));
    let b_runs = runs.clone();
    let (a, b) = pool.install(move || {
        let (a, b) = crate::join(
            || 1u32,
            || {
                b_runs.fetch_add(1, Ordering::Relaxed);
                2u32
            },
        );
        // Read while `join`'s frame has just returned: `b` must have finished by now.
        (a, (b, b_runs.load(Ordering::Relaxed)))
    });
    assert_eq!(a, 1);
    assert_eq!(b, (2, 1), "`b` ran exactly once, before `join` returned");
    pool.shutdown();
    assert_eq!(runs.load(Ordering::Relaxed), 1, "`b` ran exactly once");
}

#[test]
fn join_b_runs_once() {
    model(join_two_workers);
}

/// Returning without waiting for a stolen `b` reads its result before it is written.
#[test]
fn join_b_runs_once_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, CAUSALITY};
    use crate::sync::Broken;
    assert_rejected(
        Broken::Join,
        "join::loom_tests::join_b_runs_once",
        &[
            CAUSALITY,
            "job result read before the job ran",
            "ran exactly once",
        ],
    );
}

//! Loom model of pool shutdown (`docs/loom.md`): a real two-worker [`ThreadPool`] is shut down
//! while a spawned task may still be queued; `shutdown` must run it and join every worker (a
//! worker that never exits is a deadlock of the joining thread).

use crate::sync::loom_check::{model, pool};
use crate::sync::{Arc, AtomicUsize, Ordering};

fn drop_with_queued_work() {
    let pool = pool(2);
    let runs = Arc::new(AtomicUsize::new(0));
    let task_runs = runs.clone();
    pool.spawn(move || {
        task_runs.fetch_add(1, Ordering::Relaxed);
    });
    pool.shutdown();
    assert_eq!(
        runs.load(Ordering::Relaxed),
        1,
        "queued work ran before the pool's threads were joined"
    );
}

#[test]
fn shutdown_runs_queued_work() {
    model(drop_with_queued_work);
}

/// Workers that exit as soon as termination is asked leave the queued task unrun.
#[test]
fn shutdown_runs_queued_work_rejects_broken_variant() {
    use crate::sync::loom_check::assert_rejected;
    use crate::sync::Broken;
    assert_rejected(
        Broken::Shutdown,
        "pool::loom_tests::shutdown_runs_queued_work",
        &["queued work ran", "leaked"],
    );
}

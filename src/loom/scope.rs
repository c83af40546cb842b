//! Loom model of a scope whose waited-for set grows while its owner waits (`docs/loom.md`,
//! `docs/sender.md`, "Deadlock freedom"). Under a sender-initiated policy the owner of a scope
//! takes back unstarted tasks of the scope instead of sleeping while they sit in a queue nobody
//! else drains. A task running elsewhere may add a sibling at any moment; the owner must either
//! see it in its sleep re-check or be woken by the spawner. The spawner here is a plain loom
//! thread standing in for a scope task on another worker, and the sibling's ticket sits in no
//! queue at all, so only the owner can run it: a lost wake-up is a deadlock.

use super::ScopeBase;
use crate::job::{HeapJob, Ticket};
use crate::sync::loom_check::{model, pool, SendPtr};
use crate::sync::{AtomicUsize, Ordering};
use crate::worker::WorkerThread;

fn late_sibling() {
    let pool = pool(1);
    let ran = pool.install(|| {
        // SAFETY: inside `install`, on a worker whose `WorkerThread` outlives this job.
        let owner = unsafe { &*WorkerThread::current() };
        let scope = ScopeBase::new(Some(owner), &owner.registry);
        let runs = AtomicUsize::new(0);
        // The sibling is counted before anyone can wait for it, as `Scope::spawn` does.
        scope.latch.increment();
        let (scope_ptr, runs_ptr) = (SendPtr(&scope), SendPtr(&runs));
        let spawner = loom::thread::spawn(move || {
            let (scope_ptr, runs_ptr) = (scope_ptr, runs_ptr);
            // SAFETY: the owner waits for the scope's latch, which counts this sibling, before
            // the scope or the counter go away.
            let scope = unsafe { &*scope_ptr.0 };
            let (runs, scope_for_task) = (SendPtr(runs_ptr.0), SendPtr(scope_ptr.0));
            let task = HeapJob::new(move || {
                let (runs, scope_ptr) = (runs, scope_for_task);
                // SAFETY: as above.
                unsafe { &*scope_ptr.0 }.run_task(|| {
                    // SAFETY: as above.
                    unsafe { &*runs.0 }.fetch_add(1, Ordering::Relaxed);
                });
            });
            // SAFETY: the job borrows only what outlives the scope's wait.
            let ticket = Ticket::new(unsafe { task.into_job_ref(1) });
            scope.track_placed(ticket);
        });
        // The scope's own body, then the owner's wait as in `Scope::complete` under a
        // sender-initiated policy.
        scope.run_task(|| {});
        owner.wait_reclaiming(&scope.latch, &scope);
        spawner.join().unwrap();
        runs.load(Ordering::Relaxed)
    });
    assert_eq!(ran, 1, "the late sibling ran exactly once");
    pool.shutdown();
}

#[test]
fn scope_owner_sees_a_late_sibling() {
    model(late_sibling);
}

/// A spawner that does not tell the owner leaves it asleep with the sibling unrun.
#[test]
fn scope_owner_sees_a_late_sibling_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK};
    use crate::sync::Broken;
    assert_rejected(
        Broken::Scope,
        "scope::loom_tests::scope_owner_sees_a_late_sibling",
        &[DEADLOCK],
    );
}

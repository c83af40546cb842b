//! Loom model of the ticket take-back race (`docs/loom.md`, `docs/sender.md`): under a
//! sender-initiated policy an awaited task travels as a [`Ticket`]; a thief that took the
//! ticket's `JobRef` from a deque or an inbox redeems it (as `WorkerThread::execute` does) while
//! the task's creator, done waiting, tries to take it back (as `WorkerThread::reclaim` does).
//! Exactly one of them may run the task. The model drives the real `Ticket` directly, with a
//! counting job standing in for the task, rather than two pools' worker loops: the claim is the
//! whole race, and the loops around it are covered by the other models.

use super::{Job, JobHeader, JobRef, Ticket};
use crate::sync::{Arc, AtomicUsize, Ordering};

/// A job that only counts its executions (it owns nothing, so running it twice is observable
/// rather than a double free).
#[repr(C)]
struct Counted {
    header: JobHeader,
    runs: AtomicUsize,
}

impl Job for Counted {
    unsafe fn execute(this: *const ()) {
        // SAFETY: `this` points to a `Counted` the model keeps alive until every thread is joined.
        unsafe { &*this.cast::<Counted>() }
            .runs
            .fetch_add(1, Ordering::Relaxed);
    }
}

fn thief_and_creator_race() {
    let task = Arc::new(Counted {
        header: JobHeader::new(false, false),
        runs: AtomicUsize::new(0),
    });
    // SAFETY: `Counted` is `repr(C)` with its header first, and `task` outlives every use below.
    let inner = unsafe { JobRef::new(Arc::as_ptr(&task), 0) };
    let ticket = Ticket::new(inner);
    let queued = Ticket::job_ref(&ticket);
    let thief = loom::thread::spawn(move || {
        // SAFETY: the queued ticket `JobRef` is consumed here, once. (`None`: the creator took
        // the task back.)
        if let Some(job) = unsafe { Ticket::redeem(queued) } {
            // SAFETY: the claim makes this the only execution of the task.
            unsafe { job.execute() }
        }
    });
    let taken_back = match ticket.take() {
        Some(job) => {
            // SAFETY: as above.
            unsafe { job.execute() };
            true
        }
        None => false,
    };
    thief.join().unwrap();
    assert_eq!(
        task.runs.load(Ordering::Relaxed),
        1,
        "the task ran exactly once (taken back: {taken_back})"
    );
    assert!(ticket.claimed.load(Ordering::Relaxed));
}

#[test]
fn ticket_runs_once() {
    crate::sync::loom_check::model(thief_and_creator_race);
}

/// A claim that checks and sets in two steps lets both the thief and the creator run the task.
#[test]
fn ticket_runs_once_rejects_broken_variant() {
    crate::sync::loom_check::assert_rejected(
        crate::sync::Broken::Ticket,
        "job::loom_tests::ticket_runs_once",
        &["the task ran exactly once"],
    );
}

//! Loom model of the ticket take-back race (`docs/loom.md`, `docs/sender.md`): under a
//! sender-initiated policy an awaited task travels as a [`Ticket`]; a thief that took the
//! ticket's `JobRef` from a deque or an inbox redeems it (as `WorkerThread::execute` does) while
//! the task's creator, done waiting, tries to take it back (as `WorkerThread::reclaim` does).
//! Exactly one of them may run the task. The model drives the real `Ticket` directly, with a
//! counting job standing in for the task, rather than two pools' worker loops: the claim is the
//! whole race, and the loops around it are covered by the other models.
//!
//! The second model adds the exposed copy (`docs/sender.md`, "Rescue"): a task its worker keeps
//! while another is hungry has its ticket in the worker's own queue and a copy in the public
//! deque. The worker pops the original, a rescuer steals the copy, and the creator's frame
//! tries to take the task back, all at once: one of the three runs it, the others drop what they
//! hold, and every reference to the ticket is given back.

use super::{Job, JobHeader, JobRef, Ticket, EXTERNAL};
use crate::sync::{Arc, AtomicUsize, Ordering};

/// A job that only counts its executions (it owns nothing, so running it twice is observable
/// rather than a double free).
#[repr(C)]
struct Counted {
    header: JobHeader,
    runs: AtomicUsize,
}

impl Job for Counted {
    unsafe fn execute(this: *const (), _here: u32) {
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
            unsafe { job.execute(EXTERNAL) }
        }
    });
    let taken_back = match ticket.take() {
        Some(job) => {
            // SAFETY: as above.
            unsafe { job.execute(EXTERNAL) };
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

fn exposed_copy_race() {
    let task = Arc::new(Counted {
        header: JobHeader::new(false, false),
        runs: AtomicUsize::new(0),
    });
    // SAFETY: as in `thief_and_creator_race`.
    let inner = unsafe { JobRef::new(Arc::as_ptr(&task), 0) };
    let ticket = Ticket::new(inner);
    let original = Ticket::job_ref(&ticket);
    // SAFETY: `original` is a ticket JobRef that still owns its reference.
    let copy = unsafe { Ticket::copy_ref(&original) };
    // Whoever takes a queued ticket does what `WorkerThread` does with it: drop it if it is a
    // husk, otherwise execute it (which redeems it and runs the task if that claims it).
    let run_queued = |job: JobRef| {
        // SAFETY: each queued JobRef is taken by exactly one thread below, and consumed once.
        if let Some(job) = unsafe { Ticket::unless_husk(job) } {
            // SAFETY: a ticket JobRef runs its task only if this claims it.
            unsafe { job.execute(EXTERNAL) }
        }
    };
    let rescuer = loom::thread::spawn(move || run_queued(copy));
    let owner = loom::thread::spawn(move || run_queued(original));
    let taken_back = ticket.take().map(|job| {
        // SAFETY: the claim makes this the only execution of the task.
        unsafe { job.execute(EXTERNAL) }
    });
    rescuer.join().unwrap();
    owner.join().unwrap();
    assert_eq!(
        task.runs.load(Ordering::Relaxed),
        1,
        "the exposed task ran exactly once (taken back: {})",
        taken_back.is_some()
    );
    assert_eq!(
        std::sync::Arc::strong_count(&ticket),
        1,
        "every queued reference to the ticket was given back"
    );
}

#[test]
fn exposed_copy_runs_once() {
    crate::sync::loom_check::model(exposed_copy_race);
}

/// With the two-step claim, two of the three holders can run the exposed task.
#[test]
fn exposed_copy_runs_once_rejects_broken_variant() {
    crate::sync::loom_check::assert_rejected(
        crate::sync::Broken::Ticket,
        "job::loom_tests::exposed_copy_runs_once",
        &["the exposed task ran exactly once"],
    );
}

//! Loom models of the latches `join` and `scope` wait on (`docs/loom.md`). A one-worker pool
//! (real registry, real worker loop and sleep) waits on a real latch; a plain loom thread sets
//! it. The install that runs the model also exercises the `LockLatch` of `install`.

use super::{CountLatch, SpinLatch};
use crate::job::{StackJob, EXTERNAL};
use crate::sync::loom_check::{model, pool, SendPtr};
use crate::sync::UnsafeCell;
use crate::worker::WorkerThread;

/// The current worker (the model runs inside `install`).
fn current_worker<'a>() -> &'a WorkerThread {
    // SAFETY: called only inside `install`, on a worker thread whose `WorkerThread` lives on its
    // stack for longer than the job that calls this.
    unsafe { &*WorkerThread::current() }
}

/// `join`'s latch: a worker waits (running its loop, then sleeping) for a `StackJob` another
/// thread executes. It must wake (else loom reports a deadlock) and must read the result only
/// after it was written (else loom reports a causality violation on the result cell).
fn spin_latch_wait() {
    let pool = pool(1);
    let value = pool.install(|| {
        let worker = current_worker();
        let job = StackJob::new(|_| 42u32, SpinLatch::new(&worker.registry, worker.index));
        // SAFETY: `job` stays on this stack until its latch is set (`wait_until` below).
        let job_ref = unsafe { job.as_job_ref(worker.index as u32) };
        let setter = loom::thread::spawn(move || {
            // SAFETY: executed once, while the job is alive (its owner waits for the latch).
            unsafe { job_ref.execute(EXTERNAL) }
        });
        worker.wait_until(&job.latch);
        let value = job.into_result();
        setter.join().unwrap();
        value
    });
    assert_eq!(value, 42);
    pool.shutdown();
}

/// `scope`'s latch: the owner and one other thread each write their own cell and count down;
/// the owner waits for zero, then reads both cells. Missing the set is a deadlock; reading the
/// other thread's cell before its write is a causality violation.
fn count_latch_wait() {
    let pool = pool(1);
    let sum = pool.install(|| {
        let worker = current_worker();
        let latch = CountLatch::new(worker.registry.clone(), worker.index);
        latch.increment(); // the task below
        let cells = [UnsafeCell::new(0u32), UnsafeCell::new(0u32)];
        let (latch_ptr, cell_ptr) = (SendPtr(&latch), SendPtr(&cells[1]));
        let task = loom::thread::spawn(move || {
            let (latch_ptr, cell_ptr) = (latch_ptr, cell_ptr);
            // SAFETY: the owner waits for the latch before it reads this cell or frees it.
            unsafe { (*cell_ptr.0).with_mut(|c| *c = 2) };
            // SAFETY: the latch is alive until its count reaches zero; the pool keeps the
            // registry alive until this thread is joined.
            unsafe { CountLatch::decrement(latch_ptr.0) };
        });
        // The scope's own body.
        cells[0].with_mut(|c| {
            // SAFETY: only this thread touches cell 0.
            unsafe { *c = 1 }
        });
        // SAFETY: `latch` is alive; this runs on a worker of its registry.
        unsafe { CountLatch::decrement(&latch) };
        worker.wait_until(&latch);
        let sum = cells.iter().map(|cell| {
            // SAFETY: the latch is set: every writer counted down after writing.
            cell.with_mut(|c| unsafe { *c })
        });
        let sum: u32 = sum.sum();
        task.join().unwrap();
        sum
    });
    assert_eq!(sum, 3);
    pool.shutdown();
}

#[test]
fn latch_join_spin() {
    model(spin_latch_wait);
}

#[test]
fn latch_scope_count() {
    model(count_latch_wait);
}

/// A `Relaxed` latch store lets the waiter see the set before the job's writes.
#[test]
fn latch_join_spin_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, CAUSALITY};
    use crate::sync::Broken;
    assert_rejected(
        Broken::Latch,
        "latch::loom_tests::latch_join_spin",
        &[CAUSALITY],
    );
}

/// The same bug in the scope's latch: the owner reads a task's cell before its write.
#[test]
fn latch_scope_count_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, CAUSALITY};
    use crate::sync::Broken;
    assert_rejected(
        Broken::Latch,
        "latch::loom_tests::latch_scope_count",
        &[CAUSALITY],
    );
}

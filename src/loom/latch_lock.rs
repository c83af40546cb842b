//! Loom models of [`PoolLock`](super::PoolLock) (`docs/loom.md`): a one-worker pool (real
//! registry, real worker loop and sleep) waits for the lock with `lock_waiting` while a plain
//! loom thread, standing in for the holder on another worker, writes the value and releases.
//! Under random polling the worker waits the stealing way (`search_stealing`); under random
//! allocation a pool of one waits the placing way (`search_placing`, with its own sleep
//! re-check).

use super::PoolLock;
use crate::sync::loom_check::{model, pool_with, SendPtr};
use crate::worker::WorkerThread;
use crate::Policy;

/// The waiter must get the lock once the holder releases it (else it sleeps beside a free lock
/// and loom reports a deadlock), and must see the holder's write (else loom reports a causality
/// violation on the value's cell).
fn waiter_wakes_and_sees_the_value(policy: Policy) {
    let pool = pool_with(1, policy);
    let value = pool.install(|| {
        // SAFETY: inside `install`, on a worker whose `WorkerThread` outlives this job.
        let worker = unsafe { &*WorkerThread::current() };
        let lock = PoolLock::new(0u32, 1);
        // The holder's acquisition, made here so the waiter surely finds the lock busy; the
        // guard's release is done by the holder thread below instead.
        std::mem::forget(lock.try_lock(&worker.registry).expect("a new lock is free"));
        let (lock_ptr, registry) = (SendPtr(&lock), worker.registry.clone());
        let holder = loom::thread::spawn(move || {
            let lock_ptr = lock_ptr;
            // SAFETY: the lock lives until the waiter below has taken it, which it can only
            // after this release; until then this thread holds it.
            let lock = unsafe { &*lock_ptr.0 };
            // SAFETY: this thread holds the lock.
            lock.value.with_mut(|v| unsafe { *v = 42 });
            // SAFETY: this thread holds the lock and releases it once.
            unsafe { lock.release(&registry) };
        });
        let mut guard = lock.lock_waiting(worker);
        let value = guard.with(|v| *v);
        drop(guard);
        holder.join().unwrap();
        value
    });
    assert_eq!(value, 42);
    pool.shutdown();
}

#[test]
fn pool_lock_wakes_its_waiter() {
    model(|| waiter_wakes_and_sees_the_value(Policy::RandomPolling));
}

#[test]
fn pool_lock_wakes_its_placing_waiter() {
    model(|| waiter_wakes_and_sees_the_value(Policy::RandomAlloc));
}

/// Looking for waiters before the lock is free misses one that registers in between, whichever
/// way it waits.
#[test]
fn pool_lock_wakes_its_waiter_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK};
    use crate::sync::Broken;
    assert_rejected(
        Broken::Lock,
        "latch::lock::loom_tests::pool_lock_wakes_its_waiter",
        &[DEADLOCK],
    );
}

#[test]
fn pool_lock_wakes_its_placing_waiter_rejects_broken_variant() {
    use crate::sync::loom_check::{assert_rejected, DEADLOCK};
    use crate::sync::Broken;
    assert_rejected(
        Broken::Lock,
        "latch::lock::loom_tests::pool_lock_wakes_its_placing_waiter",
        &[DEADLOCK],
    );
}

//! [`PoolLock`]: a lock whose waiters wait the way workers wait for a latch.
//!
//! A worker that blocks in an ordinary mutex stops serving the pool: the tasks on its private
//! stack, a job injected for it from another pool, a broadcast meant for it, all stay where they
//! are until the mutex is released. When whoever holds the mutex waits for one of those (a
//! `par_bridge` whose `next` runs pool work, `iter::bridge`), the pool deadlocks. A `PoolLock`
//! waiter instead runs [`WorkerThread::wait_until`] with a probe that tries the lock: it runs
//! its own tasks and other workers' as any waiting worker does, and sleeps in the pool's sleep
//! protocol (`src/sleep/README.md`) when it finds nothing. Releasing the lock wakes it.
//!
//! ## The protocol
//!
//! State: `locked` (the lock word), and for each worker of the pool a flag `waiting[i]`, with a
//! count `waiters` of the flags that are set.
//!
//! - **Acquire** (the probe): a compare-exchange of `locked` from `false` to `true`, Acquire.
//!   The probe remembers a success, so the wait loop may call it again (it does, right after
//!   the sleep re-check) and still sees the lock as its own.
//! - **Wait** (`lock_waiting`): after one failed try, the worker sets `waiting[i]` and
//!   increments `waiters` (both SeqCst), then waits for the probe like a latch; once it holds
//!   the lock it clears both.
//! - **Release** (dropping the guard): store `locked = false`, Release (the holder's writes to
//!   the value happen before the next holder's reads); a SeqCst fence; then, if `waiters` is
//!   not zero, wake every worker whose `waiting` flag is set (`Sleep::notify_worker`, which
//!   wakes it only if it sleeps).
//!
//! **Why no wake-up is lost.** In its own wait, a waiter sleeps only through `Sleep::sleep`,
//! which announces the sleep, issues a SeqCst fence `Fw`, and then runs the re-check, which includes the probe.
//! The waiter's `waiting[i]` store comes before `Fw` in its program order; the releaser's
//! `locked = false` store comes before its own fence `Fr`, and its reads of `waiters` and
//! `waiting[i]` after. SeqCst fences are totally ordered:
//! - if `Fr` comes first, the re-check after `Fw` sees `locked == false` (or a later value:
//!   somebody else took the lock, and that holder's release repeats this argument), so the
//!   waiter takes the lock instead of sleeping;
//! - if `Fw` comes first, the releaser sees `waiters > 0` and `waiting[i]`, and the waiter's
//!   sleep announcement, so `notify_worker` wakes it.
//!
//! The argument covers the sleep of the waiter's own wait. A waiter may also sleep inside a task
//! it picked up while it waited (that task waits for a `join` of its own): a release then wakes
//! it there, the inner wait finds its own latch unset and sleeps again, and the lock is probed
//! next when that task returns, first thing in the outer wait's loop. That is no lost wake-up:
//! the waiter could not take the lock before the task returns anyway, and the task's completion
//! never needs the lock (`iter::bridge` argues why for its participants).
//!
//! Every waiter flagged at a release is woken (only sleeping ones need it), not just one. A
//! woken waiter that finds the lock taken again goes back to its wait. The broken variant
//! `Broken::Lock` reads `waiters` *before* storing `locked = false`: loom then finds a waiter
//! that registered in between sleeping forever beside a free lock (`src/loom/latch_lock.rs`).
//!
//! **What a waiter runs.** A waiter runs whatever a waiting worker runs, so the lock must only
//! be waited for where running other tasks of the pool on top of the wait is safe: where no
//! task that could run there waits for this lock's holder while the holder waits for a task
//! below the waiter on its stack. `iter::bridge` argues this for its participants (a
//! participant that runs on top of a suspended task never waits; it only tries).
//!
//! **Panics.** A guard dropped while its thread panics, by a panic that began while the guard
//! held the lock, marks the lock poisoned before the release (a guard taken during an unwind,
//! by a `Drop` that uses the lock, poisons nothing, as with `std::sync::Mutex`); the next holder sees the flag (the Release/Acquire pair on `locked` orders it) and
//! decides what to do ([`PoolGuard::poisoned`]).

use crate::latch::Probe;
use crate::registry::Registry;
use crate::sync::{broken, fence, AtomicBool, AtomicUsize, Broken, Ordering, UnsafeCell};
use crate::worker::WorkerThread;
use std::cell::Cell;

/// A lock over a `T` whose waiters keep working for the pool (module docs).
pub(crate) struct PoolLock<T> {
    locked: AtomicBool,
    poisoned: AtomicBool,
    /// `waiting[i]`: worker `i` waits for the lock.
    waiting: Box<[AtomicBool]>,
    /// How many `waiting` flags are set: lets a release skip the scan when nobody waits.
    waiters: AtomicUsize,
    value: UnsafeCell<T>,
}

// SAFETY: the value is reached only through a guard, and a guard exists only while its holder
// owns `locked` (module docs), so at most one thread touches the value at a time; the
// Release/Acquire pair on `locked` orders one holder's accesses before the next one's. `T:
// Send` because the value moves between holders' threads.
unsafe impl<T: Send> Sync for PoolLock<T> {}

impl<T> PoolLock<T> {
    /// A lock over `value` for a pool of `workers` workers.
    pub(crate) fn new(value: T, workers: usize) -> Self {
        PoolLock {
            locked: AtomicBool::new(false),
            poisoned: AtomicBool::new(false),
            waiting: (0..workers).map(|_| AtomicBool::new(false)).collect(),
            waiters: AtomicUsize::new(0),
            value: UnsafeCell::new(value),
        }
    }

    /// One attempt at the lock word.
    fn try_acquire(&self) -> bool {
        !self.locked.load(Ordering::Relaxed)
            && self
                .locked
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
    }

    /// Takes the lock if it is free. `registry` is the pool whose workers may wait for it: the
    /// guard's release wakes them.
    pub(crate) fn try_lock<'a>(&'a self, registry: &'a Registry) -> Option<PoolGuard<'a, T>> {
        // `then`, not `then_some`: a guard made eagerly and dropped on failure would release
        // somebody else's lock.
        self.try_acquire().then(|| PoolGuard::new(self, registry))
    }

    /// Takes the lock, waiting for it as a latch if it is busy: `worker` (the current thread's)
    /// runs other tasks of its pool meanwhile and sleeps when it finds none (module docs).
    pub(crate) fn lock_waiting<'a>(&'a self, worker: &'a WorkerThread) -> PoolGuard<'a, T> {
        let registry = &*worker.registry;
        debug_assert!(
            worker.index < self.waiting.len(),
            "a PoolLock is waited for by workers of the pool it was made for"
        );
        if let Some(guard) = self.try_lock(registry) {
            return guard;
        }
        let flag = &self.waiting[worker.index];
        flag.store(true, Ordering::SeqCst);
        self.waiters.fetch_add(1, Ordering::SeqCst);
        let probe = Acquiring {
            lock: self,
            held: Cell::new(false),
        };
        worker.wait_until(&probe);
        self.waiters.fetch_sub(1, Ordering::Relaxed);
        flag.store(false, Ordering::Relaxed);
        PoolGuard::new(self, registry)
    }

    /// Releases the lock and wakes its waiters (module docs, "Release").
    ///
    /// # Safety
    ///
    /// The caller holds the lock (it acquired it and has not released it since).
    unsafe fn release(&self, registry: &Registry) {
        // Test-only broken variant (docs/loom.md): look for waiters before the lock is free, so
        // one that registers in between is never woken.
        let early = broken(Broken::Lock).then(|| self.waiters.load(Ordering::SeqCst));
        self.locked.store(false, Ordering::Release);
        fence(Ordering::SeqCst);
        let waiters = early.unwrap_or_else(|| self.waiters.load(Ordering::Relaxed));
        if waiters == 0 {
            return;
        }
        for (w, flag) in self.waiting.iter().enumerate() {
            if flag.load(Ordering::Relaxed) {
                registry.sleep.notify_worker(w);
            }
        }
    }
}

/// The probe a waiter runs: acquires the lock, and keeps answering `true` once it has.
struct Acquiring<'a, T> {
    lock: &'a PoolLock<T>,
    held: Cell<bool>,
}

impl<T> Probe for Acquiring<'_, T> {
    fn probe(&self) -> bool {
        if !self.held.get() && self.lock.try_acquire() {
            self.held.set(true);
        }
        self.held.get()
    }
}

/// Holds a [`PoolLock`]; dropping it releases the lock and wakes the waiters.
pub(crate) struct PoolGuard<'a, T> {
    lock: &'a PoolLock<T>,
    registry: &'a Registry,
    /// The thread was already unwinding when it took the lock (a `Drop` that runs during a
    /// panic can use the lock): only a panic that starts while the lock is held poisons it.
    panicking: bool,
}

impl<'a, T> PoolGuard<'a, T> {
    /// The guard of a lock the caller has just acquired.
    fn new(lock: &'a PoolLock<T>, registry: &'a Registry) -> Self {
        PoolGuard {
            lock,
            registry,
            panicking: std::thread::panicking(),
        }
    }

    /// Runs `f` on the locked value.
    pub(crate) fn with<R>(&mut self, f: impl FnOnce(&mut T) -> R) -> R {
        // SAFETY: this guard holds the lock, so no other thread reaches the value until it is
        // dropped (module docs); `&mut self` keeps this thread from reaching it twice.
        self.lock.value.with_mut(|value| f(unsafe { &mut *value }))
    }

    /// Whether a holder before this one panicked while it held the lock.
    pub(crate) fn poisoned(&self) -> bool {
        self.lock.poisoned.load(Ordering::Relaxed)
    }
}

impl<T> Drop for PoolGuard<'_, T> {
    fn drop(&mut self) {
        if !self.panicking && std::thread::panicking() {
            // Relaxed: the release below publishes it to the next holder.
            self.lock.poisoned.store(true, Ordering::Relaxed);
        }
        // SAFETY: a guard exists only while its holder holds the lock, and is dropped once.
        unsafe { self.lock.release(self.registry) }
    }
}

#[cfg(all(test, loom))]
#[path = "../loom/latch_lock.rs"]
mod loom_tests;

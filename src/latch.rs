//! Latches: one-shot signals a waiting thread can probe or block on.
//!
//! A worker that waits for a latch keeps running other work and, when there is none, sleeps
//! (see `sleep/README.md`). Setting a latch therefore follows the same publish-then-check order as
//! publishing a job: store the flag, a `SeqCst` fence, then wake the owner if it announced sleep.
//!
//! After `set` stores the flag, the waiter may return and free the latch; `set` implementations
//! copy everything they need before that store and touch nothing of `*this` after it.

use crate::registry::Registry;
use crate::sync::{AtomicBool, AtomicUsize, Condvar, Mutex, Ordering};
use std::sync::Arc as StdArc;

/// A latch that can be set.
pub(crate) trait Latch {
    /// Sets the latch, waking its waiter.
    ///
    /// # Safety
    ///
    /// `this` points to a live latch; it may be freed as soon as the flag is stored, so the
    /// implementation must not touch it after that.
    unsafe fn set(this: *const Self);
}

/// A latch a worker can poll while it finds other work.
pub(crate) trait Probe {
    /// Whether the latch is set.
    fn probe(&self) -> bool;
}

/// The flag shared by the worker-owned latches.
#[derive(Debug)]
pub(crate) struct CoreLatch {
    set: AtomicBool,
}

impl CoreLatch {
    pub(crate) fn new() -> Self {
        CoreLatch {
            set: AtomicBool::new(false),
        }
    }

    /// Stores the flag. Release: the waiter that sees it also sees the job's result.
    ///
    /// # Safety
    ///
    /// `this` is live until the store.
    unsafe fn store(this: *const Self) {
        // Test-only broken variant (docs/loom.md): a Relaxed store publishes the flag without
        // the job's writes.
        #[cfg(all(loom, feature = "loom-broken-latch"))]
        let order = Ordering::Relaxed;
        #[cfg(not(all(loom, feature = "loom-broken-latch")))]
        let order = Ordering::Release;
        // SAFETY: forwarded from the caller.
        unsafe { (*this).set.store(true, order) }
    }
}

impl Probe for CoreLatch {
    #[inline]
    fn probe(&self) -> bool {
        // Acquire pairs with the Release store: the job's writes are visible after this.
        self.set.load(Ordering::Acquire)
    }
}

/// The latch of a job whose waiter is a worker thread (the `b` of a `join`, a cross-pool
/// `install`). Setting it wakes that worker if it sleeps.
pub(crate) struct SpinLatch<'r> {
    core: CoreLatch,
    registry: &'r StdArc<Registry>,
    owner: usize,
    /// Set from a thread of another pool: keep the owner's registry alive while waking it.
    cross: bool,
}

impl<'r> SpinLatch<'r> {
    pub(crate) fn new(registry: &'r StdArc<Registry>, owner: usize) -> Self {
        SpinLatch {
            core: CoreLatch::new(),
            registry,
            owner,
            cross: false,
        }
    }

    pub(crate) fn cross(registry: &'r StdArc<Registry>, owner: usize) -> Self {
        SpinLatch {
            cross: true,
            ..SpinLatch::new(registry, owner)
        }
    }
}

impl Probe for SpinLatch<'_> {
    #[inline]
    fn probe(&self) -> bool {
        self.core.probe()
    }
}

impl Latch for SpinLatch<'_> {
    unsafe fn set(this: *const Self) {
        // SAFETY: `this` is live until `CoreLatch::store` below; everything needed afterwards is
        // copied out first. Without `cross`, the setter is a worker of the same registry and
        // keeps it alive; with `cross`, the clone does.
        unsafe {
            let owner = (*this).owner;
            let cross_registry = (*this).cross.then(|| StdArc::clone((*this).registry));
            let registry: *const Registry = StdArc::as_ptr((*this).registry);
            CoreLatch::store(&(*this).core);
            (*registry).notify_latch_set(owner);
            drop(cross_registry);
        }
    }
}

/// A latch for threads outside the pool: they block on a condition variable.
#[derive(Debug)]
pub(crate) struct LockLatch {
    done: Mutex<bool>,
    cond: Condvar,
}

impl LockLatch {
    pub(crate) fn new() -> Self {
        LockLatch {
            done: Mutex::new(false),
            cond: Condvar::new(),
        }
    }

    /// Blocks until the latch is set.
    pub(crate) fn wait(&self) {
        let mut done = self.done.lock();
        while !*done {
            self.cond.wait(&mut done);
        }
    }
}

impl Latch for LockLatch {
    unsafe fn set(this: *const Self) {
        // SAFETY: the waiter cannot return (and free the latch) before it takes the lock, which
        // it can only do after we release the guard; `notify_all` runs under the lock.
        unsafe {
            let mut done = (*this).done.lock();
            *done = true;
            (*this).cond.notify_all();
        }
    }
}

/// Counts outstanding jobs of a scope; set when the count reaches zero. The waiter is a worker
/// of `registry`, and so is every thread that decrements the count.
pub(crate) struct CountLatch {
    core: CoreLatch,
    counter: AtomicUsize,
    registry: StdArc<Registry>,
    owner: usize,
}

impl CountLatch {
    /// A latch counting one (the scope's own body).
    pub(crate) fn new(registry: StdArc<Registry>, owner: usize) -> Self {
        CountLatch {
            core: CoreLatch::new(),
            counter: AtomicUsize::new(1),
            registry,
            owner,
        }
    }

    pub(crate) fn increment(&self) {
        let before = self.counter.fetch_add(1, Ordering::Relaxed);
        debug_assert!(before > 0, "scope latch incremented after completion");
    }

    pub(crate) fn registry(&self) -> &StdArc<Registry> {
        &self.registry
    }

    /// The worker that waits for this latch.
    pub(crate) fn owner(&self) -> usize {
        self.owner
    }

    /// Counts one job done; sets the latch on the last one.
    ///
    /// # Safety
    ///
    /// `this` is live; the caller runs on a worker of `registry` (which keeps it alive).
    pub(crate) unsafe fn decrement(this: *const Self) {
        // SAFETY: `this` is live until the store in `CoreLatch::store`; the registry pointer is
        // kept alive by the calling worker; AcqRel orders every job's writes before the set.
        unsafe {
            if (*this).counter.fetch_sub(1, Ordering::AcqRel) == 1 {
                let owner = (*this).owner;
                let registry: *const Registry = StdArc::as_ptr(&(*this).registry);
                CoreLatch::store(&(*this).core);
                (*registry).notify_latch_set(owner);
            }
        }
    }
}

impl Probe for CountLatch {
    #[inline]
    fn probe(&self) -> bool {
        self.core.probe()
    }
}

#[cfg(all(test, loom))]
mod loom_tests;

//! Latches: one-shot signals a waiting thread can probe or block on.
//!
//! A worker that waits for a latch keeps running other work and, when there is none, sleeps
//! (see `sleep/README.md`). Setting a latch therefore follows the same publish-then-check order as
//! publishing a job: store the flag, a `SeqCst` fence, then wake the owner if it announced sleep.
//!
//! After `set` stores the flag, the waiter may return and free the latch; `set` implementations
//! copy everything they need before that store and touch nothing of `*this` after it.

mod lock;

pub(crate) use lock::{PoolGuard, PoolLock};

use crate::job::Latch;
use crate::registry::Registry;
use crate::sync::{broken, AtomicBool, AtomicUsize, Broken, Condvar, Mutex, Ordering};
use std::sync::Arc as StdArc;

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
        let order = if broken(Broken::Latch) {
            Ordering::Relaxed
        } else {
            Ordering::Release
        };
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

/// How long a thread outside the pool that waits on a [`LockLatch`] keeps checking it, yielding
/// between checks, before it blocks. A short call comes back within this time, and its caller
/// never sleeps: waking a blocked thread costs the worker a system call and, where the caller's
/// CPU went idle meanwhile, the time that CPU takes to come back, which on a virtual machine
/// can be most of a short call. `cargo run --release --example compat -- 9` (2-core development
/// VM): 1000 calls in a row of a `find_any` that succeeds at once took 18.3-18.7 ms blocking at
/// once, 1.8-2.0 ms with this (rayon 12.1 ms); the other rows stayed within their run-to-run
/// spread. A longer call
/// costs the caller this much CPU time more, spent yielding to anything else that can run.
const OUTSIDE_SPIN: std::time::Duration = std::time::Duration::from_micros(20);

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

    /// Blocks until the latch is set, after checking it for up to [`OUTSIDE_SPIN`]. A check
    /// reads the flag under the lock, so it sees the flag set only after the setter has
    /// released the lock: returning then frees nothing the setter still uses (see `set`).
    /// Under loom time does not pass, and the wait blocks at once.
    pub(crate) fn wait(&self) {
        if !cfg!(loom) {
            let start = std::time::Instant::now();
            loop {
                if *self.done.lock() {
                    return;
                }
                if start.elapsed() >= OUTSIDE_SPIN {
                    break;
                }
                crate::sync::yield_now();
            }
        }
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

/// Counts outstanding jobs of a scope; set when the count reaches zero.
///
/// Its waiter is either a worker (of the pool whose workers run the scope's tasks, or, for an
/// `in_place_scope` of one pool called on a worker of another, of that other pool), which keeps
/// working while it waits, or a thread outside every pool, which blocks.
pub(crate) struct CountLatch {
    core: CoreLatch,
    counter: AtomicUsize,
    waiter: CountWaiter,
}

enum CountWaiter {
    /// Worker `owner` of `registry` waits; setting the latch wakes it if it sleeps.
    Worker {
        registry: StdArc<Registry>,
        owner: usize,
        /// The threads that count down are not all workers of `registry` (which keeps it
        /// alive for them): clone it before the flag is stored.
        cross: bool,
    },
    /// A thread outside every pool blocks on a condition variable.
    Blocking(LockLatch),
}

impl CountLatch {
    /// A latch counting one (the scope's own body), awaited by worker `owner` of `registry`,
    /// whose tasks (and only they, besides the owner) count it down.
    pub(crate) fn new(registry: StdArc<Registry>, owner: usize) -> Self {
        Self::with_waiter(CountWaiter::Worker {
            registry,
            owner,
            cross: false,
        })
    }

    /// A latch counting one, awaited by worker `owner` of `registry` while the threads that
    /// count it down are workers of another pool.
    pub(crate) fn cross(registry: StdArc<Registry>, owner: usize) -> Self {
        Self::with_waiter(CountWaiter::Worker {
            registry,
            owner,
            cross: true,
        })
    }

    /// A latch counting one, awaited by a thread outside every pool ([`CountLatch::wait_blocking`]).
    pub(crate) fn blocking() -> Self {
        Self::with_waiter(CountWaiter::Blocking(LockLatch::new()))
    }

    fn with_waiter(waiter: CountWaiter) -> Self {
        CountLatch {
            core: CoreLatch::new(),
            counter: AtomicUsize::new(1),
            waiter,
        }
    }

    pub(crate) fn increment(&self) {
        let before = self.counter.fetch_add(1, Ordering::Relaxed);
        debug_assert!(before > 0, "scope latch incremented after completion");
    }

    /// Blocks the calling thread (not a worker) until the count reaches zero.
    pub(crate) fn wait_blocking(&self) {
        match &self.waiter {
            CountWaiter::Blocking(lock) => lock.wait(),
            CountWaiter::Worker { .. } => unreachable!("a worker waits for its latch by working"),
        }
    }

    /// Counts one job done; sets the latch on the last one.
    ///
    /// # Safety
    ///
    /// `this` is live. For a worker waiter without `cross`, the caller runs on a worker of its
    /// registry (which keeps the registry alive).
    pub(crate) unsafe fn decrement(this: *const Self) {
        // SAFETY: `this` is live until the flag is stored (for a blocking waiter: until the
        // lock latch is set, which the waiter waits for); everything needed afterwards is
        // copied or cloned first. AcqRel orders every job's writes before the set.
        unsafe {
            if (*this).counter.fetch_sub(1, Ordering::AcqRel) != 1 {
                return;
            }
            match &(*this).waiter {
                CountWaiter::Worker {
                    registry,
                    owner,
                    cross,
                } => {
                    let owner = *owner;
                    let keep = cross.then(|| StdArc::clone(registry));
                    let registry: *const Registry = StdArc::as_ptr(registry);
                    CoreLatch::store(&(*this).core);
                    (*registry).notify_latch_set(owner);
                    drop(keep);
                }
                CountWaiter::Blocking(lock) => {
                    CoreLatch::store(&(*this).core);
                    LockLatch::set(lock);
                }
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
#[path = "loom/latch.rs"]
mod loom_tests;

//! The one import point for every synchronisation primitive the runtime uses.
//!
//! Normal builds take atomics and threads from `std`, locks and condition variables from
//! `parking_lot`, and the work-stealing deque from `crossbeam-deque`. Under `cfg(loom)` every one
//! of them comes from `loom` instead, so the model-checked code is the shipped code. The wrappers
//! here give both worlds one small API (no lock poisoning, `Condvar::wait(&mut guard)`).
//!
//! `crossbeam-deque` has no loom build: under `cfg(loom)` [`deque`] is a small mutex-based deque
//! with the same interface. What that leaves unchecked is described in `docs/loom.md`.

#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    fence, AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};
#[cfg(not(loom))]
pub(crate) use std::sync::Arc;

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    fence, AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};
#[cfg(loom)]
pub(crate) use loom::sync::Arc;

#[cfg(loom)]
pub(crate) use loom::thread_local;
/// Declares a thread-local: `std`'s normally, loom's under `cfg(loom)` (loom runs its model
/// threads on one OS thread, so `std` thread-locals would be shared between them).
#[cfg(not(loom))]
pub(crate) use std::thread_local;

/// A hint inside a short wait loop: `spin_loop` normally, a yield under loom (so that the model
/// checker lets the other threads run).
#[inline]
pub(crate) fn spin_hint() {
    #[cfg(not(loom))]
    std::hint::spin_loop();
    #[cfg(loom)]
    loom::thread::yield_now();
}

/// Gives up the rest of this thread's time slice.
#[inline]
pub(crate) fn yield_now() {
    #[cfg(not(loom))]
    std::thread::yield_now();
    #[cfg(loom)]
    loom::thread::yield_now();
}

#[cfg(not(loom))]
mod imp {
    pub(crate) use std::cell::UnsafeCell as StdUnsafeCell;

    /// A mutual-exclusion lock without poisoning.
    #[derive(Debug, Default)]
    pub(crate) struct Mutex<T>(parking_lot::Mutex<T>);

    /// The guard of a [`Mutex`].
    pub(crate) type MutexGuard<'a, T> = parking_lot::MutexGuard<'a, T>;

    impl<T> Mutex<T> {
        pub(crate) fn new(value: T) -> Self {
            Mutex(parking_lot::Mutex::new(value))
        }

        pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
            self.0.lock()
        }
    }

    /// A condition variable paired with [`Mutex`].
    #[derive(Debug, Default)]
    pub(crate) struct Condvar(parking_lot::Condvar);

    impl Condvar {
        pub(crate) fn new() -> Self {
            Condvar(parking_lot::Condvar::new())
        }

        pub(crate) fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
            self.0.wait(guard);
        }

        pub(crate) fn notify_one(&self) {
            self.0.notify_one();
        }

        pub(crate) fn notify_all(&self) {
            self.0.notify_all();
        }
    }

    /// An `UnsafeCell` with loom's closure-based access API.
    #[derive(Debug)]
    pub(crate) struct UnsafeCell<T>(StdUnsafeCell<T>);

    impl<T> UnsafeCell<T> {
        pub(crate) const fn new(value: T) -> Self {
            UnsafeCell(StdUnsafeCell::new(value))
        }

        #[inline]
        pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
            f(self.0.get())
        }
    }

    pub(crate) mod thread {
        pub(crate) use std::thread::JoinHandle;

        pub(crate) fn spawn_named<F>(
            name: String,
            stack_size: Option<usize>,
            f: F,
        ) -> std::io::Result<JoinHandle<()>>
        where
            F: FnOnce() + Send + 'static,
        {
            let mut builder = std::thread::Builder::new().name(name);
            if let Some(size) = stack_size {
                builder = builder.stack_size(size);
            }
            builder.spawn(f)
        }
    }

    /// The work-stealing deque.
    pub(crate) mod deque {
        pub(crate) use crossbeam_deque::{Injector, Steal, Stealer, Worker};
    }
}

#[cfg(loom)]
mod imp {
    /// A mutual-exclusion lock without poisoning (loom).
    #[derive(Debug)]
    pub(crate) struct Mutex<T>(loom::sync::Mutex<T>);

    /// The guard of a [`Mutex`] (loom). loom's condition variable consumes and returns its
    /// guard; the `Option` lets [`Condvar::wait`] move it out of a `&mut` without `unsafe` and
    /// stay sound when loom unwinds out of the wait (a detected deadlock).
    #[derive(Debug)]
    pub(crate) struct MutexGuard<'a, T>(Option<loom::sync::MutexGuard<'a, T>>);

    impl<T> std::ops::Deref for MutexGuard<'_, T> {
        type Target = T;

        fn deref(&self) -> &T {
            self.0
                .as_ref()
                .expect("guard present outside `Condvar::wait`")
        }
    }

    impl<T> std::ops::DerefMut for MutexGuard<'_, T> {
        fn deref_mut(&mut self) -> &mut T {
            self.0
                .as_mut()
                .expect("guard present outside `Condvar::wait`")
        }
    }

    impl<T> Mutex<T> {
        pub(crate) fn new(value: T) -> Self {
            Mutex(loom::sync::Mutex::new(value))
        }

        pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
            MutexGuard(Some(self.0.lock().unwrap()))
        }
    }

    /// A condition variable paired with [`Mutex`] (loom).
    #[derive(Debug)]
    pub(crate) struct Condvar(loom::sync::Condvar);

    impl Condvar {
        pub(crate) fn new() -> Self {
            Condvar(loom::sync::Condvar::new())
        }

        pub(crate) fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
            // If loom unwinds out of `wait` (it reports a deadlock by panicking in the blocked
            // thread), the guard it consumed is dropped there and `guard` holds `None`: the
            // lock is released exactly once.
            let taken = guard
                .0
                .take()
                .expect("guard present outside `Condvar::wait`");
            guard.0 = Some(self.0.wait(taken).unwrap());
        }

        pub(crate) fn notify_one(&self) {
            self.0.notify_one();
        }

        pub(crate) fn notify_all(&self) {
            self.0.notify_all();
        }
    }

    pub(crate) use loom::cell::UnsafeCell;

    pub(crate) mod thread {
        pub(crate) use loom::thread::JoinHandle;

        pub(crate) fn spawn_named<F>(
            _name: String,
            _stack_size: Option<usize>,
            f: F,
        ) -> std::io::Result<JoinHandle<()>>
        where
            F: FnOnce() + Send + 'static,
        {
            Ok(loom::thread::spawn(f))
        }
    }

    /// The work-stealing deque (a mutex-based stand-in, see `loom_deque.rs`).
    pub(crate) use super::loom_deque as deque;
}

#[cfg(loom)]
pub(crate) mod loom_deque;

#[cfg(all(test, loom))]
pub(crate) mod loom_check;

pub(crate) use imp::*;

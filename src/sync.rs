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

        /// Waits until notified or until `timeout` has passed; returns whether it timed out.
        pub(crate) fn wait_for<T>(
            &self,
            guard: &mut MutexGuard<'_, T>,
            timeout: std::time::Duration,
        ) -> bool {
            self.0.wait_for(guard, timeout).timed_out()
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

        /// Under loom time does not pass: a timed wait times out at once, which leaves the
        /// model to explore every interleaving of what the waiter does next.
        pub(crate) fn wait_for<T>(
            &self,
            _guard: &mut MutexGuard<'_, T>,
            _timeout: std::time::Duration,
        ) -> bool {
            true
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

/// A deliberately broken variant of the concurrency core, which a loom model must reject
/// (`docs/loom.md`). Each one undoes a single step of a protocol argued in the code (a fence, an
/// ordering, a re-check, a wake-up); the site that carries it asks [`broken`].
///
/// Under `cfg(loom)` one variant can be switched on for a whole process through the
/// environment variable [`BROKEN_VAR`]; `loom_check::assert_rejected` does that for the child
/// process it runs a model in, so one loom build checks the real code and every variant. In a
/// normal build [`broken`] is the constant `false` and no variant exists at run time.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Broken {
    /// `Sleep::sleep` re-checks for work before it announces itself sleepy.
    Sleep,
    /// A latch publishes its flag with a Relaxed store.
    Latch,
    /// `join` returns without waiting for a `b` that another worker took.
    Join,
    /// The combining tree closes its round in a second critical section.
    Combining,
    /// A sleeping worker's last re-check forgets its inbox.
    Inbox,
    /// Workers exit on termination while work is still queued.
    Shutdown,
    /// A ticket is claimed by a load and a separate store.
    Ticket,
    /// A task spawned from another thread does not tell the scope's owner.
    Scope,
    /// A victim publishes its answer with a Relaxed store.
    Answer,
    /// A thief withdraws its request with a plain store.
    Withdraw,
    /// A worker blocks its request slot with a plain store.
    Block,
    /// A promotion wakes nobody.
    Promote,
    /// The pool lock looks for waiters before it is free.
    Lock,
    /// Work that only a rescue can reach wakes nobody.
    Rescue,
    /// A wait inside an isolated region runs tasks from outside the region.
    Isolate,
    /// A spawned future's task wakes its waiter before it stores the result.
    Waker,
}

/// The environment variable that switches one [`Broken`] variant on (its name in lower case,
/// as [`Broken::name`] gives it). Read only under `cfg(loom)`.
#[cfg(loom)]
pub(crate) const BROKEN_VAR: &str = "HYPERSTEAL_LOOM_BROKEN";

#[cfg(loom)]
impl Broken {
    /// Every variant.
    pub(crate) const ALL: [Broken; 16] = [
        Broken::Sleep,
        Broken::Latch,
        Broken::Join,
        Broken::Combining,
        Broken::Inbox,
        Broken::Shutdown,
        Broken::Ticket,
        Broken::Scope,
        Broken::Answer,
        Broken::Withdraw,
        Broken::Block,
        Broken::Promote,
        Broken::Lock,
        Broken::Rescue,
        Broken::Isolate,
        Broken::Waker,
    ];

    /// The variant's name in [`BROKEN_VAR`].
    pub(crate) fn name(self) -> &'static str {
        match self {
            Broken::Sleep => "sleep",
            Broken::Latch => "latch",
            Broken::Join => "join",
            Broken::Combining => "combining",
            Broken::Inbox => "inbox",
            Broken::Shutdown => "shutdown",
            Broken::Ticket => "ticket",
            Broken::Scope => "scope",
            Broken::Answer => "answer",
            Broken::Withdraw => "withdraw",
            Broken::Block => "block",
            Broken::Promote => "promote",
            Broken::Lock => "lock",
            Broken::Rescue => "rescue",
            Broken::Isolate => "isolate",
            Broken::Waker => "waker",
        }
    }

    /// The variant [`BROKEN_VAR`] names, read once per process. An unset or empty variable
    /// means none; any other value that names no variant is a panic that lists the names.
    fn chosen() -> Option<Broken> {
        static CHOSEN: std::sync::OnceLock<Option<Broken>> = std::sync::OnceLock::new();
        *CHOSEN.get_or_init(|| {
            let value = match std::env::var(BROKEN_VAR) {
                Err(std::env::VarError::NotPresent) => return None,
                Err(std::env::VarError::NotUnicode(v)) => {
                    panic!("{BROKEN_VAR}={v:?} is not valid UTF-8")
                }
                Ok(v) if v.is_empty() => return None,
                Ok(v) => v,
            };
            match Broken::ALL.into_iter().find(|b| b.name() == value) {
                Some(b) => Some(b),
                None => {
                    let names: Vec<&str> = Broken::ALL.iter().map(|b| b.name()).collect();
                    panic!(
                        "{BROKEN_VAR}={value:?} names no broken variant; expected one of: {}",
                        names.join(", ")
                    )
                }
            }
        })
    }
}

/// Whether the deliberately broken `variant` is on: only ever in a loom build whose process was
/// started with [`BROKEN_VAR`] naming it. Everywhere else the constant `false`, which the
/// compiler folds away with the broken code.
#[inline(always)]
pub(crate) fn broken(variant: Broken) -> bool {
    #[cfg(loom)]
    {
        Broken::chosen() == Some(variant)
    }
    #[cfg(not(loom))]
    {
        let _ = variant;
        false
    }
}

pub(crate) use imp::*;

//! Catching panics in tasks, carrying them to the thread that waits for the task, and making
//! sure no unwind ever escapes the runtime.
//!
//! Three rules keep every panic inside the lines (`docs/design.md`, "Panics"):
//!
//! - a task's closure runs under [`halt_unwinding`]; its payload travels to whoever waits for the
//!   task (or to the pool's panic handler for a `'static` spawn);
//! - a payload the runtime does not hand on is dropped with [`drop_payload`], because a payload's
//!   own destructor may panic;
//! - the runtime's own frames (the worker's main loop, a wait, a job's execution) hold an
//!   [`AbortOnUnwind`] guard: an unwind that still got through would leave a waiter pointing at a
//!   freed frame or a worker dead, so it ends the process with a message instead.

use std::any::Any;
use std::io::Write;
use std::mem;
use std::panic::{self, AssertUnwindSafe};

/// Runs `f`, returning its panic payload instead of unwinding.
pub(crate) fn halt_unwinding<F: FnOnce() -> R, R>(f: F) -> Result<R, Box<dyn Any + Send>> {
    // Unwind safety: a task's panic is re-raised in the thread that waits for it, which sees the
    // same (possibly half-updated) state it would have seen had the code run there.
    panic::catch_unwind(AssertUnwindSafe(f))
}

/// Continues a panic caught on another thread.
pub(crate) fn resume_unwinding(payload: Box<dyn Any + Send>) -> ! {
    panic::resume_unwind(payload)
}

/// Drops a panic payload that nobody will receive, without letting its destructor unwind.
///
/// A payload is any `Send` value, and its `Drop` may panic. That second panic is caught, and its
/// own payload (which may be just as hostile) is leaked rather than dropped: a few bytes lost
/// on a path that only adversarial code takes, against a worker unwound out of the runtime.
pub(crate) fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(nested) = halt_unwinding(move || drop(payload)) {
        mem::forget(nested);
    }
}

/// The message of a panic payload (`&str` or `String`), or a placeholder for other payloads.
pub(crate) fn payload_message(payload: &Box<dyn Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a payload that is not a string".to_string())
}

/// A guard on a runtime frame that no unwind may leave: dropped during an unwind, it aborts the
/// process with a message naming `what`. Forget it ([`AbortOnUnwind::disarm`]) on the normal path.
pub(crate) struct AbortOnUnwind {
    what: &'static str,
}

impl AbortOnUnwind {
    /// Arms a guard for the frame described by `what`.
    #[inline(always)]
    pub(crate) fn new(what: &'static str) -> Self {
        AbortOnUnwind { what }
    }

    /// The frame ends normally.
    #[inline(always)]
    pub(crate) fn disarm(self) {
        mem::forget(self);
    }
}

impl Drop for AbortOnUnwind {
    #[cold]
    fn drop(&mut self) {
        // Only reached while unwinding: every normal path disarms the guard. Continuing would
        // leave a task's waiter reading a freed frame or a worker gone, so stop here. This is
        // the one place the library writes to stderr, and a failed write changes nothing.
        let _ = writeln!(
            std::io::stderr(),
            "hypersteal: fatal: a panic escaped {}; aborting the process",
            self.what
        );
        std::process::abort();
    }
}

/// Test builds only: when set, the runtime's own code panics at the next guarded poll path it
/// reaches (an answer or promotion, a heartbeat, a placement), as a bug there would. Shows that
/// the guards hold (`tests::a_panic_at_a_poll_point_aborts_with_a_message`).
#[cfg(all(test, not(loom)))]
pub(crate) static INJECT_POLL_PANIC: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// A fault-injection point inside a poll path's guard; nothing outside test builds.
#[inline(always)]
pub(crate) fn poll_fault_point() {
    #[cfg(all(test, not(loom)))]
    if INJECT_POLL_PANIC.load(std::sync::atomic::Ordering::Relaxed) {
        panic!("a fault injected into a poll path");
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_child::run_test_in_child;
    use std::os::unix::process::ExitStatusExt;

    /// The most a child process of these tests may take (each takes well under a second).
    const CHILD_LIMIT: std::time::Duration = std::time::Duration::from_secs(120);

    /// A payload whose destructor panics.
    struct Hostile;

    impl Drop for Hostile {
        fn drop(&mut self) {
            panic!("hostile destructor");
        }
    }

    #[test]
    fn dropping_a_hostile_payload_does_not_unwind() {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(|_| {}));
        drop_payload(Box::new(Hostile));
        // A payload whose destructor panics with another hostile payload.
        struct Nested;
        impl Drop for Nested {
            fn drop(&mut self) {
                panic::panic_any(Hostile);
            }
        }
        drop_payload(Box::new(Nested));
        panic::set_hook(previous);
    }

    /// An unwind reaching an armed guard ends the process with a message (in a child process,
    /// since it aborts).
    #[test]
    fn an_unwind_through_a_guard_aborts_with_a_message() {
        const VAR: &str = "HYPERSTEAL_UNWIND_GUARD_CHILD";
        if std::env::var_os(VAR).is_some() {
            let guard = AbortOnUnwind::new("a test frame");
            let escape = |why: &str| {
                if !why.is_empty() {
                    panic!("{why}");
                }
            };
            escape("escaping");
            guard.disarm();
        }
        let (status, out) = run_test_in_child(
            "unwind::tests::an_unwind_through_a_guard_aborts_with_a_message",
            (VAR, "1"),
            CHILD_LIMIT,
        );
        assert_eq!(status.signal(), Some(6), "aborted (SIGABRT): {out}");
        assert!(
            out.contains("hypersteal: fatal: a panic escaped a test frame"),
            "{out}"
        );
    }

    /// A panic in the runtime's own code at a poll point, inside a user's `join` (a bug in
    /// policy, heartbeat or trace code would do it), must end the process with a message: an
    /// unwind would leave the `join`'s `b` on the private stack pointing at a frame that is
    /// gone. Under a receiver-initiated policy the fault is in the answer or promotion, under a
    /// sender-initiated one in the heartbeat or the placement (child processes, as they abort).
    #[test]
    fn a_panic_at_a_poll_point_aborts_with_a_message() {
        const VAR: &str = "HYPERSTEAL_POLL_FAULT_CHILD";
        if let Some(policy) = std::env::var_os(VAR) {
            let policy: crate::Policy = policy.to_str().unwrap().parse().unwrap();
            let pool = crate::ThreadPoolBuilder::new()
                .num_threads(2)
                .policy(policy)
                .pin_threads(false)
                .build()
                .unwrap();
            fn fib(n: u64) -> u64 {
                if n < 2 {
                    return n;
                }
                let (a, b) = crate::join(|| fib(n - 1), || fib(n - 2));
                a + b
            }
            pool.install(|| fib(20));
            INJECT_POLL_PANIC.store(true, std::sync::atomic::Ordering::Relaxed);
            // The other worker is idle, so poll points serve or place: the fault fires.
            for _ in 0..1000 {
                pool.install(|| fib(20));
            }
            panic!("no poll path was reached");
        }
        for (policy, what) in [
            ("rp", "a poll point's answer or promotion"),
            ("gradient", "a poll point's"),
        ] {
            let (status, out) = run_test_in_child(
                "unwind::tests::a_panic_at_a_poll_point_aborts_with_a_message",
                (VAR, policy),
                CHILD_LIMIT,
            );
            assert_eq!(status.signal(), Some(6), "{policy}: aborted: {out}");
            assert!(
                out.contains(&format!("hypersteal: fatal: a panic escaped {what}")),
                "{policy}: {out}"
            );
        }
    }
}

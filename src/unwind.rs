//! Catching panics in tasks and carrying them to the thread that waits for the task.

use std::any::Any;
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

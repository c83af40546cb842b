//! `spawn`: fire-and-forget tasks.

use crate::registry::WorkerThread;

/// Runs `func` in the current pool (or the global pool outside any pool) without waiting for it.
///
/// A panic in `func` goes to the pool's panic handler (without one it is counted in the stats and
/// dropped; the panic hook has already reported it); the worker and the pool keep running. Use [`crate::scope`] to borrow data or wait for completion.
///
/// ```
/// use std::sync::mpsc::channel;
/// let (tx, rx) = channel();
/// hypersteal::spawn(move || tx.send(6 * 7).unwrap());
/// assert_eq!(rx.recv().unwrap(), 42);
/// ```
pub fn spawn<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    let worker = WorkerThread::current();
    // SAFETY: the thread-local points to this thread's live worker, or is null.
    match unsafe { worker.as_ref() } {
        Some(w) => w.registry.spawn_static(func),
        None => crate::builder::global_registry().spawn_static(func),
    }
}

//! `spawn`: fire-and-forget tasks.

use crate::worker::WorkerThread;

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

/// Like [`spawn`], but in FIFO order: the `spawn_fifo` tasks one worker starts run in the order
/// they were spawned whenever that worker runs them itself (and so do those any single worker
/// takes from it), where [`spawn`]'s tasks come back newest first. Outside any pool the task
/// goes to the global pool's queue for outside work, which is FIFO too.
///
/// This orders start times on one worker, nothing more: with several workers, tasks taken by
/// others may run at the same time or earlier.
///
/// ```
/// use std::sync::mpsc::channel;
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let (tx, rx) = channel();
/// pool.install(|| {
///     for i in 0..5 {
///         let tx = tx.clone();
///         hypersteal::spawn_fifo(move || tx.send(i).unwrap());
///     }
/// });
/// drop(tx);
/// // One worker: it ran them all, in the order they were spawned.
/// assert_eq!(rx.iter().collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
/// ```
pub fn spawn_fifo<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    let worker = WorkerThread::current();
    // SAFETY: the thread-local points to this thread's live worker, or is null.
    match unsafe { worker.as_ref() } {
        Some(w) => w.registry.spawn_static_fifo(func),
        None => crate::builder::global_registry().spawn_static_fifo(func),
    }
}

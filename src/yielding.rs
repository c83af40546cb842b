//! Cooperative yielding to the pool: [`yield_now`], [`yield_local`] and [`Yield`].

use crate::worker::WorkerThread;

/// What [`yield_now`] or [`yield_local`] (or their [`crate::ThreadPool`] forms) found to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Yield {
    /// One pending task was found and ran to completion on the calling thread (with whatever
    /// it ran in turn: nested joins, waits).
    Executed,
    /// No pending task was found; nothing ran.
    Idle,
}

/// The current thread's worker, if it is one.
fn current_worker<'a>() -> Option<&'a WorkerThread> {
    let w = WorkerThread::current();
    // SAFETY: the thread-local points to this thread's live worker, or is null; the worker
    // outlives every task its thread runs, hence every caller here.
    unsafe { w.as_ref() }
}

/// Lets the pool run one pending task on the calling worker thread.
///
/// Looks for a single task, in this order: the worker's own unstarted tasks (newest first),
/// tasks placed on it by a sender-initiated policy, work submitted from outside the pool and
/// its share of a broadcast, then tasks other workers have made public (spawned or promoted)
/// and the policy lets this worker take. The first one found runs to completion before this
/// returns. It sends no requests to busy workers (their private tasks stay where they are) and
/// never sleeps, so it is cheap in a polling loop; when it returns `Some(Yield::Idle)`,
/// consider also calling [`std::thread::yield_now`].
///
/// Returns `None` when the calling thread is not a worker of any pool (then nothing runs),
/// `Some(Yield::Executed)` when a task ran, `Some(Yield::Idle)` when none was found.
///
/// ```
/// use hypersteal::Yield;
/// use std::sync::atomic::{AtomicBool, Ordering};
///
/// // Outside any pool there is nothing to yield to.
/// assert_eq!(hypersteal::yield_now(), None);
///
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let ran = AtomicBool::new(false);
/// pool.scope(|s| {
///     s.spawn(|_| ran.store(true, Ordering::Relaxed));
///     // One worker: the spawned task can only run here, when the scope's body lets it.
///     assert_eq!(hypersteal::yield_now(), Some(Yield::Executed));
///     assert!(ran.load(Ordering::Relaxed));
///     assert_eq!(hypersteal::yield_now(), Some(Yield::Idle));
/// });
/// ```
pub fn yield_now() -> Option<Yield> {
    current_worker().map(|w| w.yield_now())
}

/// Lets the calling worker thread run one of its own pending tasks.
///
/// Like [`yield_now`], but only the worker's own unstarted tasks (its private stack and public
/// deque, newest first) are candidates: nothing is taken from other workers, from its inbox or
/// from outside the pool. Returns `None` off a worker thread.
///
/// ```
/// use hypersteal::Yield;
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// pool.scope(|s| {
///     s.spawn(|_| ());
///     assert_eq!(hypersteal::current_thread_has_pending_tasks(), Some(true));
///     assert_eq!(hypersteal::yield_local(), Some(Yield::Executed));
///     assert_eq!(hypersteal::yield_local(), Some(Yield::Idle));
/// });
/// assert_eq!(hypersteal::yield_local(), None);
/// ```
pub fn yield_local() -> Option<Yield> {
    current_worker().map(|w| w.yield_local())
}

/// Whether the calling worker thread has unstarted tasks of its own queued (on its private
/// stack or its public deque); `None` when the calling thread is not a worker of any pool.
///
/// Other workers may take these tasks at any moment, so a `true` may already be stale when it
/// is read. Tasks a sender-initiated policy placed on this worker and not yet received are not
/// counted (they are not its own until it receives them).
///
/// ```
/// assert_eq!(hypersteal::current_thread_has_pending_tasks(), None);
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// pool.install(|| assert_eq!(hypersteal::current_thread_has_pending_tasks(), Some(false)));
/// ```
pub fn current_thread_has_pending_tasks() -> Option<bool> {
    current_worker().map(|w| w.has_own_tasks())
}

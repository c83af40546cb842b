//! [`isolate`]: a region whose waits run only the region's own tasks.

use crate::worker::WorkerThread;

/// The next region's tag. A process-wide `std` counter even under `cfg(loom)`: only equality
/// of tags matters, and a model that sees other values in another run behaves the same.
static NEXT_TAG: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

/// A fresh tag, never 0 (0 is "no region"). After 2^32 - 1 regions tags repeat; a task can
/// be mistaken for one of a region that is still running only if it has waited through
/// four billion other regions.
fn fresh_tag() -> u32 {
    loop {
        let tag = NEXT_TAG.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if tag != 0 {
            return tag;
        }
    }
}

/// Runs `f` in an *isolated region*: while the calling worker waits inside `f` (for a `join`'s
/// other half, a scope, a parallel iterator, an `install` into another pool, a
/// [`yield_now`](crate::yield_now)), it runs only tasks made inside this region, never work
/// from outside it.
///
/// A worker that waits normally runs other work meanwhile, possibly a task of an outer loop of
/// the same program. That task may need what the waiting code holds: a thread that holds a
/// `Mutex` (or initialises a `OnceLock`) and runs a parallel iterator inside it can pick up
/// another iteration of its own outer loop while it waits, which then blocks on the same lock
/// held further down the same thread's stack, and the program deadlocks. Inside `isolate`
/// that cannot happen:
///
/// ```
/// use hypersteal::prelude::*;
/// use std::sync::Mutex;
///
/// let cache = Mutex::new(Vec::new());
/// (0..8u64).into_par_iter().for_each(|i| {
///     let mut cache = cache.lock().unwrap();
///     // Without `isolate`, this worker could run another `i` while it waits inside the
///     // inner loop, and that `i` would block on `cache`, held below it on this thread.
///     let sum = hypersteal::isolate(|| (0..1000u64).into_par_iter().map(|j| i * j).sum::<u64>());
///     cache.push(sum);
/// });
/// assert_eq!(cache.into_inner().unwrap().len(), 8);
/// ```
///
/// What the region's tasks are: everything made in this pool while it runs (`join`'s `b`,
/// spawns into any scope, [`spawn`](crate::spawn), broadcasts) and, in turn, everything those
/// tasks make in this pool, wherever they run. Other workers may take the region's tasks as
/// usual, and then their waits inside those tasks are isolated to the region too. The isolated
/// waiter runs the region's tasks it holds itself, that are placed on it or that wait in other
/// workers' public deques, and any broadcast job for it (a broadcast waits for every worker;
/// the share runs inside the waiter's region). Tasks from outside the region that the waiter
/// holds it makes public first, so other workers run them while it waits. `spawn_fifo` and
/// `Scope::spawn_fifo` inside a region queue their tasks as `spawn` does, without the
/// first-in-first-out order among them.
///
/// What a region cannot do: wait for work made outside it. A region that waits for a task
/// spawned before it began (`isolate(|| handle.join())`), or for work that reaches its pool
/// through another pool (an `install` into a second pool that calls back into the first: the
/// call back arrives from outside, through the pool's injector, which an isolated waiter
/// does not read), waits until some worker outside every region runs that work; in a pool of
/// one, or while every other worker is blocked, that is never.
///
/// Regions nest: an inner `isolate` runs only its own tasks, and the outer region resumes
/// when it returns. Called from a thread outside every pool, `isolate` just runs `f`: such a
/// thread blocks while it waits and runs no pool work at all. A panic in `f` passes through
/// after the region ends. When no region is in use, the cost is one word carried and copied
/// by each task.
pub fn isolate<R>(f: impl FnOnce() -> R) -> R {
    let worker = WorkerThread::current();
    // SAFETY: the thread-local points to this thread's live worker, or is null; the worker
    // outlives every frame its thread runs, this one included.
    let Some(worker) = (unsafe { worker.as_ref() }) else {
        return f();
    };
    /// Restores the region that was current, however `f` ends.
    struct Restore<'a>(&'a WorkerThread, u32);
    impl Drop for Restore<'_> {
        fn drop(&mut self) {
            self.0.enter_isolation(self.1);
        }
    }
    let _restore = Restore(worker, worker.enter_isolation(fresh_tag()));
    f()
}

/// Whether the calling thread is a worker inside an isolated region.
pub(crate) fn isolated() -> bool {
    current_region() != 0
}

/// The isolated region the calling thread works in: 0 outside every region or every pool.
pub(crate) fn current_region() -> u32 {
    let worker = WorkerThread::current();
    // SAFETY: as in `isolate`.
    unsafe { worker.as_ref() }.map_or(0, |w| w.isolation())
}

//! `par_bridge`: a sequential iterator fed to the workers of a pool.
//!
//! One participant runs on each worker of the current pool (the caller plus scope tasks). A
//! participant repeatedly locks the iterator, takes one item, unlocks, and folds the item with
//! the consumer. A worker never runs two participants of one bridge at once: if the iterator's
//! own `next` runs pool work that includes a participant of the same bridge, that participant
//! returns at once instead of waiting for a lock its own thread holds.
//!
//! ## Waiting for the lock
//!
//! An iterator whose own `next` runs parallel work in the same pool is supported. Its holder
//! (the participant inside `next`) may then wait for tasks that other workers took from it.
//! Suppose such a worker, while waiting inside one of those tasks, ran a participant of the
//! same bridge, and that participant blocked on the lock: the holder would wait for the task
//! suspended below the participant, and the participant for the holder. So how a participant
//! waits depends on what is below it on its thread:
//!
//! - **Nothing suspended** (the participant is the caller's own, or a task its worker's main
//!   loop started): it blocks on the lock (no spinning). Below it on its thread there is only
//!   the task that runs it: its own scope task, or the task that called `par_bridge`. The
//!   holder waits only for tasks made inside its `next` and their descendants, all newer than
//!   the bridge, so neither of those is among them. A chain of such waits across several
//!   bridges (a holder waiting for a task blocked on another bridge's lock) goes from older
//!   bridges to newer ones, so no cycle runs through the tasks below blocked participants
//!   (what else a blocked worker holds is another matter: "Known deadlocks left", below).
//! - **Running on top of a suspended task** (`WorkerThread::runs_nested`: a wait or a yield ran
//!   it): it only *tries* the lock, a bounded number of times, and when the lock stays busy it
//!   stops taking part, returning what it folded so far. The thread's stack then unwinds to
//!   the suspended task, which is what breaks the cycle above.
//!
//! No item is left behind when a participant stops: it stops only while another participant
//! holds the lock, and a holder always comes back for the next item after folding the one it
//! took, until the iterator runs dry, the consumer is full, or something panicked. So while
//! items remain, some participant is still taking them.
//!
//! While one worker is inside `next` the others wait for the lock, so work that `next` does in
//! parallel gets little help.
//!
//! **Known deadlocks left.** The argument above covers tasks suspended *below* a blocked
//! participant, not what a blocked worker otherwise keeps from the pool, and two rare cases
//! slip through it (`tests/adversarial_bridge.rs` has their reproducers, ignored):
//!
//! - a participant that blocks may hold, in its own queues, a task spawned by the holder's
//!   `next` (taken while its consumer waited), which the holder's scope then waits for (seen
//!   under `ml` at 4 workers, about once in 300,000 bridges whose `next` and consumer both run
//!   pool work);
//! - a participant that blocks may have used up the wake-up meant for a job injected from
//!   another pool that the holder waits for (a `next` that calls `install` on a second pool
//!   whose work calls back into this one);
//! - and, as in rayon, a `next` that waits for every worker of the pool (a `broadcast`).
//!
//! The fix for all of them is for a participant to wait for the lock as a worker waits for a
//! latch, running the pool's work and sleeping in its protocol, instead of blocking in the
//! mutex; that needs a lock whose release wakes its waiters, argued and loom-checked like the
//! latches.
//!
//! The items come out in no particular order, and every participant's partial result is
//! combined in no particular order either (as in rayon).

use crate::iter::plumbing::Consumer;
use crate::iter::ParallelIterator;
use crate::registry::WorkerThread;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

/// Tries of the lock, each after a spin hint, before a participant running on top of a
/// suspended task stops taking part (module docs).
const NESTED_TRIES: u32 = 64;

/// Whether the participant about to start runs on top of a suspended task of its thread
/// (module docs). It stays so for the participant's whole run: the tasks its consumer runs in
/// turn come and go above it.
fn runs_nested() -> bool {
    // SAFETY: the thread-local points to this thread's live worker, or is null.
    unsafe { WorkerThread::current().as_ref() }.is_some_and(|w| w.runs_nested())
}

/// Locks the iterator as the module docs say: blocking, unless the participant runs `nested`
/// on top of a suspended task; then `None` if the lock stays busy. A poisoned lock (a `next`
/// panicked while holding it) is `None` too: the iterator is never called again after a panic,
/// and the panic reaches the caller through the participant it unwound.
fn lock_source<T>(source: &Mutex<T>, nested: bool) -> Option<MutexGuard<'_, T>> {
    if !nested {
        return source.lock().ok();
    }
    for _ in 0..NESTED_TRIES {
        match source.try_lock() {
            Ok(guard) => return Some(guard),
            Err(TryLockError::Poisoned(_)) => return None,
            Err(TryLockError::WouldBlock) => std::hint::spin_loop(),
        }
    }
    None
}

/// `par_bridge()`: turns any sequential `Iterator + Send` into a parallel iterator.
///
/// ```
/// use hypersteal::iter::ParallelBridge;
/// use hypersteal::prelude::*;
/// use std::sync::mpsc::channel;
///
/// let (tx, rx) = channel();
/// for i in 0..100u32 {
///     tx.send(i).unwrap();
/// }
/// drop(tx);
/// let mut squares: Vec<u32> = rx.into_iter().par_bridge().map(|x| x * x).collect();
/// squares.sort();
/// assert_eq!(squares[99], 99 * 99);
/// ```
pub trait ParallelBridge: Sized {
    /// Makes a parallel iterator of `self`'s items, in no particular order.
    fn par_bridge(self) -> IterBridge<Self>;
}

impl<T> ParallelBridge for T
where
    T: Iterator + Send,
    T::Item: Send,
{
    fn par_bridge(self) -> IterBridge<Self> {
        IterBridge { iter: self }
    }
}

/// The iterator of [`ParallelBridge::par_bridge`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct IterBridge<Iter> {
    iter: Iter,
}

/// Raises a flag if dropped during a panic (forgotten otherwise).
struct RaiseOnUnwind<'a>(&'a AtomicBool);

impl Drop for RaiseOnUnwind<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Clears a worker's "running a participant" flag when its participant ends, however it ends.
struct Leave<'a>(&'a AtomicBool);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

/// Every item taken is a poll point (`src/worker/mod.rs`), as every chunk of a self-scheduled
/// loop is: a participant that holds the other participants as private tasks (under the
/// sender-initiated policies) hands them out to idle workers between items.
fn poll_point() {
    // SAFETY: the thread-local points to this thread's live worker, or is null.
    if let Some(w) = unsafe { WorkerThread::current().as_ref() } {
        w.poll();
    }
}

impl<Iter> ParallelIterator for IterBridge<Iter>
where
    Iter: Iterator + Send,
    Iter::Item: Send,
{
    type Item = Iter::Item;

    fn drive<C: Consumer<Iter::Item>>(self, consumer: C) -> C::Result {
        // `None` once the iterator has run dry (or its `next` panicked).
        let source = Mutex::new(Some(self.iter));
        let done = AtomicBool::new(false);
        let results: Mutex<Vec<C::Result>> = Mutex::new(Vec::new());
        let participant = |active: &[AtomicBool]| {
            let me = crate::current_thread_index().unwrap_or(0);
            let Some(flag) = active.get(me) else { return };
            if flag.swap(true, Ordering::Acquire) {
                // This worker is already inside a participant (its `next` ran pool work).
                return;
            }
            let _leave = Leave(flag);
            let nested = runs_nested();
            let guard = RaiseOnUnwind(&done);
            let pull = std::iter::from_fn(|| {
                if done.load(Ordering::Relaxed) || consumer.full() {
                    return None;
                }
                poll_point();
                // `None` here: the lock stays busy and this participant stops (module docs).
                let mut iter = lock_source(&source, nested)?;
                let item = iter.as_mut()?.next();
                if item.is_none() {
                    *iter = None;
                    done.store(true, Ordering::Relaxed);
                }
                item
            });
            let result = consumer.consume(pull);
            std::mem::forget(guard);
            results
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(result);
        };
        // The scope runs in the current pool (the global one outside any), whose size this is.
        let workers = crate::current_num_threads();
        let active: Vec<AtomicBool> = (0..workers).map(|_| AtomicBool::new(false)).collect();
        crate::scope(|s| {
            let (active, participant) = (&active[..], &participant);
            for _ in 1..workers {
                s.spawn(move |_| participant(active));
            }
            participant(active);
        });
        let results = results.into_inner().unwrap_or_else(PoisonError::into_inner);
        results
            .into_iter()
            .reduce(|a, b| consumer.reduce(a, b))
            .unwrap_or_else(|| consumer.identity())
    }
}

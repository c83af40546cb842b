//! `par_bridge`: a sequential iterator fed to the workers of a pool.
//!
//! One participant runs on each worker of the current pool (the caller plus scope tasks). A
//! participant repeatedly locks the iterator, takes a few items, unlocks, and folds the items
//! with the consumer (see "How many items a hold takes"). A worker never runs two participants
//! of one bridge at once: if the iterator's
//! own `next` runs pool work that includes a participant of the same bridge, that participant
//! returns at once instead of waiting for a lock its own thread holds. On a pool of one the
//! calling thread folds the iterator itself, without lock or scope.
//!
//! ## Waiting for the lock
//!
//! An iterator whose own `next` runs parallel work in the same pool is supported, and so is a
//! consumer that does. The holder of the lock (the participant inside `next`) may then wait
//! for tasks other workers took from it, for a job it injected into another pool whose work
//! calls back into this one, or for a broadcast to reach every worker. A participant that
//! blocked in a mutex would keep from the pool its private tasks, the wake-up meant for an
//! injected job, its share of a broadcast: any of them can be what the holder waits for. So
//! the iterator sits in a [`PoolLock`](crate::latch::PoolLock), whose waiters wait as workers
//! wait for a latch: they run the pool's tasks (their own first, then injected jobs,
//! broadcasts and other workers' tasks) and sleep in the pool's sleep protocol, and releasing
//! the lock wakes them (`src/latch/lock.rs` argues that no wake-up is lost; a loom model
//! checks it).
//!
//! Waiting that way is safe only where the waiter has nothing below it on its thread that the
//! holder could be waiting for. So how a participant waits depends on what is below it:
//!
//! - **Nothing suspended** (`runs_nested` is false: at most one task is in execution on the
//!   thread, the one that runs the participant; the participant is the caller's own, or a task
//!   its worker's main loop started): it waits for the lock as above. (Two frames suspended
//!   without a task of their own above them do not count: a task a waiter took back, which is
//!   exactly what that waiter waits for, and the caller's frame on a thread the pool adopted
//!   with `use_current_thread`, which no task waits for.) Below it on its thread there is only the
//!   task that runs it: its own scope task, or the task that called `par_bridge`. The holder
//!   waits only for tasks made inside its `next` and their descendants, all newer than the
//!   bridge, so neither of those is among them. Tasks the waiter runs meanwhile sit *above* it
//!   and end on their own: none of them is a participant of this bridge (a worker runs at most
//!   one; a second returns at once), and a participant of another bridge started there runs on
//!   top of a suspended task, so it never waits (next point). A chain of waits across several
//!   bridges (a holder waiting for a task that waits for another bridge's lock) goes from older
//!   bridges to newer ones, so it has no cycle.
//! - **Running on top of a suspended task** (`WorkerThread::runs_nested`: a wait or a yield ran
//!   it): it only *tries* the lock, a bounded number of times, and when the lock stays busy it
//!   stops taking part, returning what it folded so far. The thread's stack then unwinds to
//!   the suspended task, which may be what the holder waits for.
//!
//! No item is left behind when a participant stops: it stops only while another participant
//! holds the lock, and a holder always comes back for the next item after folding the one it
//! took, until the iterator runs dry, the consumer is full, or something panicked. So while
//! items remain, some participant is still taking them.
//!
//! While one worker is inside `next` the others run whatever the pool has, including the
//! tasks `next` makes, so work that `next` does in parallel is helped.
//!
//! **A cost of waiting that way.** The caller spawns one participant per other worker. A
//! worker that waits for the lock may pick up one of those that no other worker has started
//! yet; it is already a participant, so that one returns at once, and the worker that could
//! have used it is left out. So with three or more workers and a contended lock, fewer than
//! all workers may end up taking part. When the lock is contended the iterator's `next` is the
//! bottleneck, which fewer participants keep busy just as well; when items are costly,
//! participants rarely wait, and idle workers take the spawned participants first. (Measured
//! only at 2 workers: `examples/compat.rs`.)
//!
//! **What is left to the user.** A `next` or a consumer that blocks outside the pool (on a
//! channel, on a lock of its own) keeps its worker from serving the pool meanwhile, as it would
//! in any task; if what it waits for can only come from a task that worker holds, it hangs.
//!
//! ## How many items a hold takes
//!
//! Each participant keeps its own count, `batch`, of the items it takes at one hold of the
//! lock: 1 at first, doubled (up to [`MOST_TAKEN`]) each time it found the lock busy, halved
//! each time it found it free. A busy lock means items are cheap beside the lock's own cost:
//! taken one at a time, two participants spent most of each item handing the lock to each
//! other (a `par_bridge` over the cells of a game-of-life board, one cheap item each, ran
//! slower than rayon's, whose participants block in a mutex). When the items are costly,
//! participants rarely meet at the lock and the count stays near 1, so no participant sits on
//! items another could be working on. The items a participant took and has not folded yet are
//! its own: it folds them before it looks at the lock, or at `done`, again; it drops them
//! unfolded only where the consumer is full, as the iterator's remaining items are, or where a
//! panic unwinds the participant.
//!
//! The items come out in no particular order, and every participant's partial result is
//! combined in no particular order either (as in rayon).

use crate::iter::plumbing::Consumer;
use crate::iter::ParallelIterator;
use crate::latch::{PoolGuard, PoolLock};
use crate::worker::WorkerThread;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

/// Tries of the lock, each after a spin hint, before a participant running on top of a
/// suspended task stops taking part (module docs).
const NESTED_TRIES: u32 = 64;

/// The most items a participant takes at one hold of the lock (module docs, "How many items a
/// hold takes").
const MOST_TAKEN: usize = 64;

/// Locks the iterator as the module docs say: waiting as a latch waiter does, unless the
/// participant runs `nested` on top of a suspended task; then `None` if the lock stays busy. A
/// poisoned lock (a `next` panicked while holding it) is `None` too: the iterator is never
/// called again after a panic, and the panic reaches the caller through the participant it
/// unwound. With the guard: whether the lock was busy at the first try.
fn lock_source<'a, T>(
    source: &'a PoolLock<T>,
    worker: &'a WorkerThread,
    nested: bool,
) -> Option<(PoolGuard<'a, T>, bool)> {
    let (guard, busy) = if let Some(guard) = source.try_lock(&worker.registry) {
        (guard, false)
    } else if nested {
        let mut tries = 1;
        loop {
            if tries == NESTED_TRIES {
                return None;
            }
            tries += 1;
            std::hint::spin_loop();
            if let Some(guard) = source.try_lock(&worker.registry) {
                break (guard, true);
            }
        }
    } else {
        (source.lock_waiting(worker), true)
    };
    // Dropping a poisoned guard releases the lock, and the other participants find it poisoned
    // in turn.
    (!guard.poisoned()).then_some((guard, busy))
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

impl<Iter> ParallelIterator for IterBridge<Iter>
where
    Iter: Iterator + Send,
    Iter::Item: Send,
{
    type Item = Iter::Item;

    fn drive<C: Consumer<Iter::Item>>(self, consumer: C) -> C::Result {
        // The scope runs in the current pool (the global one outside any), whose size this is.
        let workers = crate::current_num_threads();
        if workers == 1 {
            // Nobody to share the iterator with: the one participant folds it straight through
            // (no lock, no scope), on this thread.
            let mut iter = self.iter;
            let consumer = &consumer;
            return consumer.consume(std::iter::from_fn(move || {
                if consumer.full() {
                    return None;
                }
                iter.next()
            }));
        }
        // `None` once the iterator has run dry (or its `next` panicked).
        let source = PoolLock::new(Some(self.iter), workers);
        let done = AtomicBool::new(false);
        let results: Mutex<Vec<C::Result>> = Mutex::new(Vec::new());
        let participant = |active: &[AtomicBool]| {
            // SAFETY: the thread-local points to this thread's live worker, or is null. A
            // participant runs in a scope of the pool, so on one of its workers, which outlives
            // the participant.
            let Some(worker) = (unsafe { WorkerThread::current().as_ref() }) else {
                unreachable!("a par_bridge participant runs on a worker of its pool");
            };
            let Some(flag) = active.get(worker.index) else {
                return;
            };
            if flag.swap(true, Ordering::Acquire) {
                // This worker is already inside a participant (its `next` ran pool work).
                return;
            }
            let _leave = Leave(flag);
            // Whether this participant runs on top of a suspended task of its thread (module
            // docs). It stays so for the participant's whole run: the tasks its consumer and
            // its waits run come and go above it.
            let nested = worker.runs_nested();
            let guard = RaiseOnUnwind(&done);
            // Items taken at the last hold and not folded yet, next one last.
            let mut taken: Vec<Iter::Item> = Vec::new();
            let mut batch = 1;
            let pull = std::iter::from_fn(|| {
                if consumer.full() {
                    return None;
                }
                // Every item is a poll point (`src/worker/mod.rs`), as every chunk of a
                // self-scheduled loop is: a participant that holds the other participants as
                // private tasks (under the sender-initiated policies) hands them out to idle
                // workers between items.
                worker.poll();
                if let Some(item) = taken.pop() {
                    return Some(item);
                }
                if done.load(Ordering::Relaxed) {
                    return None;
                }
                // `None` here: the lock stays busy and this participant stops (module docs).
                let (mut iter, busy) = lock_source(&source, worker, nested)?;
                batch = if busy {
                    (batch * 2).min(MOST_TAKEN)
                } else {
                    (batch / 2).max(1)
                };
                let (item, dry) = iter.with(|slot| {
                    let Some(iter) = slot.as_mut() else {
                        return (None, true);
                    };
                    let first = iter.next();
                    let mut dry = first.is_none();
                    // The rest of the hold's items, kept in reverse so that `pop` takes them in
                    // the iterator's order.
                    while !dry && taken.len() + 1 < batch {
                        match iter.next() {
                            Some(item) => taken.push(item),
                            None => dry = true,
                        }
                    }
                    if dry {
                        // An iterator need not be fused: once it said `None` it is not called
                        // again.
                        *slot = None;
                    }
                    taken.reverse();
                    (first, dry)
                });
                drop(iter);
                if dry {
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

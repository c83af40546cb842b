//! `scope`: spawn tasks that borrow from the enclosing stack frame.

use crate::job::{HeapJob, Ticket};
use crate::latch::CountLatch;
use crate::registry::{in_worker, Reclaim, WorkerThread};
use crate::sync::{AtomicBool, Mutex, Ordering};
use crate::unwind;
use std::any::Any;
use std::marker::PhantomData;
use std::sync::Arc as StdArc;

/// A scope in which tasks borrowing data that outlives `'scope` can be spawned.
///
/// Created by [`scope`] or [`crate::ThreadPool::scope`].
pub struct Scope<'scope> {
    latch: CountLatch,
    /// The first panic of a task, resumed when the scope ends.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    panicked: AtomicBool,
    /// Sender-initiated policies: tickets of the tasks, so the owner can take back unstarted ones.
    placed: Mutex<Vec<StdArc<Ticket>>>,
    /// Invariant in `'scope`, so that tasks cannot shorten or lengthen it.
    marker: PhantomData<ScopeTask<'scope>>,
}

type ScopeTask<'scope> = Box<dyn FnOnce(&Scope<'scope>) + Send + Sync + 'scope>;

/// Creates a scope, runs `op` in it, and returns once `op` and every task spawned in the scope
/// (transitively) has finished.
///
/// Tasks may borrow anything that outlives the scope. If `op` or any task panics, the scope still
/// waits for all of them, then resumes the first panic in the caller. Called outside any pool, it
/// runs in the global pool and blocks.
///
/// ```
/// let mut hits = vec![0u32; 4];
/// let words = ["a", "bb", "ccc", "dddd"];
/// hypersteal::scope(|s| {
///     for (slot, word) in hits.iter_mut().zip(&words) {
///         s.spawn(move |_| *slot = word.len() as u32);
///     }
/// });
/// assert_eq!(hits, [1, 2, 3, 4]);
/// ```
///
/// A task cannot borrow something that dies before the scope ends:
///
/// ```compile_fail
/// hypersteal::scope(|s| {
///     let short_lived = vec![1, 2, 3];
///     s.spawn(|_| println!("{:?}", short_lived));
/// });
/// ```
///
/// Nor can two tasks borrow the same data mutably:
///
/// ```compile_fail
/// let mut counter = 0;
/// hypersteal::scope(|s| {
///     s.spawn(|_| counter += 1);
///     s.spawn(|_| counter += 1);
/// });
/// ```
///
/// And the scope itself cannot escape into a task that outlives it:
///
/// ```compile_fail
/// let mut saved = None;
/// hypersteal::scope(|s| {
///     saved = Some(s);
/// });
/// ```
pub fn scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    in_worker(|owner, _| {
        let scope = Scope::new(owner);
        scope.complete(owner, || op(&scope))
    })
}

/// The owner of a scope may take back its unstarted tasks (sender-initiated policies).
impl Reclaim for Scope<'_> {
    fn reclaim(&self, worker: &WorkerThread) -> bool {
        loop {
            let Some(ticket) = self.placed.lock().pop() else {
                return false;
            };
            if worker.reclaim(&ticket) {
                return true;
            }
        }
    }

    fn may_reclaim(&self) -> bool {
        !self.placed.lock().is_empty()
    }
}

/// A pointer to a scope that tasks carry to other threads.
struct ScopePtr<'scope>(*const Scope<'scope>);

// SAFETY: `Scope` is `Sync`; the pointer is only dereferenced while the scope waits for the task.
unsafe impl Send for ScopePtr<'_> {}

impl<'scope> ScopePtr<'scope> {
    /// # Safety
    ///
    /// The scope has not finished yet (the caller is one of its tasks).
    unsafe fn get(&self) -> &Scope<'scope> {
        // SAFETY: forwarded from the caller.
        unsafe { &*self.0 }
    }
}

impl<'scope> Scope<'scope> {
    fn new(owner: &WorkerThread) -> Self {
        Scope {
            latch: CountLatch::new(owner.registry.clone(), owner.index),
            panic: Mutex::new(None),
            panicked: AtomicBool::new(false),
            placed: Mutex::new(Vec::new()),
            marker: PhantomData,
        }
    }

    /// Spawns a task into the scope; it may borrow anything that outlives `'scope` and spawn
    /// further tasks through the `&Scope` it receives.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.latch.increment();
        let scope_ptr = ScopePtr(self);
        let job = HeapJob::new(move || {
            // SAFETY: the scope waits for this task (its latch counts it) before it returns.
            let scope = unsafe { scope_ptr.get() };
            scope.run_task(|| body(scope));
        });
        // SAFETY: the job borrows only data that outlives `'scope`, and the scope does not end
        // before the job has run (the count latch above).
        let placed = self
            .latch
            .registry()
            .push_or_inject(true, |origin| unsafe { job.into_job_ref(origin) });
        if let Some(ticket) = placed {
            self.track_placed(ticket);
        }
    }

    /// Adds a placed task to the set the owner may take back, and tells the owner.
    ///
    /// The owner may be asleep in `complete` after finding nothing to take back, and a task that
    /// spawns a sibling adds to the very set it waits for. Notifying after the push is the other
    /// half of `Reclaim::may_reclaim`'s re-check: either the owner's re-check sees the ticket,
    /// or this notification finds the owner sleepy and wakes it (docs/sender.md, "Deadlock
    /// freedom"; the loom model `scope_owner_sees_a_late_sibling`).
    fn track_placed(&self, ticket: StdArc<Ticket>) {
        let spawner = ticket.origin();
        self.placed.lock().push(ticket);
        // Test-only broken variant (docs/loom.md): the owner is not told. And an owner that
        // spawns is awake (its wait re-checks the set before sleeping): no fence for it, which
        // keeps the scope body's own spawns, the common case, free of one.
        if cfg!(all(loom, feature = "loom-broken-scope")) || spawner as usize == self.latch.owner()
        {
            return;
        }
        self.latch.registry().notify_latch_set(self.latch.owner());
    }

    /// Runs one task of the scope, keeping its panic, and counts it done.
    fn run_task(&self, task: impl FnOnce()) {
        if let Err(payload) = unwind::halt_unwinding(task) {
            self.keep_panic(payload);
        }
        // SAFETY: this runs on a worker of the scope's registry, and the latch is alive until
        // its count reaches zero, which this call may cause as its last action.
        unsafe { CountLatch::decrement(&self.latch) };
    }

    fn keep_panic(&self, payload: Box<dyn Any + Send>) {
        if !self.panicked.swap(true, Ordering::AcqRel) {
            *self.panic.lock() = Some(payload);
        } else {
            // Only the first panic reaches the caller. Dropping a later payload runs its
            // destructor, which may panic in turn: that must not skip the count below
            // (the scope would return while siblings still run).
            unwind::drop_payload(payload);
        }
    }

    fn complete<R>(&self, owner: &WorkerThread, op: impl FnOnce() -> R) -> R {
        let mut result = None;
        self.run_task(|| result = Some(op()));
        if owner.placing() {
            owner.wait_reclaiming(&self.latch, self);
        } else {
            owner.wait_until(&self.latch);
        }
        if let Some(payload) = self.panic.lock().take() {
            unwind::resume_unwinding(payload);
        }
        result.expect("the scope's body returned (it did not panic)")
    }
}

#[cfg(all(test, loom))]
mod loom_tests;

//! `scope`: spawn tasks that borrow from the enclosing stack frame.

use crate::broadcast::BroadcastContext;
use crate::fifo::Lanes;
use crate::job::{HeapJob, JobRef, Ticket, EXTERNAL};
use crate::latch::CountLatch;
use crate::registry::Registry;
use crate::sync::{broken, AtomicBool, Broken, Mutex, Ordering};
use crate::unwind;
use crate::worker::{in_worker, Reclaim, WorkerThread};
use std::any::Any;
use std::marker::PhantomData;
use std::sync::Arc as StdArc;

/// A scope in which tasks borrowing data that outlives `'scope` can be spawned.
///
/// Created by [`scope`], [`in_place_scope`], [`crate::ThreadPool::scope`] or
/// [`crate::ThreadPool::in_place_scope`].
pub struct Scope<'scope> {
    base: ScopeBase<'scope>,
    /// Each worker's lane of FIFO tasks, in a pool built with `breadth_first` only (its
    /// `spawn`s then run as `ScopeFifo::spawn_fifo`'s do, `fifo.rs`).
    lanes: Option<Lanes>,
    /// Invariant in `'scope`, so that tasks cannot shorten or lengthen it.
    marker: PhantomData<ScopeTask<'scope>>,
}

type ScopeTask<'scope> = Box<dyn FnOnce(&Scope<'scope>) + Send + Sync + 'scope>;

/// What every kind of scope shares: where its tasks go, the count of unfinished ones, the
/// first panic, and the tasks its owner may take back.
pub(crate) struct ScopeBase<'scope> {
    /// The pool the scope's tasks run in.
    registry: StdArc<Registry>,
    pub(crate) latch: CountLatch,
    /// The first panic of a task, resumed when the scope ends.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    panicked: AtomicBool,
    /// Sender-initiated policies: tickets of the tasks, so the owner can take back unstarted ones.
    placed: Mutex<Vec<StdArc<Ticket>>>,
    /// The owner, when it is a worker of `registry`: only then may it take tasks back (a
    /// task taken back runs on the taker's thread, which must be a worker of the task's pool).
    reclaimer: Option<usize>,
    /// The owner is outside `registry` (a thread of no pool, or a worker of another pool): the
    /// scope counts as one root job of `registry` while it is open, so the pool cannot come to
    /// rest with a task of the scope unrun (`docs/design.md`, "Termination").
    root: bool,
    marker: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

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
        let scope = Scope::new(Some(owner), &owner.registry);
        scope.base.complete(Some(owner), || op(&scope))
    })
}

/// Like [`scope`], but `op` runs on the calling thread, whatever it is; only the tasks it
/// spawns run in the pool.
///
/// The tasks go to the current pool: the caller's own pool on a worker thread, the global pool
/// anywhere else. Since `op` never leaves the calling thread, it need not be `Send`, and may
/// use thread-local state of the caller. The call returns once `op` and every task spawned in
/// the scope (transitively) has finished: a worker keeps running other tasks of its pool while
/// it waits, any other thread blocks. If `op` or a task panics, the scope still waits for all
/// of them, then resumes the first panic in the caller.
///
/// ```
/// use std::cell::Cell;
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// // `op` may hold things that cannot cross threads, such as a `Cell`...
/// let calls = Cell::new(0);
/// let total = AtomicU64::new(0);
/// hypersteal::in_place_scope(|s| {
///     for i in 1..=10u64 {
///         calls.set(calls.get() + 1);
///         // ...while the tasks, which run in the pool, share only what is `Sync`.
///         let total = &total;
///         s.spawn(move |_| {
///             total.fetch_add(i, Ordering::Relaxed);
///         });
///     }
/// });
/// assert_eq!((calls.get(), total.into_inner()), (10, 55));
/// ```
///
/// As with [`scope`], a task cannot borrow what dies before the scope ends:
///
/// ```compile_fail
/// hypersteal::in_place_scope(|s| {
///     let short_lived = vec![1, 2, 3];
///     s.spawn(|_| drop(short_lived.len()));
/// });
/// ```
///
/// And tasks, unlike `op`, must be `Send`:
///
/// ```compile_fail
/// let counter = std::rc::Rc::new(0);
/// hypersteal::in_place_scope(|s| {
///     s.spawn(|_| drop(counter.clone()));
/// });
/// ```
pub fn in_place_scope<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    in_place_scope_in(None, op)
}

/// [`in_place_scope`] with the tasks going to `registry` (the current pool when `None`).
pub(crate) fn in_place_scope_in<'scope, OP, R>(registry: Option<&StdArc<Registry>>, op: OP) -> R
where
    OP: FnOnce(&Scope<'scope>) -> R,
{
    let (owner, registry) = in_place_parts(registry);
    let scope = Scope::new(owner, registry);
    scope.base.complete(owner, || op(&scope))
}

/// The calling thread's worker, if it is one, and the pool an in-place scope's tasks go to.
pub(crate) fn in_place_parts(
    registry: Option<&StdArc<Registry>>,
) -> (Option<&WorkerThread>, &StdArc<Registry>) {
    let worker = WorkerThread::current();
    // SAFETY: the thread-local points to this thread's live worker, or is null; the worker
    // outlives every task its thread runs, hence the scope this is for.
    let owner = unsafe { worker.as_ref() };
    let registry = match (registry, owner) {
        (Some(r), _) => r,
        (None, Some(w)) => &w.registry,
        (None, None) => crate::builder::global_registry(),
    };
    (owner, registry)
}

/// A scope whose tasks, spawned with [`ScopeFifo::spawn_fifo`], start in FIFO order per
/// worker.
///
/// Created by [`scope_fifo`], [`in_place_scope_fifo`], [`crate::ThreadPool::scope_fifo`] or
/// [`crate::ThreadPool::in_place_scope_fifo`]. Everything else is as for [`Scope`].
pub struct ScopeFifo<'scope> {
    base: ScopeBase<'scope>,
    /// Each worker's lane of this scope's FIFO tasks (`fifo.rs`).
    lanes: Lanes,
    /// Invariant in `'scope`, so that tasks cannot shorten or lengthen it.
    marker: PhantomData<ScopeFifoTask<'scope>>,
}

type ScopeFifoTask<'scope> = Box<dyn FnOnce(&ScopeFifo<'scope>) + Send + Sync + 'scope>;

/// Like [`scope`], but the tasks are spawned with [`ScopeFifo::spawn_fifo`]: those one worker
/// spawns start in the order it spawned them whenever that worker runs them itself (and so do
/// those any single worker takes from it), where [`Scope::spawn`]'s come back newest first.
///
/// Only start order on one worker is promised: with several workers, tasks taken by others may
/// run at the same time or earlier, and a task that blocks lets later ones start elsewhere.
/// Panics and waiting are as for [`scope`].
///
/// ```
/// use std::sync::Mutex;
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let order = Mutex::new(Vec::new());
/// pool.scope_fifo(|s| {
///     for i in 0..4 {
///         let order = &order;
///         s.spawn_fifo(move |s| {
///             order.lock().unwrap().push(i);
///             // Spawned later than 0..4, so it starts after all of them.
///             s.spawn_fifo(move |_| order.lock().unwrap().push(10 + i));
///         });
///     }
/// });
/// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3, 10, 11, 12, 13]);
/// ```
///
/// A task cannot borrow something that dies before the scope ends:
///
/// ```compile_fail
/// hypersteal::scope_fifo(|s| {
///     let short_lived = vec![1, 2, 3];
///     s.spawn_fifo(|_| drop(short_lived.len()));
/// });
/// ```
///
/// Nor can the scope escape into something that outlives it:
///
/// ```compile_fail
/// let mut saved = None;
/// hypersteal::scope_fifo(|s| {
///     saved = Some(s);
/// });
/// ```
pub fn scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
    R: Send,
{
    in_worker(|owner, _| {
        let scope = ScopeFifo::new(Some(owner), &owner.registry);
        scope.base.complete(Some(owner), || op(&scope))
    })
}

/// [`in_place_scope`] with FIFO tasks ([`scope_fifo`]): `op` runs on the calling thread, the
/// tasks it spawns with [`ScopeFifo::spawn_fifo`] run in the current pool (the global pool off
/// a worker). Tasks spawned from a thread of no pool go to the pool's queue for outside work,
/// which is FIFO too.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// let done = AtomicUsize::new(0);
/// hypersteal::in_place_scope_fifo(|s| {
///     for _ in 0..10 {
///         s.spawn_fifo(|_| {
///             done.fetch_add(1, Ordering::Relaxed);
///         });
///     }
/// });
/// assert_eq!(done.into_inner(), 10);
/// ```
///
/// A FIFO task cannot outlive what it borrows:
///
/// ```compile_fail
/// hypersteal::in_place_scope_fifo(|s| {
///     let short_lived = String::from("gone");
///     s.spawn_fifo(|_| drop(short_lived.len()));
/// });
/// ```
pub fn in_place_scope_fifo<'scope, OP, R>(op: OP) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    in_place_scope_fifo_in(None, op)
}

/// [`in_place_scope_fifo`] with the tasks going to `registry` (the current pool when `None`).
pub(crate) fn in_place_scope_fifo_in<'scope, OP, R>(
    registry: Option<&StdArc<Registry>>,
    op: OP,
) -> R
where
    OP: FnOnce(&ScopeFifo<'scope>) -> R,
{
    let (owner, registry) = in_place_parts(registry);
    let scope = ScopeFifo::new(owner, registry);
    scope.base.complete(owner, || op(&scope))
}

impl<'scope> ScopeFifo<'scope> {
    fn new(owner: Option<&WorkerThread>, registry: &StdArc<Registry>) -> Self {
        ScopeFifo {
            base: ScopeBase::new(owner, registry),
            lanes: Lanes::new(registry.num_threads()),
            marker: PhantomData,
        }
    }

    /// [`Scope::spawn_broadcast`] for a FIFO scope: one task per worker of the scope's pool,
    /// each on its own worker.
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&ScopeFifo<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        spawn_broadcast_into(self, |s| &s.base, body);
    }

    /// Spawns a task into the scope, after the FIFO tasks the calling worker already spawned;
    /// it may borrow anything that outlives `'scope` and spawn further tasks through the
    /// `&ScopeFifo` it receives.
    pub fn spawn_fifo<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&ScopeFifo<'scope>) + Send + 'scope,
    {
        let scope_ptr = ScopePtr(self);
        let job = HeapJob::new(move || {
            // SAFETY: the scope waits for this task (its latch counts it) before it returns.
            let scope = unsafe { scope_ptr.get() };
            scope.base.run_task(|| body(scope));
        });
        // SAFETY: the job borrows only data that outlives `'scope` and runs the task through
        // `run_task`; the lanes are this scope's.
        unsafe { self.base.push_fifo(&self.lanes, job) };
    }
}

/// The owner of a scope may take back its unstarted tasks (sender-initiated policies).
impl Reclaim for ScopeBase<'_> {
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
pub(crate) struct ScopePtr<T>(pub(crate) *const T);

// SAFETY: scopes are `Sync`; the pointer is only dereferenced while the scope waits for the task.
unsafe impl<T: Sync> Send for ScopePtr<T> {}

impl<T> ScopePtr<T> {
    /// # Safety
    ///
    /// The scope has not finished yet (the caller is one of its tasks).
    pub(crate) unsafe fn get(&self) -> &T {
        // SAFETY: forwarded from the caller.
        unsafe { &*self.0 }
    }
}

impl<'scope> Scope<'scope> {
    fn new(owner: Option<&WorkerThread>, registry: &StdArc<Registry>) -> Self {
        Scope {
            base: ScopeBase::new(owner, registry),
            lanes: registry
                .breadth_first
                .then(|| Lanes::new(registry.num_threads())),
            marker: PhantomData,
        }
    }

    /// Spawns a task into the scope; it may borrow anything that outlives `'scope` and spawn
    /// further tasks through the `&Scope` it receives.
    pub fn spawn<BODY>(&self, body: BODY)
    where
        BODY: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let scope_ptr = ScopePtr(self);
        let job = HeapJob::new(move || {
            // SAFETY: the scope waits for this task (its latch counts it) before it returns.
            let scope = unsafe { scope_ptr.get() };
            scope.base.run_task(|| body(scope));
        });
        match &self.lanes {
            // SAFETY: the job borrows only data that outlives `'scope`, and the scope does not
            // end before the job has run (`push` counts it first).
            None => unsafe { self.base.push(|origin| job.into_job_ref(origin)) },
            // A `breadth_first` pool: as `ScopeFifo::spawn_fifo`.
            // SAFETY: as above; the lanes are this scope's.
            Some(lanes) => unsafe { self.base.push_fifo(lanes, job) },
        }
    }

    /// Spawns one task per worker of the scope's pool, each running `body` on its worker with
    /// that worker's [`BroadcastContext`] (as [`crate::spawn_broadcast`], but borrowing like
    /// [`Scope::spawn`]); the scope waits for all of them.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
    /// let calls = AtomicUsize::new(0);
    /// pool.scope(|s| s.spawn_broadcast(|_, ctx| {
    ///     assert_eq!(hypersteal::current_thread_index(), Some(ctx.index()));
    ///     calls.fetch_add(1, Ordering::Relaxed);
    /// }));
    /// assert_eq!(calls.into_inner(), 3);
    /// ```
    pub fn spawn_broadcast<BODY>(&self, body: BODY)
    where
        BODY: Fn(&Scope<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
    {
        spawn_broadcast_into(self, |s| &s.base, body);
    }
}

/// `spawn_broadcast` of both scope kinds: one task per worker of the scope's pool, each
/// running `body(scope, its context)` on its own worker, counted by the scope.
fn spawn_broadcast_into<'scope, S, BODY>(scope: &S, base: fn(&S) -> &ScopeBase<'scope>, body: BODY)
where
    S: Sync,
    BODY: Fn(&S, BroadcastContext<'_>) + Send + Sync + 'scope,
{
    let body = StdArc::new(body);
    let make = |i: usize, n: usize| {
        let (body, scope_ptr) = (StdArc::clone(&body), ScopePtr(scope));
        let job = HeapJob::new(move || {
            // SAFETY: the scope waits for this task (its latch counts it) before it returns.
            let scope = unsafe { scope_ptr.get() };
            // `body` moves into the task so that its last clone is dropped before the task
            // counts itself done, while what it borrows is still alive.
            base(scope).run_task(move || body(scope, BroadcastContext::new(i, n)));
        });
        // SAFETY: the job borrows only data that outlives `'scope`, and the scope does not end
        // before it has run (`push_broadcast` counts it first).
        unsafe { job.into_job_ref(EXTERNAL) }
    };
    // SAFETY: each job runs its task through `run_task` and borrows only what outlives the
    // scope.
    unsafe { base(scope).push_broadcast(make) };
}

impl<'scope> ScopeBase<'scope> {
    pub(crate) fn new(owner: Option<&WorkerThread>, registry: &StdArc<Registry>) -> Self {
        let (latch, reclaimer) = match owner {
            Some(w) if StdArc::ptr_eq(&w.registry, registry) => {
                (CountLatch::new(registry.clone(), w.index), Some(w.index))
            }
            Some(w) => (CountLatch::cross(w.registry.clone(), w.index), None),
            None => (CountLatch::blocking(), None),
        };
        let root = reclaimer.is_none();
        if root {
            registry.begin_root();
        }
        ScopeBase {
            registry: registry.clone(),
            latch,
            panic: Mutex::new(None),
            panicked: AtomicBool::new(false),
            placed: Mutex::new(Vec::new()),
            reclaimer,
            root,
            marker: PhantomData,
        }
    }

    /// Counts a task of the scope and queues the job `make(origin)` in the scope's pool: on
    /// the current worker if it belongs to that pool, else in the pool's injector.
    ///
    /// # Safety
    ///
    /// The job runs the task through [`ScopeBase::run_task`] (which counts it done) and
    /// borrows only what outlives the scope.
    pub(crate) unsafe fn push(&self, make: impl FnOnce(u32) -> JobRef) {
        self.latch.increment();
        // Under a sender-initiated policy, a task the owner may take back goes out as a ticket.
        let placed = self.registry.push_or_inject(self.reclaimer.is_some(), make);
        if let Some(ticket) = placed {
            self.track_placed(ticket);
        }
    }

    /// [`ScopeBase::push`] in FIFO order: the task goes to the spawning worker's lane in
    /// `lanes` and an indirection is queued in its place (`fifo.rs`); from outside the pool the
    /// injector is FIFO already.
    ///
    /// # Safety
    ///
    /// As [`ScopeBase::push`]; `lanes` belong to this scope (they live as long as it does).
    pub(crate) unsafe fn push_fifo<F: FnOnce() + Send>(&self, lanes: &Lanes, job: Box<HeapJob<F>>) {
        let make = |origin: u32| {
            // SAFETY: the job borrows only data that outlives the scope, and the scope does not
            // end before the job has run (`push` counts it first).
            let task = unsafe { job.into_job_ref(origin) };
            // Inside an isolated region the task is queued like `Scope::spawn`'s: a lane is
            // shared with tasks from outside the region, and the indirection that runs the
            // lane's oldest task could run one of those inside it (`crate::isolate`).
            if origin == EXTERNAL || crate::isolate::isolated() {
                return task;
            }
            // SAFETY: the lanes live as long as the scope, which waits for this task, and an
            // indirection touches its lane only before it runs its task (`fifo.rs`).
            unsafe { lanes.enqueue(origin, task) }
        };
        // SAFETY: forwarded from the caller.
        unsafe { self.push(make) };
    }

    /// Counts one task per worker of the scope's pool and queues task `make(i, n)` for worker
    /// `i` alone (`broadcast.rs`). The owner cannot take these back, and need not: every
    /// waiter, deep or not, runs the broadcast jobs of its own queue.
    ///
    /// # Safety
    ///
    /// As [`ScopeBase::push`].
    pub(crate) unsafe fn push_broadcast(&self, make: impl Fn(usize, usize) -> JobRef) {
        let n = self.registry.num_threads();
        for i in 0..n {
            self.latch.increment();
            self.registry.push_broadcast(i, make(i, n));
        }
    }

    /// Adds a placed task to the set the owner may take back, and tells the owner.
    ///
    /// The owner may be asleep in `complete` after finding nothing to take back, and a task that
    /// spawns a sibling adds to the very set it waits for. Notifying after the push is the other
    /// half of `Reclaim::may_reclaim`'s re-check: either the owner's re-check sees the ticket,
    /// or this notification finds the owner sleepy and wakes it (docs/sender.md, "Deadlock
    /// freedom"; the loom model `scope_owner_sees_a_late_sibling`).
    pub(crate) fn track_placed(&self, ticket: StdArc<Ticket>) {
        let Some(owner) = self.reclaimer else {
            // Nobody will take it back; the queued reference keeps the ticket alive.
            return;
        };
        let spawner = ticket.origin();
        self.placed.lock().push(ticket);
        // Test-only broken variant (docs/loom.md): the owner is not told. And an owner that
        // spawns is awake (its wait re-checks the set before sleeping): no fence for it, which
        // keeps the scope body's own spawns, the common case, free of one.
        if broken(Broken::Scope) || spawner as usize == owner {
            return;
        }
        self.registry.notify_latch_set(owner);
    }

    /// Runs one task of the scope, keeping its panic, and counts it done.
    pub(crate) fn run_task(&self, task: impl FnOnce()) {
        if let Err(payload) = unwind::halt_unwinding(task) {
            self.keep_panic(payload);
        }
        // SAFETY: the latch is alive until its count reaches zero, which this call may cause as
        // its last action. Without `cross`, this runs on the owner or on a worker of the
        // owner's pool (the tasks' pool), which keeps that pool's registry alive.
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

    /// Runs the scope's body `op` on the calling thread (`owner`, or a thread of no pool),
    /// waits for every task, then returns `op`'s result or resumes the first panic.
    pub(crate) fn complete<R>(&self, owner: Option<&WorkerThread>, op: impl FnOnce() -> R) -> R {
        let mut result = None;
        self.run_task(|| result = Some(op()));
        match owner {
            Some(w) if self.reclaimer.is_some() && w.placing() => {
                w.wait_reclaiming(&self.latch, self)
            }
            Some(w) => w.wait_until(&self.latch),
            None => self.latch.wait_blocking(),
        }
        if self.root {
            self.registry.end_root();
        }
        if let Some(payload) = self.panic.lock().take() {
            unwind::resume_unwinding(payload);
        }
        result.expect("the scope's body returned (it did not panic)")
    }
}

#[cfg(all(test, loom))]
#[path = "loom/scope.rs"]
mod loom_tests;

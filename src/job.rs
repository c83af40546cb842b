//! Jobs: type-erased pieces of work that sit in deques, inboxes and the injector.
//!
//! A [`JobRef`] is a pointer to a job plus the function that runs it, and the bookkeeping a task
//! carries as it moves: the worker that created it (`origin`, for locality) and the transfers it
//! has made (`hops`, for the sender-initiated policies), and the isolated region it was made
//! in (`isolation`, `worker/isolated.rs`). The job it points to is either a
//! [`StackJob`] living in the frame of a `join` (which does not return before the job has run)
//! or a [`HeapJob`] owned by the `JobRef` itself and freed when it runs.

use crate::sync::{broken, AtomicBool, AtomicU32, Broken, Ordering, UnsafeCell};
use crate::unwind;
use std::any::Any;
use std::mem;
use std::sync::Arc as StdArc;

/// `origin` of a job that entered from outside the pool's workers (the injector).
pub(crate) const EXTERNAL: u32 = u32::MAX;

/// How a finished [`StackJob`] tells its waiter: a latch that can be set (the latches are in
/// `latch.rs`).
pub(crate) trait Latch {
    /// Sets the latch, waking its waiter.
    ///
    /// # Safety
    ///
    /// `this` points to a live latch; it may be freed as soon as the flag is stored, so the
    /// implementation must not touch it after that.
    unsafe fn set(this: *const Self);
}

/// Something a worker can run through a raw pointer.
pub(crate) trait Job {
    /// Runs the job on worker `here` (its index; [`EXTERNAL`] on a thread that is no worker,
    /// which only the loom models do).
    ///
    /// # Safety
    ///
    /// `this` must point to a live job of the implementing type, and each job is executed at
    /// most once.
    unsafe fn execute(this: *const (), here: u32);
}

/// What every job starts with (`#[repr(C)]`, first field): the bookkeeping a task carries as
/// it moves. Keeping it in the job rather than in the [`JobRef`] keeps a `JobRef` at two words,
/// which deques move in registers.
#[repr(C)]
#[derive(Debug)]
pub(crate) struct JobHeader {
    /// The worker that created the task, or [`EXTERNAL`]. Written before the task is published.
    origin: AtomicU32,
    /// Transfers between workers so far; written only by the worker that holds the `JobRef`.
    hops: AtomicU32,
    /// The isolated region the task was made in (`isolate.rs`), or 0 for none. Written by its
    /// creator before the task is published, read by whoever takes it.
    isolation: AtomicU32,
    /// The job is a [`Ticket`]: run the task inside only if the ticket can be claimed.
    ticket: bool,
    /// A frame waits for the job (a `join`'s `b`): placing it elsewhere needs a ticket.
    awaited: bool,
    /// The ticket a `join`'s `b` was placed with, if it was. Written and read only by the
    /// worker that created the job (it places only from its own stack, and its frame reads the
    /// ticket after finding `b` gone).
    placed: std::cell::UnsafeCell<Option<StdArc<Ticket>>>,
}

impl JobHeader {
    pub(crate) fn new(ticket: bool, awaited: bool) -> Self {
        JobHeader {
            origin: AtomicU32::new(EXTERNAL),
            hops: AtomicU32::new(0),
            isolation: AtomicU32::new(0),
            ticket,
            awaited,
            placed: std::cell::UnsafeCell::new(None),
        }
    }
}

/// A type-erased reference to a job: the job (which starts with a [`JobHeader`]) and the
/// function that runs it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JobRef {
    pointer: *const JobHeader,
    execute_fn: unsafe fn(*const (), u32),
}

// SAFETY: a `JobRef` is only created for jobs whose closures and results are `Send`; the pointer
// is handed to exactly one executing thread.
unsafe impl Send for JobRef {}

impl JobRef {
    /// # Safety
    ///
    /// `T` is `#[repr(C)]` with a [`JobHeader`] as its first field, and the caller keeps `data`
    /// alive until the job has executed (for a ticket: while the `JobRef` is queued).
    pub(crate) unsafe fn new<T: Job>(data: *const T, origin: u32) -> JobRef {
        let job = JobRef {
            pointer: data.cast(),
            execute_fn: <T as Job>::execute,
        };
        job.header().origin.store(origin, Ordering::Relaxed);
        job
    }

    #[inline]
    fn header(&self) -> &JobHeader {
        // SAFETY: `new`'s contract: the pointer is to a live job that starts with its header.
        unsafe { &*self.pointer }
    }

    /// The worker that created the task, or [`EXTERNAL`].
    #[inline]
    pub(crate) fn origin(&self) -> u32 {
        self.header().origin.load(Ordering::Relaxed)
    }

    /// Transfers between workers so far.
    #[inline]
    pub(crate) fn hops(&self) -> u32 {
        self.header().hops.load(Ordering::Relaxed)
    }

    /// Counts one more transfer (by the worker that holds the `JobRef`).
    pub(crate) fn add_hop(&self) {
        let h = &self.header().hops;
        h.store(
            h.load(Ordering::Relaxed).saturating_add(1),
            Ordering::Relaxed,
        );
    }

    /// The isolated region the task was made in, or 0 (`isolate.rs`).
    #[inline]
    pub(crate) fn isolation(&self) -> u32 {
        self.header().isolation.load(Ordering::Relaxed)
    }

    /// Marks the task as made in isolated region `tag`, by its creator before it publishes the
    /// task (the queue that publishes it orders this store before any reader's load).
    #[inline]
    pub(crate) fn set_isolation(&self, tag: u32) {
        self.header().isolation.store(tag, Ordering::Relaxed);
    }

    /// Whether a frame waits for this job (a `join`'s `b`, which needs a ticket to be placed).
    #[inline]
    pub(crate) fn awaited(&self) -> bool {
        self.header().awaited
    }

    /// Records the ticket an awaited job was placed with.
    ///
    /// # Safety
    ///
    /// Called by the worker that created the job, while it still owned the `JobRef` (before
    /// sending the ticket), at most once.
    pub(crate) unsafe fn set_ticket(&self, ticket: StdArc<Ticket>) {
        // SAFETY: only the creating worker's thread touches `placed` (see the field).
        unsafe { *self.header().placed.get() = Some(ticket) };
    }

    /// Whether this is a [`Ticket`] `JobRef`.
    #[inline]
    pub(crate) fn is_ticket(&self) -> bool {
        self.header().ticket
    }

    /// An identity for comparing a popped job with a job we pushed.
    #[inline]
    pub(crate) fn id(&self) -> *const () {
        self.pointer.cast()
    }

    /// Runs the job on worker `here` (the index of the worker whose thread this is; see
    /// [`Job::execute`]).
    ///
    /// # Safety
    ///
    /// Each `JobRef` is executed at most once, while its job is alive.
    #[inline]
    pub(crate) unsafe fn execute(self, here: u32) {
        // SAFETY: forwarded from the caller's contract.
        unsafe { (self.execute_fn)(self.pointer.cast(), here) }
    }
}

/// The outcome of a job: not yet run, a value, or the panic it raised.
pub(crate) enum JobResult<T> {
    None,
    Ok(T),
    Panic(Box<dyn Any + Send>),
}

impl<T> JobResult<T> {
    fn call(func: impl FnOnce() -> T) -> Self {
        match unwind::halt_unwinding(func) {
            Ok(x) => JobResult::Ok(x),
            Err(p) => JobResult::Panic(p),
        }
    }

    /// The value, or the job's panic resumed on this thread.
    pub(crate) fn into_return_value(self) -> T {
        match self {
            JobResult::None => unreachable!("job result read before the job ran"),
            JobResult::Ok(x) => x,
            JobResult::Panic(p) => unwind::resume_unwinding(p),
        }
    }
}

/// A job on the stack of the thread that waits for it (the `b` of a `join`, an `install`).
#[repr(C)]
pub(crate) struct StackJob<L, F, R> {
    header: JobHeader,
    pub(crate) latch: L,
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<JobResult<R>>,
    /// The `tracing` span current where the job was made, entered wherever it runs.
    #[cfg(feature = "tracing")]
    span: tracing::Span,
}

impl<L: Latch, F: FnOnce(bool) -> R + Send, R: Send> StackJob<L, F, R> {
    pub(crate) fn new(func: F, latch: L) -> Self {
        StackJob {
            header: JobHeader::new(false, true),
            latch,
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(JobResult::None),
            #[cfg(feature = "tracing")]
            span: tracing::Span::current(),
        }
    }

    /// # Safety
    ///
    /// The job must not move or be dropped until it has executed (its latch is set) or it has
    /// been taken back unexecuted.
    pub(crate) unsafe fn as_job_ref(&self, origin: u32) -> JobRef {
        // SAFETY: forwarded from the caller's contract.
        unsafe { JobRef::new(self, origin) }
    }

    /// The ticket this job was placed with, if it was (read by the frame that created it, once
    /// the job left its private stack).
    pub(crate) fn ticket(&self) -> Option<&Ticket> {
        // SAFETY: only the creating worker's thread touches `placed`, and this runs on it.
        unsafe { (*self.header.placed.get()).as_deref() }
    }

    /// Runs the closure on this thread after its `JobRef` was popped back unexecuted.
    #[inline]
    pub(crate) fn run_inline(self, stolen: bool) -> R {
        let func = self.func.with_mut(|f| {
            // SAFETY: the JobRef was taken back, so no other thread can reach the job.
            unsafe { (*f).take() }
        });
        func.expect("job run twice")(stolen)
    }

    /// Drops the result, once the latch is set, without letting a destructor unwind (used
    /// while another panic is on its way to the caller).
    pub(crate) fn discard_result(self) {
        let result = self.result.with_mut(|r| {
            // SAFETY: as in `into_result`.
            unsafe { mem::replace(&mut *r, JobResult::None) }
        });
        match result {
            JobResult::Panic(payload) => unwind::drop_payload(payload),
            JobResult::Ok(value) => {
                if let Err(payload) = unwind::halt_unwinding(move || drop(value)) {
                    unwind::drop_payload(payload);
                }
            }
            JobResult::None => {}
        }
    }

    /// The result, once the latch is set.
    pub(crate) fn into_result(self) -> R {
        self.result
            .with_mut(|r| {
                // SAFETY: the latch is set, so the executing thread has finished writing and no
                // longer touches the job; we own it.
                unsafe { mem::replace(&mut *r, JobResult::None) }
            })
            .into_return_value()
    }
}

impl<L: Latch, F: FnOnce(bool) -> R + Send, R: Send> Job for StackJob<L, F, R> {
    unsafe fn execute(this: *const (), here: u32) {
        // SAFETY: `this` was made from a `&StackJob<L, F, R>` that outlives the execution.
        let this = unsafe { &*(this as *const Self) };
        // SAFETY: only the one thread executing the job touches `func` and `result` until the
        // latch is set.
        let func = this
            .func
            .with_mut(|f| unsafe { (*f).take() })
            .expect("job executed twice");
        // Stolen: it runs on another thread than the worker that created it (a thief, the worker
        // it was placed on, or any worker for a job injected from outside the pool). A `join`'s
        // waiter that takes its `b` back runs it here too, on its own thread: not stolen.
        let origin = this.header.origin.load(Ordering::Relaxed);
        let stolen = here == EXTERNAL || here != origin;
        let result = {
            // Left before the latch is set: the job may be gone right after.
            #[cfg(feature = "tracing")]
            let _entered = this.span.enter();
            JobResult::call(move || func(stolen))
        };
        // SAFETY: as above: the waiter reads `result` only after the latch is set below.
        this.result.with_mut(|r| unsafe { *r = result });
        // SAFETY: the latch lives in `this`, which stays alive until the waiter sees the latch
        // set; `set` touches nothing of the job after that store.
        unsafe { L::set(&this.latch) };
    }
}

/// A job owned by its `JobRef`: boxed, run once, freed as it runs (`spawn`, `Scope::spawn`).
#[repr(C)]
pub(crate) struct HeapJob<F: FnOnce() + Send> {
    header: JobHeader,
    func: F,
    /// The `tracing` span current where the job was made, entered wherever it runs.
    #[cfg(feature = "tracing")]
    span: tracing::Span,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    pub(crate) fn new(func: F) -> Box<Self> {
        Box::new(HeapJob {
            header: JobHeader::new(false, false),
            func,
            #[cfg(feature = "tracing")]
            span: tracing::Span::current(),
        })
    }

    /// Leaks the box into a `JobRef`, which frees it when executed.
    ///
    /// # Safety
    ///
    /// Whatever `F` borrows must outlive the job's execution.
    pub(crate) unsafe fn into_job_ref(self: Box<Self>, origin: u32) -> JobRef {
        // SAFETY: the box is leaked here and reclaimed in `execute`, exactly once.
        unsafe { JobRef::new(Box::into_raw(self), origin) }
    }
}

impl<F: FnOnce() + Send> Job for HeapJob<F> {
    unsafe fn execute(this: *const (), _here: u32) {
        // SAFETY: `this` came from `Box::into_raw` in `into_job_ref` and runs once.
        let this = unsafe { Box::from_raw(this as *mut Self) };
        #[cfg(feature = "tracing")]
        {
            let HeapJob { func, span, .. } = *this;
            let _entered = span.enter();
            func();
        }
        #[cfg(not(feature = "tracing"))]
        (this.func)();
    }
}

/// A task somebody waits for (a `join`'s `b`, a scope's task) under a sender-initiated policy,
/// which the waiter may take back while nobody has started it, wherever it was placed or moved.
///
/// The queue holds a `JobRef` to the ticket (one `Arc` reference), the waiter another. Whoever
/// claims the ticket first runs the task; the other side only drops its reference. Taking tasks
/// back is what lets a deeply nested waiter stop running other workers' tasks (bounding its
/// stack) without ever waiting for a task that nobody will start (see `docs/sender.md`).
#[repr(C)]
pub(crate) struct Ticket {
    header: JobHeader,
    claimed: AtomicBool,
    job: JobRef,
}

// SAFETY: the inner `JobRef` is executed only by the one thread that claims the ticket.
unsafe impl Sync for Ticket {}

impl Ticket {
    pub(crate) fn new(job: JobRef) -> StdArc<Ticket> {
        let header = JobHeader::new(true, false);
        // The ticket belongs to the region its task was made in: a waiter isolated there may
        // take it, others not (`isolate.rs`).
        header.isolation.store(job.isolation(), Ordering::Relaxed);
        StdArc::new(Ticket {
            header,
            claimed: AtomicBool::new(false),
            job,
        })
    }

    /// The `JobRef` to put in a queue; it owns one reference to the ticket.
    pub(crate) fn job_ref(ticket: &StdArc<Ticket>) -> JobRef {
        let origin = ticket.job.origin();
        // SAFETY: `Ticket` is `repr(C)` and starts with its header; the leaked reference keeps it
        // alive while the `JobRef` is queued, and `redeem` takes the reference back.
        unsafe { JobRef::new(StdArc::into_raw(StdArc::clone(ticket)), origin) }
    }

    /// Another queue reference to the ticket behind `job` (one more `Arc` reference, given
    /// back by the [`Ticket::redeem`] of the copy): the same task in a second queue, run by
    /// whichever holder claims it first.
    ///
    /// # Safety
    ///
    /// `job` is a ticket `JobRef` made by [`Ticket::job_ref`] that still owns its reference.
    pub(crate) unsafe fn copy_ref(job: &JobRef) -> JobRef {
        debug_assert!(job.is_ticket());
        // SAFETY: `job` owns a reference, so the ticket is alive and its count is at least one;
        // the copy owns the reference added here.
        unsafe { StdArc::increment_strong_count(job.pointer as *const Ticket) };
        *job
    }

    /// Claims the right to run the job; true for exactly one caller.
    pub(crate) fn claim(&self) -> bool {
        // The test-only broken variant (docs/loom.md) checks and sets in two steps.
        if broken(Broken::Ticket) {
            return !self.claimed.load(Ordering::Acquire) && {
                self.claimed.store(true, Ordering::Release);
                true
            };
        }
        !self.claimed.load(Ordering::Relaxed) && !self.claimed.swap(true, Ordering::AcqRel)
    }

    /// The worker that created the task behind the ticket.
    pub(crate) fn origin(&self) -> u32 {
        self.job.origin()
    }

    /// Whether the task behind a ticket `JobRef` was already claimed.
    pub(crate) fn is_claimed(job: &JobRef) -> bool {
        debug_assert!(job.is_ticket());
        // SAFETY: a ticket JobRef in a queue owns a reference, so the ticket is alive.
        unsafe { &*(job.pointer as *const Ticket) }
            .claimed
            .load(Ordering::Acquire)
    }

    /// `job`, unless it is a *husk*: a ticket whose task another holder already claimed, which
    /// is dropped here (its reference given back). Every queue that may hold a ticket's second
    /// copy (an inbox, a placing worker's own queues, a public deque a rescuer steals from)
    /// passes what it takes through this.
    ///
    /// # Safety
    ///
    /// `job` was just taken from a queue and is owned by the caller (it is consumed here when it
    /// is a husk).
    #[inline]
    pub(crate) unsafe fn unless_husk(job: JobRef) -> Option<JobRef> {
        if !job.is_ticket() || !Ticket::is_claimed(&job) {
            return Some(job);
        }
        // SAFETY: the caller owns this ticket JobRef; it is consumed here, once.
        let taken = unsafe { Ticket::redeem(job) };
        debug_assert!(taken.is_none());
        None
    }

    /// The job, if this call claimed it.
    pub(crate) fn take(&self) -> Option<JobRef> {
        self.claim().then_some(self.job)
    }

    /// Takes the ticket behind an inbox `JobRef`: the inner job if this call claimed it.
    ///
    /// # Safety
    ///
    /// `job` was made by [`Ticket::job_ref`] and is consumed here (exactly once).
    pub(crate) unsafe fn redeem(job: JobRef) -> Option<JobRef> {
        debug_assert!(job.is_ticket());
        // SAFETY: the pointer came from `Arc::into_raw` in `job_ref`; this consumes that reference.
        let ticket = unsafe { StdArc::from_raw(job.pointer as *const Ticket) };
        ticket.claim().then_some(ticket.job)
    }
}

/// Workers redeem ticket `JobRef`s themselves ([`Ticket::redeem`]); executing one directly
/// behaves the same way: the inner job runs only if this claims it.
impl Job for Ticket {
    unsafe fn execute(this: *const (), here: u32) {
        let job = JobRef {
            pointer: this.cast(),
            execute_fn: <Ticket as Job>::execute,
        };
        // SAFETY: forwarded from `JobRef::execute`'s contract (this ticket reference runs once).
        if let Some(inner) = unsafe { Ticket::redeem(job) } {
            // SAFETY: the claim makes this the only execution of the inner job.
            unsafe { inner.execute(here) }
        }
    }
}

#[cfg(all(test, loom))]
#[path = "loom/job.rs"]
mod loom_tests;

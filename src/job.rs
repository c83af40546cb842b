//! Jobs: type-erased pieces of work that sit in deques, inboxes and the injector.
//!
//! A [`JobRef`] is a pointer to a job plus the function that runs it, and the bookkeeping a task
//! carries as it moves: the worker that created it (`origin`, for locality) and the transfers it
//! has made (`hops`, for the sender-initiated policies). The job it points to is either a
//! [`StackJob`] living in the frame of a `join` (which does not return before the job has run)
//! or a [`HeapJob`] owned by the `JobRef` itself and freed when it runs.

use crate::latch::Latch;
use crate::sync::UnsafeCell;
use crate::unwind;
use std::any::Any;
use std::mem;

/// `origin` of a job that entered from outside the pool's workers (the injector).
pub(crate) const EXTERNAL: u32 = u32::MAX;

/// Something a worker can run through a raw pointer.
pub(crate) trait Job {
    /// Runs the job.
    ///
    /// # Safety
    ///
    /// `this` must point to a live job of the implementing type, and each job is executed at
    /// most once.
    unsafe fn execute(this: *const ());
}

/// A type-erased reference to a job, with the task's origin and hop count.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JobRef {
    pointer: *const (),
    execute_fn: unsafe fn(*const ()),
    /// The worker that created the task, or [`EXTERNAL`].
    pub(crate) origin: u32,
    /// Transfers between workers so far.
    #[allow(dead_code)] // read by the sender-initiated placement
    pub(crate) hops: u32,
}

// SAFETY: a `JobRef` is only created for jobs whose closures and results are `Send`; the pointer
// is handed to exactly one executing thread.
unsafe impl Send for JobRef {}

impl JobRef {
    /// # Safety
    ///
    /// The caller keeps `data` alive until the job has executed.
    pub(crate) unsafe fn new<T: Job>(data: *const T, origin: u32) -> JobRef {
        JobRef {
            pointer: data.cast(),
            execute_fn: <T as Job>::execute,
            origin,
            hops: 0,
        }
    }

    /// An identity for comparing a popped job with a job we pushed.
    #[inline]
    pub(crate) fn id(&self) -> *const () {
        self.pointer
    }

    /// # Safety
    ///
    /// Each `JobRef` is executed at most once, while its job is alive.
    #[inline]
    pub(crate) unsafe fn execute(self) {
        // SAFETY: forwarded from the caller's contract.
        unsafe { (self.execute_fn)(self.pointer) }
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
pub(crate) struct StackJob<L, F, R> {
    pub(crate) latch: L,
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<JobResult<R>>,
}

impl<L: Latch, F: FnOnce(bool) -> R + Send, R: Send> StackJob<L, F, R> {
    pub(crate) fn new(func: F, latch: L) -> Self {
        StackJob {
            latch,
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(JobResult::None),
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

    /// Runs the closure on this thread after its `JobRef` was popped back unexecuted.
    pub(crate) fn run_inline(self, stolen: bool) -> R {
        let func = self.func.with_mut(|f| {
            // SAFETY: the JobRef was taken back, so no other thread can reach the job.
            unsafe { (*f).take() }
        });
        func.expect("job run twice")(stolen)
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
    unsafe fn execute(this: *const ()) {
        // SAFETY: `this` was made from a `&StackJob<L, F, R>` that outlives the execution.
        let this = unsafe { &*(this as *const Self) };
        // SAFETY: only the one thread executing the job touches `func` and `result` until the
        // latch is set.
        let func = this
            .func
            .with_mut(|f| unsafe { (*f).take() })
            .expect("job executed twice");
        let result = JobResult::call(move || func(true));
        this.result.with_mut(|r| unsafe { *r = result });
        // SAFETY: the latch lives in `this`, which stays alive until the waiter sees the latch
        // set; `set` touches nothing of the job after that store.
        unsafe { L::set(&this.latch) };
    }
}

/// A job owned by its `JobRef`: boxed, run once, freed as it runs (`spawn`, `Scope::spawn`).
pub(crate) struct HeapJob<F: FnOnce() + Send> {
    func: F,
}

impl<F: FnOnce() + Send> HeapJob<F> {
    pub(crate) fn new(func: F) -> Box<Self> {
        Box::new(HeapJob { func })
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
    unsafe fn execute(this: *const ()) {
        // SAFETY: `this` came from `Box::into_raw` in `into_job_ref` and runs once.
        let this = unsafe { Box::from_raw(this as *mut Self) };
        (this.func)();
    }
}

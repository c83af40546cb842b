//! `join`: run two closures, potentially in parallel.

use crate::job::{StackJob, Ticket};
use crate::latch::{Probe, SpinLatch};
use crate::registry::{in_worker, Reclaim, WorkerThread};
use crate::unwind;

/// Runs `a` and `b`, potentially in parallel, and returns both results.
///
/// `a` runs on the calling thread; `b` is made available to other workers (or placed, under a
/// sender-initiated policy) and, if nobody has taken it by the time `a` finishes, runs on the
/// calling thread too. Called outside any pool, `join` runs inside the global pool and blocks.
///
/// If either closure panics, `join` waits for the other one to finish and then resumes the panic
/// (`a`'s if both panic), so whatever they borrow stays valid while they run.
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 {
///         return n;
///     }
///     let (a, b) = hypersteal::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// assert_eq!(fib(20), 6765);
/// ```
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    in_worker(|worker, _| join_in_worker(worker, a, |_| b()))
}

/// What [`join_context`] tells each of its closures about where it runs.
#[derive(Debug)]
pub struct FnContext {
    migrated: bool,
}

impl FnContext {
    /// Whether the closure runs on another thread than the one that called [`join_context`]:
    /// for `b`, another worker took it (stole it, or it was placed there); for `a`, the call came
    /// from outside the pool and runs on one of its workers. A closure that did not migrate
    /// shares its caller's thread and caches, which adaptive splitting uses to decide whether
    /// dividing further is worth it.
    #[inline]
    pub fn migrated(&self) -> bool {
        self.migrated
    }
}

/// [`join`], telling each closure whether it migrated to another thread ([`FnContext`]).
///
/// ```
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
/// let (a, b) = pool.install(|| {
///     hypersteal::join_context(|ctx| ctx.migrated(), |ctx| ctx.migrated())
/// });
/// // One worker: `b` can only run on the thread that called `join_context`.
/// assert_eq!((a, b), (false, false));
/// // Called from outside any pool, `a` runs on a worker of the global pool.
/// let (a, _) = hypersteal::join_context(|ctx| ctx.migrated(), |_| ());
/// assert!(a);
/// ```
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    in_worker(|worker, injected| {
        join_in_worker(
            worker,
            move || a(FnContext { migrated: injected }),
            move |stolen| b(FnContext { migrated: stolen }),
        )
    })
}

/// `b` receives whether it was stolen (ran on another thread than the caller's).
#[inline]
fn join_in_worker<A, B, RA, RB>(worker: &WorkerThread, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce(bool) -> RB + Send,
    RA: Send,
    RB: Send,
{
    if worker.placing() {
        return join_placing(worker, a, b);
    }
    let job_b = StackJob::new(b, SpinLatch::new(&worker.registry, worker.index));
    // SAFETY: `job_b` lives on this stack until it has run: every path below either runs it
    // inline after popping it back or waits for its latch.
    let job_b_ref = unsafe { job_b.as_job_ref(worker.index as u32) };
    let job_b_id = job_b_ref.id();
    worker.push(job_b_ref);

    let result_a = match unwind::halt_unwinding(a) {
        Ok(v) => v,
        Err(payload) => {
            // `b` may borrow what `a` borrowed: let it finish (here or elsewhere) first.
            worker.wait_until(&job_b.latch);
            job_b.discard_result();
            unwind::resume_unwinding(payload)
        }
    };

    while !job_b.latch.probe() {
        match worker.take_local_job() {
            Some(job) if job.id() == job_b_id => {
                worker.count_popped_back();
                let result_b = job_b.run_inline(false);
                return (result_a, result_b);
            }
            // Work `a` left queued (scope spawns) sits above `b`: run it first.
            Some(job) => worker.execute(job),
            None => {
                // `b` was taken by another worker: help elsewhere until it is done. (The
                // test-only broken variant, docs/loom.md, returns without waiting.)
                #[cfg(not(all(loom, feature = "loom-broken-join")))]
                worker.wait_until(&job_b.latch);
                break;
            }
        }
    }
    (result_a, job_b.into_result())
}

/// `join` under a sender-initiated policy: `b` travels as a ticket, which may be placed in
/// another worker's inbox and which this worker may take back (`docs/sender.md`).
#[inline(never)]
fn join_placing<A, B, RA, RB>(worker: &WorkerThread, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce(bool) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job_b = StackJob::new(b, SpinLatch::new(&worker.registry, worker.index));
    // SAFETY: `job_b` lives on this stack until its latch is set: both paths below wait for it
    // (the ticket makes sure exactly one thread runs it).
    let ticket = worker.push_ticket(unsafe { job_b.as_job_ref(worker.index as u32) });
    let reclaim = JoinTicket(&ticket);
    match unwind::halt_unwinding(a) {
        Ok(result_a) => {
            worker.wait_reclaiming(&job_b.latch, &reclaim);
            (result_a, job_b.into_result())
        }
        Err(payload) => {
            // `b` may borrow what `a` borrowed: let it finish (here or elsewhere) first.
            worker.wait_reclaiming(&job_b.latch, &reclaim);
            job_b.discard_result();
            unwind::resume_unwinding(payload)
        }
    }
}

/// A `join`'s `b`, which its waiter may take back while nobody has started it.
struct JoinTicket<'a>(&'a Ticket);

impl Reclaim for JoinTicket<'_> {
    fn reclaim(&self, worker: &WorkerThread) -> bool {
        worker.reclaim(self.0)
    }

    fn may_reclaim(&self) -> bool {
        // Once another worker claimed `b`, nothing is left to take back: the wait ends with
        // `b`'s latch, and setting it wakes the waiter.
        false
    }
}

#[cfg(all(test, loom))]
mod loom_tests;

//! `join`: run two closures, potentially in parallel.

use crate::job::{StackJob, Ticket};
use crate::latch::{Probe, SpinLatch};
use crate::sync::{broken, Broken};
use crate::unwind;
use crate::worker::{in_place, in_worker, Reclaim, WorkerThread};

/// Runs `a` and `b`, potentially in parallel, and returns both results.
///
/// `a` runs on the calling thread. `b` goes onto the calling worker's *private* stack, not into a
/// public deque as in rayon: it is handed to another worker only when one is idle and asks (a
/// request, answered at the caller's next poll point, which `join` itself is), or, under a
/// sender-initiated policy, when the policy places it. If nobody has taken it by the time `a`
/// finishes, it runs on the calling thread. Called outside any pool, `join` runs inside the
/// global pool and blocks.
///
/// What that changes from rayon:
///
/// - A pool of one worker, or a worker that already holds enough private tasks, runs both
///   closures in place, one after the other, with no task made at all.
/// - A `join` whose `a` blocks until `b` has run (on a channel, a barrier, a lock `b` releases)
///   completes when some worker of the pool is idle at the `join` (it gets `b`). If every other
///   worker is busy then, `b` stays private behind the blocked `a` and the `join` can deadlock,
///   where rayon's published `b` would be stolen once a worker frees up. Spawn work that must run
///   beside its creator ([`crate::spawn`], [`crate::scope`]): spawns are public at once.
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
    // A pool of one, or a worker with enough private tasks below this frame and nothing asked
    // of it, runs the join in place: its in-place flag decides it (`worker/in_place.rs`).
    if in_place::allowed() {
        return join_in_place(a, |_| b());
    }
    // The worker is looked up here rather than through `in_worker`'s closure, so that a
    // recursive caller passes `a` and `b` straight down (in registers when they are small).
    let worker = WorkerThread::current();
    // SAFETY: the thread-local points to this thread's live worker, or is null; the worker
    // outlives every job its thread runs.
    match unsafe { worker.as_ref() } {
        Some(worker) => join_in_worker(worker, a, |_| b()),
        None => join_cold(a, b),
    }
}

/// [`join`] whose task-making path is compiled once for all its callers.
///
/// For the iterator driver, which would otherwise instantiate the whole join machinery (the
/// private push, the take-back, `b`'s job, the wait, the call from outside a pool) once per
/// iterator chain: in a test binary of iterator chains that machinery was most of the generated
/// code. The paths that make no task (a pool of one, a worker that already holds enough private
/// tasks) stay generic and inlined, as in `join`; the path that exposes `b` runs each closure
/// behind a `dyn FnMut` that stores its result on this stack, at the price of two indirect
/// calls beside the cost of making a task.
pub(crate) fn join_erased<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    if in_place::allowed() {
        return join_in_place(a, |_| b());
    }
    let worker = WorkerThread::current();
    // SAFETY: as in `join`.
    let worker = unsafe { worker.as_ref() };
    if let Some(worker) = worker {
        if worker.join_in_place() {
            return join_in_place(a, |_| b());
        }
    }
    let (mut a, mut b) = (Some(a), Some(b));
    let (mut result_a, mut result_b) = (None, None);
    let mut run_a = || result_a = a.take().map(|a| a());
    let mut run_b = || result_b = b.take().map(|b| b());
    match worker {
        Some(worker) => join_exposed_dyn(worker, &mut run_a, &mut run_b),
        None => join_cold_dyn(&mut run_a, &mut run_b),
    }
    // Both ran by now: a panic in either went on from the join, after both finished.
    (result_a.expect("join ran a"), result_b.expect("join ran b"))
}

/// The one instantiation of [`join_exposed`] behind [`join_erased`].
#[inline(never)]
fn join_exposed_dyn(
    worker: &WorkerThread,
    a: &mut (dyn FnMut() + Send),
    b: &mut (dyn FnMut() + Send),
) {
    join_exposed(worker, a, |_| b());
}

/// The one instantiation of [`join_cold`] behind [`join_erased`].
#[cold]
#[inline(never)]
fn join_cold_dyn(a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
    join_cold(a, b);
}

/// `join` called outside any pool: it runs in the global pool and blocks.
#[cold]
#[inline(never)]
fn join_cold<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
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
    /// another worker took it (`b`, stolen or placed there), or the call came from outside the
    /// pool and runs on one of its workers (both closures). A closure that did not migrate
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
/// // Called from outside any pool, both run on workers of the global pool.
/// let (a, b) = hypersteal::join_context(|ctx| ctx.migrated(), |ctx| ctx.migrated());
/// assert!(a && b);
/// ```
pub fn join_context<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    if in_place::allowed() {
        return join_in_place(
            move || a(FnContext { migrated: false }),
            move |stolen| b(FnContext { migrated: stolen }),
        );
    }
    let worker = WorkerThread::current();
    // SAFETY: as in `join`.
    match unsafe { worker.as_ref() } {
        Some(worker) => join_in_worker(
            worker,
            move || a(FnContext { migrated: false }),
            move |stolen| b(FnContext { migrated: stolen }),
        ),
        None => join_context_cold(a, b),
    }
}

/// `join_context` called outside any pool: it runs in the global pool and blocks.
#[cold]
#[inline(never)]
fn join_context_cold<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
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
            move |stolen| {
                b(FnContext {
                    migrated: stolen || injected,
                })
            },
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
    if worker.join_in_place() {
        return join_in_place(a, b);
    }
    join_exposed(worker, a, b)
}

/// Both closures on this thread, one after the other, with no task made: nobody could take
/// `b` (a pool of one; a loop on a thread outside every pool that nobody can help,
/// `iter::driver`), or enough private tasks below this frame are there to give away
/// (`src/worker/mod.rs`). If `a` panics, `b` still runs (its own panic dropped) before `a`'s
/// panic goes on, as when `b` is a task.
#[inline(always)]
pub(crate) fn join_in_place<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA,
    B: FnOnce(bool) -> RB,
{
    /// Runs `b` if dropped while `a` unwinds.
    struct RunOnUnwind<B: FnOnce(bool) -> RB, RB>(Option<B>);
    impl<B: FnOnce(bool) -> RB, RB> Drop for RunOnUnwind<B, RB> {
        fn drop(&mut self) {
            if let Some(b) = self.0.take() {
                let mut b = Some(b);
                run_while_unwinding(&mut || {
                    if let Some(b) = b.take() {
                        drop(b(false));
                    }
                });
            }
        }
    }
    let mut guard = RunOnUnwind(Some(b));
    let result_a = a();
    let b = guard
        .0
        .take()
        .expect("b is taken only here or while unwinding");
    std::mem::forget(guard);
    (result_a, b(false))
}

/// Runs `b` of an in-place join whose `a` panicked, dropping `b`'s own panic if it has one.
/// Out of line and behind `dyn`: a path only a panic takes, kept out of every `join` site.
#[cold]
#[inline(never)]
fn run_while_unwinding(b: &mut dyn FnMut()) {
    if let Err(payload) = unwind::halt_unwinding(b) {
        unwind::drop_payload(payload);
    }
}

/// `b` goes onto the private stack, where a request or a heartbeat may hand it to another
/// worker; if it is still there when `a` returns, it runs here.
#[inline(never)]
fn join_exposed<A, B, RA, RB>(worker: &WorkerThread, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce(bool) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let job_b = StackJob::new(b, SpinLatch::new(&worker.registry, worker.index));
    // SAFETY: `job_b` lives on this stack until it has run: every path below either runs it
    // inline after taking it back or waits for its latch.
    let job_b_ref = unsafe { job_b.as_job_ref(worker.index as u32) };
    // `b` belongs to the isolated region `join` runs in, if any (`worker/isolated.rs`).
    job_b_ref.set_isolation(worker.isolation());
    let job_b_id = job_b_ref.id();
    worker.push_private(job_b_ref);

    // If `a` panics, `b` may borrow what `a` borrowed: it finishes (here or elsewhere) before
    // the panic goes on.
    let result_a = unwind::halt_unwinding(a);
    if worker.pop_private_if(job_b_id)
        || worker.take_back_below(job_b_id)
        || job_b
            .ticket()
            .is_some_and(|ticket| worker.take_back_exposed(ticket))
    {
        worker.count_popped_back();
        return match result_a {
            Ok(result_a) => (result_a, job_b.run_inline(false)),
            Err(payload) => {
                // `b` runs through its job, which keeps `b`'s panic, if any, for
                // `discard_result` to drop. Inlining `b` here once more would add a copy of its
                // code at every `join` site, for a path only a panic takes.
                // SAFETY: `b` was taken back unexecuted, so this is its only execution, and
                // `job_b` is alive on this stack.
                unsafe { job_b_ref.execute(worker.index as u32) };
                job_b.discard_result();
                unwind::resume_unwinding(payload)
            }
        };
    }
    // `b` was handed to another worker, promoted or placed: help elsewhere until it is done.
    // (The test-only broken variant, docs/loom.md, returns without waiting.)
    if !broken(Broken::Join) {
        wait_for_b(worker, &job_b);
    }
    match result_a {
        Ok(result_a) => (result_a, job_b.into_result()),
        Err(payload) => {
            job_b.discard_result();
            unwind::resume_unwinding(payload)
        }
    }
}

/// Waits for a `b` that left the private stack: under a sender-initiated policy it may have
/// been placed with a ticket, which the waiter takes back first if nobody started it.
fn wait_for_b<L: Probe + crate::job::Latch, F, R>(worker: &WorkerThread, job_b: &StackJob<L, F, R>)
where
    F: FnOnce(bool) -> R + Send,
    R: Send,
{
    match job_b.ticket() {
        Some(ticket) => {
            // The waiter needs exactly `b`: if its receiver has not started it, running it here
            // at once beats running the receiver's other placed tasks first, and leaves those
            // where the policy put them (`docs/sender.md`, "Waiting for a placed task").
            if !worker.reclaim(ticket) {
                worker.wait_reclaiming(&job_b.latch, &JoinTicket(ticket));
            }
        }
        None => worker.wait_until(&job_b.latch),
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
#[path = "loom/join.rs"]
mod loom_tests;

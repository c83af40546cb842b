//! `broadcast` and `spawn_broadcast`: run a closure once on every worker of a pool.
//!
//! A broadcast makes one job per worker and queues job `i` in worker `i`'s own broadcast queue
//! (`Registry::push_broadcast`), which only that worker drains; nothing else about the job is
//! special. So whatever the policy, job `i` runs on worker `i` and nowhere else, and exactly
//! once: it is queued once, and a queue hands each job to one taker. Worker `i` takes it when it
//! next looks for work, in any of its wait loops (the deep waiter of the sender-initiated
//! policies too, see `take_broadcast`), so a worker busy in a long task without waits runs its
//! share after that task. A sleeping worker is woken by the push (the queue is part of its
//! sleep re-check).
//!
//! Broadcast jobs count as jobs submitted to the pool (`WorkerStats::injected`), not as tasks
//! (`executed`, `spawned`), whoever broadcast.

use crate::job::{HeapJob, EXTERNAL};
use crate::latch::CountLatch;
use crate::registry::Registry;
use crate::sync::Mutex;
use crate::unwind;
use crate::worker::{in_worker, WorkerThread};
use std::any::Any;
use std::marker::PhantomData;
use std::sync::Arc;

/// What a broadcast closure learns about where it runs.
#[derive(Debug)]
pub struct BroadcastContext<'a> {
    index: usize,
    num_threads: usize,
    /// Not `Send`: the context describes the thread it was made on.
    _marker: PhantomData<&'a mut *const ()>,
}

impl BroadcastContext<'_> {
    pub(crate) fn new(index: usize, num_threads: usize) -> Self {
        BroadcastContext {
            index,
            num_threads,
            _marker: PhantomData,
        }
    }

    /// The index of the worker this call runs on, from 0 to `num_threads() - 1`: each index
    /// appears once per broadcast.
    #[inline]
    pub fn index(&self) -> usize {
        self.index
    }

    /// The number of workers of the pool, hence of calls this broadcast makes.
    #[inline]
    pub fn num_threads(&self) -> usize {
        self.num_threads
    }
}

/// Runs `op` once on every worker of the current pool (the global pool outside any pool) and
/// returns the results in worker order.
///
/// Each worker runs its call when it next looks for work, so a worker busy in a long task
/// without waits delays the broadcast until that task ends. If calls panic, `broadcast` waits
/// for every call, then resumes the panic of the lowest-indexed worker that panicked.
///
/// ```
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
/// let seen = pool.broadcast(|ctx| (ctx.index(), ctx.num_threads()));
/// assert_eq!(seen, [(0, 3), (1, 3), (2, 3)]);
/// ```
///
/// The calls run on several threads at once, so `op` must be `Sync`:
///
/// ```compile_fail
/// let calls = std::cell::Cell::new(0);
/// hypersteal::broadcast(|_| calls.set(calls.get() + 1));
/// ```
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    in_worker(|worker, _| broadcast_on(worker, &op))
}

/// Runs `op` once on every worker of the current pool (the global pool outside any pool),
/// without waiting. A panicking call goes to the pool's panic handler, as a `spawn`'s would.
///
/// ```
/// use std::sync::mpsc::channel;
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let (tx, rx) = channel();
/// pool.spawn_broadcast(move |ctx| tx.send(ctx.index()).unwrap());
/// let mut got: Vec<usize> = rx.iter().take(2).collect();
/// got.sort();
/// assert_eq!(got, [0, 1]);
/// ```
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    let worker = WorkerThread::current();
    // SAFETY: the thread-local points to this thread's live worker, or is null.
    match unsafe { worker.as_ref() } {
        Some(w) => spawn_broadcast_in(&w.registry, op),
        None => spawn_broadcast_in(crate::builder::global_registry(), op),
    }
}

/// What one call of a blocking broadcast left: its value, or its panic.
type Outcome<R> = Result<R, Box<dyn Any + Send>>;

/// The results of a blocking broadcast and what it waits for, on the broadcaster's stack.
struct Gathering<'a, OP, R> {
    op: &'a OP,
    results: Vec<Mutex<Option<Outcome<R>>>>,
    latch: CountLatch,
}

/// A pointer to the broadcaster's `Gathering`, carried by its jobs.
struct GatheringPtr<T>(*const T);

// SAFETY: `Gathering` is only read through shared references (its `op` is `Sync`, its results are
// behind locks and hold `Send` values, its latch is made for other threads to count down), and
// the broadcaster keeps it alive until every job has counted the latch down.
unsafe impl<T> Send for GatheringPtr<T> {}

/// A blocking broadcast, from worker `worker` of the pool that runs it.
pub(crate) fn broadcast_on<OP, R>(worker: &WorkerThread, op: &OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let registry = &worker.registry;
    let n = registry.num_threads();
    let shared = Gathering {
        op,
        results: (0..n).map(|_| Mutex::new(None)).collect(),
        latch: CountLatch::new(Arc::clone(registry), worker.index),
    };
    // The latch starts at one; one count per job.
    for _ in 1..n {
        shared.latch.increment();
    }
    for i in 0..n {
        let ptr = GatheringPtr(&shared as *const Gathering<'_, OP, R>);
        let job = HeapJob::new(move || {
            let ptr = ptr;
            // SAFETY: the broadcaster waits for the latch below before `shared` goes away,
            // and this job counts it down last thing.
            let shared = unsafe { &*ptr.0 };
            let ctx = BroadcastContext::new(i, n);
            let outcome = unwind::halt_unwinding(|| (shared.op)(ctx));
            *shared.results[i].lock() = Some(outcome);
            // SAFETY: `shared.latch` is live (above); this job runs on a worker of the
            // latch's registry (worker `i`'s queue is drained only by worker `i`).
            unsafe { CountLatch::decrement(&shared.latch) };
        });
        // SAFETY: the job borrows `shared`, which outlives it (the wait below).
        let job = unsafe { job.into_job_ref(EXTERNAL) };
        registry.push_broadcast(i, job);
    }
    // The broadcaster's own call is in its own queue: the wait runs it, and the others' while
    // they run theirs.
    worker.wait_until(&shared.latch);
    let mut values = Vec::with_capacity(n);
    let mut first_panic = None;
    for slot in shared.results {
        match slot.lock().take().expect("every job stored its outcome") {
            Ok(v) => values.push(v),
            Err(payload) if first_panic.is_none() => first_panic = Some(payload),
            Err(payload) => unwind::drop_payload(payload),
        }
    }
    if let Some(payload) = first_panic {
        drop(values);
        unwind::resume_unwinding(payload);
    }
    values
}

/// A non-blocking broadcast into `registry`: one root job per worker, each one's panic to the
/// panic handler.
pub(crate) fn spawn_broadcast_in<OP>(registry: &Arc<Registry>, op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    let n = registry.num_threads();
    let op = Arc::new(op);
    for i in 0..n {
        let op = Arc::clone(&op);
        let reg = Arc::clone(registry);
        registry.begin_root();
        let job = HeapJob::new(move || {
            let _root = crate::registry::RootGuard(&reg);
            let ctx = BroadcastContext::new(i, n);
            if let Err(payload) = unwind::halt_unwinding(|| op(ctx)) {
                reg.handle_task_panic(payload);
            }
        });
        // SAFETY: the job owns everything it uses (`'static`).
        let job = unsafe { job.into_job_ref(EXTERNAL) };
        registry.push_broadcast(i, job);
    }
}

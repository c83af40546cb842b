//! [`ThreadPool`]: a pool of workers with its own policy, topology and statistics.

use crate::policy::Policy;
use crate::registry::Registry;
use crate::scope::{Scope, ScopeFifo};
use crate::stats::PoolStats;
use crate::sync::thread::JoinHandle;
use crate::topology::{Topology, TopologyGraph};
use crate::trace::Trace;
use crate::worker::WorkerThread;
use crate::yielding::Yield;
use std::fmt;
use std::sync::Arc;

/// A pool of worker threads, built by [`crate::ThreadPoolBuilder`].
///
/// Dropping the pool does not block (as in rayon): the pool stops, its workers finish every task
/// already queued or running (including tasks started with [`ThreadPool::spawn`] and whatever
/// those spawn in turn), then their threads exit on their own. Nothing queued is lost while the
/// process runs; but when `main` returns, the process ends with whatever is still running. To
/// wait until the work is done, call [`ThreadPool::shutdown`] instead of dropping.
///
/// ```
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let sum: u64 = pool.install(|| {
///     let (a, b) = hypersteal::join(|| (1..=50u64).sum::<u64>(), || (51..=100u64).sum::<u64>());
///     a + b
/// });
/// assert_eq!(sum, 5050);
/// let stats = pool.stats();
/// assert_eq!(stats.total().executed, stats.total().spawned);
/// ```
pub struct ThreadPool {
    pub(crate) registry: Arc<Registry>,
    threads: Vec<JoinHandle<()>>,
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPool")
            .field("num_threads", &self.registry.num_threads())
            .field("policy", &self.registry.policy)
            .field("topology", &self.registry.graph.topology())
            .finish()
    }
}

impl ThreadPool {
    /// rayon's old way to build a pool: [`ThreadPoolBuilder::build`](crate::ThreadPoolBuilder::build)
    /// with the error boxed.
    #[deprecated(note = "use `ThreadPoolBuilder::build`")]
    pub fn new(
        configuration: crate::ThreadPoolBuilder,
    ) -> Result<ThreadPool, Box<dyn std::error::Error + 'static>> {
        Ok(configuration.build()?)
    }

    pub(crate) fn from_parts(registry: Arc<Registry>, threads: Vec<JoinHandle<()>>) -> Self {
        ThreadPool { registry, threads }
    }

    /// Runs `op` on a worker of this pool and returns its result; `join`, `scope` and `spawn`
    /// inside `op` use this pool. Called from a worker of another pool, that worker keeps
    /// running its own pool's work while it waits. A panic in `op` resumes in the caller.
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        self.registry.in_worker(|_, _| op())
    }

    /// [`crate::join`] in this pool.
    pub fn join<A, B, RA, RB>(&self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.install(|| crate::join(a, b))
    }

    /// [`crate::scope`] in this pool.
    pub fn scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| crate::scope(op))
    }

    /// [`crate::in_place_scope`] with the tasks going to this pool: `op` runs on the calling
    /// thread (which need not belong to this pool, nor to any), the tasks it spawns run in this
    /// pool, and the call returns once all of them have finished. A worker of another pool
    /// keeps running its own pool's work while it waits; a thread of no pool blocks.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let ran_in_pool = AtomicUsize::new(0);
    /// let body_thread = pool.in_place_scope(|s| {
    ///     for _ in 0..8 {
    ///         s.spawn(|_| {
    ///             if pool.current_thread_index().is_some() {
    ///                 ran_in_pool.fetch_add(1, Ordering::Relaxed);
    ///             }
    ///         });
    ///     }
    ///     std::thread::current().id()
    /// });
    /// assert_eq!(body_thread, std::thread::current().id());
    /// assert_eq!(ran_in_pool.into_inner(), 8);
    /// ```
    pub fn in_place_scope<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&Scope<'scope>) -> R,
    {
        crate::scope::in_place_scope_in(Some(&self.registry), op)
    }

    /// [`crate::scope_fifo`] in this pool.
    pub fn scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R + Send,
        R: Send,
    {
        self.install(|| crate::scope_fifo(op))
    }

    /// [`crate::in_place_scope_fifo`] with the tasks going to this pool (as
    /// [`ThreadPool::in_place_scope`] does with [`crate::in_place_scope`]).
    pub fn in_place_scope_fifo<'scope, OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce(&ScopeFifo<'scope>) -> R,
    {
        crate::scope::in_place_scope_fifo_in(Some(&self.registry), op)
    }

    /// [`crate::spawn_fifo`] in this pool: runs `func` somewhere in this pool without waiting
    /// for it, after the FIFO spawns the calling worker (if it belongs to this pool) already
    /// made. A panic goes to the pool's panic handler.
    pub fn spawn_fifo<F>(&self, func: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.registry.spawn_static_fifo(func);
    }

    /// Runs `func` somewhere in this pool without waiting for it. A panic goes to the pool's
    /// panic handler.
    pub fn spawn<F>(&self, func: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.registry.spawn_static(func);
    }

    /// [`crate::broadcast`] in this pool: runs `op` once on each of its workers and returns
    /// the results in worker order.
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(crate::BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        self.registry
            .in_worker(|worker, _| crate::broadcast::broadcast_on(worker, &op))
    }

    /// [`crate::spawn_broadcast`] in this pool: runs `op` once on each of its workers without
    /// waiting. A panicking call goes to the pool's panic handler.
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(crate::BroadcastContext<'_>) + Send + Sync + 'static,
    {
        crate::broadcast::spawn_broadcast_in(&self.registry, op);
    }

    /// The number of workers.
    pub fn current_num_threads(&self) -> usize {
        self.registry.num_threads()
    }

    /// The index of the calling thread if it is a worker of this pool.
    pub fn current_thread_index(&self) -> Option<usize> {
        self.own_worker().map(|w| w.index)
    }

    /// This pool's worker running the calling thread, if it is one.
    fn own_worker(&self) -> Option<&WorkerThread> {
        let w = WorkerThread::current();
        // SAFETY: the thread-local points to this thread's live worker, or is null; the worker
        // outlives every task its thread runs, hence this call.
        unsafe { w.as_ref() }.filter(|w| Arc::ptr_eq(&w.registry, &self.registry))
    }

    /// [`crate::current_thread_has_pending_tasks`], but `None` unless the calling thread is a
    /// worker of this pool.
    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        self.own_worker().map(|w| w.has_own_tasks())
    }

    /// [`crate::yield_now`], but only on a worker of this pool: `None` (and nothing runs) on any
    /// other thread, including workers of other pools.
    pub fn yield_now(&self) -> Option<Yield> {
        self.own_worker().map(|w| w.yield_now())
    }

    /// [`crate::yield_local`], but only on a worker of this pool: `None` (and nothing runs) on
    /// any other thread, including workers of other pools.
    pub fn yield_local(&self) -> Option<Yield> {
        self.own_worker().map(|w| w.yield_local())
    }

    /// The pool's scheduling policy.
    pub fn policy(&self) -> Policy {
        self.registry.policy
    }

    /// The pool's topology.
    pub fn topology(&self) -> Topology {
        self.registry.graph.topology()
    }

    /// The topology laid over this pool's workers.
    pub fn graph(&self) -> &TopologyGraph {
        &self.registry.graph
    }

    /// The CPU worker `index` is pinned to (`None` when pinning is off or unavailable).
    pub fn worker_core(&self, index: usize) -> Option<usize> {
        self.registry.core_of(index)
    }

    /// The CPU each worker is pinned to, by worker index (all `None` when the pool does not
    /// pin): the virtual topology as laid onto the machine
    /// ([`ThreadPoolBuilder::placement`](crate::ThreadPoolBuilder::placement)).
    pub fn cpu_map(&self) -> Vec<Option<usize>> {
        (0..self.current_num_threads())
            .map(|i| self.registry.core_of(i))
            .collect()
    }

    /// What the pool did since it was built or since the last [`ThreadPool::reset_stats`].
    pub fn stats(&self) -> PoolStats {
        self.registry.stats()
    }

    /// The events recorded so far, one list per worker (`docs/trace.md`). Empty (no workers)
    /// unless the pool was built with [`ThreadPoolBuilder::trace`](crate::ThreadPoolBuilder::trace)
    /// or `HYPERSTEAL_TRACE`. Safe to call while the pool runs: each worker's list is then a
    /// prefix of what it will have recorded (`src/trace/mod.rs` argues why).
    pub fn trace(&self) -> Trace {
        self.registry.trace()
    }

    /// Time since the pool was built: the clock of the trace's timestamps
    /// ([`TraceEvent::ts_ns`](crate::TraceEvent::ts_ns)), for marking the span of interest in a
    /// trace (read it before and after the work).
    pub fn clock(&self) -> std::time::Duration {
        std::time::Duration::from_nanos(self.registry.now_ns())
    }

    /// Writes the events recorded so far to `path` in the Chrome Trace Event format, which
    /// Perfetto (<https://ui.perfetto.dev>) and `chrome://tracing` open. An error of kind
    /// `Unsupported` if the pool was built without tracing; otherwise the file system's error,
    /// if any.
    pub fn write_trace(&self, path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
        if self.registry.trace.is_none() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Unsupported,
                "this pool was built without tracing (ThreadPoolBuilder::trace or HYPERSTEAL_TRACE)",
            ));
        }
        let mut file = std::fs::File::create(path)?;
        crate::trace::write_chrome(&self.trace(), &mut file)?;
        file.sync_all()
    }

    /// Per worker, the tasks queued where other workers can see them now: its public deque, its
    /// inbox of placed tasks and, under policies that publish loads (`most-loaded`, `acwn`,
    /// `gradient`), its private stack. Cheap (relaxed reads), for live views; a running worker's
    /// value may be a moment old.
    pub fn queue_lengths(&self) -> Vec<usize> {
        self.registry.queue_lengths()
    }

    /// Starts the statistics afresh (the counters of a running task may straddle the reset).
    pub fn reset_stats(&self) {
        self.registry.reset_stats();
    }
}

impl ThreadPool {
    /// Stops the pool and blocks until its workers have finished every queued task and their
    /// threads have exited (dropping the pool stops it without waiting). When this returns, the
    /// pool's threads are gone and the cores they were pinned to are free for other pools.
    ///
    /// Waiting is the caller's choice, with a caller's risk: a queued task that waits for
    /// something only the caller would do after this returns (a message, a lock it holds, a
    /// task of a pool whose only worker is the caller) waits forever, and so does this call.
    ///
    /// # Panics
    ///
    /// When called from one of this pool's own workers, which would wait for itself. The pool
    /// still stops, as if dropped.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    /// let done = Arc::new(AtomicUsize::new(0));
    /// for _ in 0..10 {
    ///     let done = Arc::clone(&done);
    ///     pool.spawn(move || {
    ///         done.fetch_add(1, Ordering::Relaxed);
    ///     });
    /// }
    /// pool.shutdown();
    /// assert_eq!(done.load(Ordering::Relaxed), 10);
    /// ```
    pub fn shutdown(mut self) {
        // SAFETY: the thread-local points to this thread's live worker, or is null.
        let adopted = unsafe { WorkerThread::current().as_ref() }
            .is_some_and(|w| w.is_adopted() && Arc::ptr_eq(&w.registry, &self.registry));
        // The thread that built the pool with `use_current_thread` may wait: its worker runs
        // no loop (counted stopped from the start), and what it made is on its public deque,
        // where the others take it.
        assert!(
            adopted || self.current_thread_index().is_none(),
            "hypersteal: ThreadPool::shutdown called from one of the pool's own workers, \
             which cannot wait for themselves; drop the pool instead"
        );
        self.registry.terminate();
        for handle in self.threads.drain(..) {
            // A worker's thread cannot unwind: every task's panic is caught, and an unwind that
            // escaped the runtime would have aborted the process.
            let _ = handle.join();
        }
        // Threads started by a spawn handler have no handle here: wait until each worker has
        // left its loop (for our own threads, joined above, this returns at once).
        self.registry.stopped.wait_for(self.registry.num_threads());
    }
}

impl Drop for ThreadPool {
    fn drop(&mut self) {
        // Not blocking: a task still queued may need the very thread that drops the pool (a
        // task of another pool whose worker is dropping us, a message sent after the drop).
        // The workers exit on their own once nothing is outstanding; dropping the handles
        // detaches their threads.
        self.registry.terminate();
        // `HYPERSTEAL_TRACE`: best effort, as a drop cannot report an error
        // (`ThreadPoolBuilder::trace`). After `shutdown` the trace is complete; after a plain
        // drop it holds what was recorded until now.
        if let Some(path) = self.registry.trace.as_ref().and_then(|t| t.path.as_ref()) {
            let _ = self.write_trace(path);
        }
    }
}

#[cfg(all(test, loom))]
#[path = "loom/pool.rs"]
mod loom_tests;

//! Entering a pool: running work on one of its workers from wherever the caller is (a worker
//! of the pool, of another pool, or a thread outside every pool), and the `'static` spawns.
//! These are [`Registry`] methods, but they need the calling thread's worker, so they live
//! here, above the registry: the registry itself knows nothing of workers.

use super::WorkerThread;
use crate::job::{JobRef, StackJob, Ticket, EXTERNAL};
use crate::latch::{LockLatch, SpinLatch};
use crate::registry::{Registry, RootGuard};
use crate::sync::Ordering;
use crate::unwind;
use std::ptr;
use std::sync::Arc;

impl Registry {
    /// Queues the job `make(origin)` on the current worker if it belongs to this pool, else
    /// injects it. A job somebody will wait for (`awaited`, a scope's task) goes out as a
    /// [`Ticket`] under a sender-initiated policy, and the ticket is returned to the waiter.
    pub(crate) fn push_or_inject(
        &self,
        awaited: bool,
        make: impl FnOnce(u32) -> JobRef,
    ) -> Option<Arc<Ticket>> {
        let worker = WorkerThread::current();
        // SAFETY: the pointer comes from the thread-local set by `main_loop`, which outlives
        // every job this thread runs.
        match unsafe { worker.as_ref() } {
            Some(w) if ptr::eq(&*w.registry, self) => {
                let job = make(w.index as u32);
                // The task belongs to the isolated region its spawner works in, if any.
                job.set_isolation(w.isolation());
                if awaited && w.placing() {
                    return Some(w.push_ticket(job));
                }
                w.push_spawn(job);
            }
            _ => self.inject(make(EXTERNAL)),
        }
        None
    }

    /// Runs `op` on a worker of this pool and returns its result.
    pub(crate) fn in_worker<OP, R>(self: &Arc<Self>, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        let worker = WorkerThread::current();
        // SAFETY: see `push_or_inject`.
        match unsafe { worker.as_ref() } {
            Some(w) if ptr::eq(&*w.registry, &**self) => op(w, false),
            current => self.in_worker_from(current, op),
        }
    }

    /// Runs `op` on a worker of this pool for a caller that is not one: a thread outside every
    /// pool (`current` is `None`), which blocks, or a worker of another pool, which keeps
    /// running its own pool's work while it waits. A panic in `op` resumes in the caller.
    ///
    /// `op` is handed on as a `dyn FnMut`, so that the job, its latch and the waiting are
    /// compiled once ([`Registry::run_from`]) rather than for every `op`: every `install` and
    /// every parallel iterator driven from outside a pool comes here.
    pub(crate) fn in_worker_from<OP, R>(
        self: &Arc<Self>,
        current: Option<&WorkerThread>,
        op: OP,
    ) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        let mut op = Some(op);
        let mut result = None;
        self.run_from(current, &mut |worker, injected| {
            let op = op.take().expect("an injected job runs once");
            result = Some(op(worker, injected));
        });
        result.expect("the job returned: its result is written")
    }

    /// [`Registry::in_worker_from`]'s work, for every `op` alike: injects a job that runs
    /// `call` on a worker and waits for it, blocking (`current` is `None`) or running the
    /// caller's own pool's work. A panic in `call` resumes here, in the caller.
    #[cold]
    #[inline(never)]
    fn run_from(
        self: &Arc<Self>,
        current: Option<&WorkerThread>,
        call: &mut (dyn FnMut(&WorkerThread, bool) + Send),
    ) {
        let run = |injected| {
            let _root = RootGuard(self);
            // SAFETY: a job runs on a worker thread, whose pointer is set.
            let worker = unsafe { &*WorkerThread::current() };
            call(worker, injected)
        };
        self.begin_root();
        match current {
            None => {
                let job = StackJob::new(run, LockLatch::new());
                // SAFETY: `job` stays on this stack until its latch is set below.
                self.inject(unsafe { job.as_job_ref(EXTERNAL) });
                job.latch.wait();
                job.into_result()
            }
            Some(current) => {
                let job = StackJob::new(run, SpinLatch::cross(&current.registry, current.index));
                // SAFETY: `job` stays on this stack until its latch is set.
                self.inject(unsafe { job.as_job_ref(EXTERNAL) });
                current.wait_until(&job.latch);
                job.into_result()
            }
        }
    }

    /// Runs a `'static` task somewhere in the pool; its panic goes to the panic handler.
    pub(crate) fn spawn_static<F: FnOnce() + Send + 'static>(self: &Arc<Self>, func: F) {
        // A `breadth_first` pool runs every spawn as a FIFO spawn.
        self.spawn_static_in(self.breadth_first, func);
    }

    /// [`Registry::spawn_static`], in FIFO order with the other FIFO spawns of the spawning
    /// worker (`fifo.rs`); from outside the pool the injector is FIFO already.
    pub(crate) fn spawn_static_fifo<F: FnOnce() + Send + 'static>(self: &Arc<Self>, func: F) {
        self.spawn_static_in(true, func);
    }

    fn spawn_static_in<F: FnOnce() + Send + 'static>(self: &Arc<Self>, fifo: bool, func: F) {
        self.begin_root();
        let registry = Arc::clone(self);
        let job = crate::job::HeapJob::new(move || {
            let _root = RootGuard(&registry);
            if let Err(payload) = unwind::halt_unwinding(func) {
                registry.handle_task_panic(payload);
            }
        });
        self.push_or_inject(false, |origin| {
            // SAFETY: the job owns everything it uses (`'static`).
            let task = unsafe { job.into_job_ref(origin) };
            if !fifo || origin == EXTERNAL || crate::isolate::isolated() {
                return task;
            }
            // SAFETY: the lanes live in this registry, which the worker that runs the
            // indirection (a worker of this pool: it is queued on one, and only this pool's
            // workers take it) keeps alive; the task is queued nowhere else.
            unsafe { self.lanes.enqueue(origin, task) }
        });
    }

    /// A task of this pool (a `'static` spawn, a broadcast, a spawned future) panicked on the
    /// current thread: [`Registry::handle_panic`], counted on the current worker.
    pub(crate) fn handle_task_panic(&self, payload: Box<dyn std::any::Any + Send>) {
        // SAFETY: the thread-local points to this thread's live worker, or is null.
        let here = unsafe { WorkerThread::current().as_ref() }.map(|w| w.index);
        self.handle_panic(here, payload);
    }

    /// Queues `job` for worker `to` alone (a broadcast), and wakes it if it sleeps: push, then
    /// notify, against the sleeper's re-check of its broadcast queue (`src/sleep/README.md`).
    pub(crate) fn push_broadcast(&self, to: usize, job: JobRef) {
        // The share belongs to the isolated region the broadcaster works in, if any: its
        // waits stay inside it (`worker/isolated.rs`).
        job.set_isolation(crate::isolate::current_region());
        // Counted as submitted, as its run is counted in `injected` (`docs/stats.md`).
        self.submitted.fetch_add(1, Ordering::Relaxed);
        self.workers[to].broadcasts.push(job);
        self.sleep.notify_worker(to);
    }
}

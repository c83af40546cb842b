//! The pool's shared state ([`Registry`]) and the worker loop ([`WorkerThread`]).
//!
//! Data flows one way: the registry owns the workers' shared halves (stealer, inbox, counters,
//! sleep slot), the injector and the policy's shared state; a worker asks its policy whom to ask
//! or where to place, and the policy only reads topology and loads.
//!
//! The worker loop, in the order of `docs/policies.md`: pop the own deque; drain the own inbox;
//! take from the injector; run the policy's acquire step (requests to victims); after
//! [`SEARCH_ROUNDS`] fruitless rounds, sleep until new work can exist for this worker. A worker
//! that waits for a latch (the `b` of a `join`, a scope) runs the same loop until the latch is
//! set, so waiting never blocks progress.

use crate::builder::{BuildError, Config, PanicHandler};
use crate::job::{JobRef, StackJob, Ticket, EXTERNAL};
use crate::latch::{LockLatch, Probe, SpinLatch};
use crate::pinning::Cores;
use crate::policy::receiver::{LoadView, Shared, Victims};
use crate::policy::sender;
use crate::policy::{Policy, Reach};
use crate::sleep::Sleep;
use crate::stats::{bump, Counters, PoolStats};
use crate::sync::deque::{Injector, Steal, Stealer, Worker};
use crate::sync::{thread, AtomicBool, AtomicU64, AtomicUsize, Mutex, Ordering};
use crate::topology::TopologyGraph;
use crate::unwind;
use crossbeam_utils::CachePadded;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::ptr;
use std::sync::Arc;
use std::time::Instant;

/// Nesting of waits (a worker waiting in a `join` runs other tasks, which may wait in turn) up to
/// which a waiter under a sender-initiated policy runs other workers' tasks before taking back
/// its own; deeper waiters only take back the unstarted tasks they wait for (see
/// `WorkerThread::wait_loop`).
pub(crate) const HELP_DEPTH: u32 = 16;

/// Fruitless search rounds (each up to one request per candidate victim) before a worker sleeps.
pub(crate) const SEARCH_ROUNDS: u32 = 2;

/// Test-only broken variant (docs/loom.md): the sleep re-check forgets the inbox.
const BROKEN_INBOX_RECHECK: bool = cfg!(all(loom, feature = "loom-broken-inbox"));
/// Test-only broken variant (docs/loom.md): workers exit on termination with work queued.
const BROKEN_SHUTDOWN: bool = cfg!(all(loom, feature = "loom-broken-shutdown"));

/// The shared half of one worker.
pub(crate) struct WorkerInfo {
    stealer: Stealer<JobRef>,
    /// Tasks other workers placed here (sender-initiated policies); only the owner drains it.
    pub(crate) inbox: Injector<JobRef>,
    /// Shared with the worker thread, which keeps its own handle (one load on the hot path).
    pub(crate) stats: Arc<CachePadded<Counters>>,
}

/// Everything the workers of one pool share.
pub(crate) struct Registry {
    pub(crate) workers: Vec<WorkerInfo>,
    injector: Injector<JobRef>,
    pub(crate) sleep: Sleep,
    pub(crate) policy: Policy,
    pub(crate) graph: TopologyGraph,
    pub(crate) shared: Shared,
    /// More than one worker: publishing work may need to wake someone.
    multi: bool,
    /// More than one worker under a sender-initiated policy: new tasks are placed, nobody steals.
    placing: bool,
    /// The gradient model's published proximities (0: idle).
    proximity: Vec<AtomicUsize>,
    /// Root jobs (injected jobs and `'static` spawns) not yet finished. Every other job is
    /// awaited by a frame of one of these, so zero means the pool is quiescent.
    outstanding: AtomicUsize,
    terminating: AtomicBool,
    submitted: AtomicU64,
    panic_handler: Option<PanicHandler>,
    start: Instant,
    baseline: Mutex<PoolStats>,
    speeds: Vec<f64>,
    /// The cores the workers are pinned to, given back when the registry goes.
    cores: Cores,
    seed: u64,
}

// The thread-local pointer to the current worker, if this thread is one.
#[cfg(not(loom))]
crate::sync::thread_local! {
    static WORKER_THREAD: Cell<*const WorkerThread> = const { Cell::new(ptr::null()) };
}
#[cfg(loom)]
crate::sync::thread_local! {
    static WORKER_THREAD: Cell<*const WorkerThread> = Cell::new(ptr::null());
}

impl Registry {
    /// Builds the registry and starts its worker threads.
    pub(crate) fn new(
        mut config: Config,
    ) -> Result<(Arc<Registry>, Vec<thread::JoinHandle<()>>), BuildError> {
        let n = config.num_threads;
        let graph = config.topology.try_graph(n).map_err(BuildError::Topology)?;
        let deques: Vec<Worker<JobRef>> = (0..n).map(|_| Worker::new_lifo()).collect();
        let workers = deques
            .iter()
            .map(|d| WorkerInfo {
                stealer: d.stealer(),
                inbox: Injector::new(),
                stats: Arc::new(CachePadded::new(Counters::default())),
            })
            .collect();
        let cores = Cores::take(n, config.pin);
        let registry = Arc::new(Registry {
            workers,
            injector: Injector::new(),
            sleep: Sleep::new(n),
            shared: Shared::new(&config.policy, &graph),
            policy: config.policy,
            graph,
            multi: n > 1,
            placing: n > 1 && config.policy.is_sender_initiated(),
            proximity: (0..n).map(|_| AtomicUsize::new(0)).collect(),
            outstanding: AtomicUsize::new(0),
            terminating: AtomicBool::new(false),
            submitted: AtomicU64::new(0),
            panic_handler: config.panic_handler.take(),
            start: Instant::now(),
            baseline: Mutex::new(PoolStats {
                workers: vec![Default::default(); n],
                ..Default::default()
            }),
            speeds: config.speeds.clone().unwrap_or_else(|| vec![1.0; n]),
            cores,
            seed: config.seed,
        });
        let mut handles = Vec::with_capacity(n);
        let names = std::mem::take(&mut config.thread_names);
        for ((index, deque), name) in deques.into_iter().enumerate().zip(names) {
            let reg = Arc::clone(&registry);
            let spawned = thread::spawn_named(name, config.stack_size, move || {
                main_loop(deque, index, reg);
            });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    // The workers already started exit at once (nothing is outstanding); wait
                    // for them, so a failed build leaves no thread behind.
                    registry.terminate();
                    for h in handles {
                        let _ = h.join();
                    }
                    return Err(BuildError::ThreadSpawn {
                        index,
                        stack_size: config.stack_size,
                        error: e.to_string(),
                    });
                }
            }
        }
        Ok((registry, handles))
    }

    pub(crate) fn num_threads(&self) -> usize {
        self.workers.len()
    }

    /// Relative speeds of the workers (all 1.0 unless the builder was given speeds).
    pub(crate) fn speeds(&self) -> &[f64] {
        &self.speeds
    }

    /// The core worker `index` is pinned to, if pinned.
    pub(crate) fn core_of(&self, index: usize) -> Option<usize> {
        self.cores.of(index)
    }

    /// Asks every worker to finish the queued work and exit.
    pub(crate) fn terminate(&self) {
        self.terminating.store(true, Ordering::SeqCst);
        self.sleep.notify_all();
    }

    fn quiescent_and_terminating(&self) -> bool {
        self.terminating.load(Ordering::SeqCst)
            && (BROKEN_SHUTDOWN || self.outstanding.load(Ordering::SeqCst) == 0)
    }

    /// A root job was submitted (`install` from outside, `spawn`).
    fn begin_root(&self) {
        self.outstanding.fetch_add(1, Ordering::SeqCst);
    }

    /// A root job finished.
    fn end_root(&self) {
        if self.outstanding.fetch_sub(1, Ordering::SeqCst) != 1 {
            return;
        }
        // Publish, fence, check, as everywhere in the sleep protocol. Pairs with the fences in
        // `terminate` (its `notify_all`) and in `Sleep::sleep`: either we see `terminating` and
        // wake every sleeper, or a worker re-checking after `terminate` sees `outstanding == 0`.
        // Without the fence this rests on the total order of SeqCst accesses alone, which loom
        // does not model (docs/loom.md); with it, the argument uses fences only.
        crate::sync::fence(Ordering::SeqCst);
        if self.terminating.load(Ordering::SeqCst) {
            self.sleep.notify_all();
        }
    }

    /// Queues a job from outside the workers and wakes one of them.
    pub(crate) fn inject(&self, job: JobRef) {
        debug_assert_eq!(job.origin(), EXTERNAL);
        self.submitted.fetch_add(1, Ordering::Relaxed);
        self.injector.push(job);
        self.sleep.notify(|| 0..self.num_threads());
    }

    /// The latch worker `owner` waits for was set: wake it if it sleeps.
    pub(crate) fn notify_latch_set(&self, owner: usize) {
        self.sleep.notify_worker(owner);
    }

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
                if awaited && w.placing {
                    return Some(w.push_ticket(job));
                }
                w.push(job);
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
            None => self.in_worker_cold(op),
            Some(w) if ptr::eq(&*w.registry, &**self) => op(w, false),
            Some(w) => self.in_worker_cross(w, op),
        }
    }

    #[cold]
    fn in_worker_cold<OP, R>(self: &Arc<Self>, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        let job = StackJob::new(
            |injected| {
                let _root = RootGuard(self);
                // SAFETY: a job runs on a worker thread, whose pointer is set.
                let worker = unsafe { &*WorkerThread::current() };
                op(worker, injected)
            },
            LockLatch::new(),
        );
        self.begin_root();
        // SAFETY: `job` stays on this stack until its latch is set below.
        self.inject(unsafe { job.as_job_ref(EXTERNAL) });
        job.latch.wait();
        job.into_result()
    }

    /// `op` must run in this pool while the caller is a worker of another: the caller keeps
    /// running its own pool's work while it waits.
    #[cold]
    fn in_worker_cross<OP, R>(self: &Arc<Self>, current: &WorkerThread, op: OP) -> R
    where
        OP: FnOnce(&WorkerThread, bool) -> R + Send,
        R: Send,
    {
        let job = StackJob::new(
            |injected| {
                let _root = RootGuard(self);
                // SAFETY: a job runs on a worker thread, whose pointer is set.
                let worker = unsafe { &*WorkerThread::current() };
                op(worker, injected)
            },
            SpinLatch::cross(&current.registry, current.index),
        );
        self.begin_root();
        // SAFETY: `job` stays on this stack until its latch is set.
        self.inject(unsafe { job.as_job_ref(EXTERNAL) });
        current.wait_until(&job.latch);
        job.into_result()
    }

    /// Runs a `'static` task somewhere in the pool; its panic goes to the panic handler.
    pub(crate) fn spawn_static<F: FnOnce() + Send + 'static>(self: &Arc<Self>, func: F) {
        self.begin_root();
        let registry = Arc::clone(self);
        let job = crate::job::HeapJob::new(move || {
            let _root = RootGuard(&registry);
            if let Err(payload) = unwind::halt_unwinding(func) {
                registry.handle_panic(payload);
            }
        });
        // SAFETY: the job owns everything it uses (`'static`).
        self.push_or_inject(false, |origin| unsafe { job.into_job_ref(origin) });
    }

    /// A `'static` spawn panicked (on the current worker): count it and hand the payload to the
    /// panic handler, or drop it. The library prints nothing: the panic hook already reported
    /// the panic where it happened. Nothing here unwinds, whatever the handler or the payload
    /// does, so the worker goes on.
    fn handle_panic(&self, payload: Box<dyn Any + Send>) {
        let worker = WorkerThread::current();
        // SAFETY: a spawned task runs on a worker thread, whose pointer is set and live.
        if let Some(w) = unsafe { worker.as_ref() } {
            bump(&w.counters().panics, 1);
        }
        match &self.panic_handler {
            Some(handler) => {
                if let Err(nested) = unwind::halt_unwinding(|| handler(payload)) {
                    unwind::drop_payload(nested);
                }
            }
            None => unwind::drop_payload(payload),
        }
    }

    /// After worker `from` published a job in its deque: wake a sleeper that may take it.
    #[inline(never)]
    fn notify_new_job(&self, from: usize) {
        match self.policy.reach() {
            Reach::All => {
                let p = self.num_threads();
                self.sleep.notify(|| (from + 1..p).chain(0..from));
            }
            Reach::Neighbors => {
                self.sleep.notify(|| self.graph.neighbors(from));
            }
            // Nobody takes work from another deque: placement wakes the receiver instead.
            Reach::Nothing => {}
        }
    }

    fn now_ns(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    fn raw_stats(&self) -> PoolStats {
        let now = self.now_ns();
        PoolStats {
            workers: self.workers.iter().map(|w| w.stats.snapshot(now)).collect(),
            submitted: self.submitted.load(Ordering::Relaxed),
            elapsed: std::time::Duration::from_nanos(now),
        }
    }

    /// What the pool did since it started or since the last [`Registry::reset_stats`].
    pub(crate) fn stats(&self) -> PoolStats {
        let base = self.baseline.lock();
        self.raw_stats().since(&base)
    }

    pub(crate) fn reset_stats(&self) {
        let mut base = self.baseline.lock();
        *base = self.raw_stats();
        for w in &self.workers {
            w.stats.max_hops.store(0, Ordering::Relaxed);
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        // Inboxes may still hold husks of tasks their creators took back: release the tickets.
        for info in &self.workers {
            while let Steal::Success(job) = info.inbox.steal() {
                if job.is_ticket() {
                    // SAFETY: taken from the queue, consumed here once; its task already ran.
                    let task = unsafe { Ticket::redeem(job) };
                    debug_assert!(task.is_none(), "a placed task outlived its pool");
                }
            }
        }
    }
}

impl LoadView for Registry {
    fn queued(&self, w: usize) -> usize {
        let info = &self.workers[w];
        info.stealer.len() + info.inbox.len()
    }

    fn ns_per_task(&self, w: usize) -> f64 {
        let s = self.workers[w].stats.snapshot(self.now_ns());
        let busy = self.now_ns().saturating_sub(s.idle.as_nanos() as u64);
        let tasks = (s.executed + s.injected).max(1);
        (busy as f64 / tasks as f64).max(1.0)
    }

    fn speed(&self, w: usize) -> f64 {
        self.speeds[w]
    }
}

/// Ends a root job when dropped (also when the job panics).
struct RootGuard<'a>(&'a Registry);

impl Drop for RootGuard<'_> {
    fn drop(&mut self) {
        self.0.end_root();
    }
}

/// The thread-private half of a worker.
pub(crate) struct WorkerThread {
    deque: Worker<JobRef>,
    pub(crate) index: usize,
    pub(crate) registry: Arc<Registry>,
    victims: RefCell<Victims>,
    /// This worker's counters (the registry holds the other handle).
    counters: Arc<CachePadded<Counters>>,
    /// Copies of the registry's flags, read on every push and pop.
    multi: bool,
    placing: bool,
    /// Tasks run since the last standing-phase step (sender-initiated policies).
    ticks: Cell<u32>,
    /// Waits in progress on this thread's stack (see [`HELP_DEPTH`]).
    depth: Cell<u32>,
}

fn main_loop(deque: Worker<JobRef>, index: usize, registry: Arc<Registry>) {
    let guard = unwind::AbortOnUnwind::new("a worker thread's main loop");
    if let Some(core) = registry.core_of(index) {
        // Pinning is best effort: a refused affinity call leaves the thread unpinned.
        let _ = core_affinity::set_for_current(core_affinity::CoreId { id: core });
    }
    let worker = WorkerThread {
        deque,
        index,
        victims: RefCell::new(Victims::new(index, registry.num_threads(), registry.seed)),
        counters: Arc::clone(&registry.workers[index].stats),
        multi: registry.multi,
        placing: registry.placing,
        registry,
        ticks: Cell::new(0),
        depth: Cell::new(0),
    };
    WORKER_THREAD.with(|t| t.set(&worker));
    if let Some(donors) = &worker.registry.shared.donors {
        // SB: the donor queue starts with whoever obtains the root; nobody is a donor yet.
        debug_assert!(!donors.contains(index));
    }
    worker.wait_until(&Terminated(&worker.registry));
    // Nothing is outstanding, but tasks taken back by their creators may have left husks
    // (ticket references) here; release them.
    while let Some(job) = worker.deque.pop() {
        worker.execute(job);
    }
    WORKER_THREAD.with(|t| t.set(ptr::null()));
    guard.disarm();
}

/// The "latch" the main loop waits for: termination requested and nothing outstanding.
struct Terminated<'a>(&'a Registry);

impl Probe for Terminated<'_> {
    fn probe(&self) -> bool {
        self.0.quiescent_and_terminating()
    }
}

impl WorkerThread {
    /// The current thread's worker, or null.
    #[inline]
    pub(crate) fn current() -> *const WorkerThread {
        WORKER_THREAD.with(|t| t.get())
    }

    #[inline]
    fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Makes `job` available to other workers (the `b` of a join, a spawn).
    #[inline(always)]
    pub(crate) fn push(&self, job: JobRef) {
        bump(&self.counters().spawned, 1);
        if self.placing {
            self.place_new(job);
        } else {
            self.deque.push(job);
            if self.multi {
                self.registry.notify_new_job(self.index);
            }
        }
    }

    /// Whether new tasks may be placed into other workers' inboxes (sender-initiated policies).
    #[inline]
    pub(crate) fn placing(&self) -> bool {
        self.placing
    }

    /// Under a sender-initiated policy, makes a task that somebody will wait for (a `join`'s
    /// `b`, a scope's task) available as a [`Ticket`], which may be placed elsewhere or moved by
    /// the standing phase; the returned handle lets the waiter take it back while nobody has
    /// started it.
    pub(crate) fn push_ticket(&self, job: JobRef) -> Arc<Ticket> {
        debug_assert!(self.placing);
        let ticket = Ticket::new(job);
        self.push(Ticket::job_ref(&ticket));
        ticket
    }

    /// Takes back the task behind `ticket` if nobody started it, and runs it here.
    pub(crate) fn reclaim(&self, ticket: &Ticket) -> bool {
        match ticket.take() {
            Some(job) => {
                bump(&self.counters().reclaimed, 1);
                self.count_execution(&job);
                let guard = unwind::AbortOnUnwind::new("a task taken back by its waiter");
                // SAFETY: the claim makes this the only execution of the job.
                unsafe { job.execute() };
                guard.disarm();
                true
            }
            None => false,
        }
    }

    /// The allocating phase of the sender-initiated policies for a new task.
    #[inline(never)]
    fn place_new(&self, job: JobRef) {
        match self.allocation_target(&job) {
            Some(to) => self.send(job, to),
            None => self.deque.push(job),
        }
    }

    /// Where the allocating phase sends a new task (`None`: keep it).
    fn allocation_target(&self, job: &JobRef) -> Option<usize> {
        let registry = &*self.registry;
        let target = match registry.policy {
            Policy::RandomAlloc => {
                let m = self
                    .victims
                    .borrow_mut()
                    .random_worker(registry.num_threads());
                (m != self.index).then_some(m)
            }
            Policy::Acwn { low, high, .. } => {
                sender::acwn_allocate(self.index, job.hops(), &registry.graph, registry, low, high)
            }
            _ => None,
        };
        target
    }

    /// Places `job` into worker `to`'s inbox (one more hop) and wakes `to` if it sleeps.
    fn send(&self, job: JobRef, to: usize) {
        job.add_hop();
        bump(&self.counters().placed_out, 1);
        let registry = &*self.registry;
        registry.workers[to].inbox.push(job);
        registry.sleep.notify_worker(to);
    }

    /// A task arrived in the inbox: count it and, under ACWN, let it travel on downhill.
    /// Returns the task if it stays here.
    fn receive(&self, job: JobRef) -> Option<JobRef> {
        if job.is_ticket() && Ticket::is_claimed(&job) {
            // Its creator took it back: drop the husk.
            // SAFETY: the ticket JobRef was taken from the inbox and is consumed here, once.
            let taken = unsafe { Ticket::redeem(job) };
            debug_assert!(taken.is_none());
            return None;
        }
        let c = self.counters();
        bump(&c.placed_in, 1);
        if u64::from(job.hops()) > c.max_hops.load(Ordering::Relaxed) {
            c.max_hops.store(u64::from(job.hops()), Ordering::Relaxed);
        }
        let registry = &*self.registry;
        if let Policy::Acwn { low, high, .. } = registry.policy {
            if let Some(to) =
                sender::acwn_allocate(self.index, job.hops(), &registry.graph, registry, low, high)
            {
                self.send(job, to);
                return None;
            }
        }
        Some(job)
    }

    /// Every `interval` tasks: the standing phase of ACWN and the gradient model.
    #[cold]
    fn standing_phase(&self) {
        let registry = &*self.registry;
        let me = self.index;
        let graph = &registry.graph;
        let target = match registry.policy {
            Policy::Acwn { high, .. } => sender::acwn_redistribute(me, graph, registry, high),
            Policy::Gradient { low, high, .. } => {
                let load = registry.queued(me);
                let pr = |j: usize| registry.proximity[j].load(Ordering::Relaxed);
                let own = sender::gradient_proximity(me, load, low, graph, pr);
                registry.proximity[me].store(own, Ordering::Relaxed);
                sender::gradient_target(me, load, high, own, graph, pr)
            }
            _ => None,
        };
        let Some(to) = target else { return };
        // Move the oldest waiting task (the largest subtree), if it may still travel.
        let own = &registry.workers[me].stealer;
        if let Steal::Success(job) = own.steal() {
            if (job.hops() as usize) < graph.diameter()
                || !matches!(registry.policy, Policy::Acwn { .. })
            {
                self.send(job, to);
            } else {
                self.deque.push(job);
            }
        }
    }

    #[inline(never)]
    fn tick(&self) {
        let interval = match self.registry.policy {
            Policy::Acwn { interval, .. } | Policy::Gradient { interval, .. } => interval,
            _ => return,
        };
        let t = self.ticks.get() + 1;
        if t >= interval {
            self.ticks.set(0);
            self.standing_phase();
        } else {
            self.ticks.set(t);
        }
    }

    /// Pops the newest job of the own deque.
    #[inline]
    pub(crate) fn take_local_job(&self) -> Option<JobRef> {
        self.deque.pop()
    }

    /// Counts a task that runs here, then runs it.
    #[inline]
    pub(crate) fn execute(&self, mut job: JobRef) {
        if job.is_ticket() {
            // SAFETY: a ticket JobRef taken from a queue is redeemed exactly once, here.
            match unsafe { Ticket::redeem(job) } {
                Some(inner) => job = inner,
                None => return, // its creator took the task back
            }
        }
        self.count_execution(&job);
        // Jobs catch their closures' panics; an unwind out of one would leave its waiter
        // pointing at a frame that is gone.
        let guard = unwind::AbortOnUnwind::new("a task's execution");
        // SAFETY: every JobRef in a queue is executed exactly once, by whoever removed it.
        unsafe { job.execute() };
        guard.disarm();
    }

    /// Records that this worker popped back its own `b` and runs it inline.
    #[inline(always)]
    pub(crate) fn count_popped_back(&self) {
        bump(&self.counters().executed_local, 1);
    }

    /// Records that `job` runs on this worker.
    #[inline(always)]
    pub(crate) fn count_execution(&self, job: &JobRef) {
        if self.placing {
            self.tick();
        }
        // One counter per case; `executed` is their sum, derived in the snapshot.
        let c = self.counters();
        let origin = job.origin();
        if origin as usize == self.index {
            bump(&c.executed_local, 1);
        } else if origin == EXTERNAL {
            bump(&c.injected, 1);
        } else {
            bump(&c.executed_remote, 1);
        }
    }

    /// Runs other work until `latch` is set.
    #[inline]
    pub(crate) fn wait_until<L: Probe>(&self, latch: &L) {
        if !latch.probe() {
            self.wait_until_cold(latch, None);
        }
    }

    /// Runs other work until `latch` is set. `reclaim` (sender-initiated policies) takes back
    /// unstarted tasks the waiter waits for.
    pub(crate) fn wait_reclaiming<L: Probe>(&self, latch: &L, reclaim: &dyn Reclaim) {
        if !latch.probe() {
            self.wait_until_cold(latch, Some(reclaim));
        }
    }

    #[cold]
    fn wait_until_cold<L: Probe>(&self, latch: &L, reclaim: Option<&dyn Reclaim>) {
        let depth = self.depth.get();
        self.depth.set(depth + 1);
        let guard = unwind::AbortOnUnwind::new("a worker's wait");
        self.wait_loop(latch, reclaim, depth);
        guard.disarm();
        self.depth.set(depth);
    }

    /// The worker loop proper (module docs). `depth` counts the waits below this one on the
    /// stack; past [`HELP_DEPTH`] a waiter under a sender-initiated policy runs only its own
    /// deque and the tasks it takes back, so nesting stays bounded.
    fn wait_loop<L: Probe>(&self, latch: &L, reclaim: Option<&dyn Reclaim>, depth: u32) {
        // Past HELP_DEPTH nested waits, a waiter under a sender-initiated policy only takes back
        // what it waits for (or work from outside the pool) and otherwise sleeps until its latch
        // is set: every task it could wait for can be taken back while unstarted, so this cannot
        // deadlock, and its stack stops growing (docs/sender.md).
        let placing = self.registry.placing;
        let deep = placing && depth >= HELP_DEPTH;
        while !latch.probe() {
            if deep {
                if reclaim.is_some_and(|r| r.reclaim(self)) {
                    continue;
                }
            } else if placing {
                // Placed tasks first: a task placed here runs here, as the policy decided,
                // rather than waiting until its creator takes it back.
                if let Some(job) = self.find_foreign_work(true) {
                    self.execute(job);
                    continue;
                }
            }
            if !deep {
                if let Some(job) = self.deque.pop() {
                    self.execute(job);
                    continue;
                }
            }
            if !placing || deep {
                if let Some(job) = self.find_foreign_work(!deep) {
                    self.execute(job);
                    continue;
                }
            }
            let registry = &self.registry;
            let since = registry.now_ns();
            self.counters()
                .idle_since
                .store(since + 1, Ordering::Relaxed);
            if let Some(donors) = &registry.shared.donors {
                donors.leave(self.index);
            }
            if let Policy::Gradient { low, .. } = registry.policy {
                // Idle (nothing waiting, below the low mark): publish proximity 0 at once.
                if low > 0 {
                    registry.proximity[self.index].store(0, Ordering::Relaxed);
                }
            }
            let found = self.search_or_sleep(latch, deep, reclaim);
            if let Some(donors) = &registry.shared.donors {
                // Obtained work, or resumes the frame that waited: a donor again.
                donors.join(self.index);
            }
            // Clear the start before adding the stretch, Release: see `Counters::snapshot`.
            let c = self.counters();
            c.idle_since.store(0, Ordering::Relaxed);
            let idle = c.idle_ns.load(Ordering::Relaxed) + registry.now_ns().saturating_sub(since);
            c.idle_ns.store(idle, Ordering::Release);
            match found {
                Idle::Job(job) => self.execute(job),
                Idle::Ran => {}
                Idle::LatchSet => return,
            }
        }
    }

    /// Own inbox (if `inbox`), then the injector.
    fn find_foreign_work(&self, inbox: bool) -> Option<JobRef> {
        let queue = &self.registry.workers[self.index].inbox;
        while let Some(job) = inbox.then(|| steal_retrying(|| queue.steal())).flatten() {
            if let Some(job) = self.receive(job) {
                return Some(job);
            }
        }
        let job = steal_retrying(|| self.registry.injector.steal())?;
        if let Some(donors) = &self.registry.shared.donors {
            // SB: a worker that obtains work is a donor (this is how the root's holder joins).
            donors.join(self.index);
        }
        Some(job)
    }

    /// Searches (local sources and the policy's requests) for a bounded number of rounds, then
    /// sleeps; repeats until it finds a job (`Some`) or the latch is set (`None`).
    ///
    /// A `deep` waiter (see `wait_loop`) looks only at the injector besides its latch.
    ///
    /// Before sleeping it runs `reclaim`: rather than sleep while a task it waits for sits
    /// unstarted in some queue, the waiter takes it back. (Without this, two waiters could each
    /// hold the other's task in a queue the other does not drain.) Trying only after the search
    /// rounds gives the worker the task was placed on the first chance to run it.
    fn search_or_sleep<L: Probe>(
        &self,
        latch: &L,
        deep: bool,
        reclaim: Option<&dyn Reclaim>,
    ) -> Idle {
        let mut rounds = 0;
        loop {
            if latch.probe() {
                return Idle::LatchSet;
            }
            if let Some(job) = (!deep).then(|| self.deque.pop()).flatten() {
                return Idle::Job(job);
            }
            if let Some(job) = self.find_foreign_work(!deep) {
                return Idle::Job(job);
            }
            match self.acquire_round() {
                Acquired::Job(job) => return Idle::Job(job),
                Acquired::Contended => continue,
                Acquired::Nothing => {}
            }
            rounds += 1;
            if rounds < SEARCH_ROUNDS {
                crate::sync::yield_now();
                continue;
            }
            rounds = 0;
            if reclaim.is_some_and(|r| r.reclaim(self)) {
                return Idle::Ran;
            }
            // The re-check also asks whether a task joined the set the waiter may take back
            // (a scope task that spawned a sibling): its spawner notified us after adding it.
            let slept = self.registry.sleep.sleep(self.index, || {
                latch.probe() || self.work_visible(deep) || reclaim.is_some_and(|r| r.may_reclaim())
            });
            if slept {
                bump(&self.counters().sleeps, 1);
            }
        }
    }

    /// One round of the policy's acquire step: requests to the victims it chooses.
    fn acquire_round(&self) -> Acquired {
        let registry = &*self.registry;
        if !registry.multi || registry.placing {
            return Acquired::Nothing;
        }
        let policy = &registry.policy;
        let mut victims = self.victims.borrow_mut();
        let requests = victims.round_len(policy, self.index, &registry.graph);
        victims.begin_round();
        let mut contended = false;
        let c = self.counters();
        for _ in 0..requests {
            let Some(victim) = victims.next(
                policy,
                self.index,
                &registry.graph,
                &registry.shared,
                registry,
            ) else {
                break;
            };
            bump(&c.requests, 1);
            let stealer = &registry.workers[victim].stealer;
            match stealer.steal() {
                Steal::Success(job) => {
                    bump(&c.requests_ok, 1);
                    return Acquired::Job(job);
                }
                Steal::Empty => victims.failed(policy, victim),
                Steal::Retry => contended = true,
            }
        }
        if contended {
            Acquired::Contended
        } else {
            Acquired::Nothing
        }
    }

    /// The sleep re-check: is there anything this worker could act on?
    fn work_visible(&self, deep: bool) -> bool {
        let registry = &*self.registry;
        if registry.quiescent_and_terminating()
            || !registry.injector.is_empty()
            || (!deep
                && (!self.deque.is_empty()
                    || (!BROKEN_INBOX_RECHECK && !registry.workers[self.index].inbox.is_empty())))
        {
            return true;
        }
        if !registry.multi {
            return false;
        }
        let worth = |w: usize| {
            registry
                .policy
                .worth_asking(registry.workers[w].stealer.len())
        };
        match registry.policy.reach() {
            Reach::All => (0..registry.num_threads()).any(|w| w != self.index && worth(w)),
            Reach::Neighbors => registry.graph.neighbors(self.index).any(worth),
            Reach::Nothing => false,
        }
    }
}

/// What a waiter under a sender-initiated policy can take back: the unstarted tasks it waits for
/// (a `join`'s ticket, a scope's placed tasks). See `docs/sender.md`, "Deadlock freedom".
pub(crate) trait Reclaim {
    /// Takes back one unstarted task the waiter waits for and runs it on `worker`; returns
    /// whether it ran one.
    fn reclaim(&self, worker: &WorkerThread) -> bool;

    /// The sleep re-check: whether a task may have joined the set since [`Reclaim::reclaim`]
    /// last came back empty. Whoever adds to the set must notify the waiter afterwards
    /// (`Sleep::notify_worker`), so that either this sees the task or the waiter is woken.
    fn may_reclaim(&self) -> bool;
}

/// What an idle worker's search ended with.
enum Idle {
    /// A task to run.
    Job(JobRef),
    /// It took back and ran a task it was waiting for.
    Ran,
    /// The latch it waits for is set.
    LatchSet,
}

enum Acquired {
    Job(JobRef),
    /// A steal lost a race: try again before thinking of sleep.
    Contended,
    Nothing,
}

fn steal_retrying(mut steal: impl FnMut() -> Steal<JobRef>) -> Option<JobRef> {
    loop {
        match steal() {
            Steal::Success(job) => return Some(job),
            Steal::Empty => return None,
            Steal::Retry => crate::sync::spin_hint(),
        }
    }
}

/// Runs `op` on a worker: the current one, or one of the global pool.
#[inline]
pub(crate) fn in_worker<OP, R>(op: OP) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    let worker = WorkerThread::current();
    // SAFETY: see `Registry::push_or_inject`.
    match unsafe { worker.as_ref() } {
        Some(w) => op(w, false),
        None => crate::builder::global_registry().in_worker(op),
    }
}

#[cfg(all(test, loom))]
mod loom_tests;

//! The pool's shared state ([`Registry`]): the workers' shared halves, the injector, the sleep
//! state and the policy's pool-wide state.
//!
//! Data flows one way: the registry owns what workers share (the public deque's stealing end,
//! the inbox, the request cells, counters, sleep slots); a worker asks its policy's
//! [`Machine`](crate::policy::machine::Machine) whom to ask or where to place, and the policy
//! only reads topology and published loads. The code is layered the same way: nothing here
//! knows about workers. The worker loop lives in `src/worker/`, and so do the `Registry`
//! methods that need the calling thread's worker (`src/worker/entry.rs`: `in_worker`, the
//! `'static` spawns); starting the threads is `thread_builder::start`.

use crate::config::{BuildError, Config, PanicHandler, ThreadHandler};
use crate::fifo::Lanes;
use crate::job::{JobRef, Ticket, EXTERNAL};
use crate::pinning::Cores;
use crate::policy::machine::{LoadView, Shared};
use crate::policy::{Policy, Reach};
use crate::sleep::Sleep;
use crate::stats::{bump, Counters, PoolStats};
use crate::sync::deque::{Injector, Steal, Stealer, Worker};
use crate::sync::{broken, AtomicBool, AtomicU64, AtomicUsize, Broken, Mutex, Ordering};
use crate::topology::TopologyGraph;
use crate::trace::{Ring, Rings, Trace};
use crate::unwind;
use cells::Exchange;
use crossbeam_utils::CachePadded;
use std::any::Any;
use std::sync::Arc;
use std::time::Instant;
pub(crate) use stopped::Stopped;

/// The shared half of one worker.
pub(crate) struct WorkerInfo {
    /// The stealing end of the worker's public deque (spawns and promoted tasks).
    pub(crate) stealer: Stealer<JobRef>,
    /// Tasks other workers placed here (sender-initiated policies); only the owner drains it.
    pub(crate) inbox: Injector<JobRef>,
    /// Broadcast jobs that must run on this worker (`broadcast.rs`); only the owner drains it,
    /// in every wait loop, deep or not.
    pub(crate) broadcasts: Injector<JobRef>,
    /// Shared with the worker thread, which keeps its own handle (one load on the hot path).
    pub(crate) stats: Arc<CachePadded<Counters>>,
    /// The request cell, the answer slot and the published load (`src/worker/README.md`).
    pub(crate) exchange: Exchange,
}

/// Everything the workers of one pool share.
pub(crate) struct Registry {
    pub(crate) workers: Vec<WorkerInfo>,
    pub(crate) injector: Injector<JobRef>,
    pub(crate) sleep: Sleep,
    pub(crate) policy: Policy,
    /// The policy's reach, read on every publish and steal attempt (`Policy::reach` looks the
    /// policy's spec up).
    pub(crate) reach: Reach,
    pub(crate) graph: TopologyGraph,
    pub(crate) shared: Shared,
    /// More than one worker: publishing work may need to wake someone.
    pub(crate) multi: bool,
    /// More than one worker under a sender-initiated policy: tasks are placed, nobody steals.
    pub(crate) placing: bool,
    /// Workers without work (searching, waiting for placed work, or asleep): the demand signal
    /// busy workers read at their poll points (`src/worker/README.md`, "Promotion").
    pub(crate) idle: CachePadded<AtomicUsize>,
    /// The allocating phase's heartbeat, in nanoseconds (sender-initiated policies).
    pub(crate) heartbeat_ns: u64,
    /// [`crate::ThreadPoolBuilder::idle_linger`] in nanoseconds, if set.
    pub(crate) linger_ns: Option<u64>,
    /// How long an idle worker leaves work it sees but its policy does not give it, before it
    /// takes that work anyway (`src/worker/README.md`, "Rescue"), in nanoseconds.
    pub(crate) rescue_ns: u64,
    /// Each worker's lane of `'static` FIFO spawns (`fifo.rs`).
    pub(crate) lanes: Lanes,
    /// Root jobs (injected jobs and `'static` spawns) not yet finished. Every other job is
    /// awaited by a frame of one of these, so zero means the pool is quiescent.
    outstanding: AtomicUsize,
    terminating: AtomicBool,
    pub(crate) submitted: AtomicU64,
    pub(crate) panic_handler: Option<PanicHandler>,
    start_handler: Option<ThreadHandler>,
    exit_handler: Option<ThreadHandler>,
    /// Workers whose exit handler has returned, plus workers that never started (a failed
    /// build): with an exit handler, no worker exits before this reaches the worker count.
    exits_done: AtomicUsize,
    start: Instant,
    baseline: Mutex<PoolStats>,
    speeds: Vec<f64>,
    /// The cores the workers are pinned to, given back when the registry goes.
    cores: Cores,
    pub(crate) seed: u64,
    /// Workers that have left their loop (`thread_builder.rs`): what `ThreadPool::shutdown`
    /// waits on for threads it cannot join.
    pub(crate) stopped: Arc<Stopped>,
    /// Built with `breadth_first`: spawns run in FIFO order, as `spawn_fifo`'s.
    pub(crate) breadth_first: bool,
    /// The workers' event rings, when the pool was built with tracing (`src/trace/`).
    pub(crate) trace: Option<Rings>,
}

/// The rescue bound of a pool whose heartbeat is `heartbeat` (`src/worker/README.md`,
/// "Rescue"): [`RESCUE_HEARTBEATS`] heartbeats, but at least [`RESCUE_MIN`] and at most
/// [`RESCUE_MAX`].
pub(crate) fn rescue_ns(heartbeat: std::time::Duration) -> u64 {
    let beats = heartbeat.saturating_mul(RESCUE_HEARTBEATS);
    beats.clamp(RESCUE_MIN, RESCUE_MAX).as_nanos() as u64
}

/// Heartbeats an idle worker leaves work its policy does not give it before it rescues it:
/// long enough for every policy's decisions (ACWN's standing phase runs every 16), short
/// enough that a user never mistakes the wait for a hang (1 ms at the default heartbeat).
pub(crate) const RESCUE_HEARTBEATS: u32 = 50;
/// The rescue bound's floor, for heartbeats of a few microseconds.
pub(crate) const RESCUE_MIN: std::time::Duration = std::time::Duration::from_micros(100);
/// The rescue bound's ceiling, for long heartbeats.
pub(crate) const RESCUE_MAX: std::time::Duration = std::time::Duration::from_millis(10);

impl Registry {
    /// Builds the registry, taking the handlers and the trace out of `config`, and each
    /// worker's own end of its public deque. No thread starts here (`thread_builder::start`).
    pub(crate) fn new(
        config: &mut Config,
    ) -> Result<(Arc<Registry>, Vec<Worker<JobRef>>), BuildError> {
        let n = config.num_threads;
        let graph = config.topology.try_graph(n).map_err(BuildError::Topology)?;
        let deques: Vec<Worker<JobRef>> = (0..n).map(|_| Worker::new_lifo()).collect();
        // Under a receiver-initiated policy, every worker of a pool of two or more starts idle
        // (`src/worker/README.md`, "Going idle"): its request cell blocked and counted in `idle`.
        let stealing = n > 1 && !config.policy.is_sender_initiated();
        let workers = deques
            .iter()
            .map(|d| WorkerInfo {
                stealer: d.stealer(),
                inbox: Injector::new(),
                broadcasts: Injector::new(),
                stats: Arc::new(CachePadded::new(Counters::default())),
                exchange: Exchange::new(stealing),
            })
            .collect();
        // Allocated fallibly: a trace the machine cannot hold is a build error, not an abort.
        let trace = match config.trace.take() {
            None => None,
            Some((capacity, path)) => Some(Rings {
                rings: (0..n)
                    .map(|_| Ring::try_new(capacity))
                    .collect::<Option<Vec<_>>>()
                    .ok_or(BuildError::TraceMemory {
                        capacity,
                        workers: n,
                    })?,
                path,
            }),
        };
        let cores = Cores::take(
            n,
            config.pin,
            config.placement,
            config.pin_claims.as_deref(),
        );
        let registry = Arc::new(Registry {
            workers,
            injector: Injector::new(),
            sleep: Sleep::new(n),
            shared: Shared::new(&config.policy, &graph),
            policy: config.policy,
            reach: config.policy.reach(),
            graph,
            multi: n > 1,
            placing: n > 1 && config.policy.is_sender_initiated(),
            idle: CachePadded::new(AtomicUsize::new(if stealing { n } else { 0 })),
            heartbeat_ns: config.heartbeat.as_nanos().min(u64::MAX as u128) as u64,
            linger_ns: config.idle_linger.map(|l| l.as_nanos() as u64),
            rescue_ns: rescue_ns(config.heartbeat),
            lanes: Lanes::new(n),
            outstanding: AtomicUsize::new(0),
            terminating: AtomicBool::new(false),
            submitted: AtomicU64::new(0),
            panic_handler: config.panic_handler.take(),
            start_handler: config.start_handler.take(),
            exit_handler: config.exit_handler.take(),
            exits_done: AtomicUsize::new(0),
            start: Instant::now(),
            baseline: Mutex::new(PoolStats {
                workers: vec![Default::default(); n],
                ..Default::default()
            }),
            speeds: config.speeds.clone().unwrap_or_else(|| vec![1.0; n]),
            cores,
            seed: config.seed,
            stopped: Arc::new(Stopped::new(n)),
            breadth_first: config.breadth_first,
            trace,
        });
        Ok((registry, deques))
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

    pub(crate) fn quiescent_and_terminating(&self) -> bool {
        self.terminating.load(Ordering::SeqCst)
            && (broken(Broken::Shutdown) || self.outstanding.load(Ordering::SeqCst) == 0)
    }

    /// A root job was submitted (`install` from outside, `spawn`).
    pub(crate) fn begin_root(&self) {
        self.outstanding.fetch_add(1, Ordering::SeqCst);
    }

    /// A root job finished.
    pub(crate) fn end_root(&self) {
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

    /// A `'static` spawn or a start or exit handler panicked on the thread of worker `worker`
    /// (`None`: on no worker's thread): count it there and hand the payload to the panic
    /// handler, or drop it. The library prints nothing: the panic hook already reported the
    /// panic where it happened. Nothing here unwinds, whatever the handler or the payload does,
    /// so the worker goes on.
    pub(crate) fn handle_panic(&self, worker: Option<usize>, payload: Box<dyn Any + Send>) {
        if let Some(index) = worker {
            // On worker `index`'s own thread: its counters have that one writer.
            bump(&self.workers[index].stats.panics, 1);
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

    /// Runs the start handler, if any, on worker `index` (the current thread). Its panic is
    /// handled as a spawn's ([`Registry::handle_panic`]); nothing unwinds.
    pub(crate) fn thread_started(&self, index: usize) {
        if let Some(handler) = &self.start_handler {
            self.run_thread_handler(handler, index);
        }
    }

    /// Runs the exit handler, if any, on worker `index` (the current thread), as
    /// [`Registry::thread_started`] runs the start handler, and returns whether there was one.
    ///
    /// The pool had come to rest, but the handler may submit work (a spawn, which a
    /// sender-initiated policy may place on any worker): so with an exit handler, no worker
    /// leaves before every worker's handler has returned and the pool is at rest again
    /// ([`Registry::exits_done_and_quiescent`]); until then they all keep taking work.
    pub(crate) fn thread_exiting(&self, index: usize) -> bool {
        let Some(handler) = &self.exit_handler else {
            return false;
        };
        self.run_thread_handler(handler, index);
        self.exits_done.fetch_add(1, Ordering::SeqCst);
        // Publish, fence, wake, as in `end_root`: a worker asleep in the last wait re-checks
        // `exits_done_and_quiescent` after its own fence, so one side sees the other.
        self.sleep.notify_all();
        true
    }

    /// `n` workers whose builders were never made (a spawn handler failed first): none has an
    /// exit handler to wait for or a thread to stop.
    pub(crate) fn workers_never_built(&self, n: usize) {
        self.exits_done.fetch_add(n, Ordering::SeqCst);
        self.stopped.add(n);
    }

    /// A worker whose [`ThreadBuilder`](crate::ThreadBuilder) was dropped without running: it
    /// has no exit handler to wait for and no thread to stop.
    pub(crate) fn worker_never_started(&self) {
        self.exits_done.fetch_add(1, Ordering::SeqCst);
        self.sleep.notify_all();
        self.stopped.add(1);
    }

    /// Every worker's exit handler has returned and nothing is outstanding: no work can
    /// appear any more (nothing is left that could submit it).
    pub(crate) fn exits_done_and_quiescent(&self) -> bool {
        self.exits_done.load(Ordering::SeqCst) >= self.num_threads()
            && self.quiescent_and_terminating()
    }

    fn run_thread_handler(&self, handler: &ThreadHandler, index: usize) {
        if let Err(payload) = unwind::halt_unwinding(|| handler(index)) {
            self.handle_panic(Some(index), payload);
        }
    }

    /// After worker `from` published a job in its deque: wake a sleeper that may take it, or,
    /// when the policy lets no sleeper take it now, make sure an idle worker will rescue it
    /// (`src/worker/README.md`, "Rescue").
    #[inline(never)]
    pub(crate) fn notify_new_job(&self, from: usize) {
        match self.reach {
            Reach::All => {
                let p = self.num_threads();
                self.sleep.notify(|| (from + 1..p).chain(0..from));
            }
            Reach::Neighbors => {
                self.sleep.notify_or_rescuer(|| self.graph.neighbors(from));
            }
            // Nobody takes work from another deque but a rescuer: placement wakes the
            // receiver of a placed task.
            Reach::Nothing => {
                self.sleep.notify_rescuer();
            }
        }
    }

    pub(crate) fn now_ns(&self) -> u64 {
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

    /// The events recorded so far (empty without tracing).
    pub(crate) fn trace(&self) -> Trace {
        match &self.trace {
            Some(rings) => Trace::of(rings, std::time::Duration::from_nanos(self.now_ns())),
            None => Trace::default(),
        }
    }

    /// Worker `w`'s ring, if tracing.
    pub(crate) fn ring(&self, w: usize) -> Option<&Ring> {
        self.trace.as_ref().map(|t| &t.rings[w])
    }

    /// Per worker, the tasks queued where others can see them: the public deque, the inbox,
    /// and (for policies that publish loads) the private stack.
    pub(crate) fn queue_lengths(&self) -> Vec<usize> {
        (0..self.num_threads()).map(|w| self.queued(w)).collect()
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
        // Under a sender-initiated policy the public deque holds only exposed copies of tasks
        // the published load already counts (`src/worker/README.md`, "Rescue").
        let public = if self.placing { 0 } else { info.stealer.len() };
        info.exchange.published_load() + public + info.inbox.len()
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
pub(crate) struct RootGuard<'a>(pub(crate) &'a Registry);

impl Drop for RootGuard<'_> {
    fn drop(&mut self) {
        self.0.end_root();
    }
}

pub(crate) mod cells;
mod stopped;

#[cfg(all(test, loom))]
#[path = "loom/registry.rs"]
mod loom_tests;

/// The layering this module's docs promise, checked on the source: nothing the registry
/// imports (directly or through other modules of the crate) imports the registry back.
#[cfg(all(test, not(loom)))]
mod layering_tests {
    use std::collections::{BTreeMap, BTreeSet, VecDeque};
    use std::path::Path;

    /// The crate's top-level module each source file belongs to (`src/worker/wait.rs` is
    /// `worker`), for every file of `src/` but `lib.rs` and the loom models.
    fn files(dir: &Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files(&path, out);
                continue;
            }
            let rel = path
                .strip_prefix(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))
                .unwrap();
            let top = rel.iter().next().unwrap().to_string_lossy();
            let top = top.trim_end_matches(".rs").to_string();
            if path.extension().is_some_and(|e| e == "rs") && top != "lib" && top != "loom" {
                out.push((top, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }

    /// The top-level modules `code` names through `crate::` paths, outside comments and the
    /// test module at the end of a file.
    fn references(code: &str, modules: &BTreeSet<String>) -> BTreeSet<String> {
        let mut found = BTreeSet::new();
        let mut lines = code.lines().peekable();
        while let Some(line) = lines.next() {
            let next_is_mod = lines.peek().is_some_and(|l| l.starts_with("mod "));
            if line.starts_with("#[cfg(") && line.contains("test") && next_is_mod {
                break;
            }
            let code = line.split("//").next().unwrap_or("");
            for (at, _) in code.match_indices("crate::") {
                let rest = &code[at + "crate::".len()..];
                // `crate::a::b` names `a`; `crate::{a, b::c}` names `a` and `b`.
                let names: Vec<&str> = match rest.strip_prefix('{') {
                    Some(group) => group
                        .split(',')
                        .map(|item| item.trim().split("::").next().unwrap_or(""))
                        .collect(),
                    None => vec![rest],
                };
                for name in names {
                    let ident: String = name
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if modules.contains(&ident) {
                        found.insert(ident);
                    }
                }
            }
        }
        found
    }

    #[test]
    fn nothing_the_registry_imports_imports_it_back() {
        let mut sources = Vec::new();
        files(
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
            &mut sources,
        );
        let modules: BTreeSet<String> = sources.iter().map(|(m, _)| m.clone()).collect();
        assert!(modules.contains("registry") && modules.contains("worker"));
        let mut imports: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (module, code) in &sources {
            let found = references(code, &modules);
            imports
                .entry(module.clone())
                .or_default()
                .extend(found.into_iter().filter(|m| m != module));
        }
        // Breadth first from the registry's imports, remembering how each module was reached.
        let mut reached_from: BTreeMap<String, String> = BTreeMap::new();
        let mut queue: VecDeque<String> = VecDeque::from(["registry".to_string()]);
        while let Some(module) = queue.pop_front() {
            for next in &imports[&module] {
                if next == "registry" {
                    let mut path = vec![module.clone()];
                    while let Some(prev) = reached_from.get(path.last().unwrap()) {
                        path.push(prev.clone());
                    }
                    path.reverse();
                    panic!(
                        "an import circle through the registry: {} -> registry",
                        path.join(" -> ")
                    );
                }
                if !reached_from.contains_key(next) {
                    reached_from.insert(next.clone(), module.clone());
                    queue.push_back(next.clone());
                }
            }
        }
        // The check can fail: the registry's own imports were followed.
        assert!(reached_from.contains_key("job") && !reached_from.contains_key("worker"));
    }
}

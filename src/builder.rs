//! [`ThreadPoolBuilder`] and the global pool. What the settings resolve to, the environment
//! variables and their checks are in `config.rs`.

use crate::config::{BuildError, Config, Settings};
use crate::hardware::Placement;
use crate::policy::Policy;
use crate::pool::ThreadPool;
use crate::registry::Registry;
use crate::thread_builder::{CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn};
use crate::topology::Topology;
use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// Configures and builds a [`ThreadPool`] (or the global pool).
///
/// Every setting has a default, which the `HYPERSTEAL_*` environment variables can change; an
/// explicit builder call always wins over the environment, and an environment value that does not
/// parse is a [`BuildError`], never silently ignored.
///
/// ```
/// use hypersteal::{Policy, ThreadPoolBuilder, Topology};
/// let pool = ThreadPoolBuilder::new()
///     .num_threads(4)
///     .topology(Topology::Mesh)
///     .policy("grr-m:window=16".parse().unwrap())
///     .build()
///     .unwrap();
/// assert_eq!(pool.current_num_threads(), 4);
/// assert_eq!(pool.install(|| hypersteal::join(|| 1, || 2)), (1, 2));
///
/// let err = ThreadPoolBuilder::new().num_threads(5000).build().unwrap_err();
/// assert!(err.to_string().contains("5000"));
/// ```
pub struct ThreadPoolBuilder<S = DefaultSpawn> {
    /// Every setting but who starts the threads; checked only by `Settings::resolve`.
    settings: Settings,
    /// Who starts the threads (`thread_builder.rs`).
    spawn: S,
}

impl<S> fmt::Debug for ThreadPoolBuilder<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("num_threads", &self.settings.num_threads)
            .field("topology", &self.settings.topology)
            .field("policy", &self.settings.policy)
            .field("pin", &self.settings.pin)
            .field("placement", &self.settings.placement)
            .field(
                "thread_name",
                &self.settings.thread_name.as_ref().map(|_| ".."),
            )
            .field("stack_size", &self.settings.stack_size)
            .field(
                "panic_handler",
                &self.settings.panic_handler.as_ref().map(|_| ".."),
            )
            .field(
                "start_handler",
                &self.settings.start_handler.as_ref().map(|_| ".."),
            )
            .field(
                "exit_handler",
                &self.settings.exit_handler.as_ref().map(|_| ".."),
            )
            .field("worker_speeds", &self.settings.speeds)
            .field("seed", &self.settings.seed)
            .field("heartbeat", &self.settings.heartbeat)
            .field("idle_linger", &self.settings.idle_linger)
            .field("breadth_first", &self.settings.breadth_first)
            .field("use_current_thread", &self.settings.use_current_thread)
            .field("trace", &self.settings.trace)
            .field("trace_capacity", &self.settings.trace_capacity)
            .field("spawn", &std::any::type_name::<S>())
            .finish()
    }
}

impl ThreadPoolBuilder {
    /// A builder with every setting at its default.
    pub fn new() -> Self {
        ThreadPoolBuilder {
            settings: Settings::default(),
            spawn: DefaultSpawn,
        }
    }
}

/// rayon's old name for [`ThreadPoolBuilder`], kept so that code written against it compiles.
#[deprecated(note = "use `ThreadPoolBuilder`")]
pub type Configuration = ThreadPoolBuilder;

/// [`ThreadPoolBuilder::new`]. Only for the default way of starting threads, so that
/// `ThreadPoolBuilder::default()` needs no type annotation (as in rayon).
impl Default for ThreadPoolBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl<S> ThreadPoolBuilder<S> {
    /// The number of workers; 0 (the default) means one per available core. At most
    /// [`MAX_WORKERS`](crate::MAX_WORKERS).
    pub fn num_threads(mut self, n: usize) -> Self {
        self.settings.num_threads = Some(n);
        self
    }

    /// The virtual topology the workers form (default: hypercube).
    pub fn topology(mut self, topology: Topology) -> Self {
        self.settings.topology = Some(topology);
        self
    }

    /// The scheduling policy (default: `rp`, random polling).
    pub fn policy(mut self, policy: Policy) -> Self {
        self.settings.policy = Some(policy);
        self
    }

    /// Whether to pin each worker to a CPU. The default (unless `HYPERSTEAL_PIN` says) is to pin
    /// only when the process may run on fewer CPUs than the machine has (`taskset`, a cpuset,
    /// an MPI launcher's binding): those CPUs were given to it. With the whole machine allowed,
    /// workers are not pinned, since a worker pinned to a CPU another process keeps busy cannot
    /// move away. CPUs are handed out process-wide: while free CPUs exist, live pools do not
    /// share one; with more workers than free CPUs, each worker takes the least-used CPU, so
    /// they spread evenly. CPUs are also claimed against other processes that pin (a file lock
    /// per CPU in the directory [`ENV_PIN_CLAIMS`](crate::ENV_PIN_CLAIMS) names), so two such processes side by side
    /// take different CPUs while free ones exist. A pool gives its CPUs back when its threads
    /// are gone (`docs/design.md`, "Pinning").
    pub fn pin_threads(mut self, pin: bool) -> Self {
        self.settings.pin = Some(pin);
        self
    }

    /// How workers are laid onto the CPUs they are pinned to (default: [`Placement::Hardware`],
    /// or `HYPERSTEAL_PLACEMENT`): in the hardware's closeness, so that neighbours in the
    /// topology share a core's caches, an L3 or a NUMA node as far as the machine allows, or in
    /// the operating system's numbering. [`ThreadPool::cpu_map`](crate::ThreadPool::cpu_map)
    /// reports the result.
    pub fn placement(mut self, placement: Placement) -> Self {
        self.settings.placement = Some(placement);
        self
    }

    /// Names worker threads: `f(index)` (default: `hypersteal-{index}`). The names are made
    /// before any thread starts; a name with a NUL byte, or a panic in `f`, is a
    /// [`BuildError::ThreadName`].
    pub fn thread_name<F>(mut self, f: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.settings.thread_name = Some(Box::new(f));
        self
    }

    /// The stack size of each worker thread, in bytes (default: the platform's, 2 MiB on Linux).
    pub fn stack_size(mut self, bytes: usize) -> Self {
        self.settings.stack_size = Some(bytes);
        self
    }

    /// Receives the panic payload of every task started with `spawn`. Without a handler the
    /// payload is dropped (the panic hook has already reported the panic, and
    /// [`crate::WorkerStats::panics`] counts it); either way the worker keeps running. A handler
    /// that panics in turn is caught the same way. Panics in `join`, `scope` and `install` go
    /// to their callers instead.
    pub fn panic_handler<H>(mut self, handler: H) -> Self
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.settings.panic_handler = Some(Box::new(handler));
        self
    }

    /// Called on each worker thread, with the worker's index, when the thread starts: before
    /// it runs any task, with the worker already in place (so [`crate::current_thread_index`]
    /// answers `Some(index)`). Workers start concurrently, so the handler may run on several
    /// threads at once. Use it for per-thread setup (thread-local state, priorities).
    ///
    /// A panic in the handler does not kill the worker: it is caught and treated like the panic
    /// of a task started with `spawn` (handed to the [`ThreadPoolBuilder::panic_handler`], or
    /// dropped without one, and counted in [`crate::WorkerStats::panics`]), and the worker then
    /// starts normally. rayon does the same when a panic handler is set, but aborts the process
    /// when there is none (or when that handler panics too); here nothing aborts.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// let started = Arc::new(Mutex::new(Vec::new()));
    /// let log = Arc::clone(&started);
    /// let pool = hypersteal::ThreadPoolBuilder::new()
    ///     .num_threads(3)
    ///     .start_handler(move |index| log.lock().unwrap().push(index))
    ///     .build()
    ///     .unwrap();
    /// pool.shutdown(); // waits for the threads, hence for their start handlers
    /// let mut started = started.lock().unwrap().clone();
    /// started.sort();
    /// assert_eq!(started, [0, 1, 2]);
    /// ```
    pub fn start_handler<H>(mut self, handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.settings.start_handler = Some(Box::new(handler));
        self
    }

    /// Called on each worker thread, with the worker's index, just before the thread exits:
    /// after the pool was stopped (dropped or shut down) and the worker finished its share of
    /// the queued work, still as a worker of the pool (so [`crate::current_thread_index`]
    /// answers `Some(index)`). [`ThreadPool::shutdown`] returns after every exit handler has
    /// returned; dropping the pool does not wait for them. The handler may run on several
    /// threads at once.
    ///
    /// The handler may still use the pool (`join`, scopes, `spawn`): with an exit handler set,
    /// no worker leaves before every worker's handler has returned and the work they submitted
    /// is done. Workers whose handler returned wait for the others asleep, like idle workers,
    /// and take any work the handlers submit.
    ///
    /// A panic in the handler is caught and treated like the panic of a task started with
    /// `spawn` (see [`ThreadPoolBuilder::start_handler`]); the thread then exits normally.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let exited = Arc::new(AtomicUsize::new(0));
    /// let count = Arc::clone(&exited);
    /// let pool = hypersteal::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .exit_handler(move |_| {
    ///         count.fetch_add(1, Ordering::SeqCst);
    ///     })
    ///     .build()
    ///     .unwrap();
    /// pool.shutdown();
    /// assert_eq!(exited.load(Ordering::SeqCst), 2);
    /// ```
    pub fn exit_handler<H>(mut self, handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.settings.exit_handler = Some(Box::new(handler));
        self
    }

    /// Relative speeds of the workers, one positive finite number per worker (default: all equal).
    /// `most-loaded:load=time` divides estimated queue times by them.
    pub fn worker_speeds(mut self, speeds: Vec<f64>) -> Self {
        self.settings.speeds = Some(speeds);
        self
    }

    /// The heartbeat of the sender-initiated policies (`acwn`, `gradient`, `random-alloc`):
    /// a worker decides at most about one undecided task per heartbeat (up to 16 in a row after
    /// a quiet stretch), oldest first, so coarse tasks are each decided while fine-grained ones
    /// stay home, and takes a standing-phase step for every heartbeat that passed
    /// (default 20 µs; from 1 µs to 1 s). Receiver-initiated policies do not use it: their idle
    /// workers ask.
    pub fn heartbeat(mut self, period: std::time::Duration) -> Self {
        self.settings.heartbeat = Some(period);
        self
    }

    /// How long an idle worker keeps looking for work, yielding between rounds, before it goes
    /// to sleep (from 0 to [`MAX_IDLE_LINGER`](crate::MAX_IDLE_LINGER)). Longer trades CPU for latency: work that comes
    /// while a worker lingers starts at once, where a sleeper must first be woken (tens of
    /// microseconds). The pool still comes to rest: a worker lingers at most this long (again
    /// after each wake-up), then sleeps until woken. Without this setting a worker looks two rounds under a
    /// receiver-initiated policy and then watches only for work from outside the pool for
    /// 50 µs, and one heartbeat (at most 100 µs) under a sender-initiated one. `cargo run --release --example wakeup -- --linger-us N` measures both sides.
    ///
    /// ```
    /// use std::time::Duration;
    /// let pool = hypersteal::ThreadPoolBuilder::new()
    ///     .idle_linger(Duration::from_micros(500))
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(pool.install(|| 6 * 7), 42);
    /// assert!(hypersteal::ThreadPoolBuilder::new()
    ///     .idle_linger(Duration::from_secs(1))
    ///     .build()
    ///     .is_err());
    /// ```
    pub fn idle_linger(mut self, linger: std::time::Duration) -> Self {
        self.settings.idle_linger = Some(linger);
        self
    }

    /// Starts the workers with `spawn` instead of `std::thread::Builder`: for each worker,
    /// `spawn` gets a [`ThreadBuilder`] and must start a thread that calls
    /// [`ThreadBuilder::run`] (or call it from a thread it already has). The handler's thread
    /// settings are its own; [`ThreadBuilder::name`] and [`ThreadBuilder::stack_size`] say what
    /// the builder was given. An error (or a panic) from `spawn` fails the build with
    /// [`BuildError::ThreadSpawn`], after the workers already started have exited.
    ///
    /// [`ThreadPool::shutdown`] waits until every worker has left its loop (it has no thread
    /// handles to join); dropping the pool does not wait, as usual.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// use std::sync::Arc;
    /// let started = Arc::new(AtomicUsize::new(0));
    /// let count = Arc::clone(&started);
    /// let pool = hypersteal::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .spawn_handler(move |thread| {
    ///         count.fetch_add(1, Ordering::SeqCst);
    ///         std::thread::Builder::new()
    ///             .name(format!("my-worker-{}", thread.index()))
    ///             .spawn(|| thread.run())?;
    ///         Ok(())
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let name = pool.install(|| std::thread::current().name().map(str::to_owned));
    /// assert!(name.unwrap().starts_with("my-worker-"));
    /// pool.shutdown();
    /// assert_eq!(started.load(Ordering::SeqCst), 2);
    /// ```
    pub fn spawn_handler<F>(self, spawn: F) -> ThreadPoolBuilder<CustomSpawn<F>>
    where
        F: FnMut(ThreadBuilder) -> std::io::Result<()>,
    {
        self.with_spawn(CustomSpawn::new(spawn))
    }

    /// The same settings with another way of starting threads.
    fn with_spawn<T>(self, spawn: T) -> ThreadPoolBuilder<T> {
        ThreadPoolBuilder {
            settings: self.settings,
            spawn,
        }
    }

    /// Runs every `spawn` of the pool (the free function, [`ThreadPool::spawn`] and
    /// [`crate::Scope::spawn`]) as its FIFO variant ([`crate::spawn_fifo`],
    /// [`crate::ScopeFifo::spawn_fifo`]): the tasks one worker spawns start in the order it
    /// spawned them whenever that worker runs them itself, a breadth-first walk of a tree of
    /// spawns where the default is depth-first. `join` is not affected (its `b` still comes
    /// back newest first: rayon's hint reorders joins too). Deprecated as in rayon: call the
    /// FIFO functions where the order matters.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use std::sync::Mutex;
    /// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(1).breadth_first().build().unwrap();
    /// let order = Mutex::new(Vec::new());
    /// pool.scope(|s| {
    ///     for i in 0..5 {
    ///         let order = &order;
    ///         s.spawn(move |_| order.lock().unwrap().push(i));
    ///     }
    /// });
    /// assert_eq!(order.into_inner().unwrap(), [0, 1, 2, 3, 4]);
    /// ```
    #[deprecated(
        note = "a pool-wide order hint; where the order matters, call `spawn_fifo` or \
                         `scope_fifo` instead"
    )]
    pub fn breadth_first(mut self) -> Self {
        self.settings.breadth_first = true;
        self
    }

    /// Makes the calling thread worker 0 of the pool (so [`crate::current_thread_index`]
    /// answers `Some(0)` on it), and starts threads only for workers 1 and up. The thread does
    /// not run a scheduling loop: it works for the pool when it calls into it (`install` and
    /// `join` run inline, as on any worker) and while it waits there (a `join`, a scope,
    /// [`crate::yield_now`]); the start and exit handlers do not run for it.
    ///
    /// Rules, checked by `build` (each a [`BuildError::UseCurrentThread`]): the calling thread
    /// is not already a worker of a pool; the pool has at least 2 workers (worker 0 may be
    /// away indefinitely, so the others must be able to run everything); and the policy is
    /// receiver-initiated (a sender-initiated policy places tasks into worker 0's inbox, which
    /// only it drains).
    ///
    /// While away, worker 0 can neither be asked for work nor sent any: requests to it fail at
    /// once, and every task it makes is published to its deque at once, where the others steal
    /// it. The thread stays worker 0 for the rest of its life, even after the pool is dropped;
    /// as in rayon, the pool's shared state is then never freed (a small leak per pool built
    /// this way).
    ///
    /// ```
    /// let pool = hypersteal::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .use_current_thread()
    ///     .build()
    ///     .unwrap();
    /// assert_eq!(hypersteal::current_thread_index(), Some(0));
    /// let (tx, rx) = std::sync::mpsc::channel();
    /// pool.spawn(move || tx.send(hypersteal::current_thread_index()).unwrap());
    /// // The spawn runs on worker 1 while this thread is busy elsewhere.
    /// assert_eq!(rx.recv().unwrap(), Some(1));
    /// ```
    pub fn use_current_thread(mut self) -> Self {
        self.settings.use_current_thread = true;
        self
    }

    /// Seeds the workers' random victim draws, for reproducible schedules (default: fixed).
    pub fn seed(mut self, seed: u64) -> Self {
        self.settings.seed = Some(seed);
        self
    }

    /// Records an event trace (`docs/trace.md`): what each worker did and when (requests,
    /// answers, transfers, placements, idle stretches, sleeps, tasks run away from their
    /// creator), read with [`ThreadPool::trace`] or written with [`ThreadPool::write_trace`].
    /// Off by default; with tracing off the runtime records nothing and pays one predictable
    /// branch at each point that would record.
    ///
    /// Without a builder call, the environment variable `HYPERSTEAL_TRACE=<file>` turns tracing
    /// on and writes the trace to `<file>` when the pool is dropped or shut down. That write is
    /// best effort: a drop cannot report an I/O error, so a failed write is lost silently; call
    /// [`ThreadPool::write_trace`] to see errors. A value that is empty, names a directory, or
    /// lies in a directory that does not exist is a [`BuildError::Env`]. An explicit
    /// `trace(false)` wins over the variable.
    ///
    /// ```
    /// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(2).trace(true).build().unwrap();
    /// pool.install(|| hypersteal::join(|| 1, || 2));
    /// let trace = pool.trace();
    /// assert_eq!(trace.workers.len(), 2);
    /// ```
    pub fn trace(mut self, on: bool) -> Self {
        self.settings.trace = Some(on);
        self
    }

    /// The capacity of each worker's trace ring, in events of 24 bytes, allocated when the pool
    /// is built if tracing is on (default [`DEFAULT_CAPACITY`](crate::trace::DEFAULT_CAPACITY),
    /// 65 536). When a worker's ring is full its later events are dropped and counted
    /// ([`Trace::dropped`](crate::trace::Trace::dropped)). Outside 1 to
    /// [`MAX_CAPACITY`](crate::trace::MAX_CAPACITY): [`BuildError::TraceCapacity`]. All the
    /// rings together may hold at most [`MAX_TOTAL_EVENTS`](crate::trace::MAX_TOTAL_EVENTS)
    /// events (1.5 GiB), and are allocated fallibly: beyond that bound, or when the memory
    /// cannot be had, [`BuildError::TraceMemory`].
    pub fn trace_capacity(mut self, events_per_worker: usize) -> Self {
        self.settings.trace_capacity = Some(events_per_worker);
        self
    }

    /// Checks every setting and resolves the defaults ([`Settings::resolve`]).
    fn resolve(self) -> Result<(Config, S), BuildError> {
        // SAFETY: the thread-local points to this thread's live worker, or is null.
        let caller_worker =
            unsafe { crate::worker::WorkerThread::current().as_ref() }.map(|w| w.index);
        Ok((self.settings.resolve(caller_worker)?, self.spawn))
    }
}

impl ThreadPoolBuilder {
    /// Builds a pool whose threads are scoped threads (`std::thread::scope`) of the calling
    /// thread, runs `with_pool` with it, and returns its result once the pool has stopped and
    /// every worker thread has ended. Each thread calls `wrapper` with its [`ThreadBuilder`];
    /// `wrapper` sets the thread up and calls [`ThreadBuilder::run`]. Because the threads are
    /// scoped, `wrapper` and the work may borrow from the caller's stack.
    ///
    /// If `with_pool` panics, the pool still stops and its threads end before the panic goes
    /// on.
    ///
    /// ```
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let set_up = AtomicUsize::new(0); // borrowed by every worker: no `Arc` needed
    /// let sum = hypersteal::ThreadPoolBuilder::new()
    ///     .num_threads(2)
    ///     .build_scoped(
    ///         |thread| {
    ///             set_up.fetch_add(1, Ordering::SeqCst);
    ///             thread.run()
    ///         },
    ///         |pool| pool.install(|| hypersteal::join(|| 1 + 2, || 3 + 4)),
    ///     )
    ///     .unwrap();
    /// assert_eq!(sum, (3, 7));
    /// assert_eq!(set_up.load(Ordering::SeqCst), 2);
    /// ```
    #[cfg(not(loom))]
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, BuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        std::thread::scope(|scope| {
            let wrapper = &wrapper;
            let pool = self
                .spawn_handler(|thread| {
                    let mut builder = std::thread::Builder::new();
                    if let Some(name) = thread.name() {
                        builder = builder.name(name.to_owned());
                    }
                    if let Some(size) = thread.stack_size() {
                        builder = builder.stack_size(size);
                    }
                    builder.spawn_scoped(scope, move || wrapper(thread))?;
                    Ok(())
                })
                .build()?;
            // Dropping the pool (also when `with_pool` unwinds) stops it; the scope then waits
            // for its threads.
            Ok(with_pool(&pool))
        })
    }
}

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    /// Builds a pool and starts its workers.
    pub fn build(self) -> Result<ThreadPool, BuildError> {
        let (config, mut spawn) = self.resolve()?;
        let (registry, threads) = crate::thread_builder::start(config, &mut spawn)?;
        Ok(ThreadPool::from_parts(registry, threads))
    }

    /// Builds the global pool, which the free functions ([`crate::join`], [`crate::scope`],
    /// [`crate::spawn`]) use outside any pool. Fails if it already exists (it is created on
    /// first use with the default settings).
    pub fn build_global(self) -> Result<(), BuildError> {
        static BUILDING: Mutex<()> = Mutex::new(());
        let _guard = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
        if GLOBAL.get().is_some() {
            return Err(BuildError::GlobalPoolAlreadyInitialized);
        }
        let (config, mut spawn) = self.resolve()?;
        let (registry, threads) = crate::thread_builder::start(config, &mut spawn)?;
        // The global pool lives as long as the process: its threads are detached.
        drop(threads);
        GLOBAL
            .set(registry)
            .map_err(|_| BuildError::GlobalPoolAlreadyInitialized)
    }
}

static GLOBAL: OnceLock<Arc<Registry>> = OnceLock::new();

/// The global pool's registry, created with the default settings on first use.
///
/// # Panics
///
/// If the default settings cannot be built (a bad `HYPERSTEAL_*` environment value): there is
/// no caller to return the error to, and silently ignoring the variable would be worse.
pub(crate) fn global_registry() -> &'static Arc<Registry> {
    // A process-wide pool would outlive the loom model that created it (docs/loom.md).
    if cfg!(loom) {
        panic!("hypersteal: no global pool under loom; build a ThreadPool inside the model");
    }
    if let Some(r) = GLOBAL.get() {
        return r;
    }
    match ThreadPoolBuilder::new().build_global() {
        Ok(()) | Err(BuildError::GlobalPoolAlreadyInitialized) => {}
        Err(e) => panic!("hypersteal: cannot build the global thread pool: {e}"),
    }
    GLOBAL.get().expect("global pool initialized")
}

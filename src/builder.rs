//! [`ThreadPoolBuilder`], [`BuildError`], the environment variables, and the global pool.

use crate::hardware::Placement;
use crate::policy::{ParsePolicyError, Policy, PolicyError};
use crate::pool::ThreadPool;
use crate::registry::Registry;
use crate::thread_builder::{CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn};
use crate::topology::{ParseTopologyError, Topology, TopologyError, MAX_WORKERS};
use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

pub(crate) type PanicHandler = Box<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;
/// A start or exit handler: called on a worker thread with the worker's index.
pub(crate) type ThreadHandler = Box<dyn Fn(usize) + Send + Sync>;
type ThreadName = Box<dyn FnMut(usize) -> String>;

/// Environment variable: default worker count (`0` = one per available core).
pub const ENV_NUM_THREADS: &str = "HYPERSTEAL_NUM_THREADS";
/// Environment variable: default policy, e.g. `rp` or `grr-m:window=16`.
pub const ENV_POLICY: &str = "HYPERSTEAL_POLICY";
/// Environment variable: default topology, e.g. `hypercube`.
pub const ENV_TOPOLOGY: &str = "HYPERSTEAL_TOPOLOGY";
/// Environment variable: whether to pin workers to cores (`1`/`0`, `true`/`false`, `yes`/`no`,
/// `on`/`off`).
pub const ENV_PIN: &str = "HYPERSTEAL_PIN";
/// Environment variable: how workers are laid onto CPUs, `hardware` (the default) or `os`
/// ([`Placement`]).
pub const ENV_PLACEMENT: &str = "HYPERSTEAL_PLACEMENT";
/// Environment variable: where pinned pools of different processes claim their CPUs, so that
/// they do not pin workers onto the same ones: a directory (created if missing), or `off` to
/// claim nothing. Unset: a directory under the system's temporary directory. Read only by pools
/// that pin (`docs/design.md`, "Pinning").
pub const ENV_PIN_CLAIMS: &str = "HYPERSTEAL_PIN_CLAIMS";
/// Environment variable: record an event trace and write it, as Chrome Trace Event JSON, to this
/// file when the pool is dropped or shut down (best effort; see [`ThreadPoolBuilder::trace`]).
pub const ENV_TRACE: &str = "HYPERSTEAL_TRACE";

/// Why a pool could not be built.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum BuildError {
    /// More workers than [`MAX_WORKERS`] were asked for.
    TooManyThreads {
        /// The number asked for.
        requested: usize,
        /// The largest number allowed.
        max: usize,
    },
    /// The topology cannot host the worker count.
    Topology(TopologyError),
    /// An environment variable holds a value that does not parse.
    Env {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
        /// What is wrong and what is allowed.
        reason: String,
    },
    /// The worker speeds given to [`ThreadPoolBuilder::worker_speeds`] are unusable.
    WorkerSpeeds(String),
    /// The policy has a parameter out of range (see [`Policy::validate`]).
    Policy(PolicyError),
    /// The [`ThreadPoolBuilder::thread_name`] closure panicked or gave an unusable name.
    ThreadName {
        /// The worker whose name failed.
        index: usize,
        /// What went wrong.
        reason: String,
    },
    /// The [`ThreadPoolBuilder::heartbeat`] is outside 1 µs to 1 s.
    Heartbeat(std::time::Duration),
    /// The [`ThreadPoolBuilder::idle_linger`] is longer than [`MAX_IDLE_LINGER`].
    IdleLinger(std::time::Duration),
    /// [`ThreadPoolBuilder::build_global`] was called after the global pool already existed.
    GlobalPoolAlreadyInitialized,
    /// The operating system refused to start a worker thread (no thread of the pool is left
    /// running).
    ThreadSpawn {
        /// The worker that could not start.
        index: usize,
        /// The stack size asked for with [`ThreadPoolBuilder::stack_size`], if any.
        stack_size: Option<usize>,
        /// The operating system's error.
        error: String,
    },
    /// [`ThreadPoolBuilder::use_current_thread`] cannot be honoured.
    UseCurrentThread(String),
    /// The [`ThreadPoolBuilder::trace_capacity`] is outside 1 to
    /// [`MAX_CAPACITY`](crate::trace::MAX_CAPACITY) events per worker.
    TraceCapacity(usize),
    /// The trace's rings (`capacity` events for each of `workers` workers) would hold more
    /// than [`MAX_TOTAL_EVENTS`](crate::trace::MAX_TOTAL_EVENTS) events, or their memory
    /// could not be had.
    TraceMemory {
        /// Events per worker.
        capacity: usize,
        /// Workers of the pool.
        workers: usize,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::TooManyThreads { requested, max } => write!(
                f,
                "num_threads = {requested} is too large; allowed: 0 (one per core) to {max}"
            ),
            BuildError::Topology(e) => e.fmt(f),
            BuildError::Env { var, value, reason } => {
                write!(
                    f,
                    "environment variable {var}={value:?} is invalid: {reason}"
                )
            }
            BuildError::WorkerSpeeds(msg) => write!(f, "invalid worker speeds: {msg}"),
            BuildError::Policy(e) => e.fmt(f),
            BuildError::ThreadName { index, reason } => {
                write!(f, "thread_name for worker {index}: {reason}")
            }
            BuildError::Heartbeat(d) => {
                write!(f, "heartbeat {d:?} is out of range: expected 1µs to 1s")
            }
            BuildError::IdleLinger(d) => {
                write!(
                    f,
                    "idle_linger {d:?} is out of range: expected 0 to {MAX_IDLE_LINGER:?}"
                )
            }
            BuildError::GlobalPoolAlreadyInitialized => {
                f.write_str("The global thread pool has already been initialized.")
            }
            BuildError::ThreadSpawn {
                index,
                stack_size: Some(size),
                error,
            } => write!(
                f,
                "could not start worker thread {index} with stack_size = {size} bytes: {error}"
            ),
            BuildError::ThreadSpawn {
                index,
                stack_size: None,
                error,
            } => write!(f, "could not start worker thread {index}: {error}"),
            BuildError::UseCurrentThread(reason) => write!(f, "use_current_thread: {reason}"),
            BuildError::TraceCapacity(n) => write!(
                f,
                "trace_capacity = {n} is out of range; allowed: 1 to {} events per worker",
                crate::trace::MAX_CAPACITY
            ),
            BuildError::TraceMemory { capacity, workers } => write!(
                f,
                "trace_capacity = {capacity} for {workers} workers needs {} MiB for the trace,                  which this process could not have; allowed: at most {} events for all workers                  together, within the memory available",
                (*capacity as u128 * *workers as u128 * 24) >> 20,
                crate::trace::MAX_TOTAL_EVENTS
            ),
        }
    }
}

impl std::error::Error for BuildError {}

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
    /// Every setting but who starts the threads; checked only by `resolve`.
    settings: Settings,
    /// Who starts the threads (`thread_builder.rs`).
    spawn: S,
}

/// A builder's settings as given, unchecked.
#[derive(Default)]
struct Settings {
    num_threads: Option<usize>,
    topology: Option<Topology>,
    policy: Option<Policy>,
    pin: Option<bool>,
    placement: Option<Placement>,
    thread_name: Option<ThreadName>,
    stack_size: Option<usize>,
    panic_handler: Option<PanicHandler>,
    start_handler: Option<ThreadHandler>,
    exit_handler: Option<ThreadHandler>,
    speeds: Option<Vec<f64>>,
    seed: Option<u64>,
    heartbeat: Option<std::time::Duration>,
    idle_linger: Option<std::time::Duration>,
    breadth_first: bool,
    use_current_thread: bool,
    trace: Option<bool>,
    trace_capacity: Option<usize>,
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

/// The resolved configuration a registry is built from.
pub(crate) struct Config {
    pub(crate) num_threads: usize,
    pub(crate) topology: Topology,
    pub(crate) policy: Policy,
    pub(crate) pin: bool,
    pub(crate) placement: Placement,
    /// Where CPUs are claimed against other processes (`None`: not at all).
    pub(crate) pin_claims: Option<std::path::PathBuf>,
    /// One name per worker, checked.
    pub(crate) thread_names: Vec<String>,
    pub(crate) stack_size: Option<usize>,
    pub(crate) panic_handler: Option<PanicHandler>,
    pub(crate) start_handler: Option<ThreadHandler>,
    pub(crate) exit_handler: Option<ThreadHandler>,
    pub(crate) speeds: Option<Vec<f64>>,
    pub(crate) seed: u64,
    pub(crate) heartbeat: std::time::Duration,
    /// How long an idle worker keeps looking before it sleeps (`None`: the built-in rule).
    pub(crate) idle_linger: Option<std::time::Duration>,
    pub(crate) breadth_first: bool,
    /// Worker 0 is the thread that builds the pool (checked possible).
    pub(crate) use_current_thread: bool,
    /// Record an event trace: ring capacity per worker, and the file `HYPERSTEAL_TRACE` named.
    pub(crate) trace: Option<(usize, Option<std::path::PathBuf>)>,
}

/// The longest [`ThreadPoolBuilder::idle_linger`]: an idle worker looks for work this long at
/// most before it sleeps.
pub const MAX_IDLE_LINGER: std::time::Duration = std::time::Duration::from_millis(100);

/// The sender-initiated policies' default heartbeat.
const DEFAULT_HEARTBEAT: std::time::Duration = std::time::Duration::from_micros(20);
const MIN_HEARTBEAT: std::time::Duration = std::time::Duration::from_micros(1);
const MAX_HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(1);

fn env_value<T>(
    var: &'static str,
    parse: impl FnOnce(&str) -> Result<T, String>,
) -> Result<Option<T>, BuildError> {
    match std::env::var(var) {
        Ok(value) => {
            parse(&value)
                .map(Some)
                .map_err(|reason| BuildError::Env { var, value, reason })
        }
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => Err(BuildError::Env {
            var,
            value: v.to_string_lossy().into_owned(),
            reason: "not valid UTF-8".into(),
        }),
    }
}

/// `HYPERSTEAL_PIN_CLAIMS`, read as a path (which need not be UTF-8): the directory where
/// pinned pools claim their CPUs, `None` for `off`, the default directory when unset. A
/// directory given is created if missing and must be one; the default one is best effort (if it
/// cannot be made, pools coordinate only within the process, as `crate::pinning` says).
fn env_pin_claims() -> Result<Option<std::path::PathBuf>, BuildError> {
    let Some(value) = std::env::var_os(ENV_PIN_CLAIMS) else {
        let dir = crate::pinning::default_claims_dir();
        return Ok(crate::pinning::prepare_claims_dir(&dir)
            .is_ok()
            .then_some(dir));
    };
    let shown = crate::policy::shown(&value.to_string_lossy());
    let error = |reason: String| BuildError::Env {
        var: ENV_PIN_CLAIMS,
        value: shown.clone(),
        reason,
    };
    if value == "off" {
        return Ok(None);
    }
    if value.to_string_lossy().trim().is_empty() {
        return Err(error(
            "expected a directory to claim CPUs in, or `off`".into(),
        ));
    }
    let dir = std::path::PathBuf::from(value);
    crate::pinning::prepare_claims_dir(&dir)
        .map_err(|e| error(format!("cannot use it as the directory of CPU claims: {e}")))?;
    Ok(Some(dir))
}

/// `HYPERSTEAL_TRACE`, read as a path (which need not be UTF-8).
fn env_trace_path() -> Result<Option<std::path::PathBuf>, BuildError> {
    let Some(value) = std::env::var_os(ENV_TRACE) else {
        return Ok(None);
    };
    parse_trace_path(std::path::Path::new(&value))
        .map(Some)
        .map_err(|reason| BuildError::Env {
            var: ENV_TRACE,
            value: crate::policy::shown(&value.to_string_lossy()),
            reason,
        })
}

/// `HYPERSTEAL_TRACE`: the path of a file this process can write, in a directory that exists.
/// It is checked at build by opening it for writing and writing a byte (which is then taken
/// back), so that a trace that could never be written (`/dev/full`, a path under `/proc`) is
/// an error now rather than lost when the pool ends.
fn parse_trace_path(path: &std::path::Path) -> Result<std::path::PathBuf, String> {
    use std::io::Write;
    if path.as_os_str().to_string_lossy().trim().is_empty() {
        return Err("expected the path of the file to write the trace to".into());
    }
    if path.is_dir() {
        return Err("is a directory; expected the path of a file to write the trace to".into());
    }
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() && !dir.is_dir() {
            return Err(format!(
                "directory {} does not exist; expected the path of a file in an existing directory",
                dir.display()
            ));
        }
    }
    let cannot = |e: std::io::Error| {
        format!("cannot be written ({e}); expected the path of a file this process can write")
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(cannot)?;
    file.write_all(b"{")
        .and_then(|()| file.flush())
        .map_err(cannot)?;
    if file.metadata().is_ok_and(|m| m.is_file()) {
        file.set_len(0).map_err(cannot)?;
    }
    Ok(path.to_path_buf())
}

fn parse_bool(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err("expected 1/0, true/false, yes/no or on/off".into()),
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
    /// [`MAX_WORKERS`].
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
    /// per CPU in the directory [`ENV_PIN_CLAIMS`] names), so two such processes side by side
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
    /// to sleep (from 0 to [`MAX_IDLE_LINGER`]). Longer trades CPU for latency: work that comes
    /// while a worker lingers starts at once, where a sleeper must first be woken (tens of
    /// microseconds). The pool still comes to rest: a worker lingers at most this long (again
    /// after each wake-up), then sleeps until woken. Without this setting a worker looks two rounds under a
    /// receiver-initiated policy, and one heartbeat (at most 100 µs) under a sender-initiated
    /// one. `cargo run --release --example wakeup -- --linger-us N` measures both sides.
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

    /// Checks every setting (builder calls first, then the environment) and resolves the
    /// defaults: the one place a pool's configuration is validated.
    fn resolve(mut self) -> Result<(Config, S), BuildError> {
        let num_threads = match self.settings.num_threads {
            Some(n) => n,
            None => env_value(ENV_NUM_THREADS, |s| {
                let allowed = || format!("expected 0 (one per core) to {MAX_WORKERS} workers");
                match s.trim().parse::<usize>() {
                    Ok(n) if n <= MAX_WORKERS => Ok(n),
                    _ => Err(allowed()),
                }
            })?
            .unwrap_or(0),
        };
        if num_threads > MAX_WORKERS {
            return Err(BuildError::TooManyThreads {
                requested: num_threads,
                max: MAX_WORKERS,
            });
        }
        let num_threads = if num_threads == 0 {
            num_cpus::get().clamp(1, MAX_WORKERS)
        } else {
            num_threads
        };
        let topology = match self.settings.topology {
            Some(t) => t,
            None => env_value(ENV_TOPOLOGY, |s| {
                s.parse().map_err(|e: ParseTopologyError| e.to_string())
            })?
            .unwrap_or_default(),
        };
        topology
            .try_graph(num_threads)
            .map_err(BuildError::Topology)?;
        let policy = match self.settings.policy {
            Some(p) => p,
            None => env_value(ENV_POLICY, |s| {
                s.parse().map_err(|e: ParsePolicyError| e.to_string())
            })?
            .unwrap_or_default(),
        };
        policy.validate().map_err(BuildError::Policy)?;
        let pin = match self.settings.pin {
            Some(p) => p,
            None => env_value(ENV_PIN, parse_bool)?.unwrap_or_else(crate::pinning::pin_by_default),
        };
        let placement = match self.settings.placement {
            Some(p) => p,
            None => env_value(ENV_PLACEMENT, |s| s.parse())?.unwrap_or_default(),
        };
        let pin_claims = if pin { env_pin_claims()? } else { None };
        if let Some(speeds) = &self.settings.speeds {
            if speeds.len() != num_threads {
                return Err(BuildError::WorkerSpeeds(format!(
                    "{} speeds given for {num_threads} workers; give exactly one per worker",
                    speeds.len()
                )));
            }
            if let Some((i, s)) = speeds
                .iter()
                .enumerate()
                .find(|(_, s)| !(s.is_finite() && **s > 0.0))
            {
                return Err(BuildError::WorkerSpeeds(format!(
                    "speed of worker {i} is {s}; each speed must be a finite number above 0"
                )));
            }
        }
        let heartbeat = self.settings.heartbeat.unwrap_or(DEFAULT_HEARTBEAT);
        if !(MIN_HEARTBEAT..=MAX_HEARTBEAT).contains(&heartbeat) {
            return Err(BuildError::Heartbeat(heartbeat));
        }
        if let Some(linger) = self.settings.idle_linger.filter(|l| *l > MAX_IDLE_LINGER) {
            return Err(BuildError::IdleLinger(linger));
        }
        if self.settings.use_current_thread {
            check_current_thread(num_threads, &policy)?;
        }
        let capacity = self
            .settings
            .trace_capacity
            .unwrap_or(crate::trace::DEFAULT_CAPACITY);
        if !(1..=crate::trace::MAX_CAPACITY).contains(&capacity) {
            return Err(BuildError::TraceCapacity(capacity));
        }
        let trace = match self.settings.trace {
            Some(true) => Some((capacity, None)),
            Some(false) => None,
            None => env_trace_path()?.map(|path| (capacity, Some(path))),
        };
        // The rings are allocated at build: bound them all together, not only each one.
        if trace.is_some() && capacity.saturating_mul(num_threads) > crate::trace::MAX_TOTAL_EVENTS
        {
            return Err(BuildError::TraceMemory {
                capacity,
                workers: num_threads,
            });
        }
        let thread_names = thread_names(num_threads, self.settings.thread_name.take())?;
        let config = Config {
            num_threads,
            topology,
            policy,
            pin,
            placement,
            pin_claims,
            thread_names,
            stack_size: self.settings.stack_size,
            panic_handler: self.settings.panic_handler,
            start_handler: self.settings.start_handler,
            exit_handler: self.settings.exit_handler,
            speeds: self.settings.speeds,
            seed: self.settings.seed.unwrap_or(0x5EED),
            heartbeat,
            idle_linger: self.settings.idle_linger,
            breadth_first: self.settings.breadth_first,
            use_current_thread: self.settings.use_current_thread,
            trace,
        };
        Ok((config, self.spawn))
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
        let (registry, threads) = Registry::new(config, &mut spawn)?;
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
        let (registry, threads) = Registry::new(config, &mut spawn)?;
        // The global pool lives as long as the process: its threads are detached.
        drop(threads);
        GLOBAL
            .set(registry)
            .map_err(|_| BuildError::GlobalPoolAlreadyInitialized)
    }
}

/// Whether the calling thread can become worker 0 of a pool of `n` under `policy`.
fn check_current_thread(n: usize, policy: &Policy) -> Result<(), BuildError> {
    let refuse = |reason: String| Err(BuildError::UseCurrentThread(reason));
    // SAFETY: the thread-local points to this thread's live worker, or is null.
    if let Some(w) = unsafe { crate::registry::WorkerThread::current().as_ref() } {
        return refuse(format!(
            "the calling thread is already worker {} of a pool; a thread can be a worker of one \
             pool only",
            w.index
        ));
    }
    if n < 2 {
        return refuse(format!(
            "num_threads is {n}; the calling thread works for the pool only while it waits, so \
             at least 2 workers are needed for the pool to run work on its own"
        ));
    }
    if policy.is_sender_initiated() {
        return refuse(format!(
            "policy `{policy}` places tasks into each worker's own inbox, which the calling thread \
             would drain only while it waits; use a receiver-initiated policy (rp, nn, arr, grr, \
             grr-m, sb, most-loaded)"
        ));
    }
    Ok(())
}

/// Every worker's name, made before any thread starts so a failure leaves nothing behind.
fn thread_names(n: usize, f: Option<ThreadName>) -> Result<Vec<String>, BuildError> {
    let Some(mut f) = f else {
        return Ok((0..n).map(|i| format!("hypersteal-{i}")).collect());
    };
    (0..n)
        .map(|index| {
            let name = crate::unwind::halt_unwinding(|| f(index)).map_err(|payload| {
                let reason = format!(
                    "the closure panicked: {}",
                    crate::unwind::payload_message(&payload)
                );
                crate::unwind::drop_payload(payload);
                BuildError::ThreadName { index, reason }
            })?;
            if name.contains('\0') {
                return Err(BuildError::ThreadName {
                    index,
                    reason: format!(
                        "the name {name:?} contains a NUL byte, which no thread name may"
                    ),
                });
            }
            Ok(name)
        })
        .collect()
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

//! What a pool is built from: the settings a [`ThreadPoolBuilder`](crate::ThreadPoolBuilder) was
//! given, the `HYPERSTEAL_*` environment variables, and the one place both are checked and
//! resolved into a [`Config`] ([`Settings::resolve`]); [`BuildError`] says what was wrong.

use crate::hardware::Placement;
use crate::policy::{ParsePolicyError, Policy, PolicyError};
use crate::topology::{ParseTopologyError, Topology, TopologyError, MAX_WORKERS};
use std::any::Any;
use std::fmt;

pub(crate) type PanicHandler = Box<dyn Fn(Box<dyn Any + Send>) + Send + Sync>;
/// A start or exit handler: called on a worker thread with the worker's index.
pub(crate) type ThreadHandler = Box<dyn Fn(usize) + Send + Sync>;
pub(crate) type ThreadName = Box<dyn FnMut(usize) -> String>;

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
/// file when the pool is dropped or shut down (best effort; see [`ThreadPoolBuilder::trace`](crate::ThreadPoolBuilder::trace)).
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
    /// The worker speeds given to [`ThreadPoolBuilder::worker_speeds`](crate::ThreadPoolBuilder::worker_speeds) are unusable.
    WorkerSpeeds(String),
    /// The policy has a parameter out of range (see [`Policy::validate`]).
    Policy(PolicyError),
    /// The [`ThreadPoolBuilder::thread_name`](crate::ThreadPoolBuilder::thread_name) closure panicked or gave an unusable name.
    ThreadName {
        /// The worker whose name failed.
        index: usize,
        /// What went wrong.
        reason: String,
    },
    /// The [`ThreadPoolBuilder::heartbeat`](crate::ThreadPoolBuilder::heartbeat) is outside 1 µs to 1 s.
    Heartbeat(std::time::Duration),
    /// The [`ThreadPoolBuilder::idle_linger`](crate::ThreadPoolBuilder::idle_linger) is longer than [`MAX_IDLE_LINGER`].
    IdleLinger(std::time::Duration),
    /// [`ThreadPoolBuilder::build_global`](crate::ThreadPoolBuilder::build_global) was called after the global pool already existed.
    GlobalPoolAlreadyInitialized,
    /// The operating system refused to start a worker thread (no thread of the pool is left
    /// running).
    ThreadSpawn {
        /// The worker that could not start.
        index: usize,
        /// The stack size asked for with [`ThreadPoolBuilder::stack_size`](crate::ThreadPoolBuilder::stack_size), if any.
        stack_size: Option<usize>,
        /// The operating system's error.
        error: String,
    },
    /// [`ThreadPoolBuilder::use_current_thread`](crate::ThreadPoolBuilder::use_current_thread) cannot be honoured.
    UseCurrentThread(String),
    /// The [`ThreadPoolBuilder::trace_capacity`](crate::ThreadPoolBuilder::trace_capacity) is outside 1 to
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
                write!(
                    f,
                    "heartbeat {d:?} is out of range: expected {MIN_HEARTBEAT:?} to {MAX_HEARTBEAT:?}"
                )
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

/// A builder's settings as given, unchecked: [`Settings::resolve`] checks them.
#[derive(Default)]
pub(crate) struct Settings {
    pub(crate) num_threads: Option<usize>,
    pub(crate) topology: Option<Topology>,
    pub(crate) policy: Option<Policy>,
    pub(crate) pin: Option<bool>,
    pub(crate) placement: Option<Placement>,
    pub(crate) thread_name: Option<ThreadName>,
    pub(crate) stack_size: Option<usize>,
    pub(crate) panic_handler: Option<PanicHandler>,
    pub(crate) start_handler: Option<ThreadHandler>,
    pub(crate) exit_handler: Option<ThreadHandler>,
    pub(crate) speeds: Option<Vec<f64>>,
    pub(crate) seed: Option<u64>,
    pub(crate) heartbeat: Option<std::time::Duration>,
    pub(crate) idle_linger: Option<std::time::Duration>,
    pub(crate) breadth_first: bool,
    pub(crate) use_current_thread: bool,
    pub(crate) trace: Option<bool>,
    pub(crate) trace_capacity: Option<usize>,
}

impl Settings {
    /// Checks every setting (builder calls first, then the environment) and resolves the
    /// defaults: the one place a pool's configuration is validated.
    pub(crate) fn resolve(mut self, caller_worker: Option<usize>) -> Result<Config, BuildError> {
        let num_threads = match self.num_threads {
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
        let topology = match self.topology {
            Some(t) => t,
            None => env_value(ENV_TOPOLOGY, |s| {
                s.parse().map_err(|e: ParseTopologyError| e.to_string())
            })?
            .unwrap_or_default(),
        };
        topology
            .try_graph(num_threads)
            .map_err(BuildError::Topology)?;
        let policy = match self.policy {
            Some(p) => p,
            None => env_value(ENV_POLICY, |s| {
                s.parse().map_err(|e: ParsePolicyError| e.to_string())
            })?
            .unwrap_or_default(),
        };
        policy.validate().map_err(BuildError::Policy)?;
        let pin = match self.pin {
            Some(p) => p,
            None => env_value(ENV_PIN, parse_bool)?.unwrap_or_else(crate::pinning::pin_by_default),
        };
        let placement = match self.placement {
            Some(p) => p,
            None => env_value(ENV_PLACEMENT, |s| s.parse())?.unwrap_or_default(),
        };
        let pin_claims = if pin { env_pin_claims()? } else { None };
        if let Some(speeds) = &self.speeds {
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
        let heartbeat = self.heartbeat.unwrap_or(DEFAULT_HEARTBEAT);
        if !(MIN_HEARTBEAT..=MAX_HEARTBEAT).contains(&heartbeat) {
            return Err(BuildError::Heartbeat(heartbeat));
        }
        if let Some(linger) = self.idle_linger.filter(|l| *l > MAX_IDLE_LINGER) {
            return Err(BuildError::IdleLinger(linger));
        }
        if self.use_current_thread {
            check_current_thread(num_threads, &policy, caller_worker)?;
        }
        let capacity = self
            .trace_capacity
            .unwrap_or(crate::trace::DEFAULT_CAPACITY);
        if !(1..=crate::trace::MAX_CAPACITY).contains(&capacity) {
            return Err(BuildError::TraceCapacity(capacity));
        }
        let trace = match self.trace {
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
        let thread_names = thread_names(num_threads, self.thread_name.take())?;
        let config = Config {
            num_threads,
            topology,
            policy,
            pin,
            placement,
            pin_claims,
            thread_names,
            stack_size: self.stack_size,
            panic_handler: self.panic_handler,
            start_handler: self.start_handler,
            exit_handler: self.exit_handler,
            speeds: self.speeds,
            seed: self.seed.unwrap_or(0x5EED),
            heartbeat,
            idle_linger: self.idle_linger,
            breadth_first: self.breadth_first,
            use_current_thread: self.use_current_thread,
            trace,
        };
        Ok(config)
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

/// The longest [`ThreadPoolBuilder::idle_linger`](crate::ThreadPoolBuilder::idle_linger): an idle worker looks for work this long at
/// most before it sleeps.
pub const MAX_IDLE_LINGER: std::time::Duration = std::time::Duration::from_millis(100);

/// The sender-initiated policies' default heartbeat
/// ([`ThreadPoolBuilder::heartbeat`](crate::ThreadPoolBuilder::heartbeat)).
pub const DEFAULT_HEARTBEAT: std::time::Duration = std::time::Duration::from_micros(20);
/// The shortest heartbeat a pool takes.
pub const MIN_HEARTBEAT: std::time::Duration = std::time::Duration::from_micros(1);
/// The longest heartbeat a pool takes.
pub const MAX_HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(1);

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

/// Whether the calling thread (`caller_worker`: the worker it is, if any) can become worker 0
/// of a pool of `n` under `policy`.
fn check_current_thread(
    n: usize,
    policy: &Policy,
    caller_worker: Option<usize>,
) -> Result<(), BuildError> {
    let refuse = |reason: String| Err(BuildError::UseCurrentThread(reason));
    if let Some(index) = caller_worker {
        return refuse(format!(
            "the calling thread is already worker {index} of a pool; a thread can be a worker of \
             one pool only"
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

//! hypersteal's load-balancing policies across MPI ranks.
//!
//! Each MPI rank is one node of a virtual topology ([`hypersteal::TopologyGraph`]) and runs a
//! hypersteal pool on its own cores. Work is a user [`Task`] that can be serialised (serde): a
//! task runs, contributes an output, and may push children. Between ranks, the runtime's own
//! policy state machines ([`hypersteal::policy::machine`]) decide whom an idle rank asks (`rp`,
//! `nn`, `arr`, `grr`, `grr-m`, `sb`, `most-loaded`) and where a busy rank places work (`acwn`,
//! `gradient`, `random-alloc`); requests, answers and transfers are MPI messages. Global
//! termination is detected with Safra's token algorithm, and the outputs are combined over the
//! rank tree. `docs/mpi.md` says how to install and run it, what moves between ranks, and which
//! policy to choose.
//!
//! Everything that talks to MPI (`run`, `initialize`) is behind the crate's `mpi` feature,
//! which needs a system MPI to build; without it the crate holds only its MPI-free parts, so the
//! workspace builds anywhere.

#![deny(missing_docs)]

#[cfg(feature = "mpi")]
mod rank;
mod stats;
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
mod termination;
#[cfg(feature = "mpi")]
mod wire;

use std::fmt;
use std::time::Duration;

use hypersteal::policy::spec::Choice;
use hypersteal::{Policy, Topology, MAX_WORKERS};
use serde::de::DeserializeOwned;
use serde::Serialize;

#[cfg(feature = "mpi")]
pub use mpi;
pub use stats::{MpiStats, RankStats};

/// Work that may cross ranks: a task of a divide-and-conquer or tree search.
///
/// A task runs once, on whichever rank holds it, returns its own contribution to the result and
/// pushes the tasks it spawns into `children`; those wait on the rank's stack and may be given
/// to another rank before they run. The outputs of all tasks are combined with
/// [`Task::combine`] (associative and commutative; `Default` is its identity), first on each
/// rank and then over the rank tree.
pub trait Task: Serialize + DeserializeOwned + Send + 'static {
    /// What a task contributes to the result.
    type Output: Serialize + DeserializeOwned + Send + Default + 'static;
    /// Runs the task, pushing its children.
    fn run(self, children: &mut Vec<Self>) -> Self::Output;
    /// Combines two partial results.
    fn combine(a: Self::Output, b: Self::Output) -> Self::Output;
}

/// How a run is set up; every rank must pass the same value.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The policy between ranks (default: `rp`).
    pub policy: Policy,
    /// The virtual topology whose nodes are the ranks (default: hypercube).
    pub topology: Topology,
    /// Worker threads of each rank's pool (default 1; at most [`MAX_WORKERS`]).
    pub workers: usize,
    /// The policy of each rank's pool, inside the rank (default: `rp`).
    pub pool_policy: Policy,
    /// Tasks a worker runs between two looks at the network (default 256; 1 to 1,000,000). A
    /// rank answers requests, and a sender-initiated policy places work (its heartbeat), between
    /// steps, so this is the rank's reaction time in tasks.
    pub step: usize,
    /// The heartbeat of the sender-initiated policies between ranks, as a pool's
    /// ([`hypersteal::ThreadPoolBuilder::heartbeat`]; default [`hypersteal::DEFAULT_HEARTBEAT`],
    /// from [`hypersteal::MIN_HEARTBEAT`] to [`hypersteal::MAX_HEARTBEAT`]). Between steps and
    /// while passive, a rank decides at most about one undecided task per heartbeat that passed
    /// (up to 16 in a row after a quiet stretch) and takes a standing step for each, so a
    /// policy's `interval` counts the same time across ranks as within a pool.
    pub heartbeat: Duration,
    /// Seeds the policies' random draws (rank `r` uses `seed + r`).
    pub seed: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            policy: Policy::RandomPolling,
            topology: Topology::Hypercube,
            workers: 1,
            pool_policy: Policy::RandomPolling,
            step: 256,
            heartbeat: hypersteal::DEFAULT_HEARTBEAT,
            seed: 1,
        }
    }
}

/// The largest [`Config::step`].
pub const MAX_STEP: usize = 1_000_000;

impl Config {
    /// Checks every setting: the one validation of a configuration (the suite's `mpi` command
    /// and `run` both apply it).
    pub fn validate(&self, ranks: usize) -> Result<(), Error> {
        let bad = |setting: &str, value: String, allowed: &str| {
            Err(Error::Config(format!(
                "`{setting}` = {value} is not allowed; `{setting}` must be {allowed}"
            )))
        };
        if !(1..=MAX_WORKERS).contains(&self.workers) {
            return bad(
                "workers",
                self.workers.to_string(),
                &format!("1 to {MAX_WORKERS}"),
            );
        }
        if !(1..=MAX_STEP).contains(&self.step) {
            return bad("step", self.step.to_string(), "1 to 1000000 (tasks)");
        }
        if !(hypersteal::MIN_HEARTBEAT..=hypersteal::MAX_HEARTBEAT).contains(&self.heartbeat) {
            let allowed = format!(
                "{:?} to {:?}",
                hypersteal::MIN_HEARTBEAT,
                hypersteal::MAX_HEARTBEAT
            );
            return bad("heartbeat", format!("{:?}", self.heartbeat), &allowed);
        }
        self.policy
            .validate()
            .map_err(|e| Error::Config(e.to_string()))?;
        // Between ranks, a combining tree combines the draws that meet at a rank between two of
        // its looks at the network (docs/mpi.md): there is no spin window to set, so a window
        // other than the default is refused rather than ignored.
        let spec = self.policy.spec();
        if spec.choice == Choice::CombiningTree && self.policy != spec.default {
            return bad(
                "policy",
                self.policy.to_string(),
                &format!(
                    "{} without `window` across ranks (draws combine between a rank's looks at \
                     the network, not within a spin window)",
                    spec.name
                ),
            );
        }
        self.pool_policy
            .validate()
            .map_err(|e| Error::Config(e.to_string()))?;
        self.topology
            .try_graph(ranks)
            .map_err(|e| Error::Config(format!("ranks: {e}")))?;
        Ok(())
    }
}

/// What a run produced on this rank.
#[derive(Debug)]
pub struct Outcome<O> {
    /// The output combined over every rank: `Some` on rank 0, `None` elsewhere.
    pub output: Option<O>,
    /// Every rank's stats (on rank 0; elsewhere only this rank's, in `ranks[0]`).
    pub stats: MpiStats,
}

/// Why a run could not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// A setting out of range; the message names the setting, the value and what is allowed.
    Config(String),
    /// Each rank's pool could not be built.
    Pool(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(m) => write!(f, "bad MPI configuration: {m}"),
            Error::Pool(m) => write!(f, "could not build a rank's pool: {m}"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(feature = "mpi")]
/// Initialises MPI (once per process); the returned universe finalises it when dropped.
///
/// # Panics
///
/// If MPI was already initialised.
pub fn initialize() -> mpi::environment::Universe {
    mpi::initialize().expect("MPI is initialised once per process")
}

/// Runs the tasks `roots` (usually given on rank 0 only; the other ranks pass an empty vector)
/// and everything they spawn, over every rank of `world`, which all call this with the same
/// `config`. Returns when global termination is detected and the outputs are combined.
///
/// A panic in a task (or anywhere in this run) on any rank ends the whole job with
/// `MPI_Abort` after the panic message is printed by the panic hook, so that no rank waits
/// forever for a rank that is gone.
///
/// ```no_run
/// use hypersteal_mpi::{run, Config, Task};
/// use serde::{Deserialize, Serialize};
///
/// /// Counts the nodes of a complete binary tree of the given height.
/// #[derive(Serialize, Deserialize)]
/// struct Subtree(u32);
///
/// impl Task for Subtree {
///     type Output = u64;
///     fn run(self, children: &mut Vec<Self>) -> u64 {
///         if self.0 > 0 {
///             children.push(Subtree(self.0 - 1));
///             children.push(Subtree(self.0 - 1));
///         }
///         1
///     }
///     fn combine(a: u64, b: u64) -> u64 {
///         a + b
///     }
/// }
///
/// let universe = hypersteal_mpi::initialize();
/// let world = universe.world();
/// let outcome = run(&world, &Config::default(), vec![Subtree(20)]).unwrap();
/// if let Some(total) = outcome.output {
///     assert_eq!(total, (1 << 21) - 1); // rank 0 holds the combined output
/// }
/// ```
#[cfg(feature = "mpi")]
pub fn run<T: Task>(
    world: &mpi::topology::SimpleCommunicator,
    config: &Config,
    roots: Vec<T>,
) -> Result<Outcome<T::Output>, Error> {
    rank::run(world, config, roots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grr_m_takes_no_window_across_ranks() {
        let with = |policy: &str| Config {
            policy: policy.parse().expect("a policy"),
            ..Config::default()
        };
        assert_eq!(with("grr-m").validate(4), Ok(()));
        let err = with("grr-m:window=32").validate(4).unwrap_err();
        let Error::Config(text) = err else {
            panic!("not a settings error: {err:?}")
        };
        assert!(
            text.contains("grr-m:window=32") && text.contains("without `window`"),
            "{text}"
        );
        // Inside a rank the pool's own grr-m keeps its window.
        let inside = Config {
            pool_policy: "grr-m:window=32".parse().expect("a policy"),
            ..Config::default()
        };
        assert_eq!(inside.validate(4), Ok(()));
    }

    #[test]
    fn a_heartbeat_outside_the_pools_range_is_refused_with_its_name() {
        let with = |heartbeat| Config {
            heartbeat,
            ..Config::default()
        };
        for ok in [
            hypersteal::MIN_HEARTBEAT,
            hypersteal::DEFAULT_HEARTBEAT,
            hypersteal::MAX_HEARTBEAT,
        ] {
            assert_eq!(with(ok).validate(2), Ok(()));
        }
        for bad in [
            Duration::ZERO,
            Duration::from_nanos(999),
            Duration::from_secs(2),
        ] {
            let Err(Error::Config(text)) = with(bad).validate(2) else {
                panic!("{bad:?} was taken");
            };
            assert!(
                text.contains("`heartbeat`")
                    && text.contains(&format!("{bad:?}"))
                    && text.contains("1µs to 1s"),
                "{text}"
            );
        }
    }
}

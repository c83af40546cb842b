//! Scheduling policies: how work moves between workers.
//!
//! A [`Policy`] is a name plus parameters, parsed from `name:key=value,...`. Each policy lives in
//! a file of its own, which holds its decisions, one per-worker state machine
//! (`machine::Machine`), and its `const SPEC` (`spec::Spec`): its name, its parameters with
//! their ranges and defaults, whether it is receiver-initiated (an idle worker asks a victim:
//! `rp.rs`, `nn.rs`, `arr.rs`, `grr.rs` for `grr` and `grr-m`, `sb.rs`, `most_loaded.rs`) or
//! sender-initiated (a busy worker places tasks: `acwn.rs`, `gradient.rs`, `random_alloc.rs`),
//! whether it has managers (seed 002 section 6: `sl.rs`, `ml.rs`), where an idle worker may look,
//! whose loads it reads and what pool-wide state it needs (`machine::Shared`: GRR's counter,
//! GRR-M's combining tree in `combining.rs`, SB's donor queue, the gradient model's
//! proximities). `SPECS` below lists the specs and is the one list of policies: parsing,
//! `Display`, [`Policy::validate`], [`Policy::all`] and [`Policy::NAMES`] are read off it. A new
//! policy without shared state is one file, its variant of [`Policy`] and one line in `SPECS`.
//!
//! Policies read the topology and the published loads and never call back into the pool, so the
//! same decisions are driven by the runtime's worker threads, by the simulator (the
//! `hypersteal-sim` crate) and by MPI ranks (`hypersteal-mpi`) alike.
//!
//! **What is public.** [`Policy`], [`LoadScope`], [`LoadMeasure`], [`Reach`], [`XorShift`] and the
//! error types are the runtime's API. `machine`, `spec` and `Policy::spec` are the
//! interpreters' interface, for the simulator and MPI crates of this workspace: they are hidden
//! from the documentation and may change in any release.

mod acwn;
mod arr;
pub(crate) mod combining;
mod gradient;
mod grr;
#[doc(hidden)]
pub mod machine;
mod marks;
pub(crate) mod ml;
mod most_loaded;
mod nn;
mod random_alloc;
mod rng;
mod rp;
mod sb;
mod sl;
#[doc(hidden)]
pub mod spec;

pub use rng::XorShift;
use spec::{Initiative, Spec};

use std::fmt;
use std::str::FromStr;

/// Whose published load `most-loaded` compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadScope {
    /// Only the worker's topology neighbours (seed 001).
    Neighbors,
    /// Every other worker (seed 004).
    All,
}

/// How `most-loaded` measures a worker's load.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadMeasure {
    /// Tasks waiting in the worker's deque and inbox.
    Count,
    /// Estimated time to finish: waiting tasks × measured time per task ÷ the worker's speed.
    Time,
}

/// A scheduling policy with its parameters.
///
/// Parses from `name` or `name:key=value,...` and displays the same way (parameters at their
/// defaults are left out):
///
/// | name | policy | parameters (default) |
/// |---|---|---|
/// | `rp` | random polling | — |
/// | `nn` | nearest neighbour | — |
/// | `arr` | asynchronous round robin | — |
/// | `grr` | global round robin | — |
/// | `grr-m` | global round robin with a combining tree | `window` (64, at most 1024): spin iterations a request waits, in all, for partners |
/// | `sb` | scheduler based (donor queue) | — |
/// | `most-loaded` | ask the most loaded worker | `scope` (`neighbors` or `all`; `neighbors`), `min` (1, at least 1), `load` (`count` or `time`; `count`) |
/// | `acwn` | adaptive contracting within neighbourhood (sender-initiated) | `low` (2), `high` (8), `interval` (16 heartbeats) |
/// | `gradient` | the gradient model (sender-initiated) | `low` (1), `high` (2), `interval` (1 heartbeat) |
/// | `random-alloc` | randomized allocation (sender-initiated) | — |
/// | `sl` | single-level load balancing: worker 0 manages every worker | — |
/// | `ml` | multi-level load balancing: a tree of managers | `levels` (2), `group` (0: the smallest fan-out `m` with `m^levels >= P`) |
///
/// Every numeric parameter has a range ([`Policy::validate`]): `window` 0 to 1024; `min`,
/// `high` and `interval` 1 to 1,000,000; `low` 0 to 1,000,000 and at most `high`; `levels` 1
/// to 8; `group` 0 (derived from `levels`) or 2 to 1,000,000.
///
/// `sl` and `ml` are the paper's manager schemes: a worker asks its manager for work, a manager
/// short of work asks its own manager and then the workers it manages, and under `ml` a worker
/// whose manager has nothing asks the other managers. With `group` given, the tree has that
/// fan-out and as many levels as `P` needs (`levels` is then not used).
///
/// Sender-initiated policies in their pure form never steal: an idle worker waits until work is
/// placed in its inbox. `interval` counts heartbeats (`ThreadPoolBuilder::heartbeat`) between two
/// standing-phase steps.
///
/// ```
/// use hypersteal::{LoadScope, Policy};
/// let p: Policy = "most-loaded:scope=all".parse().unwrap();
/// assert!(matches!(p, Policy::MostLoaded { scope: LoadScope::All, .. }));
/// assert_eq!(p.to_string(), "most-loaded:scope=all");
/// let err = "fifo".parse::<Policy>().unwrap_err().to_string();
/// assert!(err.contains("rp, nn, arr, grr, grr-m, sb, most-loaded"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Policy {
    /// `rp`: a uniformly random other worker, a fresh draw per request.
    RandomPolling,
    /// `nn`: round robin over the topology neighbours only.
    NearestNeighbor,
    /// `arr`: a per-worker round-robin cursor over all other workers.
    AsyncRoundRobin,
    /// `grr`: one pool-wide round-robin counter.
    GlobalRoundRobin,
    /// `grr-m`: the `grr` sequence, with increments combined in a tree embedded in the topology.
    GrrCombining {
        /// Spin iterations a request waits, over all the tree levels it climbs, for partners to
        /// combine with (none while it is alone in the tree).
        window: u32,
    },
    /// `sb`: a pool-wide FIFO of donors, asked in round robin.
    SchedulerBased,
    /// `most-loaded`: the worker with the largest published load in a scope.
    MostLoaded {
        /// Whose loads are compared.
        scope: LoadScope,
        /// Victims whose load is below this are ignored (at least 1).
        min_load: usize,
        /// Task count or estimated finish time.
        load: LoadMeasure,
    },
    /// `acwn`: new tasks travel along the steepest load gradient, at most the diameter in hops.
    Acwn {
        /// Below this least neighbour load the neighbourhood is light.
        low: usize,
        /// At or above this least neighbour load the neighbourhood is heavy.
        high: usize,
        /// Heartbeats between two redistribution (standing-phase) steps.
        interval: u32,
    },
    /// `gradient`: abundant workers send waiting tasks towards the nearest idle worker.
    Gradient {
        /// A worker with fewer waiting tasks is idle.
        low: usize,
        /// A worker with more waiting tasks is abundant.
        high: usize,
        /// Heartbeats between two proximity updates (and standing-phase steps).
        interval: u32,
    },
    /// `random-alloc`: every new task goes to a uniformly random worker.
    RandomAlloc,
    /// `sl`: worker 0 manages every worker (seed 002 section 6.1).
    SingleLevel,
    /// `ml`: a tree of managers, each handing out work to its group (seed 002 section 6.2).
    MultiLevel {
        /// Levels of the tree (1 is `sl`'s shape).
        levels: u32,
        /// Fan-out of the tree; 0 derives it from `levels` (the smallest `m` with
        /// `m^levels >= P`).
        group: usize,
    },
}

impl Default for Policy {
    /// Random polling, the policy with the best-known bounds (and rayon's choice).
    fn default() -> Self {
        Policy::RandomPolling
    }
}

/// Every policy's spec (receiver-initiated, sender-initiated, then the manager schemes): the one
/// list of policies, from
/// which parsing, `Display`, validation, [`Policy::all`] and [`Policy::NAMES`] are read.
const SPECS: &[&Spec] = &[
    &rp::SPEC,
    &nn::SPEC,
    &arr::SPEC,
    &grr::SPEC,
    &grr::SPEC_M,
    &sb::SPEC,
    &most_loaded::SPEC,
    &acwn::SPEC,
    &gradient::SPEC,
    &random_alloc::SPEC,
    &sl::SPEC,
    &ml::SPEC,
];

/// Where an idle worker under a policy may look for work in other workers' deques
/// ([`Policy::reach`]): what a worker about to sleep checks for visible work, in the runtime
/// and in the simulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Any other worker's deque.
    All,
    /// Only the topology neighbours' deques.
    Neighbors,
    /// No other deque: work only arrives in the inbox (sender-initiated policies).
    Nothing,
}

impl Policy {
    /// Every policy name, in the order of [`Policy::all`].
    pub const NAMES: [&'static str; SPECS.len()] = {
        let mut names = [""; SPECS.len()];
        let mut i = 0;
        while i < SPECS.len() {
            names[i] = SPECS[i].name;
            i += 1;
        }
        names
    };

    /// The policy's spec: its name, parameters and what its interpreters need to know
    /// (`spec.rs`). Part of the interpreters' interface, like [`machine`].
    #[doc(hidden)]
    pub fn spec(&self) -> &'static Spec {
        SPECS
            .iter()
            .find(|spec| spec.describes(self))
            .expect("every variant of Policy has a spec in SPECS")
    }

    /// Whether busy workers place new tasks (`acwn`, `gradient`, `random-alloc`) rather than
    /// idle workers asking for them.
    pub fn is_sender_initiated(&self) -> bool {
        self.spec().initiative == Initiative::Sender
    }

    /// Whether the workers are arranged under managers (`sl`: one; `ml`: a hierarchy), which
    /// the policy's machines report (`Machine::rank`, `Machine::manager`).
    pub fn has_managers(&self) -> bool {
        self.spec().managers
    }

    /// Every policy with its default parameters.
    pub fn all() -> Vec<Policy> {
        SPECS.iter().map(|spec| spec.default).collect()
    }

    /// The policy's name, without parameters.
    pub fn name(&self) -> &'static str {
        self.spec().name
    }

    /// Where an idle worker may look for work: every other worker, only its topology
    /// neighbours (`nn`, `most-loaded:scope=neighbors`), or nowhere (the sender-initiated
    /// policies, whose workers wait for placed work).
    ///
    /// ```
    /// use hypersteal::policy::Reach;
    /// use hypersteal::Policy;
    /// assert_eq!(Policy::RandomPolling.reach(), Reach::All);
    /// assert_eq!(Policy::NearestNeighbor.reach(), Reach::Neighbors);
    /// assert_eq!(Policy::RandomAlloc.reach(), Reach::Nothing);
    /// ```
    pub fn reach(&self) -> Reach {
        (self.spec().reach)(self)
    }

    /// Whether the policy reads other workers' loads (workers then publish theirs).
    pub(crate) fn reads_loads(&self) -> bool {
        self.spec().loads_read(self) != Reach::Nothing
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let spec = self.spec();
        f.write_str(spec.name)?;
        for (i, (k, v)) in spec::show(spec, self).iter().enumerate() {
            f.write_str(if i == 0 { ":" } else { "," })?;
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}

/// A policy string that does not parse, or a policy value with a parameter out of range; the
/// message names the policy, the parameter, the value and what is allowed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsePolicyError {
    message: String,
}

/// The error of [`Policy::validate`]: the same type as a parse error, since a parsed policy is
/// validated by the same check.
pub type PolicyError = ParsePolicyError;

impl ParsePolicyError {
    fn new(message: String) -> Self {
        ParsePolicyError { message }
    }
}

impl fmt::Display for ParsePolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParsePolicyError {}

/// The largest `most-loaded` `min`, `acwn`/`gradient` `low`/`high`/`interval` and `ml` `group`.
pub(crate) const MAX_PARAM: usize = 1_000_000;

/// The longest piece of user input an error message repeats, in characters.
const SHOWN_CHARS: usize = 64;

/// `text` as an error message repeats it: whole when short, else its first [`SHOWN_CHARS`]
/// characters and how long it was (a megabyte of input must not come back in the message).
pub(crate) fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}... ({} bytes in all)", &text[..cut], text.len()),
    }
}

impl Policy {
    /// Checks every parameter against its allowed range. The one validation of a policy: the
    /// parser applies it, and so do [`crate::ThreadPoolBuilder::build`] and the simulator, so a
    /// hand-built value cannot get past it either.
    ///
    /// ```
    /// use hypersteal::{LoadMeasure, LoadScope, Policy};
    /// let p = Policy::MostLoaded { scope: LoadScope::All, min_load: 0, load: LoadMeasure::Count };
    /// let err = p.validate().unwrap_err().to_string();
    /// assert!(err.contains("`min=0`") && err.contains("1 to 1000000"), "{err}");
    /// ```
    pub fn validate(&self) -> Result<(), PolicyError> {
        spec::validate(self.spec(), self)
    }
}

impl FromStr for Policy {
    type Err = ParsePolicyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        spec::parse(SPECS, s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_round_trips() {
        for p in Policy::all() {
            assert_eq!(p.to_string().parse::<Policy>().unwrap(), p);
        }
        let p: Policy = "most-loaded:scope=all,min=2,load=time".parse().unwrap();
        assert_eq!(p.to_string(), "most-loaded:scope=all,min=2,load=time");
        assert_eq!(p.to_string().parse::<Policy>().unwrap(), p);
        let p: Policy = "grr-m:window=8".parse().unwrap();
        assert_eq!(p, Policy::GrrCombining { window: 8 });
        assert_eq!(p.to_string(), "grr-m:window=8");
        let p: Policy = "ml:levels=3,group=4".parse().unwrap();
        assert_eq!(
            p,
            Policy::MultiLevel {
                levels: 3,
                group: 4
            }
        );
        assert_eq!(p.to_string(), "ml:levels=3,group=4");
    }

    /// `has_managers` agrees with the machines: exactly the policies whose workers report a
    /// rank have managers, and their every worker but 0 has one.
    #[test]
    fn the_manager_policies_are_those_whose_machines_rank_their_workers() {
        for policy in Policy::all()
            .into_iter()
            .chain(["ml:levels=3".parse().unwrap()])
        {
            for me in 0..16 {
                let m = crate::policy::machine::machine_for(&policy, me, 16, 1);
                assert_eq!(
                    m.rank().is_some(),
                    policy.has_managers(),
                    "{policy}, worker {me}"
                );
                assert_eq!(
                    m.manager().is_some(),
                    policy.has_managers() && me != 0,
                    "{policy}, worker {me}"
                );
            }
        }
        assert_eq!(
            Policy::all().iter().filter(|p| p.has_managers()).count(),
            2,
            "sl and ml"
        );
    }

    #[test]
    fn manager_parameters_are_checked() {
        for (bad, words) in [
            ("ml:levels=0", "`levels=0` is out of range"),
            ("ml:levels=9", "1 to 8"),
            ("ml:group=1", "`group=1` is out of range"),
            ("ml:group=x", "`group=x`"),
            ("sl:levels=2", "policy `sl` has no parameter `levels`"),
        ] {
            let err = bad.parse::<Policy>().unwrap_err().to_string();
            assert!(err.contains(words), "{bad}: {err}");
        }
        assert!(Policy::MultiLevel {
            levels: 2,
            group: 1
        }
        .validate()
        .is_err());
    }
}

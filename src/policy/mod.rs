//! Scheduling policies: how work moves between workers.
//!
//! A [`Policy`] is a name plus parameters, parsed from `name:key=value,...`. Each policy's
//! decisions are one per-worker state machine ([`machine::Machine`], built by
//! [`machine::machine_for`]), in a file of its own: the receiver-initiated policies (an idle worker
//! asks a victim; `docs/policies.md`, "Receiver-initiated") `rp.rs`, `nn.rs`, `arr.rs`, `grr.rs`
//! (`grr` and `grr-m`), `sb.rs` and `most_loaded.rs`; the sender-initiated ones (a busy worker
//! places tasks; "Sender-initiated") `acwn.rs`, `gradient.rs` and `random_alloc.rs`. The
//! The manager schemes `sl` and `ml` (seed 002 section 6: a manager, or a tree of managers,
//! hands out work on demand) are `sl.rs` and `ml.rs`. The
//! pool-wide state some of them need ([`machine::Shared`]: GRR's counter, GRR-M's combining tree
//! in `combining.rs`, SB's donor queue, the gradient model's proximities) is built once per pool.
//! Policies read the topology and the published loads and never call back into the pool, so the
//! same decisions are driven by the runtime's worker threads and by the simulator (the
//! `hypersteal-sim` crate) alike.

mod acwn;
mod arr;
pub(crate) mod combining;
mod gradient;
mod grr;
pub mod machine;
pub(crate) mod ml;
mod most_loaded;
mod nn;
mod random_alloc;
mod rng;
mod rp;
mod sb;
mod sl;

pub use rng::XorShift;

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
/// defaults are left out). The names are those of `docs/policies.md`:
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

const DEFAULT_WINDOW: u32 = 64;
const DEFAULT_LEVELS: u32 = 2;
const ACWN_DEFAULT: Policy = Policy::Acwn {
    low: 2,
    high: 8,
    interval: 16,
};
const GRADIENT_DEFAULT: Policy = Policy::Gradient {
    low: 1,
    high: 2,
    interval: 1,
};

impl Default for Policy {
    /// Random polling, the policy with the best-known bounds (and rayon's choice).
    fn default() -> Self {
        Policy::RandomPolling
    }
}

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
    /// Every policy name, in the order of `docs/policies.md`.
    pub const NAMES: [&'static str; 12] = [
        "rp",
        "nn",
        "arr",
        "grr",
        "grr-m",
        "sb",
        "most-loaded",
        "acwn",
        "gradient",
        "random-alloc",
        "sl",
        "ml",
    ];

    /// Whether busy workers place new tasks (`acwn`, `gradient`, `random-alloc`) rather than
    /// idle workers asking for them.
    pub fn is_sender_initiated(&self) -> bool {
        matches!(
            self,
            Policy::Acwn { .. } | Policy::Gradient { .. } | Policy::RandomAlloc
        )
    }

    /// Whether the workers are arranged under managers (`sl`: one; `ml`: a hierarchy), which
    /// the policy's machines report (`Machine::rank`, `Machine::manager`).
    pub fn has_managers(&self) -> bool {
        matches!(self, Policy::SingleLevel | Policy::MultiLevel { .. })
    }

    /// Every policy with its default parameters.
    pub fn all() -> Vec<Policy> {
        Self::NAMES
            .iter()
            .map(|n| n.parse().expect("every listed name parses"))
            .collect()
    }

    /// The policy's name, without parameters.
    pub fn name(&self) -> &'static str {
        match self {
            Policy::RandomPolling => "rp",
            Policy::NearestNeighbor => "nn",
            Policy::AsyncRoundRobin => "arr",
            Policy::GlobalRoundRobin => "grr",
            Policy::GrrCombining { .. } => "grr-m",
            Policy::SchedulerBased => "sb",
            Policy::MostLoaded { .. } => "most-loaded",
            Policy::Acwn { .. } => "acwn",
            Policy::Gradient { .. } => "gradient",
            Policy::RandomAlloc => "random-alloc",
            Policy::SingleLevel => "sl",
            Policy::MultiLevel { .. } => "ml",
        }
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
        match self {
            Policy::NearestNeighbor
            | Policy::MostLoaded {
                scope: LoadScope::Neighbors,
                ..
            } => Reach::Neighbors,
            p if p.is_sender_initiated() => Reach::Nothing,
            _ => Reach::All,
        }
    }

    /// Whether the policy reads other workers' loads (workers then publish theirs).
    pub(crate) fn reads_loads(&self) -> bool {
        matches!(
            self,
            Policy::MostLoaded { .. } | Policy::Acwn { .. } | Policy::Gradient { .. }
        )
    }

    fn params(&self) -> Vec<(&'static str, String)> {
        match *self {
            Policy::GrrCombining { window } if window != DEFAULT_WINDOW => {
                vec![("window", window.to_string())]
            }
            Policy::MostLoaded {
                scope,
                min_load,
                load,
            } => {
                let mut v = Vec::new();
                if scope == LoadScope::All {
                    v.push(("scope", "all".to_string()));
                }
                if min_load != 1 {
                    v.push(("min", min_load.to_string()));
                }
                if load == LoadMeasure::Time {
                    v.push(("load", "time".to_string()));
                }
                v
            }
            Policy::Acwn {
                low,
                high,
                interval,
            } => marks(self, ACWN_DEFAULT, low, high, interval),
            Policy::Gradient {
                low,
                high,
                interval,
            } => marks(self, GRADIENT_DEFAULT, low, high, interval),
            Policy::MultiLevel { levels, group } => {
                let mut v = Vec::new();
                if levels != DEFAULT_LEVELS {
                    v.push(("levels", levels.to_string()));
                }
                if group != 0 {
                    v.push(("group", group.to_string()));
                }
                v
            }
            _ => Vec::new(),
        }
    }

    fn keys(name: &str) -> &'static [&'static str] {
        match name {
            "grr-m" => &["window"],
            "most-loaded" => &["scope", "min", "load"],
            "acwn" | "gradient" => &["low", "high", "interval"],
            "ml" => &["levels", "group"],
            _ => &[],
        }
    }
}

/// The parameters of `acwn`/`gradient` that differ from the defaults.
fn marks(
    _policy: &Policy,
    default: Policy,
    low: usize,
    high: usize,
    interval: u32,
) -> Vec<(&'static str, String)> {
    let (Policy::Acwn {
        low: l,
        high: h,
        interval: i,
    }
    | Policy::Gradient {
        low: l,
        high: h,
        interval: i,
    }) = default
    else {
        unreachable!("defaults are acwn or gradient")
    };
    let mut v = Vec::new();
    if low != l {
        v.push(("low", low.to_string()));
    }
    if high != h {
        v.push(("high", high.to_string()));
    }
    if interval != i {
        v.push(("interval", interval.to_string()));
    }
    v
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        let params = self.params();
        for (i, (k, v)) in params.iter().enumerate() {
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

/// The largest `grr-m` window: a request spins at most this many iterations in all, over the
/// tree levels it climbs, waiting for partners (and none when it is alone in the tree).
pub(crate) const MAX_WINDOW: u32 = 1024;
/// The largest `most-loaded` `min`, `acwn`/`gradient` `low`/`high` and `interval`.
pub(crate) const MAX_PARAM: usize = 1_000_000;

/// One parameter's allowed range, with the words an error uses for it.
struct Range {
    key: &'static str,
    lo: usize,
    hi: usize,
    allowed: &'static str,
}

const WINDOW: Range = Range {
    key: "window",
    lo: 0,
    hi: MAX_WINDOW as usize,
    allowed: "an integer 0 to 1024 (spin iterations per request)",
};
const MIN_LOAD: Range = Range {
    key: "min",
    lo: 1,
    hi: MAX_PARAM,
    allowed: "an integer 1 to 1000000 (waiting tasks)",
};
const LOW: Range = Range {
    key: "low",
    lo: 0,
    hi: MAX_PARAM,
    allowed: "an integer 0 to 1000000",
};
const HIGH: Range = Range {
    key: "high",
    lo: 1,
    hi: MAX_PARAM,
    allowed: "an integer 1 to 1000000",
};
const INTERVAL: Range = Range {
    key: "interval",
    lo: 1,
    hi: MAX_PARAM,
    allowed: "an integer 1 to 1000000 (tasks)",
};

const LEVELS: Range = Range {
    key: "levels",
    lo: 1,
    hi: 8,
    allowed: "an integer 1 to 8 (levels of managers)",
};
const GROUP: Range = Range {
    key: "group",
    lo: 0,
    hi: MAX_PARAM,
    allowed: "0 (derived from `levels`) or an integer 2 to 1000000 (workers per manager)",
};

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

impl Range {
    fn check(&self, policy: &str, value: usize) -> Result<(), ParsePolicyError> {
        if (self.lo..=self.hi).contains(&value) {
            return Ok(());
        }
        Err(self.error(policy, &value.to_string()))
    }

    fn error(&self, policy: &str, value: &str) -> ParsePolicyError {
        let key = self.key;
        let value = shown(value);
        ParsePolicyError::new(format!(
            "policy `{policy}`: `{key}={value}` is out of range; `{key}` must be {}",
            self.allowed
        ))
    }

    /// Parses the value of this parameter (range checks are [`Policy::validate`]'s).
    fn parse<T: FromStr>(&self, policy: &str, value: &str) -> Result<T, ParsePolicyError> {
        value.parse::<T>().map_err(|_| self.error(policy, value))
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
        let name = self.name();
        match *self {
            Policy::GrrCombining { window } => WINDOW.check(name, window as usize),
            Policy::MostLoaded { min_load, .. } => MIN_LOAD.check(name, min_load),
            Policy::Acwn {
                low,
                high,
                interval,
            }
            | Policy::Gradient {
                low,
                high,
                interval,
            } => {
                LOW.check(name, low)?;
                HIGH.check(name, high)?;
                INTERVAL.check(name, interval as usize)?;
                if low > high {
                    return Err(ParsePolicyError::new(format!(
                        "policy `{name}`: low={low} is above high={high}; `low` must not exceed `high`"
                    )));
                }
                Ok(())
            }
            Policy::MultiLevel { levels, group } => {
                LEVELS.check(name, levels as usize)?;
                GROUP.check(name, group)?;
                if group == 1 {
                    return Err(GROUP.error(name, "1"));
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

impl FromStr for Policy {
    type Err = ParsePolicyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let (name, params) = match s.split_once(':') {
            Some((n, p)) => (n.trim(), Some(p)),
            None => (s, None),
        };
        let name = name.to_ascii_lowercase();
        let mut policy = match name.as_str() {
            "rp" => Policy::RandomPolling,
            "nn" => Policy::NearestNeighbor,
            "arr" => Policy::AsyncRoundRobin,
            "grr" => Policy::GlobalRoundRobin,
            "grr-m" => Policy::GrrCombining {
                window: DEFAULT_WINDOW,
            },
            "sb" => Policy::SchedulerBased,
            "most-loaded" => Policy::MostLoaded {
                scope: LoadScope::Neighbors,
                min_load: 1,
                load: LoadMeasure::Count,
            },
            "acwn" => ACWN_DEFAULT,
            "gradient" => GRADIENT_DEFAULT,
            "random-alloc" => Policy::RandomAlloc,
            "sl" => Policy::SingleLevel,
            "ml" => Policy::MultiLevel {
                levels: DEFAULT_LEVELS,
                group: 0,
            },
            _ => {
                return Err(ParsePolicyError::new(format!(
                    "unknown policy `{}`; valid policies are: {}",
                    shown(&name),
                    Policy::NAMES.join(", ")
                )))
            }
        };
        let Some(params) = params else {
            return Ok(policy);
        };
        let keys = Policy::keys(&name);
        for pair in params.split(',') {
            let Some((key, value)) = pair.split_once('=') else {
                return Err(ParsePolicyError::new(format!(
                    "policy `{name}`: malformed parameter `{}`; expected `key=value`",
                    shown(pair)
                )));
            };
            let (key, value) = (key.trim(), value.trim());
            match (&mut policy, key) {
                (Policy::GrrCombining { window }, "window") => {
                    *window = WINDOW.parse(&name, value)?;
                }
                (Policy::MostLoaded { scope, .. }, "scope") => {
                    *scope = match value {
                        "neighbors" | "neighbours" => LoadScope::Neighbors,
                        "all" => LoadScope::All,
                        _ => {
                            return Err(ParsePolicyError::new(format!(
                                "policy `{name}`: `scope={}` is not valid; `scope` must be `neighbors` or `all`",
                                shown(value)
                            )))
                        }
                    };
                }
                (Policy::MostLoaded { min_load, .. }, "min") => {
                    *min_load = MIN_LOAD.parse(&name, value)?;
                }
                (Policy::MostLoaded { load, .. }, "load") => {
                    *load = match value {
                        "count" => LoadMeasure::Count,
                        "time" => LoadMeasure::Time,
                        _ => {
                            return Err(ParsePolicyError::new(format!(
                                "policy `{name}`: `load={}` is not valid; `load` must be `count` or `time`",
                                shown(value)
                            )))
                        }
                    };
                }
                (Policy::Acwn { low, .. } | Policy::Gradient { low, .. }, "low") => {
                    *low = LOW.parse(&name, value)?;
                }
                (Policy::Acwn { high, .. } | Policy::Gradient { high, .. }, "high") => {
                    *high = HIGH.parse(&name, value)?;
                }
                (Policy::Acwn { interval, .. } | Policy::Gradient { interval, .. }, "interval") => {
                    *interval = INTERVAL.parse(&name, value)?;
                }
                (Policy::MultiLevel { levels, .. }, "levels") => {
                    *levels = LEVELS.parse(&name, value)?;
                }
                (Policy::MultiLevel { group, .. }, "group") => {
                    *group = GROUP.parse(&name, value)?;
                }
                _ => {
                    let valid = if keys.is_empty() {
                        "it takes no parameters".to_string()
                    } else {
                        format!("valid parameters are: {}", keys.join(", "))
                    };
                    return Err(ParsePolicyError::new(format!(
                        "policy `{name}` has no parameter `{}`; {valid}",
                        shown(key)
                    )));
                }
            }
        }
        policy.validate()?;
        Ok(policy)
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

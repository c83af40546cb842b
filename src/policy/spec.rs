//! A policy's specification: everything the pool, the parser and the interpreters know of a
//! policy besides its decisions.
//!
//! Each policy file holds its machine and one `const` [`Spec`]; `SPECS` in `super` lists them
//! (receiver-initiated, sender-initiated, then the manager schemes) and is the one list of
//! policies. Everything else is read off that table: parsing and `Display` (`parse`,
//! `show`), validation (`validate`), `Policy::all` and `Policy::NAMES`, the name, the
//! initiative, the reach, the loads a policy reads, its managers, the pool-wide state it needs
//! ([`SharedState`]) and the machine each worker runs. A policy without shared state is
//! therefore one file (its machine and its `Spec`), its variant of [`Policy`] and one line in
//! the table.
//!
//! Part of the interpreters' interface (see `super::machine`), not of the runtime's public API.

use super::machine::Machine;
use super::{shown, ParsePolicyError, Policy, Reach};
use std::mem::discriminant;

/// Who moves work under a policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Initiative {
    /// An idle worker asks a victim for work.
    Receiver,
    /// A busy worker places new tasks; an idle worker waits for them.
    Sender,
}

/// The pool-wide state a policy's machines share, built once per pool
/// ([`Shared::new`](super::machine::Shared::new)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedState {
    /// None: every decision is the worker's own.
    Nothing,
    /// GRR's global round-robin counter.
    Counter,
    /// GRR-M's combining tree over the topology's spanning tree; a request spins at most
    /// `window` iterations for partners.
    CombiningTree {
        /// The policy's `window` parameter.
        window: u32,
    },
    /// SB's pool-wide FIFO of donors.
    DonorQueue,
    /// The gradient model's published proximities, one per worker.
    Proximities,
}

/// Where an idle worker's victim is chosen, which decides the messages a request takes.
///
/// The runtime's workers share memory: there every choice is a call of the asker's own machine
/// on the pool's [`Shared`](super::machine::Shared) state, which holds the counter, the
/// combining tree or the donor queue. An interpreter whose workers exchange messages (the
/// simulator, MPI's ranks) carries out the choice with the messages named here; each protocol is
/// implemented once per interpreter and selected by this value, never by the policy's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// By the asker's own machine, from its own state and the loads it reads; the request goes
    /// straight to the victim. Also every sender-initiated policy (its idle workers never ask).
    Own,
    /// By a draw of the pool-wide counter kept at worker 0: one access there per request,
    /// queueing behind the other draws; the value goes back to the asker, whose machine turns
    /// it into the victim (`grr`).
    Counter,
    /// By a draw of the same counter through a combining tree over the topology's spanning tree:
    /// draws that meet on their way up travel on as one and come back down as a range, so no
    /// point serves them one by one (`grr-m`). The machine is the counter's.
    CombiningTree,
    /// By a scheduler at worker 0 that keeps the shared state and runs every worker's machine:
    /// it hears when a worker becomes busy or idle ([`Machine::busy`], [`Machine::idle`]) and
    /// chooses the victim of everyone's requests ([`Machine::next_victim`]) (`sb`).
    Scheduler,
}

/// The values a parameter takes.
#[derive(Clone, Copy, Debug)]
pub enum Values {
    /// An integer in `lo..=hi`.
    Int {
        /// The least value allowed.
        lo: usize,
        /// The largest value allowed.
        hi: usize,
    },
    /// One of a few words; the value is the index of the word. The first spelling of each
    /// entry is the one `Display` writes, the others are accepted aliases.
    Words(&'static [&'static [&'static str]]),
}

/// One parameter of a policy: its key, its values, and how it reads and writes the
/// parameter's field of the policy's [`Policy`] variant.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The key in `name:key=value`.
    pub key: &'static str,
    /// The values it takes.
    pub values: Values,
    /// What an error says is allowed, e.g. "an integer 0 to 1024 (spin iterations per request)".
    pub allowed: &'static str,
    /// The parameter's value in a policy of this spec (an integer, or the index of a word).
    pub(crate) get: fn(&Policy) -> usize,
    /// Sets it; called only with a value in range.
    pub(crate) set: fn(&mut Policy, usize),
}

/// What a policy is, beside its decisions: one `const` per policy file.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// The name it parses from and displays as.
    pub name: &'static str,
    /// Receiver- or sender-initiated.
    pub initiative: Initiative,
    /// Its parameters, in the order `Display` writes them.
    pub params: &'static [Param],
    /// The policy with every parameter at its default; its variant identifies the spec.
    pub default: Policy,
    /// Whether the workers are arranged under managers (the machines then report
    /// `Machine::rank` and `Machine::manager`).
    pub managers: bool,
    /// Where an idle worker may look for work in other workers' deques.
    pub(crate) reach: fn(&Policy) -> Reach,
    /// Whose published loads the machines read (`Reach::Nothing`: none, and workers do not
    /// publish theirs).
    pub(crate) loads: fn(&Policy) -> Reach,
    /// Where an idle worker's victim is chosen.
    pub choice: Choice,
    /// The pool-wide state the machines share.
    pub(crate) shared: fn(&Policy) -> SharedState,
    /// Checks that relate parameters to each other (each one's range is checked from
    /// [`Param::values`]).
    pub(crate) check: fn(&Policy) -> Result<(), ParsePolicyError>,
    /// Worker `me`'s machine among `workers`, its draws seeded with `seed`.
    pub(crate) machine: fn(&Policy, usize, usize, u64) -> Box<dyn Machine>,
}

impl Spec {
    /// A receiver-initiated policy with no parameters, no shared state, that may ask any
    /// worker and reads no loads; the other fields are set with struct update syntax.
    pub(crate) const fn receiver(
        name: &'static str,
        default: Policy,
        machine: fn(&Policy, usize, usize, u64) -> Box<dyn Machine>,
    ) -> Spec {
        Spec {
            name,
            initiative: Initiative::Receiver,
            params: &[],
            default,
            managers: false,
            reach: |_| Reach::All,
            loads: |_| Reach::Nothing,
            choice: Choice::Own,
            shared: |_| SharedState::Nothing,
            check: |_| Ok(()),
            machine,
        }
    }

    /// A sender-initiated policy: idle workers look nowhere, they wait for placed work.
    pub(crate) const fn sender(
        name: &'static str,
        default: Policy,
        machine: fn(&Policy, usize, usize, u64) -> Box<dyn Machine>,
    ) -> Spec {
        Spec {
            initiative: Initiative::Sender,
            reach: |_| Reach::Nothing,
            ..Spec::receiver(name, default, machine)
        }
    }

    /// Whether `policy` is this spec's policy (has its variant).
    pub fn describes(&self, policy: &Policy) -> bool {
        discriminant(&self.default) == discriminant(policy)
    }

    /// The pool-wide state `policy` (of this spec) needs.
    pub fn shared_state(&self, policy: &Policy) -> SharedState {
        (self.shared)(policy)
    }

    /// Whose published loads `policy`'s machines read.
    pub fn loads_read(&self, policy: &Policy) -> Reach {
        (self.loads)(policy)
    }
}

impl Param {
    /// The error for `key=value` with a value that does not parse or is out of range.
    pub(super) fn error(&self, policy: &str, value: &str) -> ParsePolicyError {
        let key = self.key;
        let value = shown(value);
        let verdict = match self.values {
            Values::Int { .. } => "is out of range",
            Values::Words(_) => "is not valid",
        };
        ParsePolicyError::new(format!(
            "policy `{policy}`: `{key}={value}` {verdict}; `{key}` must be {}",
            self.allowed
        ))
    }

    /// The value `text` stands for, checked against the range.
    fn parse(&self, policy: &str, text: &str) -> Result<usize, ParsePolicyError> {
        let value = match self.values {
            Values::Int { lo, hi } => text.parse().ok().filter(|v| (lo..=hi).contains(v)),
            Values::Words(words) => words.iter().position(|w| w.contains(&text)),
        };
        value.ok_or_else(|| self.error(policy, text))
    }

    /// How `Display` writes a value.
    fn show(&self, value: usize) -> String {
        match self.values {
            Values::Int { .. } => value.to_string(),
            Values::Words(words) => words[value][0].to_string(),
        }
    }
}

/// Parses `name` or `name:key=value,...` against `specs`, then validates the result.
pub(super) fn parse(specs: &[&'static Spec], s: &str) -> Result<Policy, ParsePolicyError> {
    let s = s.trim();
    let (name, params) = match s.split_once(':') {
        Some((n, p)) => (n.trim(), Some(p)),
        None => (s, None),
    };
    let name = name.to_ascii_lowercase();
    let Some(spec) = specs.iter().find(|spec| spec.name == name) else {
        let names: Vec<_> = specs.iter().map(|spec| spec.name).collect();
        return Err(ParsePolicyError::new(format!(
            "unknown policy `{}`; valid policies are: {}",
            shown(&name),
            names.join(", ")
        )));
    };
    let mut policy = spec.default;
    for pair in params.into_iter().flat_map(|p| p.split(',')) {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(ParsePolicyError::new(format!(
                "policy `{name}`: malformed parameter `{}`; expected `key=value`",
                shown(pair)
            )));
        };
        let (key, value) = (key.trim(), value.trim());
        let Some(param) = spec.params.iter().find(|p| p.key == key) else {
            let valid = if spec.params.is_empty() {
                "it takes no parameters".to_string()
            } else {
                let keys: Vec<_> = spec.params.iter().map(|p| p.key).collect();
                format!("valid parameters are: {}", keys.join(", "))
            };
            return Err(ParsePolicyError::new(format!(
                "policy `{name}` has no parameter `{}`; {valid}",
                shown(key)
            )));
        };
        (param.set)(&mut policy, param.parse(&name, value)?);
    }
    validate(spec, &policy)?;
    Ok(policy)
}

/// Checks every parameter of `policy` (of `spec`) against its range, then the spec's own
/// checks across parameters.
pub(super) fn validate(spec: &Spec, policy: &Policy) -> Result<(), ParsePolicyError> {
    // A word parameter is an enum field: whatever a policy holds is one of its words.
    for param in spec.params {
        let value = (param.get)(policy);
        if let Values::Int { lo, hi } = param.values {
            if !(lo..=hi).contains(&value) {
                return Err(param.error(spec.name, &value.to_string()));
            }
        }
    }
    (spec.check)(policy)
}

/// The parameters of `policy` (of `spec`) that differ from the defaults, as `Display` writes
/// them.
pub(super) fn show(spec: &Spec, policy: &Policy) -> Vec<(&'static str, String)> {
    spec.params
        .iter()
        .filter(|p| (p.get)(policy) != (p.get)(&spec.default))
        .map(|p| (p.key, p.show((p.get)(policy))))
        .collect()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::super::SPECS;
    use super::*;

    /// A spec's choice and its shared state agree: a counter, a combining tree or a scheduler
    /// comes with the state it draws from or keeps, and no other choice has that state (the
    /// interpreters select a protocol by the choice and build the state from the other field).
    #[test]
    fn every_choice_comes_with_the_shared_state_it_needs() {
        for spec in SPECS {
            let state = spec.shared_state(&spec.default);
            let needs = match spec.choice {
                Choice::Counter => state == SharedState::Counter,
                Choice::CombiningTree => matches!(state, SharedState::CombiningTree { .. }),
                Choice::Scheduler => state == SharedState::DonorQueue,
                Choice::Own => matches!(state, SharedState::Nothing | SharedState::Proximities),
            };
            assert!(needs, "{}: {:?} with {state:?}", spec.name, spec.choice);
        }
    }

    /// The table is consistent: names unique and in `NAMES`, each spec's default is its own
    /// variant and no other spec's, parses from the bare name and displays as it, and every
    /// default parameter is in range.
    #[test]
    fn every_spec_describes_its_own_default_and_no_other() {
        assert_eq!(SPECS.len(), Policy::NAMES.len());
        for (i, spec) in SPECS.iter().enumerate() {
            assert_eq!(Policy::NAMES[i], spec.name);
            let owners: Vec<_> = SPECS
                .iter()
                .filter(|s| s.describes(&spec.default))
                .map(|s| s.name)
                .collect();
            assert_eq!(owners, [spec.name]);
            assert_eq!(spec.name.parse::<Policy>(), Ok(spec.default));
            assert_eq!(spec.default.to_string(), spec.name);
            assert_eq!(validate(spec, &spec.default), Ok(()), "{}", spec.name);
            let sender = spec.initiative == Initiative::Sender;
            assert_eq!(
                spec.default.reach() == Reach::Nothing,
                sender,
                "{}",
                spec.name
            );
        }
    }

    /// Each parameter reads back what it was set to, and a value set through the table
    /// displays and parses back to the same policy.
    #[test]
    fn parameters_read_back_what_was_set_and_round_trip() {
        for spec in SPECS {
            for param in spec.params {
                let candidates: Vec<usize> = match param.values {
                    Values::Int { lo, hi } => vec![lo, hi.min(lo + 3), hi],
                    Values::Words(words) => (0..words.len()).collect(),
                };
                for v in candidates {
                    let mut policy = spec.default;
                    (param.set)(&mut policy, v);
                    assert_eq!((param.get)(&policy), v, "{} {}", spec.name, param.key);
                    if validate(spec, &policy).is_ok() {
                        let text = policy.to_string();
                        assert_eq!(text.parse::<Policy>(), Ok(policy), "{text}");
                    }
                }
            }
        }
    }

    /// Out of range, a parameter's error names the policy, the key, the value and what is
    /// allowed, whether it came from a string or a hand-built value.
    #[test]
    fn an_out_of_range_value_is_named_with_what_is_allowed() {
        for spec in SPECS {
            for param in spec.params {
                let Values::Int { hi, .. } = param.values else {
                    continue;
                };
                let text = format!("{}:{}={}", spec.name, param.key, hi + 1);
                let err = text.parse::<Policy>().unwrap_err().to_string();
                for part in [spec.name, param.key, &(hi + 1).to_string(), param.allowed] {
                    assert!(err.contains(part), "{text}: {err}");
                }
            }
        }
    }
}

//! `most-loaded` (seeds 001 and 004): an idle worker asks the worker with the largest published
//! load in its scope (its neighbours, or everyone), ignoring victims below a minimum load.
//!
//! A request that failed leaves a mark: the victim counts as empty until its published load
//! changes, so a stale load is not asked twice. The marks are forgotten at the start of every
//! search round, because a reader cannot see a load that went to zero and back.

use super::machine::{Env, LoadView, Machine};
use super::spec::{Param, Spec, Values};
use super::{LoadMeasure, LoadScope, Policy, Reach, MAX_PARAM};
use std::collections::HashMap;

/// `most-loaded`: `scope` (`neighbors`), `min` (1) and `load` (`count`); reads the loads of its
/// scope and asks only there; no shared state.
pub(crate) const SPEC: Spec = Spec {
    params: &[
        Param {
            key: "scope",
            values: Values::Words(&[&["neighbors", "neighbours"], &["all"]]),
            allowed: "`neighbors` or `all`",
            get: |p| match fields(p).0 {
                LoadScope::Neighbors => 0,
                LoadScope::All => 1,
            },
            set: |p, v| {
                if let Policy::MostLoaded { scope, .. } = p {
                    *scope = [LoadScope::Neighbors, LoadScope::All][v];
                }
            },
        },
        Param {
            key: "min",
            values: Values::Int {
                lo: 1,
                hi: MAX_PARAM,
            },
            allowed: "an integer 1 to 1000000 (waiting tasks)",
            get: |p| fields(p).1,
            set: |p, v| {
                if let Policy::MostLoaded { min_load, .. } = p {
                    *min_load = v;
                }
            },
        },
        Param {
            key: "load",
            values: Values::Words(&[&["count"], &["time"]]),
            allowed: "`count` or `time`",
            get: |p| match fields(p).2 {
                LoadMeasure::Count => 0,
                LoadMeasure::Time => 1,
            },
            set: |p, v| {
                if let Policy::MostLoaded { load, .. } = p {
                    *load = [LoadMeasure::Count, LoadMeasure::Time][v];
                }
            },
        },
    ],
    reach: |p| scope_reach(fields(p).0),
    loads: |p| scope_reach(fields(p).0),
    ..Spec::receiver(
        "most-loaded",
        Policy::MostLoaded {
            scope: LoadScope::Neighbors,
            min_load: 1,
            load: LoadMeasure::Count,
        },
        |p, _, _, _| {
            let (scope, min_load, load) = fields(p);
            Box::new(MostLoaded::new(scope, min_load, load))
        },
    )
};

/// The parameters of a `most-loaded` policy.
fn fields(policy: &Policy) -> (LoadScope, usize, LoadMeasure) {
    match *policy {
        Policy::MostLoaded {
            scope,
            min_load,
            load,
        } => (scope, min_load, load),
        _ => unreachable!("most-loaded's spec is only asked about most-loaded"),
    }
}

/// Where a scope lets a worker look.
fn scope_reach(scope: LoadScope) -> Reach {
    match scope {
        LoadScope::Neighbors => Reach::Neighbors,
        LoadScope::All => Reach::All,
    }
}

/// One worker's `most-loaded` state: its parameters and the marks of failed requests.
#[derive(Clone, Debug)]
pub(crate) struct MostLoaded {
    scope: LoadScope,
    min_load: usize,
    load: LoadMeasure,
    /// The load each victim showed when a request to it failed, for the victims that failed
    /// this round: at most one round of requests, so memory stays proportional to the round,
    /// not to `P` (the simulator runs 16,384 of these machines).
    failed_at: HashMap<usize, usize>,
    /// The load the last chosen victim showed.
    last_seen: usize,
}

impl MostLoaded {
    /// A machine comparing the loads of `scope`, ignoring victims below `min_load`, loads
    /// measured by `load`.
    pub(crate) fn new(scope: LoadScope, min_load: usize, load: LoadMeasure) -> Self {
        MostLoaded {
            scope,
            min_load,
            load,
            failed_at: HashMap::new(),
            last_seen: 0,
        }
    }

    /// Compares worker `w` with the best candidate so far (`(worker, weight, load)`); a
    /// failure mark hides it until its load changes.
    fn consider(&mut self, loads: &dyn LoadView, w: usize, best: &mut Option<(usize, f64, usize)>) {
        let queued = loads.queued(w);
        if !self.failed_at.is_empty() {
            if let Some(&seen) = self.failed_at.get(&w) {
                if seen == queued {
                    return;
                }
                self.failed_at.remove(&w);
            }
        }
        if queued < self.min_load {
            return;
        }
        let weight = match self.load {
            LoadMeasure::Count => queued as f64,
            LoadMeasure::Time => {
                queued as f64 * loads.ns_per_task(w) / loads.speed(w).max(f64::MIN_POSITIVE)
            }
        };
        if best.is_none_or(|(_, b, _)| weight > b) {
            *best = Some((w, weight, queued));
        }
    }
}

impl Machine for MostLoaded {
    fn round_len(&self, env: &Env<'_>) -> usize {
        match self.scope {
            LoadScope::Neighbors => env.graph.neighbors(env.me).len(),
            LoadScope::All => env.graph.len() - 1,
        }
    }

    fn begin_round(&mut self, _env: &Env<'_>) {
        self.failed_at.clear();
    }

    fn next_victim(&mut self, env: &Env<'_>) -> Option<usize> {
        let p = env.graph.len();
        if p < 2 {
            return None;
        }
        let mut best = None;
        match self.scope {
            LoadScope::Neighbors => {
                for w in env.graph.neighbors(env.me) {
                    self.consider(env.loads, w, &mut best);
                }
            }
            LoadScope::All => {
                for w in (0..p).filter(|&w| w != env.me) {
                    self.consider(env.loads, w, &mut best);
                }
            }
        }
        let (w, _, queued) = best?;
        self.last_seen = queued;
        Some(w)
    }

    fn request_failed(&mut self, _env: &Env<'_>, victim: usize) {
        self.failed_at.insert(victim, self.last_seen);
    }

    fn may_ask(&self, env: &Env<'_>, victim: usize) -> bool {
        let in_scope = match self.scope {
            LoadScope::Neighbors => env.graph.neighbors(env.me).any(|w| w == victim),
            LoadScope::All => victim != env.me,
        };
        in_scope && env.loads.queued(victim) >= self.min_load
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::policy::machine::testing::env;
    use crate::policy::machine::{machine_for, Shared};
    use crate::policy::Policy;
    use crate::Topology;

    #[test]
    fn most_loaded_picks_the_largest_and_forgets_failures_until_load_changes() {
        let policy: Policy = "most-loaded:scope=all".parse().unwrap();
        let g = Topology::Ring.graph(4);
        let shared = Shared::new(&policy, &g);
        let mut v = machine_for(&policy, 0, 4, 1);
        let mut loads = vec![0, 3, 5, 0];
        assert_eq!(v.next_victim(&env(0, &g, &loads, &shared)), Some(2));
        v.request_failed(&env(0, &g, &loads, &shared), 2);
        assert_eq!(v.next_victim(&env(0, &g, &loads, &shared)), Some(1));
        loads[2] = 6;
        assert_eq!(v.next_victim(&env(0, &g, &loads, &shared)), Some(2));
        let loads = vec![0, 0, 0, 0];
        assert_eq!(v.next_victim(&env(0, &g, &loads, &shared)), None);
    }

    #[test]
    fn a_new_round_asks_a_failed_victim_again() {
        let policy: Policy = "most-loaded:scope=all".parse().unwrap();
        let g = Topology::Ring.graph(4);
        let shared = Shared::new(&policy, &g);
        let mut v = machine_for(&policy, 0, 4, 1);
        let loads = vec![0, 0, 5, 0];
        let e = env(0, &g, &loads, &shared);
        assert_eq!(v.round_len(&e), 3);
        assert_eq!(v.next_victim(&e), Some(2));
        v.request_failed(&e, 2);
        assert_eq!(v.next_victim(&e), None);
        v.begin_round(&e);
        assert_eq!(v.next_victim(&e), Some(2));
    }
}

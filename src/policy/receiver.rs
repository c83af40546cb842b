//! TRANSITIONAL: the receiver-initiated victim choice as `src/registry.rs` still calls it, one
//! `match` over the policy per decision. The same decisions, one file per policy behind the
//! [`Machine`](super::machine::Machine) hooks, are in `rp.rs`, `nn.rs`, `arr.rs`, `grr.rs`,
//! `sb.rs` and `most_loaded.rs`; this file goes once the worker loop drives the machines.
//!
//! [`Victims`] is one worker's private decision state (random generator, cursors, memory of
//! failed requests); [`Shared`] is the pool-wide state some policies need (GRR's counter, GRR-M's
//! combining tree, SB's donor queue).

pub(crate) use super::machine::{LoadView, Shared};
use super::rng::XorShift;
use super::{LoadMeasure, LoadScope, Policy};
use crate::sync::Ordering;
use crate::topology::TopologyGraph;

impl Shared {
    /// The next value of the global round-robin sequence.
    fn next_target(&self, me: usize) -> u64 {
        match &self.tree {
            Some(tree) => tree.next(me),
            None => self.grr.fetch_add(1, Ordering::Relaxed),
        }
    }
}

/// One worker's victim-choice state.
#[derive(Clone, Debug)]
pub(crate) struct Victims {
    rng: XorShift,
    /// `arr`: the next target id.
    cursor: usize,
    /// `nn`: index into the neighbour list.
    nn_cursor: usize,
    /// `most-loaded`: the queue length a victim showed when a request to it failed
    /// (`usize::MAX`: none). The victim counts as empty until its published length changes.
    failed_at: Vec<usize>,
    /// `most-loaded`: the queue length the last chosen victim showed.
    last_seen: usize,
}

impl Victims {
    pub(crate) fn new(me: usize, workers: usize, seed: u64) -> Self {
        Victims {
            rng: XorShift::for_worker(seed, me),
            cursor: if workers > 1 { (me + 1) % workers } else { 0 },
            nn_cursor: 0,
            // Sized on first use by `most-loaded`, the only policy that needs it: P entries per
            // worker would be P² per pool for every policy.
            failed_at: Vec::new(),
            last_seen: 0,
        }
    }

    /// Requests worth making in one search round before the worker considers sleeping.
    ///
    /// One per other worker, or per neighbour, except under `grr` and `grr-m`: there every
    /// request draws a value of the pool-wide counter (and under `grr-m` climbs the combining
    /// tree), so a round is `2 ⌈log2 P⌉` requests rather than `P − 1`. An idle worker's search
    /// before it sleeps then stays logarithmic in the pool's size (with P − 1, a thousand idle
    /// workers kept a 2-core machine busy for seconds combining), and the sleep re-check still
    /// looks at every deque, so visible work is never slept through.
    pub(crate) fn round_len(&self, policy: &Policy, me: usize, graph: &TopologyGraph) -> usize {
        let p = graph.len();
        match policy {
            Policy::GlobalRoundRobin | Policy::GrrCombining { .. } => {
                let log2 = (usize::BITS - (p - 1).leading_zeros()) as usize;
                (p - 1).min(2 * log2)
            }
            Policy::NearestNeighbor
            | Policy::MostLoaded {
                scope: LoadScope::Neighbors,
                ..
            } => graph.neighbors(me).len(),
            _ => p - 1,
        }
    }

    /// Starts a search round. `most-loaded` forgets failed victims here, so a victim that was
    /// empty once is skipped for the rest of the round but asked again in the next one (its
    /// length may have gone to zero and back, which a reader cannot see).
    pub(crate) fn begin_round(&mut self) {
        self.failed_at.fill(usize::MAX);
    }

    /// The victim of the next request of worker `me`, or `None` when the policy sees no
    /// worker worth asking right now.
    pub(crate) fn next(
        &mut self,
        policy: &Policy,
        me: usize,
        graph: &TopologyGraph,
        shared: &Shared,
        loads: &(impl LoadView + ?Sized),
    ) -> Option<usize> {
        let p = graph.len();
        if p < 2 {
            return None;
        }
        match policy {
            Policy::RandomPolling => {
                let r = self.rng.below(p - 1);
                Some(if r >= me { r + 1 } else { r })
            }
            Policy::NearestNeighbor => {
                let mut n = graph.neighbors(me);
                let len = n.len();
                let v = n.nth(self.nn_cursor % len);
                self.nn_cursor = (self.nn_cursor + 1) % len;
                v
            }
            Policy::AsyncRoundRobin => {
                let mut v = self.cursor % p;
                if v == me {
                    v = (v + 1) % p;
                }
                self.cursor = (v + 1) % p;
                Some(v)
            }
            Policy::GlobalRoundRobin | Policy::GrrCombining { .. } => loop {
                let v = (shared.next_target(me) % p as u64) as usize;
                if v != me {
                    return Some(v);
                }
            },
            Policy::SchedulerBased => shared.donors.as_ref()?.next(me),
            // Sender-initiated policies send no requests.
            Policy::Acwn { .. } | Policy::Gradient { .. } | Policy::RandomAlloc => None,
            Policy::MostLoaded {
                scope,
                min_load,
                load,
            } => {
                let consider =
                    |w: usize, best: &mut Option<(usize, f64, usize)>, failed: &mut [usize]| {
                        let queued = loads.queued(w);
                        if failed[w] != usize::MAX {
                            if failed[w] == queued {
                                return;
                            }
                            failed[w] = usize::MAX;
                        }
                        if queued < *min_load {
                            return;
                        }
                        let weight = match load {
                            LoadMeasure::Count => queued as f64,
                            LoadMeasure::Time => {
                                queued as f64 * loads.ns_per_task(w)
                                    / loads.speed(w).max(f64::MIN_POSITIVE)
                            }
                        };
                        if best.is_none_or(|(_, b, _)| weight > b) {
                            *best = Some((w, weight, queued));
                        }
                    };
                if self.failed_at.len() != p {
                    self.failed_at = vec![usize::MAX; p];
                }
                let mut best = None;
                match scope {
                    LoadScope::Neighbors => {
                        for w in graph.neighbors(me) {
                            consider(w, &mut best, &mut self.failed_at);
                        }
                    }
                    LoadScope::All => {
                        for w in (0..p).filter(|&w| w != me) {
                            consider(w, &mut best, &mut self.failed_at);
                        }
                    }
                }
                let (w, _, queued) = best?;
                self.last_seen = queued;
                Some(w)
            }
        }
    }

    /// A uniformly random worker in `0..workers` (randomized allocation).
    pub(crate) fn random_worker(&mut self, workers: usize) -> usize {
        self.rng.below(workers)
    }

    /// Tells the state that the request to `victim`, the last victim chosen, failed.
    pub(crate) fn failed(&mut self, policy: &Policy, victim: usize) {
        if matches!(policy, Policy::MostLoaded { .. }) {
            self.failed_at[victim] = self.last_seen;
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::policy::machine::machine_for;
    use crate::policy::machine::testing::env;
    use crate::Topology;

    /// The machines make exactly the decisions of [`Victims`] (while both exist): the same
    /// rounds, victims and failure marks for the same seed, over changing loads.
    #[test]
    fn machines_decide_as_victims_does() {
        let policies = [
            "rp",
            "nn",
            "arr",
            "grr",
            "grr-m:window=0",
            "sb",
            "most-loaded",
            "most-loaded:scope=all,min=2",
            "random-alloc",
        ];
        let topologies = [Topology::Hypercube, Topology::Mesh, Topology::Ring];
        for name in policies {
            let policy: Policy = name.parse().unwrap();
            for topology in topologies {
                for p in [1, 2, 5, 8, 13] {
                    let g = topology.graph(p);
                    // Each side draws from its own copy of the pool-wide state.
                    let (old_shared, new_shared) =
                        (Shared::new(&policy, &g), Shared::new(&policy, &g));
                    for shared in [&old_shared, &new_shared] {
                        if let Some(d) = &shared.donors {
                            (0..p).step_by(2).for_each(|w| d.join(w));
                        }
                    }
                    let mut draw = XorShift::new(p as u64);
                    for me in 0..p {
                        let mut old = Victims::new(me, p, 11);
                        let mut new = machine_for(&policy, me, p, 11);
                        for round in 0..6 {
                            let loads: Vec<usize> = (0..p).map(|_| draw.below(4)).collect();
                            let e = env(me, &g, &loads, &new_shared);
                            let len = if policy.is_sender_initiated() || p < 2 {
                                0
                            } else {
                                old.round_len(&policy, me, &g)
                            };
                            assert_eq!(new.round_len(&e), len, "{name} {topology} P={p}");
                            old.begin_round();
                            new.begin_round(&e);
                            for _ in 0..len.max(3) {
                                let v = old.next(&policy, me, &g, &old_shared, &loads);
                                assert_eq!(
                                    new.next_victim(&e),
                                    v,
                                    "{name} {topology} P={p} {me} {round}"
                                );
                                if let Some(v) = v.filter(|_| draw.below(2) == 0) {
                                    old.failed(&policy, v);
                                    new.request_failed(&e, v);
                                }
                            }
                            if policy == Policy::RandomAlloc {
                                let m = old.random_worker(p);
                                assert_eq!(new.place(&e, 0, false), (m != me).then_some(m));
                            }
                        }
                    }
                }
            }
        }
    }
}

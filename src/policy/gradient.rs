//! `gradient`, the gradient model of Lin and Keller (seed 000 section 3): abundant workers send
//! waiting tasks towards the nearest idle worker.
//!
//! A worker is *idle* below `low` waiting tasks and *abundant* above `high`. Its proximity is 0
//! when idle, else one more than its neighbours' least proximity, saturated at `d + 1`; it is
//! published in [`Shared`](super::machine::Shared) for the neighbours to read. New tasks stay
//! local (no allocating phase). Every `interval` ticks the worker recomputes and publishes its
//! proximity and, if abundant and an idle worker is within reach (`proximity <= d`), sends the
//! oldest waiting task to the neighbour with the least proximity, when that one is closer.

use super::machine::{Env, Machine};
use super::marks::{low_within_high, marks, MARKS};
use super::spec::{SharedState, Spec};
use super::{Policy, Reach};
use crate::sync::Ordering;
use crate::topology::TopologyGraph;

/// `gradient`: sender-initiated; the marks `low` (1), `high` (2) and `interval` (1
/// heartbeat); reads the neighbours' loads and publishes a proximity per worker.
pub(crate) const SPEC: Spec = Spec {
    params: MARKS,
    loads: |_| Reach::Neighbors,
    shared: |_| SharedState::Proximities,
    check: low_within_high,
    ..Spec::sender(
        "gradient",
        Policy::Gradient {
            low: 1,
            high: 2,
            interval: 1,
        },
        |p, _, _, _| {
            let (low, high, interval) = marks(p);
            Box::new(Gradient::new(low, high, interval))
        },
    )
};

/// One worker's `gradient` state: its parameters and the ticks since the last update.
#[derive(Clone, Debug)]
pub(crate) struct Gradient {
    low: usize,
    high: usize,
    interval: u32,
    ticks: u32,
}

impl Gradient {
    /// A machine with the water marks `low` and `high`, updating every `interval` ticks.
    pub(crate) fn new(low: usize, high: usize, interval: u32) -> Self {
        Gradient {
            low,
            high,
            interval,
            ticks: 0,
        }
    }
}

impl Machine for Gradient {
    fn tick(&mut self, env: &Env<'_>, oldest_hops: Option<u32>) -> Option<usize> {
        self.ticks += 1;
        if self.ticks < self.interval {
            return None;
        }
        self.ticks = 0;
        let (me, graph) = (env.me, env.graph);
        let load = env.loads.queued(me);
        let pr = |j: usize| env.shared.proximity(j);
        let own = proximity(me, load, self.low, graph, pr);
        env.shared.proximity[me].store(own, Ordering::Relaxed);
        oldest_hops?;
        target(me, load, self.high, own, graph, pr)
    }

    fn idle(&mut self, env: &Env<'_>) {
        // An idle worker is the gradient's sink: it says so at once, not at its next tick.
        if self.low > 0 {
            env.shared.proximity[env.me].store(0, Ordering::Relaxed);
        }
    }
}

/// The proximity of worker `me` with `own_load` waiting tasks: 0 when idle, else one more than
/// the least neighbour proximity, saturated at `d + 1`.
pub(crate) fn proximity(
    me: usize,
    own_load: usize,
    low: usize,
    graph: &TopologyGraph,
    proximity: impl Fn(usize) -> usize,
) -> usize {
    let cap = graph.diameter() + 1;
    if own_load < low {
        return 0;
    }
    let least = graph.neighbors(me).map(&proximity).min().unwrap_or(cap);
    (least + 1).min(cap)
}

/// The standing phase: the neighbour with the least proximity, if `me` is abundant
/// (`own_load > high`), its proximity says an idle worker is reachable (`<= d`) and that
/// neighbour is closer to it than `me`.
pub(crate) fn target(
    me: usize,
    own_load: usize,
    high: usize,
    own_proximity: usize,
    graph: &TopologyGraph,
    proximity: impl Fn(usize) -> usize,
) -> Option<usize> {
    if own_load <= high || own_proximity > graph.diameter() {
        return None;
    }
    let (target, least) = graph
        .neighbors(me)
        .map(|j| (j, proximity(j)))
        .min_by_key(|&(j, p)| (p, j))?;
    (own_proximity > least).then_some(target)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::policy::machine::testing::env;
    use crate::policy::machine::{machine_for, Machine, Shared};
    use crate::policy::Policy;
    use crate::sync::Ordering;
    use crate::Topology;

    /// Worker `me`'s `gradient:low=1,high=2,interval=1` machine.
    fn gradient(me: usize, workers: usize) -> Box<dyn Machine> {
        machine_for(&"gradient:interval=1".parse().unwrap(), me, workers, 1)
    }

    /// Shared state whose published proximities are `pr`.
    fn published(policy: &Policy, g: &crate::TopologyGraph, pr: &[usize]) -> Shared {
        let shared = Shared::new(policy, g);
        for (w, &p) in pr.iter().enumerate() {
            shared.proximity[w].store(p, Ordering::Relaxed);
        }
        shared
    }

    #[test]
    fn gradient_proximity_and_target() {
        let policy: Policy = "gradient:interval=1".parse().unwrap();
        let g = Topology::Ring.graph(5); // d = 2, cap 3
        let pr = [3, 0, 3, 3, 3];
        let saturated = [3, 3, 3, 3, 3];
        let (abundant, idle, neutral) = (vec![5, 0, 0, 0, 0], vec![0; 5], vec![2, 0, 0, 0, 0]);
        // A loaded worker is one step further than its closest neighbour (1 is idle)...
        let shared = published(&policy, &g, &pr);
        gradient(0, 5).tick(&env(0, &g, &abundant, &shared), None);
        assert_eq!(shared.proximity(0), 1);
        // ...an idle one is at 0...
        let shared = published(&policy, &g, &pr);
        gradient(0, 5).tick(&env(0, &g, &idle, &shared), None);
        assert_eq!(shared.proximity(0), 0);
        // ...and with no idle worker in sight the proximity saturates at d + 1.
        let shared = published(&policy, &g, &saturated);
        let loads = vec![0, 0, 5, 0, 0];
        gradient(2, 5).tick(&env(2, &g, &loads, &shared), None);
        assert_eq!(shared.proximity(2), 3);
        // Abundant worker 0 with proximity 1 sends towards worker 1 (proximity 0).
        let shared = published(&policy, &g, &pr);
        assert_eq!(
            gradient(0, 5).tick(&env(0, &g, &abundant, &shared), Some(0)),
            Some(1)
        );
        // Not abundant, or saturated proximity: nothing moves.
        let shared = published(&policy, &g, &pr);
        assert_eq!(
            gradient(0, 5).tick(&env(0, &g, &neutral, &shared), Some(0)),
            None
        );
        let shared = published(&policy, &g, &saturated);
        assert_eq!(
            gradient(0, 5).tick(&env(0, &g, &abundant, &shared), Some(0)),
            None
        );
        assert_eq!(shared.proximity(0), 3);
    }

    #[test]
    fn an_idle_worker_publishes_proximity_zero_at_once() {
        let policy: Policy = "gradient".parse().unwrap();
        let g = Topology::Ring.graph(3);
        let shared = published(&policy, &g, &[2, 2, 2]);
        let idle = vec![0; 3];
        let mut m = machine_for(&policy, 1, 3, 1);
        m.idle(&env(1, &g, &idle, &shared));
        assert_eq!(shared.proximity(1), 0);
        // Without a low-water mark no worker is ever idle in the model's sense.
        let policy: Policy = "gradient:low=0".parse().unwrap();
        let shared = published(&policy, &g, &[2, 2, 2]);
        machine_for(&policy, 1, 3, 1).idle(&env(1, &g, &idle, &shared));
        assert_eq!(shared.proximity(1), 2);
    }
}

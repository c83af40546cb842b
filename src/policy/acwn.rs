//! `acwn`, adaptive contracting within neighbourhood (seed 000 section 4): a task travels along
//! the steepest load gradient to a local minimum, at most the diameter `d` in hops.
//!
//! With `B(k)` the least load among `k`'s neighbours, the neighbourhood is *light* below `low`,
//! *heavy* at or above `high`, *moderate* in between.
//! - Allocating phase (contracting), for a new task or one that just arrived: heavy, or `d`
//!   hops made: keep it; a new task in a light neighbourhood goes to the least-loaded neighbour;
//!   any other task goes there only if that neighbour is less loaded than `k`.
//! - Standing phase (redistributing), every `interval` ticks while not heavy: the oldest waiting
//!   task, if it has hops left, goes to the least-loaded neighbour when that one is less loaded.

use super::machine::{Env, LoadView, Machine};
use super::marks::{low_within_high, marks, MARKS};
use super::spec::Spec;
use super::{Policy, Reach};
use crate::topology::TopologyGraph;

/// `acwn`: sender-initiated; the marks `low` (2), `high` (8) and `interval` (16 heartbeats);
/// reads the neighbours' loads; no shared state.
pub(crate) const SPEC: Spec = Spec {
    params: MARKS,
    loads: |_| Reach::Neighbors,
    check: low_within_high,
    ..Spec::sender(
        "acwn",
        Policy::Acwn {
            low: 2,
            high: 8,
            interval: 16,
        },
        |p, _, _, _| {
            let (low, high, interval) = marks(p);
            Box::new(Acwn::new(low, high, interval))
        },
    )
};

/// One worker's `acwn` state: its parameters and the ticks since the last standing step.
#[derive(Clone, Debug)]
pub(crate) struct Acwn {
    low: usize,
    high: usize,
    interval: u32,
    ticks: u32,
}

impl Acwn {
    /// A machine with the marks `low` and `high` and a standing step every `interval` ticks.
    pub(crate) fn new(low: usize, high: usize, interval: u32) -> Self {
        Acwn {
            low,
            high,
            interval,
            ticks: 0,
        }
    }
}

impl Machine for Acwn {
    fn place(&mut self, env: &Env<'_>, hops: u32, _arriving: bool) -> Option<usize> {
        allocate(env.me, hops, env.graph, env.loads, self.low, self.high)
    }

    fn tick(&mut self, env: &Env<'_>, oldest_hops: Option<u32>) -> Option<usize> {
        self.ticks += 1;
        if self.ticks < self.interval {
            return None;
        }
        self.ticks = 0;
        let hops = oldest_hops?;
        if hops as usize >= env.graph.diameter() {
            return None;
        }
        redistribute(env.me, env.graph, env.loads, self.high)
    }
}

/// The least-loaded neighbour of `me` and its load (ties: the lowest id), if `me` has any.
fn least_loaded_neighbor(
    me: usize,
    graph: &TopologyGraph,
    loads: &(impl LoadView + ?Sized),
) -> Option<(usize, usize)> {
    graph
        .neighbors(me)
        .map(|i| (i, loads.queued(i)))
        .min_by_key(|&(i, f)| (f, i))
}

/// The allocating phase (contracting) for a task with `hops` transfers at worker `me`: the
/// neighbour to send it to, or `None` to keep it.
pub(crate) fn allocate(
    me: usize,
    hops: u32,
    graph: &TopologyGraph,
    loads: &(impl LoadView + ?Sized),
    low: usize,
    high: usize,
) -> Option<usize> {
    let (target, least) = least_loaded_neighbor(me, graph, loads)?;
    if least >= high || hops as usize >= graph.diameter() {
        return None;
    }
    let light = least < low;
    let moves = if light && hops == 0 {
        true
    } else {
        loads.queued(me) > least
    };
    moves.then_some(target)
}

/// The standing phase (redistributing): the neighbour to receive one standing task, if the
/// neighbourhood is not heavy and a neighbour is less loaded than `me`.
pub(crate) fn redistribute(
    me: usize,
    graph: &TopologyGraph,
    loads: &(impl LoadView + ?Sized),
    high: usize,
) -> Option<usize> {
    let (target, least) = least_loaded_neighbor(me, graph, loads)?;
    (least < high && loads.queued(me) > least).then_some(target)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::policy::machine::testing::env;
    use crate::policy::machine::{machine_for, Machine, Shared};
    use crate::policy::Policy;
    use crate::Topology;

    /// Worker `me`'s `acwn` machine (low 2, high 8) with a standing step at every tick.
    fn acwn(me: usize, workers: usize) -> Box<dyn Machine> {
        machine_for(&"acwn:interval=1".parse().unwrap(), me, workers, 1)
    }

    #[test]
    fn acwn_contracts_new_tasks_in_a_light_neighbourhood() {
        let g = Topology::Ring.graph(5); // d = 2
        let shared = Shared::new(&Policy::RandomPolling, &g);
        let mut m = acwn(0, 5);
        let loads = vec![0, 1, 0, 0, 0];
        let e = env(0, &g, &loads, &shared);
        // Light (least neighbour load 0 < 2) and new: goes to the least-loaded neighbour (4).
        assert_eq!(m.place(&e, 0, false), Some(4));
        // Arrived (hops 1) in a light neighbourhood: only downhill. F(0) = 0 is not > 0.
        assert_eq!(m.place(&e, 1, true), None);
        // Hop limit d = 2 reached: kept.
        let steep = vec![9, 0, 0, 0, 0];
        let e = env(0, &g, &steep, &shared);
        assert_eq!(m.place(&e, 1, true), Some(1));
        assert_eq!(m.place(&e, 2, true), None);
    }

    #[test]
    fn acwn_keeps_tasks_when_heavy_and_moves_downhill_when_moderate() {
        let g = Topology::Complete.graph(3);
        let shared = Shared::new(&Policy::RandomPolling, &g);
        let mut m = acwn(0, 3);
        let heavy = vec![20, 8, 9];
        let e = env(0, &g, &heavy, &shared);
        assert_eq!(m.place(&e, 0, false), None);
        assert_eq!(m.tick(&e, Some(0)), None);
        let moderate = vec![5, 3, 4];
        let e = env(0, &g, &moderate, &shared);
        assert_eq!(m.place(&e, 0, false), Some(1));
        assert_eq!(m.tick(&e, Some(0)), Some(1));
        let uphill = vec![2, 3, 4];
        assert_eq!(m.place(&env(0, &g, &uphill, &shared), 0, false), None);
    }

    #[test]
    fn the_standing_phase_runs_every_interval_ticks_on_a_task_with_hops_left() {
        let g = Topology::Ring.graph(5); // d = 2
        let shared = Shared::new(&Policy::RandomPolling, &g);
        let mut m = machine_for(&"acwn:interval=3".parse().unwrap(), 0, 5, 1);
        let loads = vec![6, 1, 0, 0, 2];
        let e = env(0, &g, &loads, &shared);
        let moves: Vec<_> = (0..6).map(|_| m.tick(&e, Some(0))).collect();
        assert_eq!(moves, [None, None, Some(1), None, None, Some(1)]);
        // No waiting task, or one that has made `d` hops: nothing moves, the count restarts.
        for oldest in [None, Some(2)] {
            let moves: Vec<_> = (0..3).map(|_| m.tick(&e, oldest)).collect();
            assert_eq!(moves, [None, None, None]);
        }
    }
}

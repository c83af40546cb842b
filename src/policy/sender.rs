//! Sender-initiated placement: where a busy worker sends a task (`docs/policies.md`,
//! "Sender-initiated policies").
//!
//! Pure decisions over the topology and the published loads ([`LoadView`]); the worker loop
//! carries them out by pushing into the chosen worker's inbox. A task "placed" here travels one
//! hop; its hop count travels with it.

use super::receiver::LoadView;
use crate::topology::TopologyGraph;

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

/// ACWN's allocating phase (contracting) for a task with `hops` transfers at worker `me`: the
/// neighbour to send it to, or `None` to keep it.
///
/// With `B(k)` the least neighbour load: heavy (`B >= high`) or `hops >= d` keeps; otherwise a
/// new task in a light neighbourhood (`B < low`) always goes to the least-loaded neighbour, and any
/// other task goes there only if that neighbour is less loaded than `me`.
pub(crate) fn acwn_allocate(
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

/// ACWN's standing phase (redistributing): the neighbour to receive one standing task, if the
/// neighbourhood is not heavy and a neighbour is less loaded than `me`.
pub(crate) fn acwn_redistribute(
    me: usize,
    graph: &TopologyGraph,
    loads: &(impl LoadView + ?Sized),
    high: usize,
) -> Option<usize> {
    let (target, least) = least_loaded_neighbor(me, graph, loads)?;
    (least < high && loads.queued(me) > least).then_some(target)
}

/// The gradient model's proximity of a worker with `own_load` waiting tasks: 0 when idle, else
/// one more than the least neighbour proximity, saturated at `d + 1`.
pub(crate) fn gradient_proximity(
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

/// The gradient model's standing phase: the neighbour with the least proximity, if `me` is
/// abundant (`own_load > high`), its proximity says an idle worker is reachable (`<= d`) and that
/// neighbour is closer to it than `me`.
pub(crate) fn gradient_target(
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
    use super::*;
    use crate::Topology;

    #[test]
    fn acwn_contracts_new_tasks_in_a_light_neighbourhood() {
        let g = Topology::Ring.graph(5); // d = 2
        let loads = vec![0, 1, 0, 0, 0];
        // Light (least neighbour load 0 < 2) and new: goes to the least-loaded neighbour (4).
        assert_eq!(acwn_allocate(0, 0, &g, &loads, 2, 8), Some(4));
        // Arrived (hops 1) in a light neighbourhood: only downhill. F(0) = 0 is not > 0.
        assert_eq!(acwn_allocate(0, 1, &g, &loads, 2, 8), None);
        // Hop limit d = 2 reached: kept.
        let steep = vec![9, 0, 0, 0, 0];
        assert_eq!(acwn_allocate(0, 1, &g, &steep, 2, 8), Some(1));
        assert_eq!(acwn_allocate(0, 2, &g, &steep, 2, 8), None);
    }

    #[test]
    fn acwn_keeps_tasks_when_heavy_and_moves_downhill_when_moderate() {
        let g = Topology::Complete.graph(3);
        let heavy = vec![20, 8, 9];
        assert_eq!(acwn_allocate(0, 0, &g, &heavy, 2, 8), None);
        assert_eq!(acwn_redistribute(0, &g, &heavy, 8), None);
        let moderate = vec![5, 3, 4];
        assert_eq!(acwn_allocate(0, 0, &g, &moderate, 2, 8), Some(1));
        assert_eq!(acwn_redistribute(0, &g, &moderate, 8), Some(1));
        let uphill = vec![2, 3, 4];
        assert_eq!(acwn_allocate(0, 0, &g, &uphill, 2, 8), None);
    }

    #[test]
    fn gradient_proximity_and_target() {
        let g = Topology::Ring.graph(5); // d = 2, cap 3
        let pr = [3, 0, 3, 3, 3];
        assert_eq!(gradient_proximity(0, 5, 1, &g, |j| pr[j]), 1);
        assert_eq!(gradient_proximity(0, 0, 1, &g, |j| pr[j]), 0);
        assert_eq!(gradient_proximity(2, 5, 1, &g, |j| [3, 3, 3, 3, 3][j]), 3);
        // Abundant worker 0 with proximity 1 sends towards worker 1 (proximity 0).
        assert_eq!(gradient_target(0, 5, 2, 1, &g, |j| pr[j]), Some(1));
        // Not abundant, or saturated proximity: nothing moves.
        assert_eq!(gradient_target(0, 2, 2, 1, &g, |j| pr[j]), None);
        assert_eq!(gradient_target(0, 5, 2, 3, &g, |j| pr[j]), None);
    }
}

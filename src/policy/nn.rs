//! `nn`, nearest neighbour: an idle worker asks its topology neighbours in round robin, with a
//! per-worker cursor (seed 002 section 4).

use super::machine::{Env, Machine};
use super::spec::Spec;
use super::{Policy, Reach};

/// `nn`: no parameters, no shared state; only the topology neighbours are asked.
pub(crate) const SPEC: Spec = Spec {
    reach: |_| Reach::Neighbors,
    ..Spec::receiver("nn", Policy::NearestNeighbor, |_, _, _, _| {
        Box::new(NearestNeighbor::default())
    })
};

/// One worker's `nn` state: where it is in its neighbour list.
#[derive(Clone, Debug, Default)]
pub(crate) struct NearestNeighbor {
    /// Index into the neighbour list of the next victim.
    cursor: usize,
}

impl Machine for NearestNeighbor {
    fn round_len(&self, env: &Env<'_>) -> usize {
        env.graph.neighbors(env.me).len()
    }

    fn next_victim(&mut self, env: &Env<'_>) -> Option<usize> {
        let mut neighbors = env.graph.neighbors(env.me);
        let len = neighbors.len();
        if env.graph.len() < 2 || len == 0 {
            return None;
        }
        let victim = neighbors.nth(self.cursor % len);
        self.cursor = (self.cursor + 1) % len;
        victim
    }

    fn may_ask(&self, env: &Env<'_>, victim: usize) -> bool {
        env.graph.neighbors(env.me).any(|w| w == victim)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::policy::machine::testing::draws;
    use crate::Topology;

    #[test]
    fn nn_cycles_over_neighbours_only() {
        assert_eq!(
            draws("nn", 0, Topology::Hypercube, 8, 6),
            [1, 2, 4, 1, 2, 4]
        );
    }
}

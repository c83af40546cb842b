//! `rp`, random polling: an idle worker asks a uniformly random other worker, with a fresh draw
//! per request (seed 002 section 4).

use super::machine::{Env, Machine};
use super::rng::XorShift;
use super::spec::Spec;
use super::Policy;

/// `rp`: no parameters, no shared state, any other worker may be asked.
pub(crate) const SPEC: Spec = Spec::receiver("rp", Policy::RandomPolling, |_, me, _, seed| {
    Box::new(RandomPolling::new(me, seed))
});

/// One worker's `rp` state: its own generator.
#[derive(Clone, Debug)]
pub(crate) struct RandomPolling {
    rng: XorShift,
}

impl RandomPolling {
    /// Worker `me`'s machine in a run seeded with `seed`.
    pub(crate) fn new(me: usize, seed: u64) -> Self {
        RandomPolling {
            rng: XorShift::for_worker(seed, me),
        }
    }
}

impl Machine for RandomPolling {
    fn round_len(&self, env: &Env<'_>) -> usize {
        env.graph.len() - 1
    }

    fn next_victim(&mut self, env: &Env<'_>) -> Option<usize> {
        let p = env.graph.len();
        if p < 2 {
            return None;
        }
        // A draw among the P - 1 others: shift the ids at and above `me` up by one.
        let r = self.rng.below(p - 1);
        Some(if r >= env.me { r + 1 } else { r })
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::policy::machine::testing::draws;
    use crate::Topology;

    #[test]
    fn rp_never_picks_self_and_covers_everyone() {
        let d = draws("rp", 3, Topology::Complete, 5, 400);
        assert!(d.iter().all(|&v| v != 3 && v < 5));
        for w in [0, 1, 2, 4] {
            assert!(d.contains(&w));
        }
    }
}

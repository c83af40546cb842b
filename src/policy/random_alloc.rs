//! `random-alloc`, randomized allocation (seed 000 section 3, seed 002 section 6.3): every new
//! task goes to a uniformly random worker in `0..P`, possibly the one that made it; an arriving
//! task stays. No standing phase.

use super::machine::{Env, Machine};
use super::rng::XorShift;
use super::spec::Spec;
use super::Policy;

/// `random-alloc`: sender-initiated, no parameters, no shared state.
pub(crate) const SPEC: Spec =
    Spec::sender("random-alloc", Policy::RandomAlloc, |_, me, _, seed| {
        Box::new(RandomAlloc::new(me, seed))
    });

/// One worker's `random-alloc` state: its own generator.
#[derive(Clone, Debug)]
pub(crate) struct RandomAlloc {
    rng: XorShift,
}

impl RandomAlloc {
    /// Worker `me`'s machine in a run seeded with `seed`.
    pub(crate) fn new(me: usize, seed: u64) -> Self {
        RandomAlloc {
            rng: XorShift::for_worker(seed, me),
        }
    }
}

impl Machine for RandomAlloc {
    fn place(&mut self, env: &Env<'_>, _hops: u32, arriving: bool) -> Option<usize> {
        if arriving {
            return None;
        }
        let m = self.rng.below(env.graph.len());
        (m != env.me).then_some(m)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::policy::machine::testing::env;
    use crate::policy::machine::{machine_for, Shared};
    use crate::policy::Policy;
    use crate::Topology;

    #[test]
    fn new_tasks_go_anywhere_and_arrivals_stay() {
        let policy = Policy::RandomAlloc;
        let g = Topology::Ring.graph(4);
        let shared = Shared::new(&policy, &g);
        let loads = vec![0; 4];
        let e = env(2, &g, &loads, &shared);
        let mut m = machine_for(&policy, 2, 4, 9);
        let placed: Vec<_> = (0..400).map(|_| m.place(&e, 0, false)).collect();
        // Staying (None) is the draw of itself; every other worker is drawn, neighbour or not.
        assert!(placed.contains(&None));
        for w in [0, 1, 3] {
            assert!(placed.contains(&Some(w)), "{w}");
        }
        assert!(!placed.contains(&Some(2)));
        assert!((0..20).all(|_| m.place(&e, 1, true).is_none()));
    }
}

//! `arr`, asynchronous round robin: each worker keeps its own cursor over all other workers,
//! starting just after itself (seed 002 section 4).

use super::machine::{Env, Machine};
use super::spec::Spec;
use super::Policy;

/// `arr`: no parameters, no shared state (each worker keeps its own cursor).
pub(crate) const SPEC: Spec =
    Spec::receiver("arr", Policy::AsyncRoundRobin, |_, me, workers, _| {
        Box::new(AsyncRoundRobin::new(me, workers))
    });

/// One worker's `arr` state: the next target id.
#[derive(Clone, Debug)]
pub(crate) struct AsyncRoundRobin {
    target: usize,
}

impl AsyncRoundRobin {
    /// Worker `me`'s machine among `workers`: its cursor starts at `(me + 1) mod P`.
    pub(crate) fn new(me: usize, workers: usize) -> Self {
        AsyncRoundRobin {
            target: if workers > 1 { (me + 1) % workers } else { 0 },
        }
    }
}

impl Machine for AsyncRoundRobin {
    fn round_len(&self, env: &Env<'_>) -> usize {
        env.graph.len() - 1
    }

    fn next_victim(&mut self, env: &Env<'_>) -> Option<usize> {
        let p = env.graph.len();
        if p < 2 {
            return None;
        }
        let mut victim = self.target % p;
        if victim == env.me {
            victim = (victim + 1) % p;
        }
        self.target = (victim + 1) % p;
        Some(victim)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::policy::machine::testing::draws;
    use crate::Topology;

    #[test]
    fn arr_starts_after_self_and_skips_self() {
        assert_eq!(
            draws("arr", 2, Topology::Complete, 4, 6),
            [3, 0, 1, 3, 0, 1]
        );
    }
}

//! `grr` and `grr-m`, global round robin: one pool-wide counter `TARGET`; a request asks
//! `TARGET mod P` and advances it, skipping the asker (seed 002 section 4). The two differ only
//! in how a value of the counter is drawn ([`Choice`]): `grr` increments it directly (every
//! request serialises on one cache line), `grr-m` through the software combining tree of
//! [`super::combining`], which hands out the same sequence of values. Both run the same machine;
//! the pool-wide state ([`Shared::draw`]) holds the counter or the tree.

#[cfg(doc)]
use super::machine::Shared;
use super::machine::{Env, Machine};
use super::spec::{Choice, Param, SharedState, Spec, Values};
use super::Policy;

/// `grr`: no parameters; the counter is pool-wide.
pub(crate) const SPEC: Spec = Spec {
    choice: Choice::Counter,
    shared: |_| SharedState::Counter,
    ..Spec::receiver("grr", Policy::GlobalRoundRobin, |_, _, _, _| {
        Box::new(GlobalRoundRobin)
    })
};

/// The largest `grr-m` window: a request spins at most this many iterations in all, over the
/// tree levels it climbs, waiting for partners (and none when it is alone in the tree).
pub(crate) const MAX_WINDOW: u32 = 1024;

/// `grr-m`: the combining tree is pool-wide; `window` (64) bounds a request's wait for
/// partners.
pub(crate) const SPEC_M: Spec = Spec {
    params: &[Param {
        key: "window",
        values: Values::Int {
            lo: 0,
            hi: MAX_WINDOW as usize,
        },
        allowed: "an integer 0 to 1024 (spin iterations per request)",
        get: |p| window(p) as usize,
        set: |p, v| {
            if let Policy::GrrCombining { window } = p {
                *window = v as u32;
            }
        },
    }],
    choice: Choice::CombiningTree,
    shared: |p| SharedState::CombiningTree { window: window(p) },
    ..Spec::receiver(
        "grr-m",
        Policy::GrrCombining { window: 64 },
        |_, _, _, _| Box::new(GlobalRoundRobin),
    )
};

/// The window of a `grr-m` policy.
fn window(policy: &Policy) -> u32 {
    match *policy {
        Policy::GrrCombining { window } => window,
        _ => unreachable!("grr-m's spec is only asked about grr-m"),
    }
}

/// One worker's `grr` / `grr-m` state: none; the counter (or the tree in front of it) is
/// pool-wide.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct GlobalRoundRobin;

impl Machine for GlobalRoundRobin {
    /// Every request draws a value of the pool-wide counter (and under `grr-m` climbs the
    /// combining tree), so a round is `2 ⌈log2 P⌉` requests rather than `P − 1`. An idle
    /// worker's search before it sleeps then stays logarithmic in the pool's size (with P − 1, a
    /// thousand idle workers kept a 2-core machine busy for seconds combining), and the sleep
    /// re-check still looks at every deque, so visible work is never slept through.
    fn round_len(&self, env: &Env<'_>) -> usize {
        let p = env.graph.len();
        let log2 = (usize::BITS - (p - 1).leading_zeros()) as usize;
        (p - 1).min(2 * log2)
    }

    fn next_victim(&mut self, env: &Env<'_>) -> Option<usize> {
        let p = env.graph.len();
        if p < 2 {
            return None;
        }
        loop {
            let victim = (env.shared.draw(env.me) % p as u64) as usize;
            if victim != env.me {
                return Some(victim);
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::policy::machine::testing::{draws, env};
    use crate::policy::machine::{machine_for, Shared};
    use crate::policy::Policy;
    use crate::Topology;

    #[test]
    fn grr_follows_the_global_counter_skipping_self() {
        assert_eq!(draws("grr", 1, Topology::Ring, 3, 4), [0, 2, 0, 2]);
        assert_eq!(draws("grr-m", 1, Topology::Ring, 3, 4), [0, 2, 0, 2]);
    }

    #[test]
    fn a_round_is_logarithmic_in_the_pool() {
        for (p, want) in [(1, 0), (2, 1), (3, 2), (8, 6), (9, 8), (1024, 20)] {
            for name in ["grr", "grr-m"] {
                let policy: Policy = name.parse().unwrap();
                let g = Topology::Hypercube.graph(p);
                let shared = Shared::new(&policy, &g);
                let loads = vec![0; p];
                let m = machine_for(&policy, 0, p, 1);
                assert_eq!(
                    m.round_len(&env(0, &g, &loads, &shared)),
                    want,
                    "{name} P={p}"
                );
            }
        }
    }
}

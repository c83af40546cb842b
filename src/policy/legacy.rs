//! TEMPORARY adapter: the existing per-policy code behind the [`Machine`] hooks, until each
//! policy has its own file.

use super::machine::{Env, Machine};
use super::receiver::Victims;
use super::{sender, Policy};
use crate::sync::Ordering;

#[derive(Debug)]
pub(crate) struct Legacy {
    policy: Policy,
    victims: Victims,
    ticks: u32,
}

impl Legacy {
    pub(crate) fn new(policy: &Policy, me: usize, workers: usize, seed: u64) -> Self {
        Legacy {
            policy: *policy,
            victims: Victims::new(me, workers, seed),
            ticks: 0,
        }
    }
}

impl Machine for Legacy {
    fn round_len(&self, env: &Env<'_>) -> usize {
        if self.policy.is_sender_initiated() || env.graph.len() < 2 {
            return 0;
        }
        self.victims.round_len(&self.policy, env.me, env.graph)
    }
    fn begin_round(&mut self, _env: &Env<'_>) {
        self.victims.begin_round();
    }
    fn next_victim(&mut self, env: &Env<'_>) -> Option<usize> {
        self.victims
            .next(&self.policy, env.me, env.graph, env.shared, env.loads)
    }
    fn request_failed(&mut self, _env: &Env<'_>, victim: usize) {
        self.victims.failed(&self.policy, victim);
    }
    fn place(&mut self, env: &Env<'_>, hops: u32, arriving: bool) -> Option<usize> {
        match self.policy {
            Policy::RandomAlloc if !arriving => {
                let m = self.victims.random_worker(env.graph.len());
                (m != env.me).then_some(m)
            }
            Policy::Acwn { low, high, .. } => {
                sender::acwn_allocate(env.me, hops, env.graph, env.loads, low, high)
            }
            _ => None,
        }
    }
    fn tick(&mut self, env: &Env<'_>, oldest_hops: Option<u32>) -> Option<usize> {
        let interval = match self.policy {
            Policy::Acwn { interval, .. } | Policy::Gradient { interval, .. } => interval,
            _ => return None,
        };
        self.ticks += 1;
        if self.ticks < interval {
            return None;
        }
        self.ticks = 0;
        let me = env.me;
        let graph = env.graph;
        match self.policy {
            Policy::Acwn { high, .. } => {
                let hops = oldest_hops?;
                if hops as usize >= graph.diameter() {
                    return None;
                }
                sender::acwn_redistribute(me, graph, env.loads, high)
            }
            Policy::Gradient { low, high, .. } => {
                let load = env.loads.queued(me);
                let pr = |j: usize| env.shared.proximity(j);
                let own = sender::gradient_proximity(me, load, low, graph, pr);
                env.shared.proximity[me].store(own, Ordering::Relaxed);
                oldest_hops?;
                sender::gradient_target(me, load, high, own, graph, pr)
            }
            _ => None,
        }
    }
    fn idle(&mut self, env: &Env<'_>) {
        if let Some(d) = &env.shared.donors {
            d.leave(env.me);
        }
        if let Policy::Gradient { low, .. } = self.policy {
            if low > 0 {
                env.shared.proximity[env.me].store(0, Ordering::Relaxed);
            }
        }
    }
    fn busy(&mut self, env: &Env<'_>) {
        if let Some(d) = &env.shared.donors {
            d.join(env.me);
        }
    }
}

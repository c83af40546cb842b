//! `sb`, scheduler based: a pool-wide FIFO `DONOR` of workers believed to have work. An idle
//! worker leaves it and asks the donors in FIFO round robin; a worker that obtains work joins
//! it again (seed 002 section 4). The queue lives in [`super::machine::Shared`].

use super::machine::{Env, Machine};
use super::spec::{Choice, SharedState, Spec};
use super::Policy;
use crate::sync::{AtomicBool, Mutex, Ordering};
use std::collections::VecDeque;

/// `sb`: no parameters; the donor queue is pool-wide.
pub(crate) const SPEC: Spec = Spec {
    choice: Choice::Scheduler,
    shared: |_| SharedState::DonorQueue,
    ..Spec::receiver("sb", Policy::SchedulerBased, |_, _, _, _| {
        Box::new(SchedulerBased)
    })
};

/// SB's pool-wide FIFO of workers believed to have work.
///
/// Membership is also kept in one flag per worker, so that joining when already a member (and
/// leaving when not one) costs a relaxed load rather than the lock.
pub(crate) struct DonorQueue {
    queue: Mutex<VecDeque<usize>>,
    member: Vec<AtomicBool>,
}

impl DonorQueue {
    /// An empty queue for `workers` workers.
    pub(crate) fn new(workers: usize) -> Self {
        DonorQueue {
            queue: Mutex::new(VecDeque::with_capacity(workers)),
            member: (0..workers).map(|_| AtomicBool::new(false)).collect(),
        }
    }

    /// Appends `w` unless it is already a donor.
    pub(crate) fn join(&self, w: usize) {
        if self.member[w].load(Ordering::Relaxed) {
            return;
        }
        let mut q = self.queue.lock();
        if !self.member[w].load(Ordering::Relaxed) {
            self.member[w].store(true, Ordering::Relaxed);
            q.push_back(w);
        }
    }

    /// Removes `w` (an idle worker is no donor).
    pub(crate) fn leave(&self, w: usize) {
        if !self.member[w].load(Ordering::Relaxed) {
            return;
        }
        let mut q = self.queue.lock();
        if self.member[w].load(Ordering::Relaxed) {
            self.member[w].store(false, Ordering::Relaxed);
            q.retain(|&d| d != w);
        }
    }

    /// The next donor in FIFO round robin (it moves to the back), never `me`.
    pub(crate) fn next(&self, me: usize) -> Option<usize> {
        let mut q = self.queue.lock();
        for _ in 0..q.len() {
            let d = q.pop_front()?;
            q.push_back(d);
            if d != me {
                return Some(d);
            }
        }
        None
    }

    /// Whether `w` is a donor now.
    pub(crate) fn contains(&self, w: usize) -> bool {
        self.member[w].load(Ordering::Relaxed)
    }
}

/// One worker's `sb` state: none of its own; the donor queue is pool-wide.
#[derive(Clone, Debug, Default)]
pub(crate) struct SchedulerBased;

impl Machine for SchedulerBased {
    fn round_len(&self, env: &Env<'_>) -> usize {
        env.graph.len() - 1
    }

    fn next_victim(&mut self, env: &Env<'_>) -> Option<usize> {
        if env.graph.len() < 2 {
            return None;
        }
        env.shared.donors.as_ref()?.next(env.me)
    }

    fn idle(&mut self, env: &Env<'_>) {
        if let Some(donors) = &env.shared.donors {
            donors.leave(env.me);
        }
    }

    fn busy(&mut self, env: &Env<'_>) {
        if let Some(donors) = &env.shared.donors {
            donors.join(env.me);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::policy::machine::testing::env;
    use crate::policy::machine::{machine_for, Shared};
    use crate::policy::Policy;
    use crate::Topology;

    #[test]
    fn donor_queue_rotates_and_skips_the_asker() {
        let d = DonorQueue::new(4);
        d.join(2);
        d.join(1);
        d.join(2);
        assert_eq!(d.next(0), Some(2));
        assert_eq!(d.next(0), Some(1));
        assert_eq!(d.next(2), Some(1));
        d.leave(1);
        assert_eq!(d.next(2), None);
        assert!(d.contains(2) && !d.contains(1));
    }

    #[test]
    fn busy_workers_are_donors_and_idle_ones_are_not() {
        let policy = Policy::SchedulerBased;
        let g = Topology::Complete.graph(4);
        let shared = Shared::new(&policy, &g);
        let loads = vec![0; 4];
        let mut m: Vec<_> = (0..4).map(|k| machine_for(&policy, k, 4, 1)).collect();
        m[2].busy(&env(2, &g, &loads, &shared));
        m[1].busy(&env(1, &g, &loads, &shared));
        assert_eq!(m[0].next_victim(&env(0, &g, &loads, &shared)), Some(2));
        assert_eq!(m[0].next_victim(&env(0, &g, &loads, &shared)), Some(1));
        m[1].idle(&env(1, &g, &loads, &shared));
        assert!(shared.is_donor(2) && !shared.is_donor(1));
        assert_eq!(m[2].next_victim(&env(2, &g, &loads, &shared)), None);
    }
}

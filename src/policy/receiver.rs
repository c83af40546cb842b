//! Receiver-initiated victim choice: whom an idle worker asks next.
//!
//! [`Victims`] is one worker's private decision state (random generator, cursors, memory of
//! failed requests); [`Shared`] is the pool-wide state some policies need (GRR's counter, GRR-M's
//! combining tree, SB's donor queue). Both are pure decisions over the topology, the published
//! loads ([`LoadView`]) and these counters: they never touch a deque themselves.

pub(crate) use super::machine::{LoadView, Shared};
use super::{LoadMeasure, LoadScope, Policy};
use crate::sync::{AtomicBool, Mutex, Ordering};
use crate::topology::TopologyGraph;
use std::collections::VecDeque;

/// A small, fast generator for victim draws (xorshift64*).
#[derive(Clone, Debug)]
pub(crate) struct XorShift(u64);

impl XorShift {
    pub(crate) fn new(seed: u64) -> Self {
        // Spread nearby seeds apart (splitmix64 finaliser); never zero.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        XorShift((z ^ (z >> 31)) | 1)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
}

/// SB's pool-wide FIFO of workers believed to have work.
pub(crate) struct DonorQueue {
    queue: Mutex<VecDeque<usize>>,
    member: Vec<AtomicBool>,
}

impl DonorQueue {
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

    pub(crate) fn contains(&self, w: usize) -> bool {
        self.member[w].load(Ordering::Relaxed)
    }
}

impl Shared {
    /// The next value of the global round-robin sequence.
    fn next_target(&self, me: usize) -> u64 {
        match &self.tree {
            Some(tree) => tree.next(me),
            None => self.grr.fetch_add(1, Ordering::Relaxed),
        }
    }
}

/// One worker's victim-choice state.
#[derive(Clone, Debug)]
pub(crate) struct Victims {
    rng: XorShift,
    /// `arr`: the next target id.
    cursor: usize,
    /// `nn`: index into the neighbour list.
    nn_cursor: usize,
    /// `most-loaded`: the queue length a victim showed when a request to it failed
    /// (`usize::MAX`: none). The victim counts as empty until its published length changes.
    failed_at: Vec<usize>,
    /// `most-loaded`: the queue length the last chosen victim showed.
    last_seen: usize,
}

impl Victims {
    pub(crate) fn new(me: usize, workers: usize, seed: u64) -> Self {
        Victims {
            rng: XorShift::new(seed ^ (me as u64).wrapping_mul(0x9E37_79B9)),
            cursor: if workers > 1 { (me + 1) % workers } else { 0 },
            nn_cursor: 0,
            // Sized on first use by `most-loaded`, the only policy that needs it: P entries per
            // worker would be P² per pool for every policy.
            failed_at: Vec::new(),
            last_seen: 0,
        }
    }

    /// Requests worth making in one search round before the worker considers sleeping.
    ///
    /// One per other worker, or per neighbour, except under `grr` and `grr-m`: there every
    /// request draws a value of the pool-wide counter (and under `grr-m` climbs the combining
    /// tree), so a round is `2 ⌈log2 P⌉` requests rather than `P − 1`. An idle worker's search
    /// before it sleeps then stays logarithmic in the pool's size (with P − 1, a thousand idle
    /// workers kept a 2-core machine busy for seconds combining), and the sleep re-check still
    /// looks at every deque, so visible work is never slept through.
    pub(crate) fn round_len(&self, policy: &Policy, me: usize, graph: &TopologyGraph) -> usize {
        let p = graph.len();
        match policy {
            Policy::GlobalRoundRobin | Policy::GrrCombining { .. } => {
                let log2 = (usize::BITS - (p - 1).leading_zeros()) as usize;
                (p - 1).min(2 * log2)
            }
            Policy::NearestNeighbor
            | Policy::MostLoaded {
                scope: LoadScope::Neighbors,
                ..
            } => graph.neighbors(me).len(),
            _ => p - 1,
        }
    }

    /// Starts a search round. `most-loaded` forgets failed victims here, so a victim that was
    /// empty once is skipped for the rest of the round but asked again in the next one (its
    /// length may have gone to zero and back, which a reader cannot see).
    pub(crate) fn begin_round(&mut self) {
        self.failed_at.fill(usize::MAX);
    }

    /// The victim of the next request of worker `me`, or `None` when the policy sees no
    /// worker worth asking right now.
    pub(crate) fn next(
        &mut self,
        policy: &Policy,
        me: usize,
        graph: &TopologyGraph,
        shared: &Shared,
        loads: &(impl LoadView + ?Sized),
    ) -> Option<usize> {
        let p = graph.len();
        if p < 2 {
            return None;
        }
        match policy {
            Policy::RandomPolling => {
                let r = self.rng.below(p - 1);
                Some(if r >= me { r + 1 } else { r })
            }
            Policy::NearestNeighbor => {
                let mut n = graph.neighbors(me);
                let len = n.len();
                let v = n.nth(self.nn_cursor % len);
                self.nn_cursor = (self.nn_cursor + 1) % len;
                v
            }
            Policy::AsyncRoundRobin => {
                let mut v = self.cursor % p;
                if v == me {
                    v = (v + 1) % p;
                }
                self.cursor = (v + 1) % p;
                Some(v)
            }
            Policy::GlobalRoundRobin | Policy::GrrCombining { .. } => loop {
                let v = (shared.next_target(me) % p as u64) as usize;
                if v != me {
                    return Some(v);
                }
            },
            Policy::SchedulerBased => shared.donors.as_ref()?.next(me),
            // Sender-initiated policies send no requests.
            Policy::Acwn { .. } | Policy::Gradient { .. } | Policy::RandomAlloc => None,
            Policy::MostLoaded {
                scope,
                min_load,
                load,
            } => {
                let consider =
                    |w: usize, best: &mut Option<(usize, f64, usize)>, failed: &mut [usize]| {
                        let queued = loads.queued(w);
                        if failed[w] != usize::MAX {
                            if failed[w] == queued {
                                return;
                            }
                            failed[w] = usize::MAX;
                        }
                        if queued < *min_load {
                            return;
                        }
                        let weight = match load {
                            LoadMeasure::Count => queued as f64,
                            LoadMeasure::Time => {
                                queued as f64 * loads.ns_per_task(w)
                                    / loads.speed(w).max(f64::MIN_POSITIVE)
                            }
                        };
                        if best.is_none_or(|(_, b, _)| weight > b) {
                            *best = Some((w, weight, queued));
                        }
                    };
                if self.failed_at.len() != p {
                    self.failed_at = vec![usize::MAX; p];
                }
                let mut best = None;
                match scope {
                    LoadScope::Neighbors => {
                        for w in graph.neighbors(me) {
                            consider(w, &mut best, &mut self.failed_at);
                        }
                    }
                    LoadScope::All => {
                        for w in (0..p).filter(|&w| w != me) {
                            consider(w, &mut best, &mut self.failed_at);
                        }
                    }
                }
                let (w, _, queued) = best?;
                self.last_seen = queued;
                Some(w)
            }
        }
    }

    /// A uniformly random worker in `0..workers` (randomized allocation).
    pub(crate) fn random_worker(&mut self, workers: usize) -> usize {
        self.rng.below(workers)
    }

    /// Tells the state that the request to `victim`, the last victim chosen, failed.
    pub(crate) fn failed(&mut self, policy: &Policy, victim: usize) {
        if matches!(policy, Policy::MostLoaded { .. }) {
            self.failed_at[victim] = self.last_seen;
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::Topology;

    fn draws(policy: &str, me: usize, topology: Topology, p: usize, n: usize) -> Vec<usize> {
        let policy: Policy = policy.parse().unwrap();
        let g = topology.graph(p);
        let shared = Shared::new(&policy, &g);
        let mut v = Victims::new(me, p, 7);
        let loads = vec![1; p];
        (0..n)
            .map(|_| v.next(&policy, me, &g, &shared, &loads).unwrap())
            .collect()
    }

    #[test]
    fn arr_starts_after_self_and_skips_self() {
        assert_eq!(
            draws("arr", 2, Topology::Complete, 4, 6),
            [3, 0, 1, 3, 0, 1]
        );
    }

    #[test]
    fn nn_cycles_over_neighbours_only() {
        assert_eq!(
            draws("nn", 0, Topology::Hypercube, 8, 6),
            [1, 2, 4, 1, 2, 4]
        );
    }

    #[test]
    fn grr_follows_the_global_counter_skipping_self() {
        assert_eq!(draws("grr", 1, Topology::Ring, 3, 4), [0, 2, 0, 2]);
        assert_eq!(draws("grr-m", 1, Topology::Ring, 3, 4), [0, 2, 0, 2]);
    }

    #[test]
    fn rp_never_picks_self_and_covers_everyone() {
        let d = draws("rp", 3, Topology::Complete, 5, 400);
        assert!(d.iter().all(|&v| v != 3 && v < 5));
        for w in [0, 1, 2, 4] {
            assert!(d.contains(&w));
        }
    }

    #[test]
    fn most_loaded_picks_the_largest_and_forgets_failures_until_load_changes() {
        let policy: Policy = "most-loaded:scope=all".parse().unwrap();
        let g = Topology::Ring.graph(4);
        let shared = Shared::new(&policy, &g);
        let mut v = Victims::new(0, 4, 1);
        let mut loads = vec![0, 3, 5, 0];
        assert_eq!(v.next(&policy, 0, &g, &shared, &loads), Some(2));
        v.failed(&policy, 2);
        assert_eq!(v.next(&policy, 0, &g, &shared, &loads), Some(1));
        loads[2] = 6;
        assert_eq!(v.next(&policy, 0, &g, &shared, &loads), Some(2));
        let loads = vec![0, 0, 0, 0];
        assert_eq!(v.next(&policy, 0, &g, &shared, &loads), None);
    }

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
}

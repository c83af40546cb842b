//! GRR-M's software combining tree.
//!
//! Global round robin hands out the values of one pool-wide counter `TARGET`; every idle worker
//! needs the next value, so the counter becomes a hot spot as workers multiply (seed 002,
//! section 4.4). GRR-M combines those increments on the way to the counter: the tree is embedded
//! in the topology (see [`crate::Topology::tree_parent`]), every worker enters at its own node, and
//! requests that meet at a node merge.
//!
//! At a node, the first arrival becomes the *representative* of a new round and keeps the round
//! open for a share of the request's `window` spin iterations; later arrivals join it as
//! *passengers*, each recording its offset (the count already gathered) and adding its own count.
//! A request spends at most `window` spins over all the levels it climbs (a node at depth `d`
//! gets `1 / (d + 1)` of what is left), and none while it is the only request in the tree,
//! since then nobody can join it: an idle worker's search costs `O(window)` per request whatever
//! the pool's size, and a lone request goes straight to the counter. The representative then closes
//! the round and carries the combined count one level up, where the same happens again. At the
//! root a single `fetch_add(n)` claims `n` consecutive values, and on the way down every round
//! hands its passengers `base + offset`. Hence every requester receives a distinct range, the
//! ranges of one round are consecutive, and over a run every counter value is handed out exactly
//! once.
//!
//! Invariant (kept under each node's lock): a node has at most one open round, and the round's
//! `count` equals the sum of the counts of the requests that joined it.

use crate::sync::{
    broken, spin_hint, Arc, AtomicU64, AtomicUsize, Broken, Condvar, Mutex, Ordering,
};

/// The value a closed round receives from above, awaited by its passengers.
struct RoundResult {
    base: Mutex<Option<u64>>,
    ready: Condvar,
}

impl RoundResult {
    fn new() -> Self {
        RoundResult {
            base: Mutex::new(None),
            ready: Condvar::new(),
        }
    }

    fn set(&self, base: u64) {
        let mut slot = self.base.lock();
        *slot = Some(base);
        self.ready.notify_all();
    }

    fn wait(&self) -> u64 {
        let mut slot = self.base.lock();
        loop {
            if let Some(base) = *slot {
                return base;
            }
            self.ready.wait(&mut slot);
        }
    }
}

#[derive(Default)]
struct NodeState {
    /// The round collecting at this node, if a representative is waiting here.
    open: Option<Arc<RoundResult>>,
    /// Values requested by the open round so far.
    count: u64,
}

/// A combining tree over the workers of one pool, handing out values of a shared counter.
pub(crate) struct CombiningTree {
    parent: Vec<Option<usize>>,
    /// Each node's distance from the root.
    depth: Vec<u32>,
    nodes: Vec<Mutex<NodeState>>,
    target: AtomicU64,
    /// Spin iterations one request may spend waiting for partners, over all levels.
    window: u32,
    /// Requests currently in the tree: a representative alone in it waits for nobody.
    inside: AtomicUsize,
    /// Root `fetch_add`s performed: the number of combined batches.
    batches: AtomicU64,
}

impl CombiningTree {
    /// A tree with the given parent links (`None` marks the root) and combining window.
    pub(crate) fn new(parent: Vec<Option<usize>>, window: u32) -> Self {
        debug_assert_eq!(parent.iter().filter(|p| p.is_none()).count(), 1);
        let nodes = parent
            .iter()
            .map(|_| Mutex::new(NodeState::default()))
            .collect();
        let depth = (0..parent.len())
            .map(|mut k| {
                let mut d = 0;
                while let Some(up) = parent[k] {
                    k = up;
                    d += 1;
                }
                d
            })
            .collect();
        CombiningTree {
            parent,
            depth,
            nodes,
            target: AtomicU64::new(0),
            window,
            inside: AtomicUsize::new(0),
            batches: AtomicU64::new(0),
        }
    }

    /// Claims the next counter value for the worker at node `node`.
    pub(crate) fn next(&self, node: usize) -> u64 {
        self.inside.fetch_add(1, Ordering::Relaxed);
        let value = self.combine(node, 1, self.window);
        self.inside.fetch_sub(1, Ordering::Relaxed);
        value
    }

    /// The number of times the root counter was incremented (each a combined batch).
    #[cfg(test)]
    pub(crate) fn batches(&self) -> u64 {
        self.batches.load(Ordering::Relaxed)
    }

    /// Requests `n` consecutive values at `node`, waiting at most `budget` spins in all for
    /// partners on the way up; returns the first of them.
    fn combine(&self, node: usize, n: u64, budget: u32) -> u64 {
        let mut state = self.nodes[node].lock();
        if let Some(round) = state.open.clone() {
            // A representative is collecting here: ride along.
            let offset = state.count;
            state.count += n;
            drop(state);
            return round.wait() + offset;
        }
        let round = Arc::new(RoundResult::new());
        state.open = Some(Arc::clone(&round));
        state.count = n;
        drop(state);

        // This level's share of the budget; the rest goes up with the round.
        let here = budget / (self.depth[node] + 1);
        for _ in 0..here {
            // Alone in the tree, nobody can join: close at once. (A relaxed read: a partner
            // seen late only means a smaller batch, never a wrong value.)
            if self.inside.load(Ordering::Relaxed) <= 1 {
                break;
            }
            spin_hint();
        }

        let mut state = self.nodes[node].lock();
        let total = state.count;
        // Test-only broken variant (docs/loom.md): close the round in a second critical section,
        // so a passenger can join after `total` was read.
        if broken(Broken::Combining) {
            drop(state);
            state = self.nodes[node].lock();
        }
        state.open = None;
        drop(state);

        let base = match self.parent[node] {
            None => {
                self.batches.fetch_add(1, Ordering::Relaxed);
                self.target.fetch_add(total, Ordering::AcqRel)
            }
            Some(parent) => self.combine(parent, total, budget - here),
        };
        round.set(base);
        base
    }
}

#[cfg(all(test, loom))]
#[path = "../loom/combining.rs"]
mod loom_tests;

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::Topology;

    #[test]
    fn concurrent_draws_hand_out_every_value_exactly_once() {
        for topology in Topology::ALL {
            let workers = 8;
            let g = topology.graph(workers);
            let tree = CombiningTree::new((0..workers).map(|k| g.tree_parent(k)).collect(), 16);
            let per_thread = 2_000;
            let mut all: Vec<u64> = std::thread::scope(|s| {
                let handles: Vec<_> = (0..workers)
                    .map(|k| {
                        let tree = &tree;
                        s.spawn(move || (0..per_thread).map(|_| tree.next(k)).collect::<Vec<_>>())
                    })
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().unwrap())
                    .collect()
            });
            all.sort_unstable();
            let expected: Vec<u64> = (0..(workers * per_thread) as u64).collect();
            assert_eq!(all, expected, "{topology}: each value exactly once");
            assert!(tree.batches() <= (workers * per_thread) as u64);
        }
    }
}

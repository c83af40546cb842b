//! Which core each worker is pinned to.
//!
//! Cores are handed out process-wide, not per pool: a table counts the live workers pinned to
//! each core this process may run on, and a new pool takes, for each of its workers in turn, the
//! core with the fewest workers on it (the first such core in the order the operating system
//! lists them). So
//!
//! - while free cores exist, live pools never share a core (the global pool and a user's pool
//!   sit side by side instead of stacking on cores 0, 1, ...);
//! - a pool with more workers than there are cores (or pools that together have more) spreads
//!   them evenly: when it is built, no core carries two more workers than another, and
//!   consecutive workers of a pool stay on consecutive cores as far as the free ones allow
//!   (pools that end later can leave the spread uneven until new pools fill the gaps);
//! - a pool gives its cores back when its last thread is gone (its registry is dropped), so
//!   after [`crate::ThreadPool::shutdown`] returns they are free for the next pool.
//!
//! Pinning is best effort: the table says where a worker is meant to run (and what
//! [`crate::ThreadPool::worker_core`] reports); if the operating system refuses the affinity
//! call, the thread runs unpinned. The table is plain process state behind a `parking_lot` lock,
//! outside the loom-checked core (loom models build unpinned pools).

use parking_lot::Mutex;

/// Live workers per core, in the order `core_affinity` lists this process's cores.
struct Table {
    cores: Vec<usize>,
    users: Vec<usize>,
}

static TABLE: Mutex<Option<Table>> = Mutex::new(None);

/// The cores of one pool's workers, returned to the table when dropped.
#[derive(Debug)]
pub(crate) struct Cores {
    of_worker: Vec<Option<usize>>,
}

impl Cores {
    /// Takes a core for each of `n` workers, or none at all when `pin` is false or this process
    /// cannot learn its cores.
    pub(crate) fn take(n: usize, pin: bool) -> Cores {
        if !pin {
            return Cores {
                of_worker: vec![None; n],
            };
        }
        let mut guard = TABLE.lock();
        let table = guard.get_or_insert_with(|| {
            let cores: Vec<usize> = core_affinity::get_core_ids()
                .unwrap_or_default()
                .into_iter()
                .map(|c| c.id)
                .collect();
            Table {
                users: vec![0; cores.len()],
                cores,
            }
        });
        if table.cores.is_empty() {
            return Cores {
                of_worker: vec![None; n],
            };
        }
        let of_worker = (0..n)
            .map(|_| {
                // The least-used core; among equals, the first (ties keep consecutive workers on
                // consecutive cores).
                let slot = (0..table.cores.len())
                    .min_by_key(|&i| table.users[i])
                    .expect("at least one core");
                table.users[slot] += 1;
                Some(table.cores[slot])
            })
            .collect();
        Cores { of_worker }
    }

    /// The core worker `index` is pinned to, if any.
    pub(crate) fn of(&self, index: usize) -> Option<usize> {
        self.of_worker.get(index).copied().flatten()
    }
}

impl Drop for Cores {
    fn drop(&mut self) {
        if self.of_worker.iter().all(Option::is_none) {
            return;
        }
        let mut guard = TABLE.lock();
        let Some(table) = guard.as_mut() else { return };
        for core in self.of_worker.iter().flatten() {
            if let Some(slot) = table.cores.iter().position(|c| c == core) {
                table.users[slot] = table.users[slot].saturating_sub(1);
            }
        }
    }
}

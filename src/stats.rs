//! What every pool reports: per-worker counters and the [`PoolStats`] snapshot.
//!
//! Each worker writes only its own counters, with plain relaxed load-and-store (no read-modify-
//! write on the hot path: there is one writer). Readers take relaxed snapshots; a snapshot of a
//! quiescent pool is exact. `reset_stats` never writes a worker's counters: it records a baseline
//! that later snapshots subtract.

use crate::sync::{AtomicU64, Ordering};
use std::time::Duration;

/// One worker's live counters.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) executed_local: AtomicU64,
    pub(crate) executed_remote: AtomicU64,
    pub(crate) spawned: AtomicU64,
    pub(crate) injected: AtomicU64,
    pub(crate) requests: AtomicU64,
    pub(crate) requests_ok: AtomicU64,
    pub(crate) placed_out: AtomicU64,
    pub(crate) placed_in: AtomicU64,
    pub(crate) reclaimed: AtomicU64,
    pub(crate) promoted: AtomicU64,
    pub(crate) withdrawn: AtomicU64,
    pub(crate) starved: AtomicU64,
    pub(crate) rescued: AtomicU64,
    pub(crate) max_hops: AtomicU64,
    pub(crate) idle_ns: AtomicU64,
    /// Start of the current idle stretch in ns since the pool started, plus one (0: busy), so a
    /// snapshot also counts the idle time not yet added to `idle_ns`.
    pub(crate) idle_since: AtomicU64,
    pub(crate) sleeps: AtomicU64,
    pub(crate) panics: AtomicU64,
}

/// Adds to a counter only its owner writes.
#[inline]
pub(crate) fn bump(counter: &AtomicU64, by: u64) {
    counter.store(counter.load(Ordering::Relaxed) + by, Ordering::Relaxed);
}

impl Counters {
    /// The counters now; `now_ns` is the time since the pool started.
    pub(crate) fn snapshot(&self, now_ns: u64) -> WorkerStats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        // The worker ends an idle stretch by clearing `idle_since`, then adding the stretch to
        // `idle_ns` (Release). Reading `idle_ns` first (Acquire) means a snapshot that sees the
        // added stretch also sees the cleared start: a stretch is never counted twice.
        let idle_ns = self.idle_ns.load(Ordering::Acquire);
        let since = get(&self.idle_since);
        let ongoing = if since == 0 {
            0
        } else {
            now_ns.saturating_sub(since - 1)
        };
        let executed_local = get(&self.executed_local);
        let executed_remote = get(&self.executed_remote);
        WorkerStats {
            executed: executed_local + executed_remote,
            executed_local,
            executed_remote,
            spawned: get(&self.spawned),
            injected: get(&self.injected),
            requests: get(&self.requests),
            requests_ok: get(&self.requests_ok),
            placed_out: get(&self.placed_out),
            placed_in: get(&self.placed_in),
            reclaimed: get(&self.reclaimed),
            promoted: get(&self.promoted),
            withdrawn: get(&self.withdrawn),
            starved: get(&self.starved),
            rescued: get(&self.rescued),
            max_hops: get(&self.max_hops),
            idle: Duration::from_nanos(idle_ns + ongoing),
            sleeps: get(&self.sleeps),
            panics: get(&self.panics),
        }
    }
}

/// What one worker did since the pool started (or since the last `reset_stats`).
///
/// Non-exhaustive: counters are added as the runtime learns to report more.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WorkerStats {
    /// Tasks this worker ran that were made available to other workers (the `b` of a `join`,
    /// every spawn), wherever they were created, including a `b` it popped back itself.
    pub executed: u64,
    /// Of `executed`, tasks this worker had created itself.
    pub executed_local: u64,
    /// Of `executed`, tasks created by another worker (stolen or placed here).
    pub executed_remote: u64,
    /// Tasks this worker made available to others: every `b` of a `join`, every `spawn`.
    pub spawned: u64,
    /// Jobs submitted to the pool that this worker ran: `install`, `spawn` and `scope` called
    /// from a thread that is not one of its workers, and broadcast jobs (one per worker, from
    /// anywhere).
    pub injected: u64,
    /// Requests (one steal attempt on one victim) this worker sent while idle.
    pub requests: u64,
    /// Requests that obtained a task.
    pub requests_ok: u64,
    /// Tasks this worker placed into other workers' inboxes.
    pub placed_out: u64,
    /// Tasks other workers placed into this worker's inbox that it received (a task its creator
    /// took back before it arrived is not counted).
    pub placed_in: u64,
    /// Tasks this worker took back, unstarted, from wherever they were queued, because it was
    /// waiting for them (sender-initiated policies; see `docs/sender.md`).
    pub reclaimed: u64,
    /// Private tasks this worker made public because some worker was idle (receiver-initiated
    /// policies; `src/worker/README.md`, "Promotion").
    pub promoted: u64,
    /// Requests this worker withdrew because the victim did not answer in time (it was in a
    /// stretch of work without poll points). Counted in `requests`, not in `requests_ok`.
    pub withdrawn: u64,
    /// Times this worker learnt that a thief had withdrawn a request to it and switched to
    /// publishing its next tasks at once (receiver-initiated policies;
    /// `src/worker/README.md`, "Starvation"). Those tasks count in `promoted`.
    pub starved: u64,
    /// Tasks this worker took from another worker's public deque, after waiting for the pool's
    /// rescue bound, that its policy would not have given it: from a worker it may not ask, or
    /// (sender-initiated policies) that no decision sent it (`src/worker/README.md`, "Rescue").
    /// Each is a transfer, like `requests_ok` and `placed_out`, and counts in `executed` when it
    /// runs (a copy whose task already ran elsewhere is not taken).
    pub rescued: u64,
    /// The largest hop count of a task this worker received or ran.
    pub max_hops: u64,
    /// Time spent without a task: searching for work and asleep.
    pub idle: Duration,
    /// Times this worker went to sleep.
    pub sleeps: u64,
    /// Tasks started with `spawn` that panicked on this worker. Their payload went to the
    /// pool's panic handler (or was dropped, without a handler); the worker went on. Panics in
    /// `join`, `scope` and `install` reach their callers instead and are not counted here.
    pub panics: u64,
}

impl WorkerStats {
    /// Share of executed tasks that ran where they were created (1.0 when nothing ran).
    pub fn locality(&self) -> f64 {
        if self.executed == 0 {
            1.0
        } else {
            self.executed_local as f64 / self.executed as f64
        }
    }

    fn minus(&self, base: &WorkerStats) -> WorkerStats {
        WorkerStats {
            executed: self.executed - base.executed,
            executed_local: self.executed_local - base.executed_local,
            executed_remote: self.executed_remote - base.executed_remote,
            spawned: self.spawned - base.spawned,
            injected: self.injected - base.injected,
            requests: self.requests - base.requests,
            requests_ok: self.requests_ok - base.requests_ok,
            placed_out: self.placed_out - base.placed_out,
            placed_in: self.placed_in - base.placed_in,
            reclaimed: self.reclaimed - base.reclaimed,
            promoted: self.promoted - base.promoted,
            withdrawn: self.withdrawn - base.withdrawn,
            starved: self.starved - base.starved,
            rescued: self.rescued - base.rescued,
            max_hops: self.max_hops,
            idle: self.idle.saturating_sub(base.idle),
            sleeps: self.sleeps - base.sleeps,
            panics: self.panics - base.panics,
        }
    }
}

/// A snapshot of what a pool did, per worker.
///
/// When the pool is quiescent (no task queued or running), `total().executed ==
/// total().spawned`: every task made available ran exactly once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// One entry per worker, by worker index.
    pub workers: Vec<WorkerStats>,
    /// Jobs submitted to the pool: through the injector from outside, and broadcast jobs (see
    /// [`WorkerStats::injected`]); at quiescence equal to `total().injected`.
    pub submitted: u64,
    /// Wall-clock time the snapshot covers: since the pool started or since `reset_stats`.
    pub elapsed: Duration,
}

impl PoolStats {
    /// The sum over workers (`max_hops`: the maximum).
    pub fn total(&self) -> WorkerStats {
        self.workers
            .iter()
            .fold(WorkerStats::default(), |acc, w| WorkerStats {
                executed: acc.executed + w.executed,
                executed_local: acc.executed_local + w.executed_local,
                executed_remote: acc.executed_remote + w.executed_remote,
                spawned: acc.spawned + w.spawned,
                injected: acc.injected + w.injected,
                requests: acc.requests + w.requests,
                requests_ok: acc.requests_ok + w.requests_ok,
                placed_out: acc.placed_out + w.placed_out,
                placed_in: acc.placed_in + w.placed_in,
                reclaimed: acc.reclaimed + w.reclaimed,
                promoted: acc.promoted + w.promoted,
                withdrawn: acc.withdrawn + w.withdrawn,
                starved: acc.starved + w.starved,
                rescued: acc.rescued + w.rescued,
                max_hops: acc.max_hops.max(w.max_hops),
                idle: acc.idle + w.idle,
                sleeps: acc.sleeps + w.sleeps,
                panics: acc.panics + w.panics,
            })
    }

    /// Share of all executed tasks that ran where they were created (seed 000, Figure 9).
    pub fn locality(&self) -> f64 {
        self.total().locality()
    }

    /// Idle time as a share of `workers × elapsed` (0 when nothing was measured).
    pub fn idle_fraction(&self) -> f64 {
        let capacity = self.elapsed.as_secs_f64() * self.workers.len() as f64;
        if capacity == 0.0 {
            0.0
        } else {
            (self.total().idle.as_secs_f64() / capacity).min(1.0)
        }
    }

    pub(crate) fn since(&self, base: &PoolStats) -> PoolStats {
        PoolStats {
            workers: self
                .workers
                .iter()
                .zip(&base.workers)
                .map(|(w, b)| w.minus(b))
                .collect(),
            submitted: self.submitted - base.submitted,
            elapsed: self.elapsed.saturating_sub(base.elapsed),
        }
    }
}

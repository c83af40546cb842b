//! [`LoopReport`]: when each worker of a parallel loop finished, and the imbalance that follows.
//!
//! The papers behind the loop schedules judge a schedule by its imbalance: the spread between the
//! earliest and the latest finishing worker, and the standard deviation of the finish times as a
//! percentage of their mean. A [`Recorder`] collects, per worker, the time (since the loop
//! started) at which it finished its last piece of the loop, with relaxed atomics so that recording
//! never orders anything the loop itself does not.

use crate::iter::Schedule;
use crate::sync::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What one worker did in a parallel loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerFinish {
    /// The worker's index in its pool.
    pub worker: usize,
    /// When it finished its last piece, measured from the start of the loop.
    pub finish: Duration,
    /// How many iterations it ran.
    pub iterations: usize,
    /// How many pieces (chunks) it ran.
    pub chunks: usize,
}

/// Per-worker finish times of one parallel loop, as returned by
/// [`crate::iter::IndexedParallelIterator::for_each_with_report`].
///
/// ```
/// use hypersteal::prelude::*;
/// use hypersteal::iter::Schedule;
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let report = pool.install(|| {
///     (0..1000u64).into_par_iter().with_schedule(Schedule::Trapezoid).for_each_with_report(|i| {
///         std::hint::black_box(i * i);
///     })
/// });
/// assert_eq!(report.iterations(), 1000);
/// assert!(report.spread() <= report.total);
/// println!("spread {:?}, sd {:.1}% of mean", report.spread(), report.sd_percent_of_mean());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct LoopReport {
    /// The schedule the loop ran under.
    pub schedule: Schedule,
    /// The workers that ran at least one piece, by worker index.
    pub workers: Vec<WorkerFinish>,
    /// The whole loop, from its start until the caller had every result.
    pub total: Duration,
}

impl LoopReport {
    /// The finish times of the workers that took part, by worker index.
    pub fn finish_times(&self) -> Vec<Duration> {
        self.workers.iter().map(|w| w.finish).collect()
    }

    /// The iterations run, over all workers.
    pub fn iterations(&self) -> usize {
        self.workers.iter().map(|w| w.iterations).sum()
    }

    /// Latest minus earliest finish time (zero when at most one worker took part).
    pub fn spread(&self) -> Duration {
        let times = self.finish_times();
        match (times.iter().min(), times.iter().max()) {
            (Some(lo), Some(hi)) => *hi - *lo,
            _ => Duration::ZERO,
        }
    }

    /// The mean finish time of the workers that took part.
    pub fn mean_finish(&self) -> Duration {
        let times = self.finish_times();
        if times.is_empty() {
            return Duration::ZERO;
        }
        times.iter().sum::<Duration>() / times.len() as u32
    }

    /// The (population) standard deviation of the finish times as a percentage of their mean;
    /// 0 when nobody or one worker took part.
    pub fn sd_percent_of_mean(&self) -> f64 {
        let secs: Vec<f64> = self
            .workers
            .iter()
            .map(|w| w.finish.as_secs_f64())
            .collect();
        if secs.len() < 2 {
            return 0.0;
        }
        let mean = secs.iter().sum::<f64>() / secs.len() as f64;
        if mean <= 0.0 {
            return 0.0;
        }
        let var = secs.iter().map(|s| (s - mean) * (s - mean)).sum::<f64>() / secs.len() as f64;
        100.0 * var.sqrt() / mean
    }
}

/// Collects per-worker finish times while a loop runs.
pub(crate) struct Recorder {
    start: Instant,
    finish_ns: Vec<AtomicU64>,
    iterations: Vec<AtomicUsize>,
    chunks: Vec<AtomicUsize>,
}

impl Recorder {
    pub(crate) fn new(workers: usize) -> Self {
        Recorder {
            start: Instant::now(),
            finish_ns: (0..workers).map(|_| AtomicU64::new(0)).collect(),
            iterations: (0..workers).map(|_| AtomicUsize::new(0)).collect(),
            chunks: (0..workers).map(|_| AtomicUsize::new(0)).collect(),
        }
    }

    /// Worker `worker` just finished a piece of `iterations` iterations.
    pub(crate) fn record(&self, worker: usize, iterations: usize) {
        let Some(slot) = self.finish_ns.get(worker) else {
            return;
        };
        let now = self.start.elapsed().as_nanos() as u64;
        slot.fetch_max(now.max(1), Ordering::Relaxed);
        self.iterations[worker].fetch_add(iterations, Ordering::Relaxed);
        self.chunks[worker].fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn finish(self, schedule: Schedule) -> LoopReport {
        let total = self.start.elapsed();
        let workers = (0..self.finish_ns.len())
            .filter_map(|w| {
                let chunks = self.chunks[w].load(Ordering::Relaxed);
                (chunks > 0).then(|| WorkerFinish {
                    worker: w,
                    finish: Duration::from_nanos(self.finish_ns[w].load(Ordering::Relaxed)),
                    iterations: self.iterations[w].load(Ordering::Relaxed),
                    chunks,
                })
            })
            .collect();
        LoopReport {
            schedule,
            workers,
            total,
        }
    }
}

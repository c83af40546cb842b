//! The loop driver: runs a producer's pieces on the current pool under a [`Schedule`].
//!
//! Every loop first moves onto a worker of the current pool (the global pool outside any), then:
//!
//! * **adaptive** halves the producer recursively with [`crate::join`]. A piece may split a few
//!   levels deep (about eight pieces per worker); a piece that runs on another worker than the one
//!   that split it was stolen, which shows that someone is idle, so its split budget is refilled.
//!   Partial results are combined on the way back up, in index order. A loop inside a piece
//!   of another splits once; a long one that starts while every worker is busy runs in growing
//!   chunks instead and halves what is left when a worker turns idle (`Loop::on_demand`).
//! * **counter based** schedules start one participant per worker (the caller plus `P - 1`
//!   scope tasks). A participant repeatedly locks the dispenser, takes the next chunk off the
//!   front of the remaining producer (the chunk size comes from the schedule's [`Chunker`]), and
//!   folds it. Partial results carry their start index and are combined in index order at the end.
//!
//! Panics: as in rayon, a piece that panics does not stop the others (the panicking piece's
//! remaining items are skipped, every other piece runs; `panic_fuse` stops them early). Once
//! every other piece has finished, the first panic resumes in the caller. Nothing a piece
//! borrows is released before then.

use crate::iter::plumbing::sealed::{Place, Token};
use crate::iter::plumbing::{Consumer, Producer};
use crate::iter::report::Recorder;
use crate::iter::schedule::{initial_splits, Chunker};
use crate::iter::Schedule;
use crate::sync::Mutex;
use crate::unwind;
use crate::worker::{in_worker, WorkerThread};
use std::any::Any;
use std::time::Instant;

/// Runs `producer` through `consumer` in the current pool and returns the combined result.
pub(crate) fn bridge<P, C>(producer: P, consumer: &C, recorder: Option<&Recorder>) -> C::Result
where
    P: Producer,
    C: Consumer<P::Item>,
{
    // The loop's length, for consumers that place items by position (`collect`); every piece
    // below gets a range of `0..len` of its own, disjoint from the others by construction.
    let len = producer.len();
    consumer.begin(len, Token(()));
    if len == 0 {
        return consumer.identity();
    }
    // A loop that nobody could share (too short to split, or on a pool of one) runs on a
    // calling thread outside every pool rather than on a worker: entering the pool would cost a
    // hand-over and two wake-ups (the worker's and the caller's) and run nothing in parallel.
    if recorder.is_none()
        && WorkerThread::current().is_null()
        && producer.schedule().unwrap_or_default() == Schedule::Adaptive
    {
        let min_len = producer.min_len().max(1);
        if crate::current_num_threads() == 1 || len < min_len.saturating_mul(2) {
            let ctx = Loop {
                consumer,
                recorder,
                total: len,
                min_len,
                max_len: producer.max_len().max(min_len),
                refill: initial_splits(1),
                alone: true,
            };
            // Inside a piece of an outer loop nothing is gained by halves that run one after
            // the other anyway: the inner loop is one piece.
            let splits = if IN_PIECE.with(|d| d.get()) > 0 {
                0
            } else {
                ctx.refill
            };
            return ctx.adaptive(producer, 0, len, splits, 0);
        }
    }
    in_worker(|worker, _| {
        let schedule = producer.schedule().unwrap_or_default();
        let workers = worker.registry.num_threads();
        let min_len = producer.min_len().max(1);
        let ctx = Loop {
            consumer,
            recorder,
            total: len,
            min_len,
            max_len: producer.max_len().max(min_len),
            refill: initial_splits(workers),
            alone: false,
        };
        if len < ctx.min_len.saturating_mul(2) {
            return ctx.leaf(producer, 0, len, worker.index);
        }
        if schedule != Schedule::Adaptive {
            return ctx.self_scheduled(producer, schedule, worker);
        }
        if IN_PIECE.with(|d| d.get()) == 0 {
            return ctx.adaptive(producer, 0, len, ctx.refill, worker.index);
        }
        // A loop inside a piece of another (a `flat_map`'s inner loops, a loop in a `for_each`
        // body) already runs beside that loop's other pieces. A short one splits once, and
        // further only where a half is stolen (which refills the budget), instead of into a
        // full set of pieces that nobody may be idle to take. A long one that starts while
        // every worker is busy runs whole, in growing chunks, and splits what is left when a
        // worker turns idle meanwhile (`Loop::on_demand`): its halves would be leaves without
        // poll points, and a worker that frees up could not get a share of them.
        if len >= LONG_INNER && !worker.wants_split() {
            ctx.on_demand(producer, 0, len, worker.index)
        } else {
            ctx.adaptive(producer, 0, len, 1, worker.index)
        }
    })
}

// How many loop pieces this thread is inside (nested loops run inside pieces).
#[cfg(not(loom))]
crate::sync::thread_local! {
    static IN_PIECE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}
#[cfg(loom)]
crate::sync::thread_local! {
    static IN_PIECE: std::cell::Cell<u32> = std::cell::Cell::new(0);
}

/// Runs `f` (the folding of one piece) counted as inside a piece, also if it unwinds.
fn in_piece<R>(f: impl FnOnce() -> R) -> R {
    struct Leave;
    impl Drop for Leave {
        fn drop(&mut self) {
            IN_PIECE.with(|d| d.set(d.get() - 1));
        }
    }
    IN_PIECE.with(|d| d.set(d.get() + 1));
    let _leave = Leave;
    f()
}

/// What the pieces of one loop share.
struct Loop<'c, C> {
    consumer: &'c C,
    recorder: Option<&'c Recorder>,
    /// The loop's length: a piece's positions out of it are its place ([`Place::of`]).
    total: usize,
    min_len: usize,
    /// The largest piece left unsplit (`with_max_len`), at least `min_len`.
    max_len: usize,
    /// The split budget of a fresh or stolen adaptive piece.
    refill: u32,
    /// The loop runs on a thread outside every pool that nobody can help (a pool of one, or a
    /// loop too short to split): the adaptive halves run one after the other on it
    /// ([`crate::join::join_in_place`]), so a pool of one still folds the pieces a split makes
    /// and a reduction combines them as a tree (products of big numbers, concatenations).
    alone: bool,
}

fn current_worker(fallback: usize) -> usize {
    crate::current_thread_index().unwrap_or(fallback)
}

impl<C> Loop<'_, C> {
    fn stopped<T>(&self) -> bool
    where
        C: Consumer<T>,
    {
        self.consumer.full()
    }

    /// Folds one piece, which covers positions `start..start + range` of the loop, on worker
    /// `worker`.
    fn leaf<P>(&self, producer: P, start: usize, range: usize, worker: usize) -> C::Result
    where
        P: Producer,
        C: Consumer<P::Item>,
    {
        let len = producer.len();
        let result = in_piece(|| {
            let place = Place::of(start, range, self.total);
            self.consumer
                .consume_range(start, range, place, producer.into_iter(), Token(()))
        });
        if let Some(recorder) = self.recorder {
            recorder.record(worker, len);
        }
        result
    }

    /// Runs the piece covering positions `start..start + range`, splitting it while it is worth
    /// it. The ranges of the halves are cut from `range` itself (the producer's own count only
    /// chooses the split), so they stay disjoint whatever a producer reports.
    fn adaptive<P>(
        &self,
        producer: P,
        start: usize,
        range: usize,
        splits: u32,
        owner: usize,
    ) -> C::Result
    where
        P: Producer,
        C: Consumer<P::Item>,
    {
        // Skipped whole where nothing in it can matter (`find_first` after an earlier match).
        if self
            .consumer
            .full_placed(Place::of(start, range, self.total), Token(()))
        {
            return self.consumer.identity();
        }
        let len = producer.len();
        // The minimum wins over the maximum; past its budget a piece still splits while it is
        // longer than the maximum.
        if len < self.min_len.saturating_mul(2) || (splits == 0 && len <= self.max_len) {
            return self.leaf(producer, start, range, owner);
        }
        let mid = len / 2;
        let left_range = mid.min(range);
        let (left, right) = producer.split_at(mid);
        let left_half = || self.adaptive(left, start, left_range, splits.saturating_sub(1), owner);
        let right_half = || {
            let runner = current_worker(owner);
            // Stolen: a worker was idle, so this half may be split as finely as a fresh loop.
            let splits = if runner != owner {
                self.refill
            } else {
                splits.saturating_sub(1)
            };
            self.adaptive(
                right,
                start + left_range,
                range - left_range,
                splits,
                runner,
            )
        };
        let (a, b) = if self.alone {
            crate::join::join_in_place(left_half, |_| right_half())
        } else {
            crate::join::join_erased(left_half, right_half)
        };
        self.consumer.reduce(a, b)
    }

    /// Runs the piece covering positions `start..start + range` as chunks, the first as long
    /// as the loop's shortest piece (one item unless `with_min_len` says more), then twice as
    /// long while a chunk takes less than [`CHUNK_NS`] (never longer than `with_max_len`).
    /// Between chunks comes a poll point, and when a worker is idle with nothing queued here
    /// to take instead ([`WorkerThread::wants_split`]), what is left is halved through a
    /// `join`: this worker goes on with the first half the same way, and a thief that takes
    /// the second splits it as a fresh loop. The chunks' results are combined in order; a
    /// panic in a chunk skips the rest of the piece, as in any piece. A loop during which
    /// nobody turns idle thus costs a chunk boundary (a clock reading, a poll point, a
    /// `reduce`) per [`CHUNK_NS`] of work once its chunks have grown, and one during which
    /// somebody does is shared within a chunk's time.
    #[inline(never)]
    fn on_demand<P>(&self, producer: P, start: usize, range: usize, owner: usize) -> C::Result
    where
        P: Producer,
        C: Consumer<P::Item>,
    {
        let mut rest = producer;
        let (mut start, mut range) = (start, range);
        let mut result = self.consumer.identity();
        let mut chunk = self.min_len;
        loop {
            if self
                .consumer
                .full_placed(Place::of(start, range, self.total), Token(()))
            {
                return result;
            }
            let len = rest.len();
            // What is left is one piece (or, past the maximum, as few as that allows) when a
            // chunk would leave a tail shorter than the loop's minimum piece.
            if len < chunk.saturating_add(self.min_len) {
                let last = self.adaptive(rest, start, range, 0, owner);
                return self.consumer.reduce(result, last);
            }
            if split_wanted() {
                let mid = len / 2;
                let left_range = mid.min(range);
                let (left, right) = rest.split_at(mid);
                let (a, b) = crate::join::join_erased(
                    || self.on_demand(left, start, left_range, owner),
                    || {
                        let (start, range) = (start + left_range, range - left_range);
                        let runner = current_worker(owner);
                        // Stolen: split as finely as a fresh loop, as `adaptive` does.
                        if runner != owner {
                            self.adaptive(right, start, range, self.refill, runner)
                        } else {
                            self.on_demand(right, start, range, owner)
                        }
                    },
                );
                return self.consumer.reduce(result, self.consumer.reduce(a, b));
            }
            let chunk_range = chunk.min(range);
            let (head, tail) = rest.split_at(chunk);
            let began = Instant::now();
            let done = self.leaf(head, start, chunk_range, owner);
            result = self.consumer.reduce(result, done);
            if began.elapsed().as_nanos() < u128::from(CHUNK_NS) {
                chunk = chunk.saturating_mul(2).min(self.max_len);
            }
            rest = tail;
            start += chunk_range;
            range -= chunk_range;
            poll_point();
        }
    }

    fn self_scheduled<P>(&self, producer: P, schedule: Schedule, worker: &WorkerThread) -> C::Result
    where
        P: Producer,
        C: Consumer<P::Item>,
    {
        let workers = worker.registry.num_threads();
        let weights = Weights::new(schedule, worker.registry.speeds());
        let len = producer.len();
        let chunker = Chunker::new(schedule, len, workers, self.min_len, weights.total())
            .with_max_len(self.max_len);
        let dispenser = Mutex::new(Dispenser {
            rest: Some(producer),
            offset: 0,
            chunker,
            weights,
        });
        let results: Mutex<Vec<(usize, C::Result)>> = Mutex::new(Vec::new());
        let panic: Mutex<Option<Box<dyn Any + Send>>> = Mutex::new(None);
        let static_block = len.div_ceil(workers).max(1);
        let participant = |fallback: usize| {
            let me = current_worker(fallback);
            let mut mine = Vec::new();
            let mut last: Option<(usize, u64)> = None;
            // Under `static` a participant takes one block of `ceil(I/P)` items: one chunk, or
            // several where `with_max_len` caps the chunks.
            let mut taken = 0;
            loop {
                if self.stopped() || (schedule == Schedule::Static && taken >= static_block) {
                    break;
                }
                let (start, range, piece) = {
                    let mut d = dispenser.lock();
                    if let Some((iterations, nanos)) = last.take() {
                        d.weights.measured(me, iterations, nanos);
                    }
                    let Some(rest) = d.rest.take() else { break };
                    let remaining = rest.len();
                    if remaining == 0 {
                        break;
                    }
                    let power = d.weights.power(me);
                    let n = d.chunker.next(remaining, power);
                    let (piece, rest) = rest.split_at(n);
                    d.rest = Some(rest);
                    let start = d.offset;
                    d.offset += n;
                    (start, n, piece)
                };
                let n = piece.len();
                taken += n;
                poll_point();
                let t0 = Instant::now();
                // The range is the dispenser's own count of positions from `start`.
                let place = Place::of(start, range, self.total);
                let consumed = || {
                    in_piece(|| {
                        self.consumer.consume_range(
                            start,
                            range,
                            place,
                            piece.into_iter(),
                            Token(()),
                        )
                    })
                };
                match unwind::halt_unwinding(consumed) {
                    Ok(r) => mine.push((start, r)),
                    Err(payload) => {
                        // The participant goes on with the next chunk: a panic stops only the
                        // chunk it happened in (as a leaf of the adaptive schedule).
                        let mut first = panic.lock();
                        if first.is_none() {
                            *first = Some(payload);
                        } else {
                            // Only the first panic reaches the caller; a later payload's
                            // destructor must not unwind out of this participant.
                            drop(first);
                            unwind::drop_payload(payload);
                        }
                        continue;
                    }
                }
                if let Some(recorder) = self.recorder {
                    recorder.record(me, n);
                }
                last = Some((n, t0.elapsed().as_nanos() as u64));
            }
            results.lock().append(&mut mine);
        };
        let participant = &participant;
        let caller = worker.index;
        crate::scope(|s| {
            for p in 1..workers {
                s.spawn(move |_| participant(p));
            }
            participant(caller);
        });
        // Every participant has stopped: drop what was not handed out before anything else.
        drop(dispenser.lock().rest.take());
        if let Some(payload) = panic.lock().take() {
            unwind::resume_unwinding(payload);
        }
        let mut results = std::mem::take(&mut *results.lock());
        results.sort_unstable_by_key(|(start, _)| *start);
        results
            .into_iter()
            .map(|(_, r)| r)
            .reduce(|a, b| self.consumer.reduce(a, b))
            .unwrap_or_else(|| self.consumer.identity())
    }
}

/// The length from which an inner loop that starts while every worker is busy runs in chunks
/// (`Loop::on_demand`) rather than as two halves: long enough that the chunk boundaries cost
/// nothing measurable against the items.
const LONG_INNER: usize = 1 << 14;

/// The time an inner loop's chunk should take at most before its size stops doubling
/// (`Loop::on_demand`): a worker that turns idle waits about this long for a share.
const CHUNK_NS: u64 = 20_000;

/// Every chunk of a self-scheduled loop is a poll point (`src/worker/mod.rs`): a participant that
/// holds private tasks answers requests and promotes work between chunks.
pub(crate) fn poll_point() {
    // SAFETY: the thread-local points to this thread's live worker, or is null.
    if let Some(w) = unsafe { WorkerThread::current().as_ref() } {
        w.poll();
    }
}

/// Whether a running leaf of an unindexed loop should stop and split what is left of it
/// (`divide.rs`): the current worker's pool has an idle worker, and this worker has no queued
/// task to give it instead.
pub(crate) fn split_wanted() -> bool {
    // SAFETY: the thread-local points to this thread's live worker, or is null.
    unsafe { WorkerThread::current().as_ref() }.is_some_and(WorkerThread::wants_split)
}

/// The shared counter of a counter-based loop: the producer not yet handed out.
struct Dispenser<P> {
    rest: Option<P>,
    /// Index of the first item of `rest`.
    offset: usize,
    chunker: Chunker,
    weights: Weights,
}

/// Relative powers `A_i` of the workers for `weighted` (all 1 for the other schedules).
enum Weights {
    Equal,
    /// Given speeds, relative to the slowest worker.
    Given(Vec<f64>),
    /// Throughput measured in the loop: per worker, iterations and nanoseconds so far.
    Measured(Vec<(usize, u64)>),
}

/// A measured worker counts as at most this many times the slowest one, so that one lucky cheap
/// chunk cannot earn a worker a huge share of an irregular loop.
const MAX_MEASURED_POWER: f64 = 4.0;

impl Weights {
    fn new(schedule: Schedule, speeds: &[f64]) -> Self {
        if schedule != Schedule::Weighted {
            return Weights::Equal;
        }
        let slowest = speeds.iter().copied().fold(f64::INFINITY, f64::min);
        let fastest = speeds.iter().copied().fold(0.0, f64::max);
        // All equal is also what a pool without `worker_speeds` reports: measure instead.
        if speeds.is_empty() || fastest == slowest {
            Weights::Measured(vec![(0, 0); speeds.len()])
        } else {
            Weights::Given(speeds.iter().map(|s| s / slowest).collect())
        }
    }

    /// The sum of the powers the trapezoid is laid over.
    fn total(&self) -> f64 {
        match self {
            Weights::Given(p) => p.iter().sum(),
            Weights::Equal => 1.0,
            Weights::Measured(m) => m.len() as f64,
        }
    }

    fn measured(&mut self, worker: usize, iterations: usize, nanos: u64) {
        if let Weights::Measured(m) = self {
            if let Some(slot) = m.get_mut(worker) {
                slot.0 += iterations;
                slot.1 += nanos.max(1);
            }
        }
    }

    fn power(&self, worker: usize) -> f64 {
        match self {
            Weights::Equal => 1.0,
            Weights::Given(p) => p.get(worker).copied().unwrap_or(1.0),
            Weights::Measured(m) => {
                let rate = |&(i, ns): &(usize, u64)| (ns > 0).then(|| i as f64 / ns as f64);
                let slowest = m.iter().filter_map(rate).fold(f64::INFINITY, f64::min);
                match m.get(worker).and_then(rate) {
                    Some(mine) if slowest.is_finite() && slowest > 0.0 => {
                        (mine / slowest).clamp(1.0, MAX_MEASURED_POWER)
                    }
                    _ => 1.0,
                }
            }
        }
    }
}

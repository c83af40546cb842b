//! The event trace: what each worker did and when, recorded only when the pool was built with
//! [`ThreadPoolBuilder::trace`](crate::ThreadPoolBuilder::trace) or `HYPERSTEAL_TRACE`
//! (`docs/trace.md`).
//!
//! # Recording
//!
//! Each worker owns one `Ring`, allocated when the pool is built and never resized. Only the
//! owner writes it: an event goes into the next free slot, then the owner publishes the new
//! length with a Release store. When the ring is full, new events are **dropped and counted**
//! (the oldest are kept): overwriting would make a slot change under a reader, and a trace that
//! begins at the pool's start is easier to read than one that begins anywhere.
//!
//! Events are recorded where the statistics counters are bumped (requests, answers, transfers,
//! placements, idle stretches, sleeps, transferred tasks): never in the per-`join` fast path when
//! nothing moves. With tracing off, each of those points pays one test of a pointer the worker
//! already holds.
//!
//! With the crate's `tracing` feature, the same points also emit each event to the `tracing`
//! subscriber (`emit`), ring or no ring; a sleep and its wake-up are emitted together when
//! the worker wakes.
//!
//! # Reading while the pool runs
//!
//! `Ring::snapshot` loads the published length with Acquire and copies the slots below it.
//! Those slots were written before the Release store that published a length covering them
//! (program order on the owner's thread), so the Acquire load makes the writes visible; and the
//! owner never writes a slot below its published length again (a full ring drops instead of
//! wrapping), so the copy cannot race with a write. A snapshot taken while the pool runs is thus
//! a consistent prefix of each worker's events (the workers' prefixes end at different times).
//!
//! The rings use `std` atomics even under `cfg(loom)`: no loom model turns tracing on.

mod chrome;

pub use chrome::write_chrome;

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// The default capacity of each worker's ring, in events (24 bytes each).
pub const DEFAULT_CAPACITY: usize = 1 << 16;
/// The largest ring capacity [`ThreadPoolBuilder::trace_capacity`](crate::ThreadPoolBuilder::trace_capacity) accepts.
pub const MAX_CAPACITY: usize = 1 << 24;
/// The most events the rings of one pool may hold together (1.5 GiB at 24 bytes an event):
/// `trace_capacity` times the worker count may not exceed it.
pub const MAX_TOTAL_EVENTS: usize = 1 << 26;

/// What happened (see [`TraceEvent`] for what `peer` and `hops` mean for each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EventKind {
    /// The worker started a task another worker created (`peer`: its creator).
    TaskStart,
    /// That task ended (`peer`: its creator).
    TaskEnd,
    /// The worker ran out of work and began searching (receiver-initiated) or waiting for
    /// placed work (sender-initiated).
    IdleBegin,
    /// The idle stretch ended.
    IdleEnd,
    /// The worker sent a request to `peer` (one steal attempt).
    RequestSent,
    /// The request to `peer` failed: nothing to steal, a reject, a withdrawal, or the victim was
    /// idle.
    RequestRejected,
    /// The worker answered a request of thief `peer`; `hops` is 1 if it gave a task, 0 for a
    /// reject.
    RequestAnswered,
    /// The worker obtained a task from `peer` by its request: a transfer from `peer` to this
    /// worker (`hops`: the task's hops). Counted in `requests_ok`.
    Stolen,
    /// The worker rescued a task from worker `peer`'s public deque (its policy would not give it
    /// that task, and the pool's rescue bound had passed; `src/worker/README.md`, "Rescue"): a
    /// transfer from `peer` to this worker (`hops`: the task's hops). Counted in `rescued`.
    Rescued,
    /// The worker placed one of its tasks into worker `peer`'s inbox: a transfer from this worker
    /// to `peer` (`hops`: the task's hops after the move). Counted in `placed_out`.
    Placed,
    /// A placed task arrived in this worker's inbox and was received (`hops`: its hops).
    /// Counted in `placed_in`.
    Received,
    /// The worker made its oldest private task public because a worker was idle.
    Promoted,
    /// The worker went to sleep.
    Sleep,
    /// The worker woke up.
    Wake,
}

impl EventKind {
    /// The event's name in exports.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::TaskStart => "task start",
            EventKind::TaskEnd => "task end",
            EventKind::IdleBegin => "idle begin",
            EventKind::IdleEnd => "idle end",
            EventKind::RequestSent => "request",
            EventKind::RequestRejected => "rejected",
            EventKind::RequestAnswered => "answered",
            EventKind::Stolen => "stolen",
            EventKind::Rescued => "rescued",
            EventKind::Placed => "placed",
            EventKind::Received => "received",
            EventKind::Promoted => "promoted",
            EventKind::Sleep => "sleep",
            EventKind::Wake => "wake",
        }
    }

    /// Whether this event moves a task from one worker to another ([`EventKind::Stolen`],
    /// [`EventKind::Rescued`], [`EventKind::Placed`]): exactly the events the transfer matrix
    /// counts.
    pub fn is_transfer(self) -> bool {
        matches!(
            self,
            EventKind::Stolen | EventKind::Rescued | EventKind::Placed
        )
    }
}

/// One recorded event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// Nanoseconds since the pool started (one monotonic origin per pool).
    pub ts_ns: u64,
    /// What happened.
    pub kind: EventKind,
    /// The other worker involved (victim, thief, destination, creator), or `u32::MAX` when the
    /// event involves none (or a task from outside the pool).
    pub peer: u32,
    /// The task's hop count for transfers and receptions; for [`EventKind::RequestAnswered`],
    /// 1 if a task was given.
    pub hops: u32,
}

/// No peer.
pub const NO_PEER: u32 = u32::MAX;

/// With the `tracing` feature: the event as a `tracing` event at `trace` level, target
/// `hypersteal`, with the fields `worker`, `event` (its [`EventKind::name`]), `peer` (absent
/// when there is none) and `hops`. Emitted at every point that records into the ring, whether
/// or not the pool keeps a ring; the subscriber adds its own timestamp.
#[cfg(feature = "tracing")]
pub(crate) fn emit(worker: usize, kind: EventKind, peer: u32, hops: u32) {
    let peer = (peer != NO_PEER).then_some(peer);
    tracing::trace!(target: "hypersteal", worker, event = kind.name(), peer, hops);
}

impl TraceEvent {
    const EMPTY: TraceEvent = TraceEvent {
        ts_ns: 0,
        kind: EventKind::Sleep,
        peer: NO_PEER,
        hops: 0,
    };
}

/// One worker's ring of events: preallocated, written only by its owner (module docs).
pub(crate) struct Ring {
    slots: Box<[UnsafeCell<TraceEvent>]>,
    /// Events written and published (at most `slots.len()`).
    len: AtomicUsize,
    /// Events that found the ring full.
    dropped: AtomicU64,
}

// SAFETY: a slot is written only by the owning worker, and only above the published length;
// readers read only below it, after an Acquire load of it (module docs).
unsafe impl Sync for Ring {}

impl Ring {
    /// A ring of `capacity` events, or `None` when the memory cannot be had (the allocation is
    /// fallible: a pool that asks for more than the machine has gets an error, not an abort).
    pub(crate) fn try_new(capacity: usize) -> Option<Self> {
        let mut slots = Vec::new();
        slots.try_reserve_exact(capacity).ok()?;
        slots.extend((0..capacity).map(|_| UnsafeCell::new(TraceEvent::EMPTY)));
        Some(Ring {
            slots: slots.into_boxed_slice(),
            len: AtomicUsize::new(0),
            dropped: AtomicU64::new(0),
        })
    }

    /// Records one event. Only the owning worker calls this.
    #[inline]
    pub(crate) fn record(&self, event: TraceEvent) {
        let len = self.len.load(Ordering::Relaxed);
        match self.slots.get(len) {
            Some(slot) => {
                // SAFETY: only the owner writes, and only the slot at the published length,
                // which no reader reads before the Release store below publishes it.
                unsafe { *slot.get() = event };
                self.len.store(len + 1, Ordering::Release);
            }
            None => {
                let d = &self.dropped;
                d.store(d.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            }
        }
    }

    /// The events published so far and the count of dropped ones.
    pub(crate) fn snapshot(&self) -> (Vec<TraceEvent>, u64) {
        let len = self.len.load(Ordering::Acquire);
        let events = self.slots[..len]
            .iter()
            // SAFETY: slots below the published length are never written again, and the Acquire
            // load above makes their writes visible (module docs).
            .map(|slot| unsafe { *slot.get() })
            .collect();
        (events, self.dropped.load(Ordering::Relaxed))
    }
}

/// The rings of a traced pool, one per worker, and where to write the trace when the pool goes.
pub(crate) struct Rings {
    pub(crate) rings: Vec<Ring>,
    /// `HYPERSTEAL_TRACE`: written (best effort) when the pool's registry is dropped.
    pub(crate) path: Option<std::path::PathBuf>,
}

/// What a pool recorded: one list of events per worker, each in time order.
///
/// Returned by [`ThreadPool::trace`](crate::ThreadPool::trace); empty (no workers) for a pool
/// built without tracing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Worker `w`'s events, oldest first.
    pub workers: Vec<Vec<TraceEvent>>,
    /// Per worker, events lost because its ring was full (the first events are kept).
    pub dropped: Vec<u64>,
    /// Time since the pool started when the snapshot was taken.
    pub elapsed: Duration,
}

impl Trace {
    pub(crate) fn of(rings: &Rings, elapsed: Duration) -> Trace {
        let (workers, dropped) = rings.rings.iter().map(Ring::snapshot).unzip();
        Trace {
            workers,
            dropped,
            elapsed,
        }
    }

    /// Whether any event was recorded.
    pub fn is_empty(&self) -> bool {
        self.workers.iter().all(Vec::is_empty)
    }

    /// Events lost to full rings, over all workers.
    pub fn total_dropped(&self) -> u64 {
        self.dropped.iter().sum()
    }

    /// The P x P transfer matrix: `m[from][to]` counts the tasks moved from worker `from` to
    /// worker `to` (steals by request, rescues and placements; a task placed on and forwarded
    /// counts once per move). With no dropped events it sums to `requests_ok + placed_out +
    /// rescued` of the pool's statistics over the same span.
    pub fn transfer_matrix(&self) -> Vec<Vec<u64>> {
        let p = self.workers.len();
        let mut m = vec![vec![0u64; p]; p];
        for (me, events) in self.workers.iter().enumerate() {
            for e in events {
                let peer = e.peer as usize;
                match e.kind {
                    EventKind::Stolen | EventKind::Rescued if peer < p => m[peer][me] += 1,
                    EventKind::Placed if peer < p => m[me][peer] += 1,
                    _ => {}
                }
            }
        }
        m
    }

    /// Per worker, the time spent busy (not in an idle stretch) up to the last event recorded
    /// by any worker. An idle stretch still open at the end counts as idle up to that time.
    pub fn busy_ns(&self) -> Vec<u64> {
        let end = self.end_ns();
        self.workers
            .iter()
            .map(|events| end - idle_ns(events, end).min(end))
            .collect()
    }

    /// The time of the last event recorded by any worker (ns since the pool started).
    pub fn end_ns(&self) -> u64 {
        self.workers
            .iter()
            .filter_map(|e| e.last())
            .map(|e| e.ts_ns)
            .max()
            .unwrap_or(0)
    }

    /// Per worker, the closed and open idle stretches as `(begin, end)` in ns; an open one ends
    /// at `end_ns`.
    pub fn idle_stretches(&self, worker: usize, end_ns: u64) -> Vec<(u64, u64)> {
        stretches(&self.workers[worker], end_ns)
    }
}

fn stretches(events: &[TraceEvent], end: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut open = None;
    for e in events {
        match e.kind {
            EventKind::IdleBegin => open = Some(e.ts_ns),
            EventKind::IdleEnd => {
                if let Some(b) = open.take() {
                    out.push((b, e.ts_ns));
                }
            }
            _ => {}
        }
    }
    if let Some(b) = open {
        out.push((b, end.max(b)));
    }
    out
}

fn idle_ns(events: &[TraceEvent], end: u64) -> u64 {
    stretches(events, end).iter().map(|(b, e)| e - b).sum()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Instant;

    fn event(ts_ns: u64) -> TraceEvent {
        TraceEvent {
            ts_ns,
            kind: EventKind::RequestSent,
            peer: 1,
            hops: 0,
        }
    }

    #[test]
    fn a_full_ring_keeps_the_first_events_and_counts_the_rest() {
        let ring = Ring::try_new(3).unwrap();
        for t in 0..5 {
            ring.record(event(t));
        }
        let (events, dropped) = ring.snapshot();
        assert_eq!(
            events.iter().map(|e| e.ts_ns).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        assert_eq!(dropped, 2);
    }

    /// A reader snapshotting while the owner writes sees a prefix of what was written, never a
    /// slot that is not written yet.
    #[test]
    fn snapshots_while_recording_are_prefixes() {
        let ring = Arc::new(Ring::try_new(50_000).unwrap());
        let writer = {
            let ring = Arc::clone(&ring);
            std::thread::spawn(move || {
                for t in 1..=50_000 {
                    ring.record(event(t));
                }
            })
        };
        let mut last = 0;
        while last < 50_000 {
            let (events, _) = ring.snapshot();
            assert!(events.len() >= last);
            for (i, e) in events.iter().enumerate() {
                assert_eq!(e.ts_ns, i as u64 + 1, "slot {i} read before it was written");
            }
            last = events.len();
        }
        writer.join().unwrap();
    }

    /// What recording one event costs its worker: the clock reading (from the pool's origin, as
    /// `Registry::now_ns`) and the write. A measurement, not a check:
    /// `cargo test --release --lib trace::tests::record_cost -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement; run by hand"]
    fn record_cost() {
        const N: usize = 1 << 20;
        let origin = Instant::now();
        let mut per_event = Vec::new();
        for _ in 0..15 {
            let ring = Ring::try_new(N).unwrap();
            let t = Instant::now();
            for i in 0..N {
                ring.record(TraceEvent {
                    ts_ns: origin.elapsed().as_nanos() as u64,
                    kind: EventKind::Stolen,
                    peer: (i & 3) as u32,
                    hops: 1,
                });
            }
            per_event.push(t.elapsed().as_nanos() as f64 / N as f64);
            std::hint::black_box(ring.snapshot().0.len());
        }
        per_event.sort_by(f64::total_cmp);
        println!(
            "record: median {:.1} ns/event over 15 runs of {N} (min {:.1}, max {:.1})",
            per_event[7], per_event[0], per_event[14]
        );
    }
}

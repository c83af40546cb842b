//! Each worker's cells for the request/answer protocol ([`Exchange`]), which the registry holds
//! so that every worker can reach every other's. The protocol that drives them, and the argument
//! that it loses no task and no wake-up, are in `src/worker/exchange.rs` and the README beside
//! it.

use crate::job::JobRef;
use crate::sync::{AtomicBool, AtomicU32, AtomicUsize, Ordering, UnsafeCell};
use crossbeam_utils::CachePadded;

/// The request cell holds no request: a thief may post one.
pub(crate) const NO_REQUEST: usize = usize::MAX;
/// The owner is idle: requests fail at once. Only the owner enters and leaves this state.
pub(crate) const BLOCKED: usize = usize::MAX - 1;

/// Answer slot states.
pub(crate) const WAITING: u32 = 0;
pub(crate) const REJECT: u32 = 1;
pub(crate) const GOT: u32 = 2;

/// One worker's cells, shared: its request cell, its answer slot and its published load.
pub(crate) struct Exchange {
    pub(crate) request: CachePadded<AtomicUsize>,
    pub(crate) state: CachePadded<AtomicU32>,
    /// The task a victim hands over; written by the victim that claimed the request, before
    /// its Release store of `GOT`, read by the owner after its Acquire load of `GOT`.
    pub(crate) slot: UnsafeCell<Option<JobRef>>,
    /// The owner's count of its waiting tasks (private stack, and standing queue when placing),
    /// for policies that read loads (relaxed: a reader may see a value one push or pop old).
    pub(crate) load: CachePadded<AtomicUsize>,
    /// A thief withdrew a request to this worker: it waited `ANSWER_POLLS` polls without an
    /// answer, so this worker runs long stretches without a poll point. A hint (Relaxed, lost
    /// or repeated at no cost to correctness): at its next poll the owner publishes its next
    /// `EAGER_PUSHES` tasks at once (`src/worker/README.md`, "Starvation").
    pub(crate) starved: CachePadded<AtomicBool>,
    /// The owner's `join`s may run in place without polling (`src/worker/in_place.rs`): raised
    /// by the owner, lowered by the owner, a thief that posts a request here, or a worker going
    /// idle. A plain `std` atomic even under loom, where no stealing worker raises it.
    pub(crate) in_place: CachePadded<std::sync::atomic::AtomicBool>,
}

// SAFETY: `slot` is written only by the victim that claimed this worker's request and read only
// by this worker after the Release/Acquire pair on `state` (`src/worker/README.md`, "No task
// lost or run twice").
unsafe impl Sync for Exchange {}

impl Exchange {
    /// A worker's cells. `blocked`: the worker starts idle (its cell `BLOCKED`, counted in the
    /// pool's `idle`), as every worker of a receiver-initiated pool of two or more does: a
    /// worker that has not started yet is not busy, and a `join` made before it gets to its
    /// first search must see the demand (`src/worker/README.md`, "Promotion").
    pub(crate) fn new(blocked: bool) -> Self {
        Exchange {
            request: CachePadded::new(AtomicUsize::new(if blocked { BLOCKED } else { NO_REQUEST })),
            state: CachePadded::new(AtomicU32::new(WAITING)),
            slot: UnsafeCell::new(None),
            load: CachePadded::new(AtomicUsize::new(0)),
            starved: CachePadded::new(AtomicBool::new(false)),
            in_place: CachePadded::new(std::sync::atomic::AtomicBool::new(false)),
        }
    }

    /// Whether a thief waits for this worker's answer (a relaxed read of the own cell: the claim
    /// in `answer` orders what matters).
    #[inline(always)]
    pub(crate) fn pending(&self) -> bool {
        self.request.load(Ordering::Relaxed) < BLOCKED
    }

    #[inline(always)]
    pub(crate) fn publish_load(&self, len: usize) {
        self.load.store(len, Ordering::Relaxed);
    }

    pub(crate) fn published_load(&self) -> usize {
        self.load.load(Ordering::Relaxed)
    }
}

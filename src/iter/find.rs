//! `find_first` and `find_last`: order-aware searches that still stop early.
//!
//! Every piece looks for its own first (last) match, and partial results are combined in
//! order, which alone makes the answer the sequential one. To stop early, a piece that finds a
//! match publishes where it lies: the start of its place in the whole iteration
//! ([`Place`](crate::iter::plumbing::sealed::Place), `lo`), which orders the pieces of nested
//! loops (`flat_map`) and of unindexed sources too. For `find_first`, a piece or a whole
//! subtree of pieces whose place starts after a published match can only hold later matches:
//! it stops, or the driver skips it unstarted. Pieces that start earlier keep looking
//! (symmetrically for `find_last`).
//!
//! Places are rounded, and deeply nested pieces can share one start. The comparisons are
//! strict, so pieces with equal starts never stop each other: an earlier piece is never stopped
//! by a later one's match, whatever the rounding. A piece that comes without a place (driven
//! through a shared `&C`, as the halves of an unindexed `chain`) neither publishes nor stops.

use crate::iter::consumers::{scan, Scanned};
use crate::iter::plumbing::sealed::{Place, Token};
use crate::iter::plumbing::Consumer;
use crate::sync::{AtomicU64, Ordering};

/// The first match in order.
pub(crate) struct FindFirstConsumer<'f, F> {
    predicate: &'f F,
    /// The smallest place start of a piece that found a match (`u64::MAX`: none yet).
    best: AtomicU64,
}

impl<'f, F> FindFirstConsumer<'f, F> {
    pub(crate) fn new(predicate: &'f F) -> Self {
        FindFirstConsumer {
            predicate,
            best: AtomicU64::new(u64::MAX),
        }
    }

    /// Whether a match before `at` is known (`best` is the consumer's), so that nothing from
    /// `at` on can come first.
    fn beaten(best: &AtomicU64, at: u64) -> bool {
        best.load(Ordering::Relaxed) < at
    }
}

impl<T: Send, F: Fn(&T) -> bool + Sync> Consumer<T> for FindFirstConsumer<'_, F> {
    type Result = Option<T>;

    fn consume<I: Iterator<Item = T>>(&self, mut iter: I) -> Option<T> {
        iter.find(self.predicate)
    }

    fn consume_placed<I: Iterator<Item = T>>(
        &self,
        _: Option<usize>,
        place: Place,
        iter: I,
        _: Token,
    ) -> Option<T> {
        let (predicate, best) = (self.predicate, &self.best);
        // Checked before the next item is produced, so that a piece after a match stops
        // producing (a `map` or `inspect` upstream runs for at most `SCAN_LOOK` more items).
        let beaten = || Self::beaten(best, place.lo);
        match scan(iter, beaten, |item| predicate(&item).then_some(item)) {
            Scanned::Hit(item) => {
                best.fetch_min(place.lo, Ordering::Relaxed);
                Some(item)
            }
            Scanned::Stopped | Scanned::Exhausted => None,
        }
    }

    fn full_placed(&self, place: Place, _: Token) -> bool {
        Self::beaten(&self.best, place.lo)
    }

    fn reduce(&self, left: Option<T>, right: Option<T>) -> Option<T> {
        left.or(right)
    }

    fn identity(&self) -> Option<T> {
        None
    }
}

/// The last match in order.
pub(crate) struct FindLastConsumer<'f, F> {
    predicate: &'f F,
    /// One past the largest place start of a piece that found a match (0: none yet).
    best: AtomicU64,
}

impl<'f, F> FindLastConsumer<'f, F> {
    pub(crate) fn new(predicate: &'f F) -> Self {
        FindLastConsumer {
            predicate,
            best: AtomicU64::new(0),
        }
    }

    /// Whether a match in a piece that starts after `at` is known (`best` is the consumer's).
    fn beaten(best: &AtomicU64, at: u64) -> bool {
        best.load(Ordering::Relaxed) > at + 1
    }
}

impl<T: Send, F: Fn(&T) -> bool + Sync> Consumer<T> for FindLastConsumer<'_, F> {
    type Result = Option<T>;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> Option<T> {
        iter.filter(self.predicate).last()
    }

    fn consume_placed<I: Iterator<Item = T>>(
        &self,
        _: Option<usize>,
        place: Place,
        iter: I,
        _: Token,
    ) -> Option<T> {
        let mut last = None;
        let (predicate, best) = (self.predicate, &self.best);
        // Checked before the next item is produced (as in `FindFirstConsumer`).
        let beaten = || Self::beaten(best, place.lo);
        let seen = scan(iter, beaten, |item| {
            if predicate(&item) {
                if last.is_none() {
                    // Published at once, so that earlier pieces stop while this one goes on
                    // looking for a later match of its own.
                    best.fetch_max(place.lo + 1, Ordering::Relaxed);
                }
                last = Some(item);
            }
            None::<()>
        });
        match seen {
            // A later piece has a match: nothing here can come last.
            Scanned::Stopped => None,
            Scanned::Hit(()) | Scanned::Exhausted => last,
        }
    }

    fn full_placed(&self, place: Place, _: Token) -> bool {
        // Every piece inside `place` starts at or before `place.hi`.
        Self::beaten(&self.best, place.hi)
    }

    fn reduce(&self, left: Option<T>, right: Option<T>) -> Option<T> {
        right.or(left)
    }

    fn identity(&self) -> Option<T> {
        None
    }
}

//! `find_first` and `find_last`: order-aware searches that still stop early.
//!
//! Every piece looks for its own first (last) match, and partial results are combined in
//! order, which alone makes the answer the sequential one. To stop early, a piece that finds a
//! match publishes its starting position ([`Consumer::consume_at`]): pieces of the same loop
//! never overlap, so for `find_first` any piece that starts later can only hold later matches
//! and stops, while pieces that start earlier keep looking (symmetrically for `find_last`).
//! Pieces that do not know their position (inside `flat_map`, both sides of an unindexed
//! `chain`) simply search to the end.

use crate::iter::plumbing::Consumer;
use crate::sync::{AtomicUsize, Ordering};

/// The first match in order.
pub(crate) struct FindFirstConsumer<'f, F> {
    predicate: &'f F,
    /// The smallest start of a piece that found a match (`usize::MAX`: none yet).
    best: AtomicUsize,
}

impl<'f, F> FindFirstConsumer<'f, F> {
    pub(crate) fn new(predicate: &'f F) -> Self {
        FindFirstConsumer {
            predicate,
            best: AtomicUsize::new(usize::MAX),
        }
    }
}

impl<T: Send, F: Fn(&T) -> bool + Sync> Consumer<T> for FindFirstConsumer<'_, F> {
    type Result = Option<T>;

    fn consume<I: Iterator<Item = T>>(&self, mut iter: I) -> Option<T> {
        iter.find(self.predicate)
    }

    fn consume_at<I: Iterator<Item = T>>(&self, start: usize, mut iter: I) -> Option<T> {
        loop {
            // Checked before the next item is produced, so that a piece after a match produces
            // nothing more (a `map` or `inspect` upstream does not run for it).
            if self.best.load(Ordering::Relaxed) < start {
                // An earlier piece has a match: nothing here can come first.
                return None;
            }
            let item = iter.next()?;
            if (self.predicate)(&item) {
                self.best.fetch_min(start, Ordering::Relaxed);
                return Some(item);
            }
        }
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
    /// One past the largest start of a piece that found a match (0: none yet).
    best: AtomicUsize,
}

impl<'f, F> FindLastConsumer<'f, F> {
    pub(crate) fn new(predicate: &'f F) -> Self {
        FindLastConsumer {
            predicate,
            best: AtomicUsize::new(0),
        }
    }
}

impl<T: Send, F: Fn(&T) -> bool + Sync> Consumer<T> for FindLastConsumer<'_, F> {
    type Result = Option<T>;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> Option<T> {
        iter.filter(self.predicate).last()
    }

    fn consume_at<I: Iterator<Item = T>>(&self, start: usize, iter: I) -> Option<T> {
        let mut last = None;
        let mut iter = iter;
        loop {
            // Checked before the next item is produced (as in `FindFirstConsumer`).
            if self.best.load(Ordering::Relaxed) > start + 1 {
                // A later piece has a match: nothing here can come last.
                return None;
            }
            let Some(item) = iter.next() else { break };
            if (self.predicate)(&item) {
                last = Some(item);
            }
        }
        if last.is_some() {
            self.best.fetch_max(start + 1, Ordering::Relaxed);
        }
        last
    }

    fn reduce(&self, left: Option<T>, right: Option<T>) -> Option<T> {
        right.or(left)
    }

    fn identity(&self) -> Option<T> {
        None
    }
}

//! The terminal consumers behind `for_each`, `sum`, `min`, `reduce`, `any`, `find_any`, ….
//!
//! Each folds a piece with the sequential iterator's own method and combines partial results
//! left before right, which is what makes the parallel result equal the sequential one (ties in
//! `min`/`max` included). The short-circuiting ones (`any`, `all`, `find_any`) share a flag that
//! every piece checks every [`SCAN_LOOK`] items; the others never fill, and say so
//! (`can_fill`), so that a `filter` or `fold` before them looks at nothing between items.

use crate::iter::plumbing::sealed::Token;
use crate::iter::plumbing::Consumer;
use crate::sync::{AtomicBool, Ordering};
use std::cmp::Ordering as CmpOrdering;
use std::iter::{Product, Sum};
use std::marker::PhantomData;

pub(crate) struct ForEachConsumer<'f, F> {
    op: &'f F,
}

impl<'f, F> ForEachConsumer<'f, F> {
    pub(crate) fn new(op: &'f F) -> Self {
        ForEachConsumer { op }
    }
}

impl<T, F: Fn(T) + Sync> Consumer<T> for ForEachConsumer<'_, F> {
    type Result = ();

    fn consume<I: Iterator<Item = T>>(&self, iter: I) {
        iter.for_each(self.op);
    }

    fn reduce(&self, _: (), _: ()) {}

    fn identity(&self) {}

    fn can_fill(&self, _: Token) -> bool {
        false
    }
}

pub(crate) struct SumConsumer<S>(PhantomData<fn() -> S>);

impl<S> SumConsumer<S> {
    pub(crate) fn new() -> Self {
        SumConsumer(PhantomData)
    }
}

impl<T, S: Send + Sum<T> + Sum<S>> Consumer<T> for SumConsumer<S> {
    type Result = S;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> S {
        iter.sum()
    }

    fn reduce(&self, left: S, right: S) -> S {
        [left, right].into_iter().sum()
    }

    fn identity(&self) -> S {
        std::iter::empty::<S>().sum()
    }

    fn can_fill(&self, _: Token) -> bool {
        false
    }
}

pub(crate) struct ProductConsumer<P>(PhantomData<fn() -> P>);

impl<P> ProductConsumer<P> {
    pub(crate) fn new() -> Self {
        ProductConsumer(PhantomData)
    }
}

impl<T, P: Send + Product<T> + Product<P>> Consumer<T> for ProductConsumer<P> {
    type Result = P;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> P {
        iter.product()
    }

    fn reduce(&self, left: P, right: P) -> P {
        [left, right].into_iter().product()
    }

    fn identity(&self) -> P {
        std::iter::empty::<P>().product()
    }

    fn can_fill(&self, _: Token) -> bool {
        false
    }
}

pub(crate) struct CountConsumer;

impl<T> Consumer<T> for CountConsumer {
    type Result = usize;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> usize {
        iter.count()
    }

    fn reduce(&self, left: usize, right: usize) -> usize {
        left + right
    }

    fn identity(&self) -> usize {
        0
    }

    fn can_fill(&self, _: Token) -> bool {
        false
    }
}

/// Minimum by a comparator; on ties the earlier item wins.
pub(crate) struct MinConsumer<'f, F> {
    compare: &'f F,
}

impl<'f, F> MinConsumer<'f, F> {
    pub(crate) fn new(compare: &'f F) -> Self {
        MinConsumer { compare }
    }
}

impl<T: Send, F> Consumer<T> for MinConsumer<'_, F>
where
    F: Fn(&T, &T) -> CmpOrdering + Sync,
{
    type Result = Option<T>;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> Option<T> {
        iter.min_by(self.compare)
    }

    fn reduce(&self, left: Option<T>, right: Option<T>) -> Option<T> {
        match (left, right) {
            (Some(a), Some(b)) => Some(match (self.compare)(&b, &a) {
                CmpOrdering::Less => b,
                _ => a,
            }),
            (a, b) => a.or(b),
        }
    }

    fn identity(&self) -> Option<T> {
        None
    }

    fn can_fill(&self, _: Token) -> bool {
        false
    }
}

/// Maximum by a comparator; on ties the later item wins (as `Iterator::max_by`).
pub(crate) struct MaxConsumer<'f, F> {
    compare: &'f F,
}

impl<'f, F> MaxConsumer<'f, F> {
    pub(crate) fn new(compare: &'f F) -> Self {
        MaxConsumer { compare }
    }
}

impl<T: Send, F> Consumer<T> for MaxConsumer<'_, F>
where
    F: Fn(&T, &T) -> CmpOrdering + Sync,
{
    type Result = Option<T>;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> Option<T> {
        iter.max_by(self.compare)
    }

    fn reduce(&self, left: Option<T>, right: Option<T>) -> Option<T> {
        match (left, right) {
            (Some(a), Some(b)) => Some(match (self.compare)(&b, &a) {
                CmpOrdering::Less => a,
                _ => b,
            }),
            (a, b) => a.or(b),
        }
    }

    fn identity(&self) -> Option<T> {
        None
    }

    fn can_fill(&self, _: Token) -> bool {
        false
    }
}

pub(crate) struct ReduceConsumer<'f, ID, OP> {
    identity: &'f ID,
    op: &'f OP,
}

impl<'f, ID, OP> ReduceConsumer<'f, ID, OP> {
    pub(crate) fn new(identity: &'f ID, op: &'f OP) -> Self {
        ReduceConsumer { identity, op }
    }
}

impl<T: Send, ID, OP> Consumer<T> for ReduceConsumer<'_, ID, OP>
where
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    type Result = T;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> T {
        iter.fold((self.identity)(), self.op)
    }

    fn reduce(&self, left: T, right: T) -> T {
        (self.op)(left, right)
    }

    fn identity(&self) -> T {
        (self.identity)()
    }

    fn can_fill(&self, _: Token) -> bool {
        false
    }
}

pub(crate) struct ReduceWithConsumer<'f, OP> {
    op: &'f OP,
}

impl<'f, OP> ReduceWithConsumer<'f, OP> {
    pub(crate) fn new(op: &'f OP) -> Self {
        ReduceWithConsumer { op }
    }
}

impl<T: Send, OP> Consumer<T> for ReduceWithConsumer<'_, OP>
where
    OP: Fn(T, T) -> T + Sync,
{
    type Result = Option<T>;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> Option<T> {
        iter.reduce(self.op)
    }

    fn reduce(&self, left: Option<T>, right: Option<T>) -> Option<T> {
        match (left, right) {
            (Some(a), Some(b)) => Some((self.op)(a, b)),
            (a, b) => a.or(b),
        }
    }

    fn identity(&self) -> Option<T> {
        None
    }

    fn can_fill(&self, _: Token) -> bool {
        false
    }
}

/// `any`: `found` is raised by the first match anywhere; everyone stops.
pub(crate) struct AnyConsumer<'f, F> {
    predicate: &'f F,
    found: AtomicBool,
}

impl<'f, F> AnyConsumer<'f, F> {
    pub(crate) fn new(predicate: &'f F) -> Self {
        AnyConsumer {
            predicate,
            found: AtomicBool::new(false),
        }
    }
}

impl<T, F: Fn(T) -> bool + Sync> Consumer<T> for AnyConsumer<'_, F> {
    type Result = bool;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> bool {
        let (predicate, found) = (self.predicate, &self.found);
        match scan(
            iter,
            || found.load(Ordering::Relaxed),
            |item| predicate(item).then_some(()),
        ) {
            Scanned::Hit(()) => {
                found.store(true, Ordering::Relaxed);
                true
            }
            Scanned::Stopped => true,
            Scanned::Exhausted => false,
        }
    }

    fn reduce(&self, left: bool, right: bool) -> bool {
        left || right
    }

    fn identity(&self) -> bool {
        false
    }

    fn full(&self) -> bool {
        self.found.load(Ordering::Relaxed)
    }
}

/// `all` is `!any(!predicate)`.
pub(crate) struct AllConsumer<'f, F> {
    predicate: &'f F,
    failed: AtomicBool,
}

impl<'f, F> AllConsumer<'f, F> {
    pub(crate) fn new(predicate: &'f F) -> Self {
        AllConsumer {
            predicate,
            failed: AtomicBool::new(false),
        }
    }
}

impl<T, F: Fn(T) -> bool + Sync> Consumer<T> for AllConsumer<'_, F> {
    type Result = bool;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> bool {
        let (predicate, failed) = (self.predicate, &self.failed);
        let stopped = || failed.load(Ordering::Relaxed);
        match scan(iter, stopped, |item| (!predicate(item)).then_some(())) {
            Scanned::Hit(()) => {
                failed.store(true, Ordering::Relaxed);
                false
            }
            Scanned::Stopped => false,
            Scanned::Exhausted => true,
        }
    }

    fn reduce(&self, left: bool, right: bool) -> bool {
        left && right
    }

    fn identity(&self) -> bool {
        // A skipped piece counts as true; the piece that failed makes the whole result false.
        true
    }

    fn full(&self) -> bool {
        self.failed.load(Ordering::Relaxed)
    }
}

/// Items a search takes between two looks at whether it should stop.
///
/// A search that read its shared flag at every item made the compiler read the predicate's
/// captured references again at every item as well (it does not move a load of memory it cannot
/// see into across a relaxed atomic load), so a scan whose test is one comparison did a load
/// more per item than it needs. Between looks the loop reads no atomic and the captures stay in
/// registers. The price: a piece goes on for at most this many items after another piece
/// raised the flag.
pub(crate) const SCAN_LOOK: usize = 64;

/// How a [`scan`] ended.
pub(crate) enum Scanned<R> {
    /// `hit` returned this for an item.
    Hit(R),
    /// `stopped` said so before the items ran out.
    Stopped,
    /// The items ran out.
    Exhausted,
}

/// The loop of the searches (`any`, `all`, `find_any`, `find_first`, `find_last`): feeds
/// `iter` to `hit` until it returns `Some`, the items run out, or `stopped` returns true.
/// `stopped` is asked before the first item is produced and then once every [`SCAN_LOOK`]
/// items, before the next one is produced.
#[inline(always)]
pub(crate) fn scan<T, R>(
    mut iter: impl Iterator<Item = T>,
    mut stopped: impl FnMut() -> bool,
    mut hit: impl FnMut(T) -> Option<R>,
) -> Scanned<R> {
    loop {
        if stopped() {
            return Scanned::Stopped;
        }
        for _ in 0..SCAN_LOOK {
            let Some(item) = iter.next() else {
                return Scanned::Exhausted;
            };
            if let Some(found) = hit(item) {
                return Scanned::Hit(found);
            }
        }
    }
}

pub(crate) struct FindAnyConsumer<'f, F> {
    predicate: &'f F,
    found: AtomicBool,
}

impl<'f, F> FindAnyConsumer<'f, F> {
    pub(crate) fn new(predicate: &'f F) -> Self {
        FindAnyConsumer {
            predicate,
            found: AtomicBool::new(false),
        }
    }
}

impl<T: Send, F: Fn(&T) -> bool + Sync> Consumer<T> for FindAnyConsumer<'_, F> {
    type Result = Option<T>;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> Option<T> {
        let (predicate, found) = (self.predicate, &self.found);
        let stopped = || found.load(Ordering::Relaxed);
        match scan(iter, stopped, |item| predicate(&item).then_some(item)) {
            Scanned::Hit(item) => {
                found.store(true, Ordering::Relaxed);
                Some(item)
            }
            Scanned::Stopped | Scanned::Exhausted => None,
        }
    }

    fn reduce(&self, left: Option<T>, right: Option<T>) -> Option<T> {
        left.or(right)
    }

    fn identity(&self) -> Option<T> {
        None
    }

    fn full(&self) -> bool {
        self.found.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::{scan, Scanned, SCAN_LOOK};
    use std::cell::Cell;

    /// Runs `scan` over `0..n`, hitting at `hit_at`, with `stopped` true once `raise_at` items
    /// were produced; returns how it ended, how many items it produced and how often it asked.
    fn run(n: usize, hit_at: Option<usize>, raise_at: usize) -> (Scanned<usize>, usize, usize) {
        let (produced, asked) = (Cell::new(0), Cell::new(0));
        let items = (0..n).inspect(|_| produced.set(produced.get() + 1));
        let stopped = || {
            asked.set(asked.get() + 1);
            produced.get() >= raise_at
        };
        let end = scan(items, stopped, |i| (Some(i) == hit_at).then_some(i));
        (end, produced.get(), asked.get())
    }

    #[test]
    fn a_scan_asks_before_the_first_item_and_then_once_a_look() {
        let n = 3 * SCAN_LOOK + 8;
        let (end, produced, asked) = run(n, None, usize::MAX);
        assert!(matches!(end, Scanned::Exhausted));
        assert_eq!((produced, asked), (n, 4));
        // Raised before it starts: nothing is produced.
        let (end, produced, asked) = run(n, None, 0);
        assert!(matches!(end, Scanned::Stopped));
        assert_eq!((produced, asked), (0, 1));
    }

    #[test]
    fn a_scan_stops_at_its_next_look_after_the_flag_is_raised() {
        let (end, produced, _) = run(10 * SCAN_LOOK, None, 10);
        assert!(matches!(end, Scanned::Stopped));
        assert_eq!(produced, SCAN_LOOK);
        let (end, produced, _) = run(10 * SCAN_LOOK, None, SCAN_LOOK + 1);
        assert!(matches!(end, Scanned::Stopped));
        assert_eq!(produced, 2 * SCAN_LOOK);
    }

    #[test]
    fn a_scan_returns_its_hit_and_produces_nothing_after_it() {
        for at in [0, 5, SCAN_LOOK - 1, SCAN_LOOK, 2 * SCAN_LOOK + 3] {
            let (end, produced, _) = run(3 * SCAN_LOOK, Some(at), usize::MAX);
            assert!(matches!(end, Scanned::Hit(i) if i == at), "hit at {at}");
            assert_eq!(produced, at + 1);
        }
        // A hit on the last item is a hit, not the end of the items.
        let (end, _, _) = run(SCAN_LOOK, Some(SCAN_LOOK - 1), usize::MAX);
        assert!(matches!(end, Scanned::Hit(i) if i == SCAN_LOOK - 1));
    }
}

//! The terminal consumers behind `for_each`, `sum`, `min`, `reduce`, `any`, `find_any`, ….
//!
//! Each folds a piece with the sequential iterator's own method and combines partial results
//! left before right, which is what makes the parallel result equal the sequential one (ties in
//! `min`/`max` included). The short-circuiting ones (`any`, `all`, `find_any`) share a flag that
//! every piece checks before each item.

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
        // Held in locals (see `FindAnyConsumer::consume`).
        let (predicate, found) = (self.predicate, &self.found);
        for item in iter {
            if found.load(Ordering::Relaxed) {
                return true;
            }
            if predicate(item) {
                found.store(true, Ordering::Relaxed);
                return true;
            }
        }
        false
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
        // Held in locals (see `FindAnyConsumer::consume`).
        let (predicate, failed) = (self.predicate, &self.failed);
        for item in iter {
            if failed.load(Ordering::Relaxed) {
                return false;
            }
            if !predicate(item) {
                failed.store(true, Ordering::Relaxed);
                return false;
            }
        }
        true
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
        // The predicate and the flag are held in locals: read through `self` at every item (a
        // struct with an atomic in it, so the compiler keeps reloading its fields), the loop
        // also reloaded the predicate's captures at every item, a load more per item in a scan
        // that does little else.
        let (predicate, found) = (self.predicate, &self.found);
        for item in iter {
            if found.load(Ordering::Relaxed) {
                return None;
            }
            if predicate(&item) {
                found.store(true, Ordering::Relaxed);
                return Some(item);
            }
        }
        None
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

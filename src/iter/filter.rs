//! `filter` and `filter_map`: unindexed adapters that wrap the consumer; order is kept because
//! each piece filters its own items and pieces are combined in order.

use crate::iter::plumbing::Consumer;
use crate::iter::plumbing::{sealed, until_full};
use crate::iter::ParallelIterator;

/// The iterator of [`ParallelIterator::filter`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Filter<I, F> {
    base: I,
    predicate: F,
}

impl<I: std::fmt::Debug, F> std::fmt::Debug for Filter<I, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("Filter")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, F> Filter<I, F> {
    pub(crate) fn new(base: I, predicate: F) -> Self {
        Filter { base, predicate }
    }
}

impl<I, F> ParallelIterator for Filter<I, F>
where
    I: ParallelIterator,
    F: Fn(&I::Item) -> bool + Sync + Send,
{
    type Item = I::Item;

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let Filter { base, predicate } = self;
        base.drive(FilterConsumer {
            inner: consumer,
            predicate: &predicate,
        })
    }
}

struct FilterConsumer<'f, C, F> {
    inner: C,
    predicate: &'f F,
}

impl<T, C, F> Consumer<T> for FilterConsumer<'_, C, F>
where
    C: Consumer<T>,
    F: Fn(&T) -> bool + Sync,
{
    type Result = C::Result;

    fn consume<It: Iterator<Item = T>>(&self, iter: It) -> C::Result {
        // Checks the consumer between items: a piece whose items all fail the predicate still
        // stops once a `find_any` or `any` downstream is done. Not where it never fills.
        let full = self
            .inner
            .can_fill(sealed::Token(()))
            .then_some(|| self.inner.full());
        self.inner
            .consume(until_full(iter, full).filter(self.predicate))
    }

    fn consume_placed<It: Iterator<Item = T>>(
        &self,
        start: Option<usize>,
        place: sealed::Place,
        iter: It,
        token: sealed::Token,
    ) -> C::Result {
        let full = self
            .inner
            .can_fill(token)
            .then_some(|| self.inner.full_placed(place, token));
        let items = until_full(iter, full).filter(self.predicate);
        self.inner.consume_placed(start, place, items, token)
    }

    fn full_placed(&self, place: sealed::Place, token: sealed::Token) -> bool {
        self.inner.full_placed(place, token)
    }

    fn reduce(&self, left: C::Result, right: C::Result) -> C::Result {
        self.inner.reduce(left, right)
    }

    fn identity(&self) -> C::Result {
        self.inner.identity()
    }

    fn full(&self) -> bool {
        self.inner.full()
    }

    fn can_fill(&self, token: sealed::Token) -> bool {
        self.inner.can_fill(token)
    }
}

/// The iterator of [`ParallelIterator::filter_map`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FilterMap<I, F> {
    base: I,
    f: F,
}

impl<I: std::fmt::Debug, F> std::fmt::Debug for FilterMap<I, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("FilterMap")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, F> FilterMap<I, F> {
    pub(crate) fn new(base: I, f: F) -> Self {
        FilterMap { base, f }
    }
}

impl<I, F, R> ParallelIterator for FilterMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> Option<R> + Sync + Send,
    R: Send,
{
    type Item = R;

    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let FilterMap { base, f } = self;
        base.drive(FilterMapConsumer {
            inner: consumer,
            f: &f,
        })
    }
}

struct FilterMapConsumer<'f, C, F> {
    inner: C,
    f: &'f F,
}

impl<T, R, C, F> Consumer<T> for FilterMapConsumer<'_, C, F>
where
    C: Consumer<R>,
    F: Fn(T) -> Option<R> + Sync,
{
    type Result = C::Result;

    fn consume<It: Iterator<Item = T>>(&self, iter: It) -> C::Result {
        // As in `FilterConsumer`.
        let full = self
            .inner
            .can_fill(sealed::Token(()))
            .then_some(|| self.inner.full());
        self.inner
            .consume(until_full(iter, full).filter_map(self.f))
    }

    fn consume_placed<It: Iterator<Item = T>>(
        &self,
        start: Option<usize>,
        place: sealed::Place,
        iter: It,
        token: sealed::Token,
    ) -> C::Result {
        let full = self
            .inner
            .can_fill(token)
            .then_some(|| self.inner.full_placed(place, token));
        let items = until_full(iter, full).filter_map(self.f);
        self.inner.consume_placed(start, place, items, token)
    }

    fn full_placed(&self, place: sealed::Place, token: sealed::Token) -> bool {
        self.inner.full_placed(place, token)
    }

    fn reduce(&self, left: C::Result, right: C::Result) -> C::Result {
        self.inner.reduce(left, right)
    }

    fn identity(&self) -> C::Result {
        self.inner.identity()
    }

    fn full(&self) -> bool {
        self.inner.full()
    }

    fn can_fill(&self, token: sealed::Token) -> bool {
        self.inner.can_fill(token)
    }
}

//! Nested iteration: `flat_map` / `flatten` (the inner items are parallel iterators, each run
//! as a loop of its own) and `flat_map_iter` / `flatten_iter` (the inner items are sequential
//! iterators, run inside the outer piece). Both keep the order: outer items in order, each
//! one's inner items in order.

use crate::iter::plumbing::sealed::{Place, Token};
use crate::iter::plumbing::Consumer;
use crate::iter::{IntoParallelIterator, ParallelIterator};

/// The iterator of [`ParallelIterator::flat_map`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FlatMap<I, F> {
    base: I,
    f: F,
}

impl<I: std::fmt::Debug, F> std::fmt::Debug for FlatMap<I, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("FlatMap")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, F> FlatMap<I, F> {
    pub(crate) fn new(base: I, f: F) -> Self {
        FlatMap { base, f }
    }
}

impl<I, F, PI> ParallelIterator for FlatMap<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> PI + Sync + Send,
    PI: IntoParallelIterator,
{
    type Item = PI::Item;

    fn drive<C: Consumer<PI::Item>>(self, consumer: C) -> C::Result {
        let FlatMap { base, f } = self;
        base.drive(FlatMapConsumer {
            inner: consumer,
            f: &f,
        })
    }
}

/// The iterator of [`ParallelIterator::flatten`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Flatten<I> {
    base: I,
}

impl<I> Flatten<I> {
    pub(crate) fn new(base: I) -> Self {
        Flatten { base }
    }
}

impl<I> ParallelIterator for Flatten<I>
where
    I: ParallelIterator,
    I::Item: IntoParallelIterator,
{
    type Item = <I::Item as IntoParallelIterator>::Item;

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        FlatMap::new(self.base, |x: I::Item| x).drive(consumer)
    }
}

/// Runs each outer item's parallel iterator as a nested loop, with the shared consumer.
struct FlatMapConsumer<'f, C, F> {
    inner: C,
    f: &'f F,
}

impl<X, PI, C, F> Consumer<X> for FlatMapConsumer<'_, C, F>
where
    PI: IntoParallelIterator,
    C: Consumer<PI::Item>,
    F: Fn(X) -> PI + Sync,
{
    type Result = C::Result;

    // No `consume_at`: the nested loops have positions of their own, unrelated to the outer
    // loop's, so they are driven through `&C`, which drops positions.
    fn consume<I: Iterator<Item = X>>(&self, iter: I) -> C::Result {
        let mut acc = self.inner.identity();
        for item in iter {
            if self.inner.full() {
                break;
            }
            let nested = (self.f)(item).into_par_iter().drive(&self.inner);
            acc = self.inner.reduce(acc, nested);
        }
        acc
    }

    // With a place, each outer item's share of it becomes the place of its nested loop, whose
    // pieces get places inside it (`Nested`): so `find_first` orders them, and skips the items
    // and nested pieces after a match.
    fn consume_placed<I: Iterator<Item = X>>(
        &self,
        _: Option<usize>,
        place: Place,
        iter: I,
        token: Token,
    ) -> C::Result {
        let (lower, upper) = iter.size_hint();
        let count = (upper == Some(lower)).then_some(lower);
        let mut acc = self.inner.identity();
        for (k, item) in iter.enumerate() {
            let at = place.item(k, count);
            if self.inner.full_placed(at, token) {
                // Nothing in this item can matter (later ones may: `find_last`).
                continue;
            }
            let nested = (self.f)(item).into_par_iter().drive(Nested {
                inner: &self.inner,
                place: at,
            });
            acc = self.inner.reduce(acc, nested);
        }
        acc
    }

    fn full_placed(&self, place: Place, token: Token) -> bool {
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

    fn can_fill(&self, token: Token) -> bool {
        self.inner.can_fill(token)
    }
}

/// The consumer of a nested loop that occupies `place` of the outer one: its pieces' places
/// are placed inside it; positions are dropped (they are the inner loop's own).
struct Nested<'c, C> {
    inner: &'c C,
    place: Place,
}

impl<T, C: Consumer<T>> Consumer<T> for Nested<'_, C> {
    type Result = C::Result;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> C::Result {
        self.inner.consume(iter)
    }

    fn consume_placed<I: Iterator<Item = T>>(
        &self,
        _: Option<usize>,
        place: Place,
        iter: I,
        token: Token,
    ) -> C::Result {
        self.inner
            .consume_placed(None, self.place.within(place), iter, token)
    }

    fn full_placed(&self, place: Place, token: Token) -> bool {
        self.inner.full_placed(self.place.within(place), token)
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

    fn can_fill(&self, token: Token) -> bool {
        self.inner.can_fill(token)
    }
}

/// The iterator of [`ParallelIterator::flat_map_iter`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FlatMapIter<I, F> {
    base: I,
    f: F,
}

impl<I: std::fmt::Debug, F> std::fmt::Debug for FlatMapIter<I, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("FlatMapIter")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, F> FlatMapIter<I, F> {
    pub(crate) fn new(base: I, f: F) -> Self {
        FlatMapIter { base, f }
    }
}

impl<I, F, SI> ParallelIterator for FlatMapIter<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> SI + Sync + Send,
    SI: IntoIterator,
    SI::Item: Send,
{
    type Item = SI::Item;

    fn drive<C: Consumer<SI::Item>>(self, consumer: C) -> C::Result {
        let FlatMapIter { base, f } = self;
        base.drive(FlatMapIterConsumer {
            inner: consumer,
            f: &f,
        })
    }
}

/// The iterator of [`ParallelIterator::flatten_iter`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FlattenIter<I> {
    base: I,
}

impl<I> FlattenIter<I> {
    pub(crate) fn new(base: I) -> Self {
        FlattenIter { base }
    }
}

impl<I> ParallelIterator for FlattenIter<I>
where
    I: ParallelIterator,
    I::Item: IntoIterator,
    <I::Item as IntoIterator>::Item: Send,
{
    type Item = <I::Item as IntoIterator>::Item;

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        FlatMapIter::new(self.base, |x: I::Item| x).drive(consumer)
    }
}

/// Expands each outer item sequentially inside its piece; the piece's position still orders it.
struct FlatMapIterConsumer<'f, C, F> {
    inner: C,
    f: &'f F,
}

impl<X, SI, C, F> Consumer<X> for FlatMapIterConsumer<'_, C, F>
where
    SI: IntoIterator,
    C: Consumer<SI::Item>,
    F: Fn(X) -> SI + Sync,
{
    type Result = C::Result;

    fn consume<I: Iterator<Item = X>>(&self, iter: I) -> C::Result {
        self.inner.consume(iter.flat_map(self.f))
    }

    fn consume_placed<It: Iterator<Item = X>>(
        &self,
        start: Option<usize>,
        place: crate::iter::plumbing::sealed::Place,
        iter: It,
        token: crate::iter::plumbing::sealed::Token,
    ) -> C::Result {
        self.inner
            .consume_placed(start, place, iter.flat_map(self.f), token)
    }

    fn full_placed(
        &self,
        place: crate::iter::plumbing::sealed::Place,
        token: crate::iter::plumbing::sealed::Token,
    ) -> bool {
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

    fn can_fill(&self, token: Token) -> bool {
        self.inner.can_fill(token)
    }
}

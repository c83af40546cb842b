//! Small adapters: `inspect`, `update`, `positions` and `zip_eq` (built on `map`, `enumerate`
//! and `zip`), and `while_some`.

use crate::iter::plumbing::{Consumer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator, Zip};
use crate::sync::{AtomicBool, Ordering};

/// The iterator of [`ParallelIterator::inspect`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Inspect<I, F> {
    base: I,
    op: F,
}

impl<I: std::fmt::Debug, F> std::fmt::Debug for Inspect<I, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("Inspect")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, F> Inspect<I, F> {
    pub(crate) fn new(base: I, op: F) -> Self {
        Inspect { base, op }
    }
}

impl<I, F> ParallelIterator for Inspect<I, F>
where
    I: ParallelIterator,
    F: Fn(&I::Item) + Sync + Send,
{
    type Item = I::Item;

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let op = &self.op;
        self.base
            .map(|x| {
                op(&x);
                x
            })
            .drive(consumer)
    }
}

impl<I, F> IndexedParallelIterator for Inspect<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(&I::Item) + Sync + Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let op = &self.op;
        self.base
            .map(|x| {
                op(&x);
                x
            })
            .with_producer(callback)
    }
}

/// The iterator of [`ParallelIterator::update`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Update<I, F> {
    base: I,
    op: F,
}

impl<I: std::fmt::Debug, F> std::fmt::Debug for Update<I, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("Update")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, F> Update<I, F> {
    pub(crate) fn new(base: I, op: F) -> Self {
        Update { base, op }
    }
}

impl<I, F> ParallelIterator for Update<I, F>
where
    I: ParallelIterator,
    F: Fn(&mut I::Item) + Sync + Send,
{
    type Item = I::Item;

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let op = &self.op;
        self.base
            .map(|mut x| {
                op(&mut x);
                x
            })
            .drive(consumer)
    }
}

impl<I, F> IndexedParallelIterator for Update<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(&mut I::Item) + Sync + Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let op = &self.op;
        self.base
            .map(|mut x| {
                op(&mut x);
                x
            })
            .with_producer(callback)
    }
}

/// The iterator of [`IndexedParallelIterator::positions`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Positions<I, P> {
    base: I,
    predicate: P,
}

impl<I: std::fmt::Debug, P> std::fmt::Debug for Positions<I, P> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("Positions")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, P> Positions<I, P> {
    pub(crate) fn new(base: I, predicate: P) -> Self {
        Positions { base, predicate }
    }
}

impl<I, P> ParallelIterator for Positions<I, P>
where
    I: IndexedParallelIterator,
    P: Fn(I::Item) -> bool + Sync + Send,
{
    type Item = usize;

    fn drive<C: Consumer<usize>>(self, consumer: C) -> C::Result {
        let predicate = &self.predicate;
        self.base
            .enumerate()
            .filter_map(|(i, x)| predicate(x).then_some(i))
            .drive(consumer)
    }
}

/// The iterator of [`IndexedParallelIterator::zip_eq`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ZipEq<A, B> {
    zip: Zip<A, B>,
}

impl<A: IndexedParallelIterator, B: IndexedParallelIterator> ZipEq<A, B> {
    pub(crate) fn new(a: A, b: B) -> Self {
        let (la, lb) = (a.len(), b.len());
        assert_eq!(la, lb, "zip_eq: the iterators have different lengths");
        ZipEq { zip: a.zip(b) }
    }
}

impl<A, B> ParallelIterator for ZipEq<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    type Item = (A::Item, B::Item);

    opt_len_indexed!();

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.zip.drive(consumer)
    }
}

impl<A, B> IndexedParallelIterator for ZipEq<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    fn len(&self) -> usize {
        self.zip.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.zip.with_producer(callback)
    }
}

/// The iterator of [`ParallelIterator::while_some`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct WhileSome<I> {
    base: I,
}

impl<I> WhileSome<I> {
    pub(crate) fn new(base: I) -> Self {
        WhileSome { base }
    }
}

impl<I, T> ParallelIterator for WhileSome<I>
where
    I: ParallelIterator<Item = Option<T>>,
    T: Send,
{
    type Item = T;

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.base.drive(WhileSomeConsumer {
            inner: consumer,
            stop: AtomicBool::new(false),
        })
    }
}

/// Passes `Some` values on until any piece meets a `None`; then every piece stops.
struct WhileSomeConsumer<C> {
    inner: C,
    stop: AtomicBool,
}

impl<C> WhileSomeConsumer<C> {
    fn values<'a, T: 'a>(
        &'a self,
        iter: impl Iterator<Item = Option<T>> + 'a,
    ) -> impl Iterator<Item = T> + 'a {
        iter.take_while(|_| !self.stop.load(Ordering::Relaxed))
            .map_while(|x| {
                if x.is_none() {
                    self.stop.store(true, Ordering::Relaxed);
                }
                x
            })
    }
}

impl<T, C: Consumer<T>> Consumer<Option<T>> for WhileSomeConsumer<C> {
    type Result = C::Result;

    fn consume<I: Iterator<Item = Option<T>>>(&self, iter: I) -> C::Result {
        self.inner.consume(self.values(iter))
    }

    fn consume_placed<It: Iterator<Item = Option<T>>>(
        &self,
        start: Option<usize>,
        place: crate::iter::plumbing::sealed::Place,
        iter: It,
        token: crate::iter::plumbing::sealed::Token,
    ) -> C::Result {
        self.inner
            .consume_placed(start, place, self.values(iter), token)
    }

    fn full_placed(
        &self,
        place: crate::iter::plumbing::sealed::Place,
        token: crate::iter::plumbing::sealed::Token,
    ) -> bool {
        self.stop.load(Ordering::Relaxed) || self.inner.full_placed(place, token)
    }

    fn reduce(&self, left: C::Result, right: C::Result) -> C::Result {
        self.inner.reduce(left, right)
    }

    fn identity(&self) -> C::Result {
        self.inner.identity()
    }

    fn full(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || self.inner.full()
    }
}

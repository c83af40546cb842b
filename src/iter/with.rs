//! Closures with per-piece state: `map_with`, `map_init` and `fold_with` (and through them
//! `for_each_with` / `for_each_init`).
//!
//! `map_with` and `fold_with` give every piece its own clone of a value; `map_init` calls
//! `init` once per piece. How many pieces there are depends on the schedule and on stealing, so
//! a closure must not rely on how often its state is created, only on getting exclusive access
//! to it within a piece.

use crate::iter::fold::fold_until_full;
use crate::iter::plumbing::sealed::Token;
use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator, Schedule};
use crate::sync::Mutex;

/// The iterator of [`ParallelIterator::map_with`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct MapWith<I, T, F> {
    base: I,
    item: T,
    f: F,
}

impl<I: std::fmt::Debug, T: std::fmt::Debug, F> std::fmt::Debug for MapWith<I, T, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("MapWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish_non_exhaustive()
    }
}

impl<I, T, F> MapWith<I, T, F> {
    pub(crate) fn new(base: I, item: T, f: F) -> Self {
        MapWith { base, item, f }
    }
}

/// The iterator of [`ParallelIterator::map_init`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct MapInit<I, INIT, F> {
    base: I,
    init: INIT,
    f: F,
}

impl<I: std::fmt::Debug, INIT, F> std::fmt::Debug for MapInit<I, INIT, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("MapInit")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, INIT, F> MapInit<I, INIT, F> {
    pub(crate) fn new(base: I, init: INIT, f: F) -> Self {
        MapInit { base, init, f }
    }
}

/// Where a piece gets its state from.
trait StateSource: Sync {
    type State;
    fn make(&self) -> Self::State;
}

/// `map_with`: clones of a value. The value sits behind a lock so that it need only be `Send`
/// (as in rayon), not `Sync`, while pieces on several threads clone it.
struct CloneOf<T>(Mutex<T>);

impl<T: Clone + Send> StateSource for CloneOf<T> {
    type State = T;

    fn make(&self) -> T {
        self.0.lock().clone()
    }
}

/// `map_init`: calls to `init`.
struct InitBy<'f, INIT>(&'f INIT);

impl<T, INIT: Fn() -> T + Sync> StateSource for InitBy<'_, INIT> {
    type State = T;

    fn make(&self) -> T {
        (self.0)()
    }
}

impl<I, T, F, R> ParallelIterator for MapWith<I, T, F>
where
    I: ParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }

    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let MapWith { base, item, f } = self;
        base.drive(MapStateConsumer {
            inner: consumer,
            source: CloneOf(Mutex::new(item)),
            f: &f,
        })
    }
}

impl<I, T, F, R> IndexedParallelIterator for MapWith<I, T, F>
where
    I: IndexedParallelIterator,
    T: Send + Clone,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let MapWith { base, item, f } = self;
        base.with_producer(MapWithCallback {
            callback,
            item,
            f: &f,
        })
    }
}

impl<I, INIT, T, F, R> ParallelIterator for MapInit<I, INIT, F>
where
    I: ParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }

    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let MapInit { base, init, f } = self;
        base.drive(MapStateConsumer {
            inner: consumer,
            source: InitBy(&init),
            f: &f,
        })
    }
}

impl<I, INIT, T, F, R> IndexedParallelIterator for MapInit<I, INIT, F>
where
    I: IndexedParallelIterator,
    INIT: Fn() -> T + Sync + Send,
    F: Fn(&mut T, I::Item) -> R + Sync + Send,
    R: Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let MapInit { base, init, f } = self;
        base.with_producer(MapInitCallback {
            callback,
            init: &init,
            f: &f,
        })
    }
}

struct MapStateConsumer<'f, C, S, F> {
    inner: C,
    source: S,
    f: &'f F,
}

impl<X, R, C, S, F> Consumer<X> for MapStateConsumer<'_, C, S, F>
where
    C: Consumer<R>,
    S: StateSource + Send,
    F: Fn(&mut S::State, X) -> R + Sync,
{
    type Result = C::Result;

    fn consume<I: Iterator<Item = X>>(&self, iter: I) -> C::Result {
        let mut state = self.source.make();
        self.inner.consume(iter.map(|x| (self.f)(&mut state, x)))
    }

    // One item out per item in, in place (see `MapConsumer`).
    fn begin(&self, len: usize, token: crate::iter::plumbing::sealed::Token) {
        self.inner.begin(len, token);
    }

    fn consume_range<I: Iterator<Item = X>>(
        &self,
        start: usize,
        len: usize,
        place: crate::iter::plumbing::sealed::Place,
        iter: I,
        token: crate::iter::plumbing::sealed::Token,
    ) -> C::Result {
        let mut state = self.source.make();
        let items = iter.map(|x| (self.f)(&mut state, x));
        self.inner.consume_range(start, len, place, items, token)
    }

    fn consume_placed<I: Iterator<Item = X>>(
        &self,
        start: Option<usize>,
        place: crate::iter::plumbing::sealed::Place,
        iter: I,
        token: crate::iter::plumbing::sealed::Token,
    ) -> C::Result {
        let mut state = self.source.make();
        let items = iter.map(|x| (self.f)(&mut state, x));
        self.inner.consume_placed(start, place, items, token)
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

    fn can_fill(&self, token: crate::iter::plumbing::sealed::Token) -> bool {
        self.inner.can_fill(token)
    }
}

struct MapWithCallback<'f, CB, T, F> {
    callback: CB,
    item: T,
    f: &'f F,
}

impl<X, T, R, CB, F> ProducerCallback<X> for MapWithCallback<'_, CB, T, F>
where
    CB: ProducerCallback<R>,
    T: Send + Clone,
    F: Fn(&mut T, X) -> R + Sync,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = X>>(self, base: P) -> CB::Output {
        self.callback.callback(MapWithProducer {
            base,
            item: self.item,
            f: self.f,
        })
    }
}

/// Every split clones the state, so every piece owns one.
struct MapWithProducer<'f, P, T, F> {
    base: P,
    item: T,
    f: &'f F,
}

impl<'f, P, T, F, R> Producer for MapWithProducer<'f, P, T, F>
where
    P: Producer,
    T: Send + Clone,
    F: Fn(&mut T, P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = MapStateIter<'f, P::IntoIter, T, F>;

    fn len(&self) -> usize {
        self.base.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        let f = self.f;
        (
            MapWithProducer {
                base: l,
                item: self.item.clone(),
                f,
            },
            MapWithProducer {
                base: r,
                item: self.item,
                f,
            },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        MapStateIter {
            iter: self.base.into_iter(),
            state: self.item,
            f: self.f,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn schedule(&self) -> Option<Schedule> {
        self.base.schedule()
    }
}

struct MapInitCallback<'f, CB, INIT, F> {
    callback: CB,
    init: &'f INIT,
    f: &'f F,
}

impl<X, T, R, CB, INIT, F> ProducerCallback<X> for MapInitCallback<'_, CB, INIT, F>
where
    CB: ProducerCallback<R>,
    INIT: Fn() -> T + Sync,
    F: Fn(&mut T, X) -> R + Sync,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = X>>(self, base: P) -> CB::Output {
        self.callback.callback(MapInitProducer {
            base,
            init: self.init,
            f: self.f,
        })
    }
}

/// The state is made when a piece starts, on the thread that runs it.
struct MapInitProducer<'f, P, INIT, F> {
    base: P,
    init: &'f INIT,
    f: &'f F,
}

impl<'f, P, INIT, T, F, R> Producer for MapInitProducer<'f, P, INIT, F>
where
    P: Producer,
    INIT: Fn() -> T + Sync,
    F: Fn(&mut T, P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = MapStateIter<'f, P::IntoIter, T, F>;

    fn len(&self) -> usize {
        self.base.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        let (init, f) = (self.init, self.f);
        (
            MapInitProducer { base: l, init, f },
            MapInitProducer { base: r, init, f },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        MapStateIter {
            iter: self.base.into_iter(),
            state: (self.init)(),
            f: self.f,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn schedule(&self) -> Option<Schedule> {
        self.base.schedule()
    }
}

/// A piece of `map_with` / `map_init`: the mapping with the piece's own state.
pub(crate) struct MapStateIter<'f, I, T, F> {
    iter: I,
    state: T,
    f: &'f F,
}

impl<I: Iterator, T, F: Fn(&mut T, I::Item) -> R, R> Iterator for MapStateIter<'_, I, T, F> {
    type Item = R;

    fn next(&mut self) -> Option<R> {
        let x = self.iter.next()?;
        Some((self.f)(&mut self.state, x))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<I, T, F, R> ExactSizeIterator for MapStateIter<'_, I, T, F>
where
    I: ExactSizeIterator,
    F: Fn(&mut T, I::Item) -> R,
{
}

impl<I, T, F, R> DoubleEndedIterator for MapStateIter<'_, I, T, F>
where
    I: DoubleEndedIterator,
    F: Fn(&mut T, I::Item) -> R,
{
    fn next_back(&mut self) -> Option<R> {
        let x = self.iter.next_back()?;
        Some((self.f)(&mut self.state, x))
    }
}

/// The iterator of [`ParallelIterator::fold_with`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FoldWith<I, T, F> {
    base: I,
    item: T,
    fold_op: F,
}

impl<I: std::fmt::Debug, T: std::fmt::Debug, F> std::fmt::Debug for FoldWith<I, T, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("FoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish_non_exhaustive()
    }
}

impl<I, T, F> FoldWith<I, T, F> {
    pub(crate) fn new(base: I, item: T, fold_op: F) -> Self {
        FoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<I, T, F> ParallelIterator for FoldWith<I, T, F>
where
    I: ParallelIterator,
    T: Send + Clone,
    F: Fn(T, I::Item) -> T + Sync + Send,
{
    type Item = T;

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        let FoldWith {
            base,
            item,
            fold_op,
        } = self;
        base.drive(FoldWithConsumer {
            inner: consumer,
            source: CloneOf(Mutex::new(item)),
            fold_op: &fold_op,
        })
    }
}

struct FoldWithConsumer<'f, C, T, F> {
    inner: C,
    source: CloneOf<T>,
    fold_op: &'f F,
}

impl<X, T, C, F> Consumer<X> for FoldWithConsumer<'_, C, T, F>
where
    C: Consumer<T>,
    T: Send + Clone,
    F: Fn(T, X) -> T + Sync,
{
    type Result = C::Result;

    fn consume<I: Iterator<Item = X>>(&self, iter: I) -> C::Result {
        let full = self
            .inner
            .can_fill(Token(()))
            .then_some(|| self.inner.full());
        let acc = fold_until_full(iter, self.source.make(), self.fold_op, full);
        self.inner.consume(std::iter::once(acc))
    }

    fn consume_placed<I: Iterator<Item = X>>(
        &self,
        start: Option<usize>,
        place: crate::iter::plumbing::sealed::Place,
        iter: I,
        token: crate::iter::plumbing::sealed::Token,
    ) -> C::Result {
        let full = self
            .inner
            .can_fill(token)
            .then_some(|| self.inner.full_placed(place, token));
        let acc = fold_until_full(iter, self.source.make(), self.fold_op, full);
        self.inner
            .consume_placed(start, place, std::iter::once(acc), token)
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

    fn can_fill(&self, token: crate::iter::plumbing::sealed::Token) -> bool {
        self.inner.can_fill(token)
    }
}

//! `map`, and `copied`/`cloned` (a `map` with a fixed function).

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator, Schedule};

/// The iterator of [`ParallelIterator::map`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Map<I, F> {
    base: I,
    f: F,
}

impl<I: std::fmt::Debug, F> std::fmt::Debug for Map<I, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("Map")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, F> Map<I, F> {
    pub(crate) fn new(base: I, f: F) -> Self {
        Map { base, f }
    }
}

impl<I, F, R> ParallelIterator for Map<I, F>
where
    I: ParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    type Item = R;

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }

    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let Map { base, f } = self;
        base.drive(MapConsumer {
            inner: consumer,
            f: &f,
        })
    }
}

impl<I, F, R> IndexedParallelIterator for Map<I, F>
where
    I: IndexedParallelIterator,
    F: Fn(I::Item) -> R + Sync + Send,
    R: Send,
{
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<R>>(self, callback: CB) -> CB::Output {
        let Map { base, f } = self;
        base.with_producer(MapCallback { callback, f: &f })
    }
}

struct MapConsumer<'f, C, F> {
    inner: C,
    f: &'f F,
}

impl<T, R, C, F> Consumer<T> for MapConsumer<'_, C, F>
where
    C: Consumer<R>,
    F: Fn(T) -> R + Sync,
{
    type Result = C::Result;

    fn consume<It: Iterator<Item = T>>(&self, iter: It) -> C::Result {
        self.inner.consume(iter.map(self.f))
    }

    // One item out per item in, in place: the loop's length and ranges hold for the inner
    // consumer too.
    fn begin(&self, len: usize, token: crate::iter::plumbing::sealed::Token) {
        self.inner.begin(len, token);
    }

    fn consume_range<It: Iterator<Item = T>>(
        &self,
        start: usize,
        len: usize,
        place: crate::iter::plumbing::sealed::Place,
        iter: It,
        token: crate::iter::plumbing::sealed::Token,
    ) -> C::Result {
        self.inner
            .consume_range(start, len, place, iter.map(self.f), token)
    }

    fn consume_placed<It: Iterator<Item = T>>(
        &self,
        start: Option<usize>,
        place: crate::iter::plumbing::sealed::Place,
        iter: It,
        token: crate::iter::plumbing::sealed::Token,
    ) -> C::Result {
        self.inner
            .consume_placed(start, place, iter.map(self.f), token)
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

struct MapCallback<'f, CB, F> {
    callback: CB,
    f: &'f F,
}

impl<'f, T, R, CB, F> ProducerCallback<T> for MapCallback<'f, CB, F>
where
    CB: ProducerCallback<R>,
    F: Fn(T) -> R + Sync,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(MapProducer { base, f: self.f })
    }
}

struct MapProducer<'f, P, F> {
    base: P,
    f: &'f F,
}

impl<'f, P, F, R> Producer for MapProducer<'f, P, F>
where
    P: Producer,
    F: Fn(P::Item) -> R + Sync,
{
    type Item = R;
    type IntoIter = std::iter::Map<P::IntoIter, &'f F>;

    fn len(&self) -> usize {
        self.base.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        (
            MapProducer { base: l, f: self.f },
            MapProducer { base: r, f: self.f },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().map(self.f)
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

fn copy<T: Copy>(x: &T) -> T {
    *x
}

fn clone<T: Clone>(x: &T) -> T {
    x.clone()
}

macro_rules! ref_map {
    ($(#[$doc:meta])* $name:ident, $bound:ident, $func:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        #[must_use = "parallel iterators do nothing until consumed"]
        pub struct $name<I> {
            base: I,
        }

        impl<I> $name<I> {
            pub(crate) fn new(base: I) -> Self {
                $name { base }
            }
        }

        impl<'a, T, I> ParallelIterator for $name<I>
        where
            I: ParallelIterator<Item = &'a T>,
            T: 'a + $bound + Send + Sync,
        {
            type Item = T;

            fn opt_len(&self) -> Option<usize> {
                self.base.opt_len()
            }

            fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
                self.base.map($func::<T> as fn(&T) -> T).drive(consumer)
            }
        }

        impl<'a, T, I> IndexedParallelIterator for $name<I>
        where
            I: IndexedParallelIterator<Item = &'a T>,
            T: 'a + $bound + Send + Sync,
        {
            fn len(&self) -> usize {
                self.base.len()
            }

            fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
                self.base.map($func::<T> as fn(&T) -> T).with_producer(callback)
            }
        }
    };
}

ref_map!(
    /// The iterator of [`ParallelIterator::copied`].
    Copied,
    Copy,
    copy
);
ref_map!(
    /// The iterator of [`ParallelIterator::cloned`].
    Cloned,
    Clone,
    clone
);

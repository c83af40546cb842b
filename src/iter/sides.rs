//! [`Either`] of two parallel iterators is a parallel iterator (whichever side it holds), and
//! an `Either` of two collections is extended through the side it holds.

use crate::iter::plumbing::{Consumer, ProducerCallback};
use crate::iter::{
    IndexedParallelIterator, IntoParallelIterator, ParallelExtend, ParallelIterator,
};
use either::Either;

/// Runs whichever iterator the `Either` holds.
///
/// ```
/// use hypersteal::prelude::*;
/// use hypersteal::iter::Either;
/// fn evens_or_all(n: u32, evens: bool) -> impl ParallelIterator<Item = u32> {
///     if evens {
///         Either::Left((0..n).into_par_iter().filter(|x| x % 2 == 0))
///     } else {
///         Either::Right((0..n).into_par_iter())
///     }
/// }
/// assert_eq!(evens_or_all(10, true).count(), 5);
/// assert_eq!(evens_or_all(10, false).count(), 10);
/// ```
impl<L, R> ParallelIterator for Either<L, R>
where
    L: ParallelIterator,
    R: ParallelIterator<Item = L::Item>,
{
    type Item = L::Item;

    fn opt_len(&self) -> Option<usize> {
        match self {
            Either::Left(l) => l.opt_len(),
            Either::Right(r) => r.opt_len(),
        }
    }

    fn drive<C: Consumer<L::Item>>(self, consumer: C) -> C::Result {
        match self {
            Either::Left(l) => l.drive(consumer),
            Either::Right(r) => r.drive(consumer),
        }
    }
}

impl<L, R> IndexedParallelIterator for Either<L, R>
where
    L: IndexedParallelIterator,
    R: IndexedParallelIterator<Item = L::Item>,
{
    fn len(&self) -> usize {
        match self {
            Either::Left(l) => l.len(),
            Either::Right(r) => r.len(),
        }
    }

    fn with_producer<CB: ProducerCallback<L::Item>>(self, callback: CB) -> CB::Output {
        match self {
            Either::Left(l) => l.with_producer(callback),
            Either::Right(r) => r.with_producer(callback),
        }
    }
}

/// Extends whichever collection the `Either` holds.
impl<L, R, T> ParallelExtend<T> for Either<L, R>
where
    L: ParallelExtend<T>,
    R: ParallelExtend<T>,
    T: Send,
{
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        match self {
            Either::Left(l) => l.par_extend(par_iter),
            Either::Right(r) => r.par_extend(par_iter),
        }
    }
}

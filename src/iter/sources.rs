//! Parallel iterators made from nothing or from one value: [`empty`], [`once`], [`repeat`],
//! [`repeatn`], and [`split`] (a value that splits itself).

use crate::iter::divide::{bridge_divisible, Divisible};
use crate::iter::option;
use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::marker::PhantomData;

/// A parallel iterator of no items.
///
/// ```
/// use hypersteal::prelude::*;
/// assert_eq!(hypersteal::iter::empty::<u32>().count(), 0);
/// ```
pub fn empty<T: Send>() -> Empty<T> {
    Empty {
        marker: PhantomData,
    }
}

/// The iterator of [`empty`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Empty<T> {
    marker: PhantomData<fn() -> T>,
}

impl<T: Send> ParallelIterator for Empty<T> {
    type Item = T;

    opt_len_indexed!();

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        consumer.identity()
    }
}

impl<T: Send> IndexedParallelIterator for Empty<T> {
    fn len(&self) -> usize {
        0
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        None.into_par_iter().with_producer(callback)
    }
}

/// A parallel iterator of exactly one item.
///
/// ```
/// use hypersteal::prelude::*;
/// let v: Vec<u32> = (0..3u32).into_par_iter().chain(hypersteal::iter::once(7)).collect();
/// assert_eq!(v, [0, 1, 2, 7]);
/// ```
pub fn once<T: Send>(item: T) -> Once<T> {
    Once {
        inner: Some(item).into_par_iter(),
    }
}

/// The iterator of [`once`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Once<T> {
    inner: option::IntoIter<T>,
}

impl<T: Send> ParallelIterator for Once<T> {
    type Item = T;

    opt_len_indexed!();

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.inner.drive(consumer)
    }
}

impl<T: Send> IndexedParallelIterator for Once<T> {
    fn len(&self) -> usize {
        1
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        self.inner.with_producer(callback)
    }
}

/// A parallel iterator that yields `n` clones of `item` (indexed); rayon's newer name for
/// [`repeatn`].
///
/// ```
/// use hypersteal::prelude::*;
/// let v: Vec<&str> = hypersteal::iter::repeat_n("ab", 3).collect();
/// assert_eq!(v, ["ab", "ab", "ab"]);
/// ```
pub fn repeat_n<T: Clone + Send>(item: T, n: usize) -> RepeatN<T> {
    repeatn(item, n)
}

/// A parallel iterator of `n` clones of `item`.
///
/// ```
/// use hypersteal::prelude::*;
/// let v: Vec<(u32, char)> = (0..3u32).into_par_iter().zip(hypersteal::iter::repeatn('x', 5)).collect();
/// assert_eq!(v, [(0, 'x'), (1, 'x'), (2, 'x')]);
/// ```
pub fn repeatn<T: Clone + Send>(item: T, n: usize) -> RepeatN<T> {
    // An empty iterator drops its item at once and never clones it (as rayon's does).
    RepeatN {
        item: (n > 0).then_some(item),
        count: n,
    }
}

/// The iterator of [`repeatn`] (and of [`Repeat::take`]).
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct RepeatN<T> {
    /// `None` exactly when `count` is 0.
    item: Option<T>,
    count: usize,
}

impl<T: Clone + Send> ParallelIterator for RepeatN<T> {
    type Item = T;

    opt_len_indexed!();

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl<T: Clone + Send> IndexedParallelIterator for RepeatN<T> {
    fn len(&self) -> usize {
        self.count
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        callback.callback(self)
    }
}

impl<T: Clone + Send> Producer for RepeatN<T> {
    type Item = T;
    type IntoIter = RepeatNIter<T>;

    fn len(&self) -> usize {
        self.count
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let empty = || RepeatN {
            item: None,
            count: 0,
        };
        if index == 0 {
            return (empty(), self);
        }
        if index == self.count {
            return (self, empty());
        }
        // Both sides hold items: one clone, the only one a split costs.
        let left = RepeatN {
            item: self.item.clone(),
            count: index,
        };
        let right = RepeatN {
            item: self.item,
            count: self.count - index,
        };
        (left, right)
    }

    fn into_iter(self) -> Self::IntoIter {
        RepeatNIter(self.item.map(|item| std::iter::repeat_n(item, self.count)))
    }
}

/// The sequential iterator of one piece of [`RepeatN`]: `std::iter::RepeatN`, or nothing for a
/// piece that holds no item.
#[derive(Clone, Debug)]
pub struct RepeatNIter<T>(Option<std::iter::RepeatN<T>>);

impl<T: Clone> Iterator for RepeatNIter<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.0.as_mut()?.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.as_ref().map_or(0, ExactSizeIterator::len);
        (n, Some(n))
    }

    // Skipping clones nothing (`step_by` skips).
    fn nth(&mut self, n: usize) -> Option<T> {
        self.0.as_mut()?.nth(n)
    }
}

impl<T: Clone> DoubleEndedIterator for RepeatNIter<T> {
    fn next_back(&mut self) -> Option<T> {
        self.0.as_mut()?.next_back()
    }

    fn nth_back(&mut self, n: usize) -> Option<T> {
        self.0.as_mut()?.nth_back(n)
    }
}

impl<T: Clone> ExactSizeIterator for RepeatNIter<T> {}

/// An endless parallel iterator of clones of `item`: only useful with something that stops it
/// (`take`, `zip` with a finite iterator, `take_any`, `find_any`, …).
///
/// ```
/// use hypersteal::prelude::*;
/// let v: Vec<u32> = hypersteal::iter::repeat(4u32).take(3).collect();
/// assert_eq!(v, [4, 4, 4]);
/// assert_eq!(hypersteal::iter::repeat(1u8).take_any(100).count(), 100);
/// ```
pub fn repeat<T: Clone + Send>(item: T) -> Repeat<T> {
    Repeat { item }
}

/// The iterator of [`repeat`]. It is unindexed (it has no length), but `take` and `zip` make
/// indexed iterators of it.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Repeat<T> {
    item: T,
}

impl<T: Clone + Send> Repeat<T> {
    /// The first `n` items: [`repeatn`]`(item, n)`.
    pub fn take(self, n: usize) -> RepeatN<T> {
        repeatn(self.item, n)
    }

    /// Pairs the items of `other` with clones of the item: an indexed iterator as long as
    /// `other`.
    pub fn zip<Z>(self, other: Z) -> crate::iter::Zip<RepeatN<T>, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        let other = other.into_par_iter();
        let n = other.len();
        self.take(n).zip(other)
    }
}

/// A piece of an endless repetition: it divides while the split budget lasts.
struct Endless<T>(T);

impl<T: Clone + Send> Divisible for Endless<T> {
    type Item = T;

    fn divide(self) -> (Self, Option<Self>) {
        (Endless(self.0.clone()), Some(self))
    }

    fn fold_with<C: Consumer<T>>(self, consumer: &C) -> C::Result {
        // Stops as soon as the consumer needs nothing more.
        consumer.consume(std::iter::repeat(self.0).take_while(|_| !consumer.full()))
    }
}

impl<T: Clone + Send> ParallelIterator for Repeat<T> {
    type Item = T;

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        bridge_divisible(Endless(self.item), &consumer)
    }
}

/// A parallel iterator over pieces of `data`, cut by `splitter`: `splitter(d)` returns two
/// halves `(left, Some(right))`, or `(d, None)` when `d` should not be cut further. Each piece
/// left whole is one item; the items come in order (lefts before rights).
///
/// ```
/// use hypersteal::prelude::*;
/// // Sum a range by splitting it in halves down to 100 numbers.
/// let sum: u64 = hypersteal::iter::split(0..10_000u64, |r| {
///     if r.end - r.start <= 100 {
///         (r, None)
///     } else {
///         let mid = r.start + (r.end - r.start) / 2;
///         (r.start..mid, Some(mid..r.end))
///     }
/// })
/// .map(|r| r.sum::<u64>())
/// .sum();
/// assert_eq!(sum, 10_000 * 9_999 / 2);
/// ```
pub fn split<D, S>(data: D, splitter: S) -> Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    Split { data, splitter }
}

/// The iterator of [`split`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Split<D, S> {
    data: D,
    splitter: S,
}

impl<D: std::fmt::Debug, S> std::fmt::Debug for Split<D, S> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The splitter is a closure, without `Debug`.
        out.debug_struct("Split")
            .field("data", &self.data)
            .finish_non_exhaustive()
    }
}

struct SplitPiece<'s, D, S> {
    data: D,
    splitter: &'s S,
}

impl<D, S> Divisible for SplitPiece<'_, D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync,
{
    type Item = D;

    fn divide(self) -> (Self, Option<Self>) {
        let splitter = self.splitter;
        let (left, right) = splitter(self.data);
        (
            SplitPiece {
                data: left,
                splitter,
            },
            right.map(|data| SplitPiece { data, splitter }),
        )
    }

    fn fold_with<C: Consumer<D>>(self, consumer: &C) -> C::Result {
        consumer.consume(std::iter::once(self.data))
    }
}

impl<D, S> ParallelIterator for Split<D, S>
where
    D: Send,
    S: Fn(D) -> (D, Option<D>) + Sync + Send,
{
    type Item = D;

    fn drive<C: Consumer<D>>(self, consumer: C) -> C::Result {
        let piece = SplitPiece {
            data: self.data,
            splitter: &self.splitter,
        };
        bridge_divisible(piece, &consumer)
    }
}

//! `intersperse`: a clone of a separator between every two items.
//!
//! Unindexed bases wrap the consumer: each piece puts separators between its own items and
//! reports whether it had any; combining two non-empty partial results folds one more separator
//! in between. Indexed bases become a producer of `2n - 1` items: the even positions are the
//! base's items, the odd ones separators.

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator, Schedule};
use std::cell::Cell;

/// The iterator of [`ParallelIterator::intersperse`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Intersperse<I: ParallelIterator> {
    base: I,
    item: I::Item,
}

impl<I: ParallelIterator> Intersperse<I> {
    pub(crate) fn new(base: I, item: I::Item) -> Self {
        Intersperse { base, item }
    }
}

/// The number of items and separators for `n` items (a separator between every two), if
/// `usize` can count it.
fn interspersed_len(n: usize) -> Option<usize> {
    match n {
        0 => Some(0),
        n => (n - 1).checked_mul(2)?.checked_add(1),
    }
}

impl<I> ParallelIterator for Intersperse<I>
where
    I: ParallelIterator,
    I::Item: Clone,
{
    type Item = I::Item;

    fn opt_len(&self) -> Option<usize> {
        interspersed_len(self.base.opt_len()?)
    }

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        let Intersperse { base, item } = self;
        // Sharing the separator by reference needs `Sync`; a lock needs only `Send`.
        let separator = crate::sync::Mutex::new(item);
        base.drive(IntersperseConsumer {
            inner: consumer,
            separator: &separator,
        })
        .0
    }
}

struct IntersperseConsumer<'s, C, T> {
    inner: C,
    separator: &'s crate::sync::Mutex<T>,
}

impl<C, T: Clone> IntersperseConsumer<'_, C, T> {
    fn separator(&self) -> T {
        self.separator.lock().clone()
    }
}

/// A piece's items with separators between them; notes whether it yielded any item.
struct Between<'a, I: Iterator, F> {
    iter: std::iter::Peekable<I>,
    separator: F,
    /// Whether the next item is a separator.
    separator_next: bool,
    any: &'a Cell<bool>,
}

impl<I: Iterator, F: Fn() -> I::Item> Iterator for Between<'_, I, F> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        if self.separator_next {
            self.iter.peek()?;
            self.separator_next = false;
            return Some((self.separator)());
        }
        let item = self.iter.next()?;
        self.any.set(true);
        self.separator_next = true;
        Some(item)
    }
}

impl<T, C> Consumer<T> for IntersperseConsumer<'_, C, T>
where
    C: Consumer<T>,
    T: Clone + Send,
{
    /// The inner result and whether the items it covers include any item of the base.
    type Result = (C::Result, bool);

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> Self::Result {
        let any = Cell::new(false);
        let result = self.inner.consume(Between {
            iter: iter.peekable(),
            separator: || self.separator(),
            separator_next: false,
            any: &any,
        });
        (result, any.get())
    }

    fn reduce(&self, left: Self::Result, right: Self::Result) -> Self::Result {
        match (left, right) {
            ((l, true), (r, true)) => {
                let between = self.inner.consume(std::iter::once(self.separator()));
                let l = self.inner.reduce(l, between);
                (self.inner.reduce(l, r), true)
            }
            ((l, a), (r, b)) => (self.inner.reduce(l, r), a || b),
        }
    }

    fn identity(&self) -> Self::Result {
        (self.inner.identity(), false)
    }

    fn full(&self) -> bool {
        self.inner.full()
    }

    fn can_fill(&self, token: crate::iter::plumbing::sealed::Token) -> bool {
        self.inner.can_fill(token)
    }
}

impl<I> IndexedParallelIterator for Intersperse<I>
where
    I: IndexedParallelIterator,
    I::Item: Clone,
{
    fn len(&self) -> usize {
        interspersed_len(self.base.len())
            .expect("intersperse: the items and separators number more than usize::MAX")
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        let len = self.len();
        self.base.with_producer(IntersperseCallback {
            callback,
            separator: self.item,
            len,
        })
    }
}

struct IntersperseCallback<CB, T> {
    callback: CB,
    separator: T,
    len: usize,
}

impl<T, CB> ProducerCallback<T> for IntersperseCallback<CB, T>
where
    CB: ProducerCallback<T>,
    T: Clone + Send,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(IntersperseProducer {
            base,
            separator: self.separator,
            len: self.len,
            odd_start: false,
        })
    }
}

/// Positions `[a, a + len)` of the interspersed sequence: `base` holds the items at its even
/// positions; `odd_start` says whether `a` is odd.
struct IntersperseProducer<P, T> {
    base: P,
    separator: T,
    len: usize,
    odd_start: bool,
}

impl<T, P> Producer for IntersperseProducer<P, T>
where
    P: Producer<Item = T>,
    T: Clone + Send,
{
    type Item = T;
    type IntoIter = IntersperseIter<P::IntoIter, T>;

    fn len(&self) -> usize {
        self.len
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        // The even positions among the first `index`.
        let evens = if self.odd_start {
            index / 2
        } else {
            index.div_ceil(2)
        };
        let (l, r) = self.base.split_at(evens);
        // The right piece starts at an odd position if exactly one of the start and `index` is odd.
        let right_odd = self.odd_start == index.is_multiple_of(2);
        (
            IntersperseProducer {
                base: l,
                separator: self.separator.clone(),
                len: index,
                odd_start: self.odd_start,
            },
            IntersperseProducer {
                base: r,
                separator: self.separator,
                len: self.len - index,
                odd_start: right_odd,
            },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        IntersperseIter {
            base: self.base.into_iter(),
            separator: self.separator,
            front: usize::from(self.odd_start),
            back: usize::from(self.odd_start) + self.len,
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

/// Positions `front..back` (only their parity matters): even ones from `base`, odd ones
/// separators.
struct IntersperseIter<I, T> {
    base: I,
    separator: T,
    front: usize,
    back: usize,
}

impl<I: DoubleEndedIterator<Item = T>, T: Clone> Iterator for IntersperseIter<I, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.front == self.back {
            return None;
        }
        let position = self.front;
        self.front += 1;
        if position.is_multiple_of(2) {
            self.base.next()
        } else {
            Some(self.separator.clone())
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back - self.front;
        (n, Some(n))
    }
}

impl<I: DoubleEndedIterator<Item = T>, T: Clone> DoubleEndedIterator for IntersperseIter<I, T> {
    fn next_back(&mut self) -> Option<T> {
        if self.front == self.back {
            return None;
        }
        self.back -= 1;
        if self.back.is_multiple_of(2) {
            self.base.next_back()
        } else {
            Some(self.separator.clone())
        }
    }
}

impl<I: DoubleEndedIterator<Item = T>, T: Clone> ExactSizeIterator for IntersperseIter<I, T> {}

//! `enumerate`: pairs items with their index; each piece knows the index it starts at.

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, ParallelIterator, Schedule};

/// The iterator of [`IndexedParallelIterator::enumerate`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Enumerate<I> {
    base: I,
}

impl<I> Enumerate<I> {
    pub(crate) fn new(base: I) -> Self {
        Enumerate { base }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for Enumerate<I> {
    type Item = (usize, I::Item);

    opt_len_indexed!();

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Enumerate<I> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(EnumerateCallback { callback })
    }
}

struct EnumerateCallback<CB> {
    callback: CB,
}

impl<T, CB: ProducerCallback<(usize, T)>> ProducerCallback<T> for EnumerateCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback
            .callback(EnumerateProducer { base, offset: 0 })
    }
}

struct EnumerateProducer<P> {
    base: P,
    offset: usize,
}

impl<P: Producer> Producer for EnumerateProducer<P> {
    type Item = (usize, P::Item);
    type IntoIter = EnumerateIter<P::IntoIter>;

    fn len(&self) -> usize {
        self.base.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        (
            EnumerateProducer {
                base: l,
                offset: self.offset,
            },
            EnumerateProducer {
                base: r,
                offset: self.offset + index,
            },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        EnumerateIter {
            front: self.offset,
            back: self.offset + self.base.len(),
            iter: self.base.into_iter(),
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

/// A piece of an enumerated loop: the indices of its first and past-its-last items are known,
/// so it counts from either end.
pub(crate) struct EnumerateIter<I> {
    iter: I,
    front: usize,
    back: usize,
}

impl<I: Iterator> Iterator for EnumerateIter<I> {
    type Item = (usize, I::Item);

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.iter.next()?;
        let i = self.front;
        self.front += 1;
        Some((i, item))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<I: ExactSizeIterator> ExactSizeIterator for EnumerateIter<I> {}

impl<I: DoubleEndedIterator> DoubleEndedIterator for EnumerateIter<I> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let item = self.iter.next_back()?;
        self.back -= 1;
        Some((self.back, item))
    }
}

//! `zip`: two indexed iterators cut at the same indices, up to the shorter length.

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, ParallelIterator, Schedule};

/// The iterator of [`IndexedParallelIterator::zip`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Zip<A, B> {
    a: A,
    b: B,
}

impl<A, B> Zip<A, B> {
    pub(crate) fn new(a: A, b: B) -> Self {
        Zip { a, b }
    }
}

impl<A, B> ParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    type Item = (A::Item, B::Item);

    opt_len_indexed!();

    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl<A, B> IndexedParallelIterator for Zip<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator,
{
    fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }

    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output {
        let len = self.len();
        self.a.with_producer(CallbackA {
            callback,
            b: self.b,
            len,
        })
    }
}

/// Receives `a`'s producer, then asks `b` for its own.
struct CallbackA<CB, B> {
    callback: CB,
    b: B,
    len: usize,
}

impl<TA, CB, B> ProducerCallback<TA> for CallbackA<CB, B>
where
    B: IndexedParallelIterator,
    CB: ProducerCallback<(TA, B::Item)>,
{
    type Output = CB::Output;

    fn callback<PA: Producer<Item = TA>>(self, a: PA) -> CB::Output {
        self.b.with_producer(CallbackB {
            callback: self.callback,
            a,
            len: self.len,
        })
    }
}

struct CallbackB<CB, PA> {
    callback: CB,
    a: PA,
    len: usize,
}

impl<TB, CB, PA> ProducerCallback<TB> for CallbackB<CB, PA>
where
    PA: Producer,
    CB: ProducerCallback<(PA::Item, TB)>,
{
    type Output = CB::Output;

    fn callback<PB: Producer<Item = TB>>(self, b: PB) -> CB::Output {
        // Cut both to the common length; the excess is dropped here.
        let a = self.a.split_at(self.len).0;
        let b = b.split_at(self.len).0;
        self.callback.callback(ZipProducer { a, b })
    }
}

struct ZipProducer<PA, PB> {
    a: PA,
    b: PB,
}

impl<PA: Producer, PB: Producer> Producer for ZipProducer<PA, PB> {
    type Item = (PA::Item, PB::Item);
    type IntoIter = ZipIter<PA::IntoIter, PB::IntoIter>;

    fn len(&self) -> usize {
        self.a.len().min(self.b.len())
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (al, ar) = self.a.split_at(index);
        let (bl, br) = self.b.split_at(index);
        (ZipProducer { a: al, b: bl }, ZipProducer { a: ar, b: br })
    }

    fn into_iter(self) -> Self::IntoIter {
        ZipIter {
            a: self.a.into_iter(),
            b: self.b.into_iter(),
        }
    }

    fn min_len(&self) -> usize {
        self.a.min_len().max(self.b.min_len())
    }

    fn max_len(&self) -> usize {
        self.a.max_len().min(self.b.max_len())
    }

    fn schedule(&self) -> Option<Schedule> {
        self.a.schedule().or(self.b.schedule())
    }
}

/// A piece of a zipped loop. Both sides were cut to the same length (see `CallbackB`) and are
/// always split at the same indices, so they run out together from either end.
pub(crate) struct ZipIter<A, B> {
    a: A,
    b: B,
}

impl<A: Iterator, B: Iterator> Iterator for ZipIter<A, B> {
    type Item = (A::Item, B::Item);

    fn next(&mut self) -> Option<Self::Item> {
        let a = self.a.next()?;
        let b = self.b.next()?;
        Some((a, b))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (la, ha) = self.a.size_hint();
        let (lb, hb) = self.b.size_hint();
        let high = match (ha, hb) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        (la.min(lb), high)
    }
}

impl<A: ExactSizeIterator, B: ExactSizeIterator> ExactSizeIterator for ZipIter<A, B> {}

impl<A: DoubleEndedIterator, B: DoubleEndedIterator> DoubleEndedIterator for ZipIter<A, B> {
    fn next_back(&mut self) -> Option<Self::Item> {
        let a = self.a.next_back()?;
        let b = self.b.next_back()?;
        Some((a, b))
    }
}

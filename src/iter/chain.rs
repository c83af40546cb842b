//! `chain`: one iterator's items, then another's.
//!
//! When both sides are indexed the two producers become one, cut anywhere across the seam, so
//! the whole chain runs as a single loop under its schedule. Otherwise the two sides run as two
//! loops side by side (`join`) and their results are combined first before second.

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator, Schedule};

/// The iterator of [`ParallelIterator::chain`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Chain<A, B> {
    a: A,
    b: B,
}

impl<A, B> Chain<A, B> {
    pub(crate) fn new(a: A, b: B) -> Self {
        Chain { a, b }
    }
}

impl<A, B> ParallelIterator for Chain<A, B>
where
    A: ParallelIterator,
    B: ParallelIterator<Item = A::Item>,
{
    type Item = A::Item;

    fn opt_len(&self) -> Option<usize> {
        self.a.opt_len()?.checked_add(self.b.opt_len()?)
    }

    fn drive<C: Consumer<A::Item>>(self, consumer: C) -> C::Result {
        let Chain { a, b } = self;
        let (ra, rb) = crate::join::join_erased(|| a.drive(&consumer), || b.drive(&consumer));
        consumer.reduce(ra, rb)
    }
}

impl<A, B> IndexedParallelIterator for Chain<A, B>
where
    A: IndexedParallelIterator,
    B: IndexedParallelIterator<Item = A::Item>,
{
    fn len(&self) -> usize {
        self.a
            .len()
            .checked_add(self.b.len())
            .expect("chain: the two sides hold more than usize::MAX items together")
    }

    fn with_producer<CB: ProducerCallback<A::Item>>(self, callback: CB) -> CB::Output {
        // Panics, saying why, before any producer whose length would wrap.
        self.len();
        self.a.with_producer(CallbackA {
            callback,
            b: self.b,
        })
    }
}

struct CallbackA<CB, B> {
    callback: CB,
    b: B,
}

impl<T, CB, B> ProducerCallback<T> for CallbackA<CB, B>
where
    B: IndexedParallelIterator<Item = T>,
    CB: ProducerCallback<T>,
{
    type Output = CB::Output;

    fn callback<PA: Producer<Item = T>>(self, a: PA) -> CB::Output {
        self.b.with_producer(CallbackB {
            callback: self.callback,
            a,
        })
    }
}

struct CallbackB<CB, PA> {
    callback: CB,
    a: PA,
}

impl<T, CB, PA> ProducerCallback<T> for CallbackB<CB, PA>
where
    PA: Producer<Item = T>,
    CB: ProducerCallback<T>,
{
    type Output = CB::Output;

    fn callback<PB: Producer<Item = T>>(self, b: PB) -> CB::Output {
        self.callback.callback(ChainProducer { a: self.a, b })
    }
}

/// `a`'s items then `b`'s; a piece on one side of the seam holds an empty part of the other.
struct ChainProducer<PA, PB> {
    a: PA,
    b: PB,
}

impl<T, PA, PB> Producer for ChainProducer<PA, PB>
where
    PA: Producer<Item = T>,
    PB: Producer<Item = T>,
{
    type Item = T;
    type IntoIter = ChainSeq<PA::IntoIter, PB::IntoIter>;

    fn len(&self) -> usize {
        self.a.len() + self.b.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let seam = self.a.len();
        if index <= seam {
            let (al, ar) = self.a.split_at(index);
            let (bl, br) = self.b.split_at(0);
            (
                ChainProducer { a: al, b: bl },
                ChainProducer { a: ar, b: br },
            )
        } else {
            let (al, ar) = self.a.split_at(seam);
            let (bl, br) = self.b.split_at(index - seam);
            (
                ChainProducer { a: al, b: bl },
                ChainProducer { a: ar, b: br },
            )
        }
    }

    fn into_iter(self) -> Self::IntoIter {
        ChainSeq(self.a.into_iter().chain(self.b.into_iter()))
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

/// The sequential iterator of a piece of a chain: std's `Chain`, which is not an
/// `ExactSizeIterator` (two lengths may add up past `usize::MAX`); a producer's two lengths
/// add up to the producer's, which is a `usize`.
pub(crate) struct ChainSeq<A, B>(std::iter::Chain<A, B>);

impl<T, A, B> Iterator for ChainSeq<A, B>
where
    A: Iterator<Item = T>,
    B: Iterator<Item = T>,
{
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        self.0.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }

    #[inline]
    fn fold<Acc, F: FnMut(Acc, T) -> Acc>(self, init: Acc, f: F) -> Acc {
        self.0.fold(init, f)
    }
}

impl<T, A, B> DoubleEndedIterator for ChainSeq<A, B>
where
    A: DoubleEndedIterator<Item = T>,
    B: DoubleEndedIterator<Item = T>,
{
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        self.0.next_back()
    }

    #[inline]
    fn rfold<Acc, F: FnMut(Acc, T) -> Acc>(self, init: Acc, f: F) -> Acc {
        self.0.rfold(init, f)
    }
}

impl<T, A, B> ExactSizeIterator for ChainSeq<A, B>
where
    A: ExactSizeIterator<Item = T>,
    B: ExactSizeIterator<Item = T>,
{
}

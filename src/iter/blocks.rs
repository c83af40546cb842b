//! `by_exponential_blocks` and `by_uniform_blocks`: an indexed iterator run as a sequence of
//! parallel loops over consecutive blocks, so that a search (`find_first`, `any`, `take_any`)
//! that succeeds early never starts the later blocks.

use crate::iter::driver;
use crate::iter::plumbing::sealed::{Place, Token};
use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{IndexedParallelIterator, ParallelIterator};

/// The iterator of [`IndexedParallelIterator::by_exponential_blocks`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ExponentialBlocks<I> {
    base: I,
}

impl<I> ExponentialBlocks<I> {
    pub(crate) fn new(base: I) -> Self {
        ExponentialBlocks { base }
    }
}

/// The iterator of [`IndexedParallelIterator::by_uniform_blocks`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct UniformBlocks<I> {
    base: I,
    size: usize,
}

impl<I> UniformBlocks<I> {
    pub(crate) fn new(base: I, size: usize) -> Self {
        assert!(
            size != 0,
            "by_uniform_blocks: the block size must not be zero"
        );
        UniformBlocks { base, size }
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for ExponentialBlocks<I> {
    type Item = I::Item;

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        // The first block has one item per worker; each next one is twice as long.
        let first = crate::current_num_threads().max(1);
        self.base.with_producer(BlocksCallback {
            consumer,
            first,
            grow: true,
        })
    }
}

impl<I: IndexedParallelIterator> ParallelIterator for UniformBlocks<I> {
    type Item = I::Item;

    fn opt_len(&self) -> Option<usize> {
        Some(self.base.len())
    }

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        self.base.with_producer(BlocksCallback {
            consumer,
            first: self.size,
            grow: false,
        })
    }
}

struct BlocksCallback<C> {
    consumer: C,
    first: usize,
    grow: bool,
}

impl<T, C: Consumer<T>> ProducerCallback<T> for BlocksCallback<C> {
    type Output = C::Result;

    fn callback<P: Producer<Item = T>>(self, producer: P) -> C::Result {
        let consumer = &self.consumer;
        let mut result = consumer.identity();
        let total = producer.len();
        let (mut rest, mut size, mut offset) = (producer, self.first, 0);
        // Stops when nothing left can matter: a search whose match lies before the rest, or
        // a consumer that is full.
        while !rest.is_empty()
            && !consumer.full_placed(Place::of(offset, rest.len(), total), Token(()))
        {
            let n = size.min(rest.len());
            let (block, tail) = rest.split_at(n);
            let shifted = Shifted {
                inner: consumer,
                offset,
                place: Place::of(offset, n, total),
            };
            let block_result = driver::bridge(block, &shifted, None);
            result = consumer.reduce(result, block_result);
            rest = tail;
            offset += n;
            if self.grow {
                size = size.saturating_mul(2);
            }
        }
        result
    }
}

/// A consumer for one block: positions within the block become positions in the whole loop,
/// and places within the block places inside the block's place.
struct Shifted<'c, C> {
    inner: &'c C,
    offset: usize,
    place: Place,
}

impl<T, C: Consumer<T>> Consumer<T> for Shifted<'_, C> {
    type Result = C::Result;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> C::Result {
        self.inner.consume(iter)
    }

    fn consume_placed<I: Iterator<Item = T>>(
        &self,
        start: Option<usize>,
        place: Place,
        iter: I,
        token: Token,
    ) -> C::Result {
        let start = start.map(|s| self.offset + s);
        self.inner
            .consume_placed(start, self.place.within(place), iter, token)
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

//! Indexed adapters that reshape a loop: `rev`, `skip`, `take`, `step_by` and `chunks`.
//!
//! Each works on producers: `skip`/`take` cut the base producer once and drop the rest, the
//! others map a position of the new loop to a position of the base (`rev` mirrors it, `step_by`
//! and `chunks` scale it), so any piece of the new loop is one contiguous piece of the base.

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, ParallelIterator, Schedule};

/// Implements `ParallelIterator` (through the producer) for an indexed adapter.
macro_rules! drive_indexed {
    ($name:ident, $item:ty) => {
        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = $item;

            opt_len_indexed!();

            fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result {
                self.with_producer(DriveCallback { consumer })
            }
        }
    };
}

/// Forwards the tuning hints of a wrapped producer `base`.
macro_rules! forward_hints {
    () => {
        fn min_len(&self) -> usize {
            self.base.min_len()
        }

        fn max_len(&self) -> usize {
            self.base.max_len()
        }

        fn schedule(&self) -> Option<Schedule> {
            self.base.schedule()
        }
    };
}

/// The iterator of [`IndexedParallelIterator::rev`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Rev<I> {
    base: I,
}

impl<I> Rev<I> {
    pub(crate) fn new(base: I) -> Self {
        Rev { base }
    }
}

drive_indexed!(Rev, I::Item);

impl<I: IndexedParallelIterator> IndexedParallelIterator for Rev<I> {
    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(RevCallback { callback })
    }
}

struct RevCallback<CB> {
    callback: CB,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for RevCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(RevProducer { base })
    }
}

struct RevProducer<P> {
    base: P,
}

impl<P: Producer> Producer for RevProducer<P> {
    type Item = P::Item;
    type IntoIter = std::iter::Rev<P::IntoIter>;

    fn len(&self) -> usize {
        self.base.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        // The first `index` items of the reversed loop are the base's last `index`.
        let len = self.base.len();
        let (l, r) = self.base.split_at(len - index);
        (RevProducer { base: r }, RevProducer { base: l })
    }

    fn into_iter(self) -> Self::IntoIter {
        self.base.into_iter().rev()
    }

    forward_hints!();
}

/// The iterator of [`IndexedParallelIterator::skip`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Skip<I> {
    base: I,
    n: usize,
}

impl<I> Skip<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        Skip { base, n }
    }
}

drive_indexed!(Skip, I::Item);

impl<I: IndexedParallelIterator> IndexedParallelIterator for Skip<I> {
    fn len(&self) -> usize {
        self.base.len().saturating_sub(self.n)
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(CutCallback {
            callback,
            n: self.n,
            keep_front: false,
        })
    }
}

/// The iterator of [`IndexedParallelIterator::take`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Take<I> {
    base: I,
    n: usize,
}

impl<I> Take<I> {
    pub(crate) fn new(base: I, n: usize) -> Self {
        Take { base, n }
    }
}

drive_indexed!(Take, I::Item);

impl<I: IndexedParallelIterator> IndexedParallelIterator for Take<I> {
    fn len(&self) -> usize {
        self.base.len().min(self.n)
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(CutCallback {
            callback,
            n: self.n,
            keep_front: true,
        })
    }
}

/// Cuts the base producer after `n` items and keeps the front (`take`) or the back (`skip`);
/// the other part is dropped unconsumed.
struct CutCallback<CB> {
    callback: CB,
    n: usize,
    keep_front: bool,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for CutCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        let n = self.n.min(base.len());
        let (front, back) = base.split_at(n);
        if self.keep_front {
            drop(back);
            self.callback.callback(front)
        } else {
            // The skipped items are still produced (in parallel) and dropped, as a sequential
            // `skip` and rayon's run them: side effects of a `map` or `inspect` before the
            // `skip` happen for every item.
            let discard = |item: T| drop(item);
            crate::iter::driver::bridge(
                front,
                &crate::iter::consumers::ForEachConsumer::new(&discard),
                None,
            );
            self.callback.callback(back)
        }
    }
}

/// The iterator of [`IndexedParallelIterator::step_by`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct StepBy<I> {
    base: I,
    step: usize,
}

impl<I> StepBy<I> {
    pub(crate) fn new(base: I, step: usize) -> Self {
        assert!(step != 0, "step_by: the step must not be zero");
        StepBy { base, step }
    }
}

drive_indexed!(StepBy, I::Item);

impl<I: IndexedParallelIterator> IndexedParallelIterator for StepBy<I> {
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.step)
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(StepByCallback {
            callback,
            step: self.step,
        })
    }
}

struct StepByCallback<CB> {
    callback: CB,
    step: usize,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for StepByCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(StepByProducer {
            base,
            step: self.step,
        })
    }
}

/// Item `i` of the loop is item `i * step` of `base`.
struct StepByProducer<P> {
    base: P,
    step: usize,
}

impl<P: Producer> Producer for StepByProducer<P> {
    type Item = P::Item;
    type IntoIter = StepByIter<P::IntoIter>;

    fn len(&self) -> usize {
        self.base.len().div_ceil(self.step)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.step).min(self.base.len());
        let (l, r) = self.base.split_at(at);
        let step = self.step;
        (
            StepByProducer { base: l, step },
            StepByProducer { base: r, step },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        StepByIter {
            left: self.base.len(),
            iter: self.base.into_iter(),
            step: self.step,
            skip: 0,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.step)
    }

    fn max_len(&self) -> usize {
        self.base.max_len().div_ceil(self.step).max(1)
    }

    fn schedule(&self) -> Option<Schedule> {
        self.base.schedule()
    }
}

/// Every `step`-th item of a piece of `left` base items, starting with the first; it knows
/// which base items are selected from the back as well. Base items that are not selected are
/// skipped with `nth`, never produced (a `repeat_n` skips them without a clone).
pub(crate) struct StepByIter<I> {
    iter: I,
    step: usize,
    /// Base items not yet taken from either end.
    left: usize,
    /// Base items at the front to skip before the next selected one.
    skip: usize,
}

impl<I> StepByIter<I> {
    /// Selected items not yet taken.
    fn remaining(&self) -> usize {
        if self.left <= self.skip {
            0
        } else {
            (self.left - self.skip - 1) / self.step + 1
        }
    }
}

impl<I: Iterator> Iterator for StepByIter<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        if self.remaining() == 0 {
            return None;
        }
        let item = self.iter.nth(self.skip)?;
        self.left -= self.skip + 1;
        self.skip = self.step - 1;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.remaining();
        (n, Some(n))
    }
}

impl<I: DoubleEndedIterator> DoubleEndedIterator for StepByIter<I> {
    fn next_back(&mut self) -> Option<I::Item> {
        let n = self.remaining();
        if n == 0 {
            return None;
        }
        // The selected items sit `skip`, `skip + step`, ... from the front; the last of them is
        // `trailing` items before the back.
        let last = self.skip + (n - 1) * self.step;
        let trailing = self.left - 1 - last;
        let item = self.iter.nth_back(trailing)?;
        self.left -= trailing + 1;
        Some(item)
    }
}

impl<I: Iterator> ExactSizeIterator for StepByIter<I> {}

/// The iterator of [`IndexedParallelIterator::chunks`]: the items gathered into `Vec`s of
/// `chunk_size` (the last may be shorter). The iterator of slices' `par_chunks` is
/// [`crate::slice::Chunks`], as in rayon.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Chunks<I> {
    base: I,
    size: usize,
}

impl<I> Chunks<I> {
    pub(crate) fn new(base: I, size: usize) -> Self {
        assert!(size != 0, "chunk_size must not be zero");
        Chunks { base, size }
    }
}

drive_indexed!(Chunks, Vec<I::Item>);

impl<I: IndexedParallelIterator> IndexedParallelIterator for Chunks<I> {
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }

    fn with_producer<CB: ProducerCallback<Vec<I::Item>>>(self, callback: CB) -> CB::Output {
        self.base.with_producer(ChunksCallback {
            callback,
            size: self.size,
        })
    }
}

struct ChunksCallback<CB> {
    callback: CB,
    size: usize,
}

impl<T, CB: ProducerCallback<Vec<T>>> ProducerCallback<T> for ChunksCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(ChunksProducer {
            base,
            size: self.size,
        })
    }
}

/// Item `i` of the loop is items `i * size ..` of `base`, at most `size` of them.
struct ChunksProducer<P> {
    base: P,
    size: usize,
}

impl<P: Producer> Producer for ChunksProducer<P> {
    type Item = Vec<P::Item>;
    type IntoIter = ChunkIter<P::IntoIter>;

    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let at = index.saturating_mul(self.size).min(self.base.len());
        let (l, r) = self.base.split_at(at);
        let size = self.size;
        (
            ChunksProducer { base: l, size },
            ChunksProducer { base: r, size },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        ChunkIter {
            left: self.base.len(),
            iter: self.base.into_iter(),
            size: self.size,
        }
    }

    fn min_len(&self) -> usize {
        self.base.min_len().div_ceil(self.size)
    }

    fn max_len(&self) -> usize {
        self.base.max_len().div_ceil(self.size).max(1)
    }

    fn schedule(&self) -> Option<Schedule> {
        self.base.schedule()
    }
}

/// Gathers a piece of `left` base items into `Vec`s; only the piece's last chunk may be short.
pub(crate) struct ChunkIter<I> {
    iter: I,
    size: usize,
    left: usize,
}

impl<I: Iterator> Iterator for ChunkIter<I> {
    type Item = Vec<I::Item>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        let n = self.size.min(self.left);
        self.left -= n;
        Some(self.iter.by_ref().take(n).collect())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.left.div_ceil(self.size);
        (n, Some(n))
    }
}

impl<I: Iterator> ExactSizeIterator for ChunkIter<I> {}

impl<I: DoubleEndedIterator> DoubleEndedIterator for ChunkIter<I> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.left == 0 {
            return None;
        }
        let n = match self.left % self.size {
            0 => self.size,
            short => short,
        };
        self.left -= n;
        let mut chunk: Vec<I::Item> = self.iter.by_ref().rev().take(n).collect();
        chunk.reverse();
        Some(chunk)
    }
}

/// The iterator of [`IndexedParallelIterator::fold_chunks`]: every `chunk_size` consecutive
/// items (the last chunk may be shorter) folded from `identity()`.
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct FoldChunks<I, ID, F> {
    base: I,
    size: usize,
    identity: ID,
    fold_op: F,
}

impl<I: std::fmt::Debug, ID, F> std::fmt::Debug for FoldChunks<I, ID, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("FoldChunks")
            .field("base", &self.base)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl<I, ID, F> FoldChunks<I, ID, F> {
    pub(crate) fn new(base: I, size: usize, identity: ID, fold_op: F) -> Self {
        assert!(size != 0, "chunk_size must not be zero");
        FoldChunks {
            base,
            size,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, T> ParallelIterator for FoldChunks<I, ID, F>
where
    I: IndexedParallelIterator,
    ID: Fn() -> T + Send + Sync,
    F: Fn(T, I::Item) -> T + Send + Sync,
    T: Send,
{
    type Item = T;

    opt_len_indexed!();

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl<I, ID, F, T> IndexedParallelIterator for FoldChunks<I, ID, F>
where
    I: IndexedParallelIterator,
    ID: Fn() -> T + Send + Sync,
    F: Fn(T, I::Item) -> T + Send + Sync,
    T: Send,
{
    fn len(&self) -> usize {
        self.base.len().div_ceil(self.size)
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let FoldChunks {
            base,
            size,
            identity,
            fold_op,
        } = self;
        base.with_producer(FoldChunksCallback {
            callback,
            size,
            identity: &identity,
            fold_op: &fold_op,
        })
    }
}

struct FoldChunksCallback<'f, CB, ID, F> {
    callback: CB,
    size: usize,
    identity: &'f ID,
    fold_op: &'f F,
}

impl<X, T, CB, ID, F> ProducerCallback<X> for FoldChunksCallback<'_, CB, ID, F>
where
    CB: ProducerCallback<T>,
    ID: Fn() -> T + Sync,
    F: Fn(T, X) -> T + Sync,
{
    type Output = CB::Output;

    fn callback<P: Producer<Item = X>>(self, base: P) -> CB::Output {
        self.callback.callback(FoldChunksProducer {
            chunks: ChunksProducer {
                base,
                size: self.size,
            },
            identity: self.identity,
            fold_op: self.fold_op,
        })
    }
}

/// A [`ChunksProducer`] whose chunks are folded instead of collected.
struct FoldChunksProducer<'f, P, ID, F> {
    chunks: ChunksProducer<P>,
    identity: &'f ID,
    fold_op: &'f F,
}

impl<'f, P, T, ID, F> Producer for FoldChunksProducer<'f, P, ID, F>
where
    P: Producer,
    ID: Fn() -> T + Sync,
    F: Fn(T, P::Item) -> T + Sync,
{
    type Item = T;
    type IntoIter = FoldChunkIter<'f, P::IntoIter, ID, F>;

    fn len(&self) -> usize {
        self.chunks.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.chunks.split_at(index);
        let (identity, fold_op) = (self.identity, self.fold_op);
        (
            FoldChunksProducer {
                chunks: l,
                identity,
                fold_op,
            },
            FoldChunksProducer {
                chunks: r,
                identity,
                fold_op,
            },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        let ChunkIter { iter, size, left } = self.chunks.into_iter();
        FoldChunkIter {
            iter,
            size,
            left,
            identity: self.identity,
            fold_op: self.fold_op,
        }
    }

    fn min_len(&self) -> usize {
        self.chunks.min_len()
    }

    fn max_len(&self) -> usize {
        self.chunks.max_len()
    }

    fn schedule(&self) -> Option<Schedule> {
        self.chunks.schedule()
    }
}

/// Folds a piece's chunks one by one, front to back (from the back, a chunk is gathered first
/// so that it is still folded in order).
pub(crate) struct FoldChunkIter<'f, I, ID, F> {
    iter: I,
    size: usize,
    left: usize,
    identity: &'f ID,
    fold_op: &'f F,
}

impl<I: Iterator, T, ID, F> Iterator for FoldChunkIter<'_, I, ID, F>
where
    ID: Fn() -> T,
    F: Fn(T, I::Item) -> T,
{
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.left == 0 {
            return None;
        }
        let n = self.size.min(self.left);
        self.left -= n;
        Some(
            self.iter
                .by_ref()
                .take(n)
                .fold((self.identity)(), self.fold_op),
        )
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.left.div_ceil(self.size);
        (n, Some(n))
    }
}

impl<I: Iterator, T, ID, F> ExactSizeIterator for FoldChunkIter<'_, I, ID, F>
where
    ID: Fn() -> T,
    F: Fn(T, I::Item) -> T,
{
}

impl<I: DoubleEndedIterator, T, ID, F> DoubleEndedIterator for FoldChunkIter<'_, I, ID, F>
where
    ID: Fn() -> T,
    F: Fn(T, I::Item) -> T,
{
    fn next_back(&mut self) -> Option<T> {
        if self.left == 0 {
            return None;
        }
        let n = match self.left % self.size {
            0 => self.size,
            short => short,
        };
        self.left -= n;
        let mut chunk: Vec<I::Item> = self.iter.by_ref().rev().take(n).collect();
        chunk.reverse();
        Some(chunk.into_iter().fold((self.identity)(), self.fold_op))
    }
}

//! [`IndexedParallelIterator`], the trait of parallel iterators of known length that can be cut
//! at any index, and the callbacks that run their producers.

use super::consumers::ForEachConsumer;
#[cfg(doc)]
use super::deterministic_grain;
use super::extend::UnzipConsumer;
use super::plumbing::{Consumer, Producer, ProducerCallback};
use super::report::Recorder;
use super::{collect, deterministic, driver};
use super::{
    Chunks, Enumerate, ExponentialBlocks, FoldChunks, FoldChunksWith, Interleave,
    InterleaveShortest, IntoParallelIterator, LoopReport, MaxLen, MinLen, ParallelExtend,
    ParallelIterator, Positions, Rev, Schedule, Skip, StepBy, Take, UniformBlocks, WithSchedule,
    Zip, ZipEq,
};
use std::cmp::Ordering as CmpOrdering;
/// A parallel iterator of known length whose items can be cut at any index: ranges, slices,
/// vectors, chunks, and `map`/`enumerate`/`zip`/… of those.
pub trait IndexedParallelIterator: ParallelIterator {
    /// The number of items.
    fn len(&self) -> usize;

    /// Hands this iterator's [`Producer`] to `callback`. This is the primitive under the other
    /// methods; call it only to write an adapter of your own.
    fn with_producer<CB: ProducerCallback<Self::Item>>(self, callback: CB) -> CB::Output;

    /// Whether there are no items.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pairs every item with its index.
    fn enumerate(self) -> Enumerate<Self> {
        Enumerate::new(self)
    }

    /// Pairs the items with those of `other`, up to the shorter length.
    fn zip<Z>(self, other: Z) -> Zip<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        Zip::new(self, other.into_par_iter())
    }

    /// Never cuts the loop into pieces (chunks) of fewer than `min` items, except the last.
    fn with_min_len(self, min: usize) -> MinLen<Self> {
        MinLen::new(self, min)
    }

    /// Never leaves a piece (chunk) of more than `max` items unsplit, even with one worker:
    /// `fold` then yields at least `len / max` accumulators. Where it conflicts with
    /// [`IndexedParallelIterator::with_min_len`], the minimum wins.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let pieces = (0..100u32).into_par_iter().with_max_len(10).fold(|| 0, |n, _| n + 1).count();
    /// assert!(pieces >= 10);
    /// ```
    fn with_max_len(self, max: usize) -> MaxLen<Self> {
        MaxLen::new(self, max)
    }

    /// Combines the items with `op` along a split tree fixed by the length alone, so that the
    /// result has the same bits on every run, at every pool size and under every policy, even
    /// for an operation that is associative only up to rounding (floating-point sums).
    ///
    /// The tree: a piece of `len` items is a leaf when `len <=`
    /// [`deterministic_grain`]`(self.len())` (at least 256 items, at most about 4,096 leaves),
    /// otherwise it is cut at `len / 2`; a leaf folds its items left to right from `identity()`,
    /// and each inner node is `op(left, right)`. Inner nodes run as [`crate::join`]s, so the
    /// work is parallel; only their values are fixed. The result generally differs from a
    /// sequential left-to-right fold (which is one particular tree), and `op` should be
    /// associative enough for the answer to mean something, as for [`ParallelIterator::reduce`].
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let values: Vec<f64> = (0..100_000).map(|i| ((i * 7919) % 1000) as f64 * 1e-3 - 0.5).collect();
    /// let sum = |workers: usize| {
    ///     let pool = hypersteal::ThreadPoolBuilder::new().num_threads(workers).build().unwrap();
    ///     pool.install(|| values.par_iter().copied().deterministic_reduce(|| 0.0, |a, b| a + b))
    /// };
    /// assert_eq!(sum(1).to_bits(), sum(3).to_bits());
    /// ```
    fn deterministic_reduce<ID, OP>(self, identity: ID, op: OP) -> Self::Item
    where
        Self::Item: Send,
        ID: Fn() -> Self::Item + Sync + Send,
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        self.with_producer(deterministic::Tree {
            identity: &identity,
            op: &op,
        })
    }

    /// The items in reverse order.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = (0..4u32).into_par_iter().rev().collect();
    /// assert_eq!(v, [3, 2, 1, 0]);
    /// ```
    fn rev(self) -> Rev<Self> {
        Rev::new(self)
    }

    /// All but the first `n` items.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = (0..10u32).into_par_iter().skip(7).collect();
    /// assert_eq!(v, [7, 8, 9]);
    /// ```
    fn skip(self, n: usize) -> Skip<Self> {
        Skip::new(self, n)
    }

    /// The first `n` items (all if there are fewer).
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = (0..10u32).into_par_iter().take(3).collect();
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    fn take(self, n: usize) -> Take<Self> {
        Take::new(self, n)
    }

    /// Every `step`-th item, starting with the first.
    ///
    /// # Panics
    ///
    /// If `step` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = (0..10u32).into_par_iter().step_by(4).collect();
    /// assert_eq!(v, [0, 4, 8]);
    /// ```
    fn step_by(self, step: usize) -> StepBy<Self> {
        StepBy::new(self, step)
    }

    /// The items gathered, in order, into `Vec`s of `chunk_size` (the last may be shorter).
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<Vec<u32>> = (0..5u32).into_par_iter().chunks(2).collect();
    /// assert_eq!(v, [vec![0, 1], vec![2, 3], vec![4]]);
    /// ```
    fn chunks(self, chunk_size: usize) -> Chunks<Self> {
        Chunks::new(self, chunk_size)
    }

    /// The indices, in order, of the items for which `predicate` holds.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<usize> = [5, 2, 8, 1].par_iter().positions(|&x| x > 3).collect();
    /// assert_eq!(v, [0, 2]);
    /// ```
    fn positions<P>(self, predicate: P) -> Positions<Self, P>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        Positions::new(self, predicate)
    }

    /// Pairs the items with those of `other`, which must have the same length.
    ///
    /// # Panics
    ///
    /// If the lengths differ (when called).
    fn zip_eq<Z>(self, other: Z) -> ZipEq<Self, Z::Iter>
    where
        Z: IntoParallelIterator,
        Z::Iter: IndexedParallelIterator,
    {
        ZipEq::new(self, other.into_par_iter())
    }

    /// Folds every `chunk_size` consecutive items (the last chunk may be shorter), each chunk
    /// from `identity()`: like `chunks(chunk_size)` followed by a fold of each chunk, without
    /// gathering the chunks.
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let sums: Vec<u32> = (1..=7u32).into_par_iter().fold_chunks(3, || 0, |a, x| a + x).collect();
    /// assert_eq!(sums, [6, 15, 7]);
    /// ```
    fn fold_chunks<T, ID, F>(
        self,
        chunk_size: usize,
        identity: ID,
        fold_op: F,
    ) -> FoldChunks<Self, ID, F>
    where
        ID: Fn() -> T + Send + Sync,
        F: Fn(T, Self::Item) -> T + Send + Sync,
        T: Send,
    {
        FoldChunks::new(self, chunk_size, identity, fold_op)
    }

    /// The index of some item for which `predicate` holds (not necessarily the first).
    fn position_any<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate)
            .enumerate()
            .find_any(|&(_, hit)| hit)
            .map(|(i, _)| i)
    }

    /// The index of the first item for which `predicate` holds.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v = [1, 5, 2, 6, 3];
    /// assert_eq!(v.par_iter().position_first(|&x| x > 4), Some(1));
    /// assert_eq!(v.par_iter().position_last(|&x| x > 4), Some(3));
    /// ```
    fn position_first<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate)
            .enumerate()
            .find_first(|&(_, hit)| hit)
            .map(|(i, _)| i)
    }

    /// The index of the last item for which `predicate` holds.
    fn position_last<P>(self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.map(predicate)
            .enumerate()
            .find_last(|&(_, hit)| hit)
            .map(|(i, _)| i)
    }

    /// Compares the items with those of `other` lexicographically, as `Iterator::cmp`.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// use std::cmp::Ordering;
    /// assert_eq!((0..5u32).into_par_iter().cmp(0..4u32), Ordering::Greater);
    /// assert!((0..5u32).into_par_iter().lt(vec![0, 1, 3]));
    /// assert!((0..3u32).into_par_iter().eq(vec![0, 1, 2]));
    /// ```
    fn cmp<I>(self, other: I) -> CmpOrdering
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator,
        Self::Item: Ord,
    {
        let other = other.into_par_iter();
        let by_len = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(a, b)| Ord::cmp(&a, &b))
            .find_first(|&o| o != CmpOrdering::Equal)
            .unwrap_or(by_len)
    }

    /// Compares the items with those of `other` lexicographically, as `Iterator::partial_cmp`.
    fn partial_cmp<I>(self, other: I) -> Option<CmpOrdering>
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        let other = other.into_par_iter();
        let by_len = self.len().cmp(&other.len());
        self.zip(other)
            .map(|(a, b)| PartialOrd::partial_cmp(&a, &b))
            .find_first(|&o| o != Some(CmpOrdering::Equal))
            .unwrap_or(Some(by_len))
    }

    /// Whether the items equal those of `other` (same length, equal pairwise).
    fn eq<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        let other = other.into_par_iter();
        self.len() == other.len() && self.zip(other).all(|(a, b)| a == b)
    }

    /// Whether the items differ from those of `other`.
    fn ne<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialEq<I::Item>,
    {
        !self.eq(other)
    }

    /// Whether the items are lexicographically less than those of `other`.
    fn lt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(CmpOrdering::Less)
    }

    /// Whether the items are lexicographically less than or equal to those of `other`.
    fn le<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(CmpOrdering::Less | CmpOrdering::Equal)
        )
    }

    /// Whether the items are lexicographically greater than those of `other`.
    fn gt<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        self.partial_cmp(other) == Some(CmpOrdering::Greater)
    }

    /// Whether the items are lexicographically greater than or equal to those of `other`.
    fn ge<I>(self, other: I) -> bool
    where
        I: IntoParallelIterator,
        I::Iter: IndexedParallelIterator,
        Self::Item: PartialOrd<I::Item>,
    {
        matches!(
            self.partial_cmp(other),
            Some(CmpOrdering::Greater | CmpOrdering::Equal)
        )
    }

    /// Collects the items, in order, into `target`, replacing what it held (its allocation is
    /// reused where large enough).
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let mut v = vec![9u32; 10];
    /// (0..3u32).into_par_iter().collect_into_vec(&mut v);
    /// assert_eq!(v, [0, 1, 2]);
    /// ```
    fn collect_into_vec(self, target: &mut Vec<Self::Item>) {
        target.clear();
        target.par_extend(self);
    }

    /// Splits pairs into `left` and `right`, replacing what they held.
    fn unzip_into_vecs<A, B>(self, left: &mut Vec<A>, right: &mut Vec<B>)
    where
        Self: IndexedParallelIterator<Item = (A, B)>,
        A: Send,
        B: Send,
    {
        left.clear();
        right.clear();
        let (a, b) = self.drive(UnzipConsumer);
        collect::append_pieces(left, a);
        collect::append_pieces(right, b);
    }

    /// Runs the loop under `schedule` instead of the default [`Schedule::Adaptive`].
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// use hypersteal::iter::Schedule;
    /// let squares: Vec<u64> =
    ///     (0..100u64).into_par_iter().with_schedule(Schedule::Guided).map(|i| i * i).collect();
    /// assert_eq!(squares[99], 9801);
    /// ```
    fn with_schedule(self, schedule: Schedule) -> WithSchedule<Self> {
        WithSchedule::new(self, schedule)
    }

    /// Alternates the items of `self` and `other`, starting with `self`; once one runs out,
    /// the rest of the other follows.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = vec![1, 2, 3, 4].into_par_iter().interleave(vec![10, 20]).collect();
    /// assert_eq!(v, [1, 10, 2, 20, 3, 4]);
    /// ```
    fn interleave<I>(self, other: I) -> Interleave<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator<Item = Self::Item>,
    {
        Interleave::new(self, other.into_par_iter())
    }

    /// Alternates the items of `self` and `other`, starting with `self`, and stops as soon as
    /// the side whose turn it is has run out.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> =
    ///     vec![1, 2, 3, 4].into_par_iter().interleave_shortest(vec![10, 20]).collect();
    /// assert_eq!(v, [1, 10, 2, 20, 3]);
    /// ```
    fn interleave_shortest<I>(self, other: I) -> InterleaveShortest<Self, I::Iter>
    where
        I: IntoParallelIterator<Item = Self::Item>,
        I::Iter: IndexedParallelIterator<Item = Self::Item>,
    {
        InterleaveShortest::new(self, other.into_par_iter())
    }

    /// Folds every `chunk_size` consecutive items (the last chunk may be shorter), each chunk
    /// from its own clone of `init`: [`IndexedParallelIterator::fold_chunks`] with a value
    /// instead of an identity closure.
    ///
    /// # Panics
    ///
    /// If `chunk_size` is zero.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let sums: Vec<u32> = (1..=7u32).into_par_iter().fold_chunks_with(3, 0, |a, x| a + x).collect();
    /// assert_eq!(sums, [6, 15, 7]);
    /// ```
    fn fold_chunks_with<T, F>(
        self,
        chunk_size: usize,
        init: T,
        fold_op: F,
    ) -> FoldChunksWith<Self, T, F>
    where
        T: Send + Clone,
        F: Fn(T, Self::Item) -> T + Send + Sync,
    {
        FoldChunksWith::new(self, chunk_size, init, fold_op)
    }

    /// Runs the iterator as a sequence of parallel loops over consecutive blocks, the first
    /// as long as the pool has workers and each next one twice as long as the one before. A
    /// search that succeeds in an early block (`find_first`, `any`, `take_any`, …) never starts
    /// the later ones. The result is unindexed, as in rayon.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let first = (0..1_000_000u64).into_par_iter().by_exponential_blocks().find_first(|&x| x % 7 == 6);
    /// assert_eq!(first, Some(6));
    /// ```
    fn by_exponential_blocks(self) -> ExponentialBlocks<Self> {
        ExponentialBlocks::new(self)
    }

    /// Runs the iterator as a sequence of parallel loops over consecutive blocks of
    /// `block_size` items (the last may be shorter); see
    /// [`IndexedParallelIterator::by_exponential_blocks`].
    ///
    /// # Panics
    ///
    /// If `block_size` is zero.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = (0..100u32).into_par_iter().by_uniform_blocks(30).collect();
    /// assert_eq!(v, (0..100).collect::<Vec<_>>());
    /// ```
    fn by_uniform_blocks(self, block_size: usize) -> UniformBlocks<Self> {
        UniformBlocks::new(self, block_size)
    }

    /// Calls `op` on every item, like [`ParallelIterator::for_each`], and reports when each
    /// worker finished its last piece: the loop's imbalance.
    fn for_each_with_report<F>(self, op: F) -> LoopReport
    where
        F: Fn(Self::Item) + Sync + Send,
    {
        let workers = crate::current_num_threads();
        let recorder = Recorder::new(workers);
        let schedule = self.with_producer(RecordCallback {
            consumer: ForEachConsumer::new(&op),
            recorder: &recorder,
        });
        recorder.finish(schedule)
    }
}

/// Runs a producer through a consumer while recording finish times; returns the schedule used.
struct RecordCallback<'r, C> {
    consumer: C,
    recorder: &'r Recorder,
}

impl<T, C> ProducerCallback<T> for RecordCallback<'_, C>
where
    C: Consumer<T, Result = ()>,
{
    type Output = Schedule;

    fn callback<P: Producer<Item = T>>(self, producer: P) -> Schedule {
        let schedule = producer.schedule().unwrap_or_default();
        driver::bridge(producer, &self.consumer, Some(self.recorder));
        schedule
    }
}

/// Runs a producer through a consumer: how every indexed iterator implements `drive`.
pub(crate) struct DriveCallback<C> {
    pub(crate) consumer: C,
}

impl<T, C> ProducerCallback<T> for DriveCallback<C>
where
    C: Consumer<T>,
{
    type Output = C::Result;

    fn callback<P: Producer<Item = T>>(self, producer: P) -> C::Result {
        driver::bridge(producer, &self.consumer, None)
    }
}

//! Parallel iterators with rayon's names, driven by hypersteal's pools and loop schedules.
//!
//! Switching from rayon is a change of import: `use hypersteal::prelude::*;` brings
//! [`ParallelIterator`], [`IndexedParallelIterator`], [`IntoParallelIterator`],
//! [`IntoParallelRefIterator`] (`par_iter`), [`IntoParallelRefMutIterator`] (`par_iter_mut`),
//! [`ParallelSlice`] (`par_chunks`) and [`ParallelSliceMut`] (`par_chunks_mut`) into scope.
//!
//! ```
//! use hypersteal::prelude::*;
//!
//! let v: Vec<u64> = (0..1000).collect();
//! let sum: u64 = v.par_iter().map(|x| x * 2).sum();
//! assert_eq!(sum, 999_000);
//! let evens: Vec<u64> = v.par_iter().copied().filter(|x| x % 2 == 0).collect();
//! assert_eq!(evens.len(), 500);
//! assert_eq!(evens[..3], [0, 2, 4]);
//! ```
//!
//! A loop runs in the pool it is called in ([`crate::ThreadPool::install`]), under that pool's
//! policy. How an indexed loop is cut into chunks is its [`Schedule`]: `adaptive` by default,
//! or one of the self-scheduling schemes chosen with
//! [`IndexedParallelIterator::with_schedule`]. Results are the sequential iterator's whatever the
//! schedule: partial results are combined in index order, so `collect` keeps the order and
//! `reduce` needs an associative operation but not a commutative one.
//!
//! [`IndexedParallelIterator::for_each_with_report`] reports when each worker finished, for
//! measuring a schedule's imbalance ([`LoopReport`]).

mod chunks;
mod collect;
mod consumers;
mod driver;
mod enumerate;
mod filter;
mod fold;
mod map;
pub mod plumbing;
mod range;
mod report;
mod schedule;
mod slice;
mod tuning;
mod vec;
mod zip;

pub use chunks::{Chunks, ChunksMut, ParallelSlice, ParallelSliceMut};
pub use enumerate::Enumerate;
pub use filter::{Filter, FilterMap};
pub use fold::Fold;
pub use map::{Cloned, Copied, Map};
pub use range::RangeIter;
pub use report::{LoopReport, WorkerFinish};
pub use schedule::{ParseScheduleError, Schedule};
pub use slice::{Iter, IterMut};
pub use tuning::{MinLen, WithSchedule};
pub use vec::IntoIter;
pub use zip::Zip;

use consumers::{
    AllConsumer, AnyConsumer, CountConsumer, FindAnyConsumer, ForEachConsumer, MaxConsumer,
    MinConsumer, ProductConsumer, ReduceConsumer, ReduceWithConsumer, SumConsumer,
};
use plumbing::{Consumer, Producer, ProducerCallback};
use report::Recorder;
use std::cmp::Ordering as CmpOrdering;
use std::iter::{Product, Sum};

/// A parallel iterator: a stream of items consumed in pieces, on several workers at once.
///
/// Every method that consumes the iterator runs it to completion before returning. A panic in
/// one of the closures resumes in the caller once every other piece has stopped.
pub trait ParallelIterator: Sized + Send {
    /// The items.
    type Item: Send;

    /// Feeds every item to `consumer` and returns its combined result. This is the primitive
    /// the other methods are built on; call it only to write a consumer of your own.
    fn drive<C: Consumer<Self::Item>>(self, consumer: C) -> C::Result;

    /// Applies `f` to every item.
    fn map<F, R>(self, f: F) -> Map<Self, F>
    where
        F: Fn(Self::Item) -> R + Sync + Send,
        R: Send,
    {
        Map::new(self, f)
    }

    /// Keeps the items for which `predicate` holds (in order).
    fn filter<F>(self, predicate: F) -> Filter<Self, F>
    where
        F: Fn(&Self::Item) -> bool + Sync + Send,
    {
        Filter::new(self, predicate)
    }

    /// Applies `f` to every item and keeps the `Some` results (in order).
    fn filter_map<F, R>(self, f: F) -> FilterMap<Self, F>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        FilterMap::new(self, f)
    }

    /// Copies the items out of references.
    fn copied<'a, T>(self) -> Copied<Self>
    where
        Self: ParallelIterator<Item = &'a T>,
        T: 'a + Copy + Send + Sync,
    {
        Copied::new(self)
    }

    /// Clones the items out of references.
    fn cloned<'a, T>(self) -> Cloned<Self>
    where
        Self: ParallelIterator<Item = &'a T>,
        T: 'a + Clone + Send + Sync,
    {
        Cloned::new(self)
    }

    /// Folds each piece of the iterator into one accumulator, starting from `identity()`; the
    /// result is a parallel iterator of those accumulators, to be combined with
    /// [`ParallelIterator::reduce`] or [`ParallelIterator::sum`].
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let total = (1..=100u32).into_par_iter().fold(|| 0u32, |a, x| a + x).sum::<u32>();
    /// assert_eq!(total, 5050);
    /// ```
    fn fold<T, ID, F>(self, identity: ID, fold_op: F) -> Fold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        T: Send,
    {
        Fold::new(self, identity, fold_op)
    }

    /// Calls `op` on every item.
    fn for_each<F>(self, op: F)
    where
        F: Fn(Self::Item) + Sync + Send,
    {
        self.drive(ForEachConsumer::new(&op))
    }

    /// Sums the items. Partial sums are combined in order, so the result equals the sequential
    /// sum for integers (floating-point sums may round differently).
    fn sum<S>(self) -> S
    where
        S: Send + Sum<Self::Item> + Sum<S>,
    {
        self.drive(SumConsumer::new())
    }

    /// Multiplies the items.
    fn product<P>(self) -> P
    where
        P: Send + Product<Self::Item> + Product<P>,
    {
        self.drive(ProductConsumer::new())
    }

    /// Counts the items.
    fn count(self) -> usize {
        self.drive(CountConsumer)
    }

    /// The smallest item (the first of equal ones), or `None` if there are none.
    fn min(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.min_by(Ord::cmp)
    }

    /// The largest item (the last of equal ones), or `None` if there are none.
    fn max(self) -> Option<Self::Item>
    where
        Self::Item: Ord,
    {
        self.max_by(Ord::cmp)
    }

    /// The smallest item by `compare` (the first of equal ones).
    fn min_by<F>(self, compare: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> CmpOrdering + Sync + Send,
    {
        self.drive(MinConsumer::new(&compare))
    }

    /// The largest item by `compare` (the last of equal ones).
    fn max_by<F>(self, compare: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item, &Self::Item) -> CmpOrdering + Sync + Send,
    {
        self.drive(MaxConsumer::new(&compare))
    }

    /// The item with the smallest key (the first of equal ones).
    fn min_by_key<K, F>(self, key: F) -> Option<Self::Item>
    where
        K: Ord,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        self.min_by(|a, b| key(a).cmp(&key(b)))
    }

    /// The item with the largest key (the last of equal ones).
    fn max_by_key<K, F>(self, key: F) -> Option<Self::Item>
    where
        K: Ord,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        self.max_by(|a, b| key(a).cmp(&key(b)))
    }

    /// Combines the items with the associative `op`, starting every piece from `identity()`
    /// (which must be neutral for `op`).
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let words = vec!["a", "b", "c", "d"];
    /// let s = words.par_iter().map(|w| w.to_string()).reduce(String::new, |a, b| a + &b);
    /// assert_eq!(s, "abcd");
    /// ```
    fn reduce<ID, OP>(self, identity: ID, op: OP) -> Self::Item
    where
        ID: Fn() -> Self::Item + Sync + Send,
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        self.drive(ReduceConsumer::new(&identity, &op))
    }

    /// Combines the items with the associative `op`; `None` if there are no items.
    fn reduce_with<OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(Self::Item, Self::Item) -> Self::Item + Sync + Send,
    {
        self.drive(ReduceWithConsumer::new(&op))
    }

    /// Whether `predicate` holds for some item; stops early once one is found.
    fn any<F>(self, predicate: F) -> bool
    where
        F: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.drive(AnyConsumer::new(&predicate))
    }

    /// Whether `predicate` holds for every item; stops early at the first counterexample.
    fn all<F>(self, predicate: F) -> bool
    where
        F: Fn(Self::Item) -> bool + Sync + Send,
    {
        self.drive(AllConsumer::new(&predicate))
    }

    /// Some item for which `predicate` holds (not necessarily the first), or `None`.
    fn find_any<F>(self, predicate: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.drive(FindAnyConsumer::new(&predicate))
    }

    /// The first item (in order) for which `predicate` holds, or `None`.
    fn find_first<F>(self, predicate: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.filter(predicate).reduce_with(|a, _| a)
    }

    /// Collects the items, in order, into a collection (a `Vec`, `String`, map, set, …).
    fn collect<C>(self) -> C
    where
        C: FromParallelIterator<Self::Item>,
    {
        C::from_par_iter(self)
    }
}

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

/// Something that can become a parallel iterator: ranges, vectors, slices, and every parallel
/// iterator itself.
pub trait IntoParallelIterator {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// Turns `self` into a parallel iterator.
    fn into_par_iter(self) -> Self::Iter;
}

impl<I: ParallelIterator> IntoParallelIterator for I {
    type Iter = I;
    type Item = I::Item;

    fn into_par_iter(self) -> I {
        self
    }
}

/// `par_iter()`: a parallel iterator over references to the items of a collection.
pub trait IntoParallelRefIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (references).
    type Item: Send + 'data;

    /// Iterates over `&self`'s items in parallel.
    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefIterator<'data> for I
where
    &'data I: IntoParallelIterator,
{
    type Iter = <&'data I as IntoParallelIterator>::Iter;
    type Item = <&'data I as IntoParallelIterator>::Item;

    fn par_iter(&'data self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// `par_iter_mut()`: a parallel iterator over mutable references to the items of a collection.
pub trait IntoParallelRefMutIterator<'data> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items (mutable references).
    type Item: Send + 'data;

    /// Iterates over `&mut self`'s items in parallel.
    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: 'data + ?Sized> IntoParallelRefMutIterator<'data> for I
where
    &'data mut I: IntoParallelIterator,
{
    type Iter = <&'data mut I as IntoParallelIterator>::Iter;
    type Item = <&'data mut I as IntoParallelIterator>::Item;

    fn par_iter_mut(&'data mut self) -> Self::Iter {
        self.into_par_iter()
    }
}

/// A collection that can be built from a parallel iterator, keeping the items' order.
pub trait FromParallelIterator<T: Send> {
    /// Builds the collection.
    fn from_par_iter<I>(par_iter: I) -> Self
    where
        I: IntoParallelIterator<Item = T>;
}

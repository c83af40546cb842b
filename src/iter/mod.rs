//! Parallel iterators with rayon's names, driven by hypersteal's pools and loop schedules.
//!
//! Switching from rayon is a change of import: `use hypersteal::prelude::*;` brings
//! [`ParallelIterator`], [`IndexedParallelIterator`], [`IntoParallelIterator`],
//! [`IntoParallelRefIterator`] (`par_iter`), [`IntoParallelRefMutIterator`] (`par_iter_mut`),
//! [`ParallelSlice`] (`par_chunks`, `par_windows`, `par_split`, …), [`ParallelSliceMut`]
//! (`par_chunks_mut`, `par_split_mut`, …, the sorts) and [`ParallelExtend`] (`par_extend`) into
//! scope. The fallible methods (`try_for_each`, `try_reduce`, `try_fold`) accept `Option`,
//! `Result` and `ControlFlow` through [`Try`], and `partition_map` sorts with [`Either`] (the
//! `either` crate's, as rayon re-exports it).
//!
//! Order-sensitive methods give the sequential answer under every schedule: `find_first`,
//! `position_first`, `try_for_each`, `cmp`, … return what the sequential iterator would, and
//! still stop early: a piece that finds an answer publishes where it starts, and only pieces
//! that start later give up (see [`plumbing::Consumer::consume_at`]).
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

/// The `opt_len` of a parallel iterator that is indexed wherever it is a parallel iterator:
/// its length.
macro_rules! opt_len_indexed {
    () => {
        fn opt_len(&self) -> Option<usize> {
            Some($crate::iter::IndexedParallelIterator::len(self))
        }
    };
}

mod any_order;
mod blocks;
mod bridge;
mod chain;
pub(crate) mod chunks;
mod collect;
pub mod collections;
mod consumers;
mod deterministic;
mod divide;
mod drain;
mod driver;
mod enumerate;
mod extend;
mod filter;
mod find;
mod flat_map;
mod fold;
mod indexed;
mod interleave;
mod intersperse;
mod map;
mod peek;
pub mod plumbing;
mod range;
mod report;
mod schedule;
mod sides;
mod slice;
pub(crate) mod slice_methods;
pub(crate) mod slice_split;
mod sort;
pub mod sources;
pub mod strings;
mod try_ops;
mod tuning;
mod tuples;
mod vec;
mod walk_tree;
mod with;
mod zip;

pub use any_order::{FoldChunksWith, PanicFuse, SkipAny, SkipAnyWhile, TakeAny, TakeAnyWhile};
pub use blocks::{ExponentialBlocks, UniformBlocks};
pub use bridge::{IterBridge, ParallelBridge};
pub use chain::Chain;
pub use chunks::{ChunksMut, ParallelSlice, ParallelSliceMut};
pub use collections::{array, option, result};
pub use deterministic::{deterministic_grain, DETERMINISTIC_MAX_LEAVES, DETERMINISTIC_MIN_LEAF};
pub use drain::{Drain, ParallelDrainFull, ParallelDrainRange, StringDrain};
pub use either::Either;
pub use enumerate::Enumerate;
pub use extend::ParallelExtend;
pub use filter::{Filter, FilterMap};
pub use flat_map::{FlatMap, FlatMapIter, Flatten, FlattenIter};
pub use fold::Fold;
pub use indexed::{Chunks, FoldChunks, Rev, Skip, StepBy, Take};

/// The former name of [`Chunks`], the iterator of [`IndexedParallelIterator::chunks`].
#[deprecated(
    note = "renamed `Chunks`, as in rayon; slices' `par_chunks` iterator is `slice::Chunks`"
)]
pub type IterChunks<I> = Chunks<I>;
pub use interleave::{Interleave, InterleaveShortest};
pub use intersperse::Intersperse;
pub use map::{Cloned, Copied, Map};
pub use peek::{Inspect, Positions, Update, WhileSome, ZipEq};
pub use range::RangeIter;
pub use report::{LoopReport, WorkerFinish};
pub use schedule::{ParseScheduleError, Schedule};
pub use slice::{Iter, IterMut};
pub use slice_methods::{
    ArrayWindows, ChunksExact, ChunksExactMut, RChunks, RChunksExact, RChunksExactMut, RChunksMut,
    Windows,
};
// `slice_split::Split` is reachable as `hypersteal::slice::Split`: here the name is the `split`
// source's, as in rayon.
pub use slice_split::{ChunkBy, ChunkByMut, SplitInclusive, SplitInclusiveMut, SplitMut};
pub use sources::{
    empty, once, repeat, repeat_n, repeatn, split, Empty, Once, Repeat, RepeatN, Split,
};
pub use strings::{ParallelString, Pattern};
pub use try_ops::{Try, TryFold, TryFoldWith};
pub use tuning::{MaxLen, MinLen, WithSchedule};
pub use tuples::MultiZip;
pub use vec::IntoIter;
pub use walk_tree::{
    walk_tree, walk_tree_postfix, walk_tree_prefix, WalkTree, WalkTreePostfix, WalkTreePrefix,
};
pub use with::{FoldWith, MapInit, MapWith};
pub use zip::Zip;

use consumers::{
    AllConsumer, AnyConsumer, CountConsumer, FindAnyConsumer, ForEachConsumer, MaxConsumer,
    MinConsumer, ProductConsumer, ReduceConsumer, ReduceWithConsumer, SumConsumer,
};
use extend::{extend_with, PartitionConsumer, UnzipConsumer};
use find::{FindFirstConsumer, FindLastConsumer};
use plumbing::{Consumer, Producer, ProducerCallback};
use report::Recorder;
use std::cmp::Ordering as CmpOrdering;
use std::iter::{Product, Sum};
use try_ops::{TryReduceConsumer, TryReduceWithConsumer};

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

    /// The number of items, when it is known before the iterator runs: `Some` for every
    /// [`IndexedParallelIterator`] (its [`len`](IndexedParallelIterator::len)), for a range
    /// whose length `usize` can count, and for the adapters that keep their base's count
    /// (`map`, `inspect`, `panic_fuse`, `chain` of two known lengths, …); `None` for the
    /// others (`filter`, `flat_map`, strings, `par_bridge`, …) and by default.
    ///
    /// A parallel iterator of your own that is indexed should answer `Some(self.len())`.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    ///
    /// assert_eq!((0..100).into_par_iter().map(|x| x * 2).opt_len(), Some(100));
    /// assert_eq!((0..100).into_par_iter().filter(|x| x % 2 == 0).opt_len(), None);
    /// assert_eq!((0..=u64::MAX).into_par_iter().opt_len(), None); // 2^64 items
    /// ```
    fn opt_len(&self) -> Option<usize> {
        None
    }

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

    /// Calls `op` on a reference to every item as it passes, and yields the item unchanged.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// use std::sync::atomic::{AtomicUsize, Ordering};
    /// let seen = AtomicUsize::new(0);
    /// let sum: u32 = (0..10u32).into_par_iter().inspect(|_| { seen.fetch_add(1, Ordering::Relaxed); }).sum();
    /// assert_eq!((sum, seen.into_inner()), (45, 10));
    /// ```
    fn inspect<OP>(self, inspect_op: OP) -> Inspect<Self, OP>
    where
        OP: Fn(&Self::Item) + Sync + Send,
    {
        Inspect::new(self, inspect_op)
    }

    /// Modifies every item in place with `update_op`, and yields it.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<Vec<u32>> = (0..3u32).into_par_iter().map(|x| vec![x]).update(|v| v.push(9)).collect();
    /// assert_eq!(v, [vec![0, 9], vec![1, 9], vec![2, 9]]);
    /// ```
    fn update<F>(self, update_op: F) -> Update<Self, F>
    where
        F: Fn(&mut Self::Item) + Sync + Send,
    {
        Update::new(self, update_op)
    }

    /// Yields the values of `Some` items until a `None` is met, then stops. As with rayon, which
    /// values come out is not fully determined: pieces that run alongside the one that met the
    /// `None` stop where they are, so values after it may appear and values before it may not
    /// (the order of those that do is kept). With no `None`, every value comes out.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = (0..10u32).into_par_iter().map(Some).while_some().collect();
    /// assert_eq!(v.len(), 10);
    /// ```
    fn while_some<T>(self) -> WhileSome<Self>
    where
        Self: ParallelIterator<Item = Option<T>>,
        T: Send,
    {
        WhileSome::new(self)
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

    /// The item with the smallest key (the first of equal ones). The key is computed once per
    /// item.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let words = ["ccc", "a", "bb", "d"];
    /// assert_eq!(words.par_iter().min_by_key(|w| w.len()), Some(&"a"));
    /// assert_eq!(words.par_iter().max_by_key(|w| w.len()), Some(&"ccc"));
    /// ```
    fn min_by_key<K, F>(self, key: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        self.map(|x| (key(&x), x))
            .min_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, x)| x)
    }

    /// The item with the largest key (the last of equal ones). The key is computed once per
    /// item.
    fn max_by_key<K, F>(self, key: F) -> Option<Self::Item>
    where
        K: Ord + Send,
        F: Fn(&Self::Item) -> K + Sync + Send,
    {
        self.map(|x| (key(&x), x))
            .max_by(|a, b| a.0.cmp(&b.0))
            .map(|(_, x)| x)
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

    /// The first item (in order) for which `predicate` holds, or `None`. Pieces that come
    /// after a match already found stop early; earlier pieces still finish their search.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v = [3, 8, 5, 10, 7];
    /// assert_eq!(v.par_iter().find_first(|&&x| x > 4), Some(&8));
    /// assert_eq!(v.par_iter().find_last(|&&x| x > 4), Some(&7));
    /// ```
    fn find_first<F>(self, predicate: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.drive(FindFirstConsumer::new(&predicate))
    }

    /// The last item (in order) for which `predicate` holds, or `None`.
    fn find_last<F>(self, predicate: F) -> Option<Self::Item>
    where
        F: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.drive(FindLastConsumer::new(&predicate))
    }

    /// Applies `f` to the items and returns some `Some` result (not necessarily the first).
    fn find_map_any<F, R>(self, f: F) -> Option<R>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(f).find_any(|_| true)
    }

    /// Applies `f` to the items and returns the first `Some` result in order.
    fn find_map_first<F, R>(self, f: F) -> Option<R>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(f).find_first(|_| true)
    }

    /// Applies `f` to the items and returns the last `Some` result in order.
    fn find_map_last<F, R>(self, f: F) -> Option<R>
    where
        F: Fn(Self::Item) -> Option<R> + Sync + Send,
        R: Send,
    {
        self.filter_map(f).find_last(|_| true)
    }

    /// This iterator's items, then those of `chain`. Indexed when both sides are, in which case
    /// the two run as one loop.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = (0..3u32).into_par_iter().chain(vec![7, 8]).collect();
    /// assert_eq!(v, [0, 1, 2, 7, 8]);
    /// ```
    fn chain<C>(self, chain: C) -> Chain<Self, C::Iter>
    where
        C: IntoParallelIterator<Item = Self::Item>,
    {
        Chain::new(self, chain.into_par_iter())
    }

    /// Calls the fallible `op` on every item; returns the first failure in order (`Err`,
    /// `None`, `ControlFlow::Break`), or success. Items after a failure may or may not be
    /// visited; pieces that come after a known failure stop early.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let r = (0..100u32).into_par_iter().try_for_each(|x| if x % 40 == 39 { Err(x) } else { Ok(()) });
    /// assert_eq!(r, Err(39));
    /// ```
    fn try_for_each<OP, R>(self, op: OP) -> R
    where
        OP: Fn(Self::Item) -> R + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map(op).try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// Calls the fallible `op` on every item with a clone of `init` per piece; see
    /// [`ParallelIterator::try_for_each`] and [`ParallelIterator::map_with`].
    fn try_for_each_with<OP, T, R>(self, init: T, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Try<Output = ()> + Send,
    {
        self.map_with(init, op)
            .try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// Calls the fallible `op` on every item with a state made by `init` per piece; see
    /// [`ParallelIterator::try_for_each`] and [`ParallelIterator::map_init`].
    fn try_for_each_init<OP, INIT, T, R>(self, init: INIT, op: OP) -> R
    where
        OP: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Try<Output = ()> + Send,
    {
        self.map_init(init, op)
            .try_reduce(|| (), |(), ()| R::from_output(()))
    }

    /// Reduces items that may be failures: the first failure in order, or all the successes
    /// combined with the associative `op` (starting every piece from `identity()`).
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let sum = (1..=10u32).into_par_iter().map(Some).try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(sum, Some(55));
    /// let overflow = (1..=10u8).into_par_iter().map(Some).try_reduce(|| 1, |a, b| a.checked_mul(b));
    /// assert_eq!(overflow, None);
    /// ```
    fn try_reduce<T, OP, ID>(self, identity: ID, op: OP) -> Self::Item
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        self.drive(TryReduceConsumer::new(&identity, &op))
    }

    /// Like [`ParallelIterator::try_reduce`] without an identity: `None` if there are no items.
    fn try_reduce_with<T, OP>(self, op: OP) -> Option<Self::Item>
    where
        OP: Fn(T, T) -> Self::Item + Sync + Send,
        Self::Item: Try<Output = T>,
    {
        self.drive(TryReduceWithConsumer::new(&op))
    }

    /// Folds each piece from `identity()` with the fallible `fold_op`, stopping a piece at its
    /// first failure; yields one result per piece (combine them with
    /// [`ParallelIterator::try_reduce`]). Pieces after a known failure may yield nothing.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let total = (1..=100u64)
    ///     .into_par_iter()
    ///     .try_fold(|| 0u64, |a, x| a.checked_add(x))
    ///     .try_reduce(|| 0, |a, b| a.checked_add(b));
    /// assert_eq!(total, Some(5050));
    /// ```
    fn try_fold<T, R, ID, F>(self, identity: ID, fold_op: F) -> TryFold<Self, ID, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        ID: Fn() -> T + Sync + Send,
        R: Try<Output = T> + Send,
    {
        TryFold::new(self, identity, fold_op)
    }

    /// Like [`ParallelIterator::try_fold`], each piece starting from a clone of `init`.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let r: Result<u32, u32> = (0..10u32)
    ///     .into_par_iter()
    ///     .try_fold_with(0u32, |a, x| if x == 7 { Err(x) } else { Ok(a + x) })
    ///     .try_reduce(|| 0, |a, b| Ok(a + b));
    /// assert_eq!(r, Err(7));
    /// ```
    fn try_fold_with<F, T, R>(self, init: T, fold_op: F) -> TryFoldWith<Self, T, F>
    where
        F: Fn(T, Self::Item) -> R + Sync + Send,
        R: Try<Output = T> + Send,
        T: Clone + Send,
    {
        TryFoldWith::new(self, init, fold_op)
    }

    /// Applies `f` to every item, giving it exclusive access to a clone of `init` (one clone per
    /// piece).
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = (0..5u32).into_par_iter().map_with(10u32, |base, x| *base + x).collect();
    /// assert_eq!(v, [10, 11, 12, 13, 14]);
    /// ```
    fn map_with<F, T, R>(self, init: T, f: F) -> MapWith<Self, T, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        T: Send + Clone,
        R: Send,
    {
        MapWith::new(self, init, f)
    }

    /// Applies `f` to every item, giving it exclusive access to a state made by `init` (called
    /// once per piece, for example to make a scratch buffer or a random generator).
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<String> = (0..3u32)
    ///     .into_par_iter()
    ///     .map_init(String::new, |buf, x| {
    ///         buf.clear();
    ///         buf.push_str(&x.to_string());
    ///         buf.clone()
    ///     })
    ///     .collect();
    /// assert_eq!(v, ["0", "1", "2"]);
    /// ```
    fn map_init<F, INIT, T, R>(self, init: INIT, f: F) -> MapInit<Self, INIT, F>
    where
        F: Fn(&mut T, Self::Item) -> R + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
        R: Send,
    {
        MapInit::new(self, init, f)
    }

    /// Calls `op` on every item with a clone of `init` per piece.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// use std::sync::mpsc::channel;
    /// let (tx, rx) = channel();
    /// (0..5u32).into_par_iter().for_each_with(tx, |tx, x| tx.send(x).unwrap());
    /// let mut got: Vec<u32> = rx.iter().collect();
    /// got.sort();
    /// assert_eq!(got, [0, 1, 2, 3, 4]);
    /// ```
    fn for_each_with<OP, T>(self, init: T, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        T: Send + Clone,
    {
        self.map_with(init, op).collect()
    }

    /// Calls `op` on every item with a state made by `init` once per piece.
    fn for_each_init<OP, INIT, T>(self, init: INIT, op: OP)
    where
        OP: Fn(&mut T, Self::Item) + Sync + Send,
        INIT: Fn() -> T + Sync + Send,
    {
        self.map_init(init, op).collect()
    }

    /// Like [`ParallelIterator::fold`], each piece starting from a clone of `init`.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let n: usize = (0..100u32).into_par_iter().fold_with(0usize, |n, _| n + 1).sum();
    /// assert_eq!(n, 100);
    /// ```
    fn fold_with<F, T>(self, init: T, fold_op: F) -> FoldWith<Self, T, F>
    where
        F: Fn(T, Self::Item) -> T + Sync + Send,
        T: Send + Clone,
    {
        FoldWith::new(self, init, fold_op)
    }

    /// Applies `f` to every item and yields, in order, the items of the parallel iterators it
    /// returns (each run as a nested loop).
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map(|n| (0..n).into_par_iter()).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map<F, PI>(self, f: F) -> FlatMap<Self, F>
    where
        F: Fn(Self::Item) -> PI + Sync + Send,
        PI: IntoParallelIterator,
    {
        FlatMap::new(self, f)
    }

    /// Applies `f` to every item and yields, in order, the items of the sequential iterators it
    /// returns (run inside the piece that holds the outer item).
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = (1..4u32).into_par_iter().flat_map_iter(|n| 0..n).collect();
    /// assert_eq!(v, [0, 0, 1, 0, 1, 2]);
    /// ```
    fn flat_map_iter<F, SI>(self, f: F) -> FlatMapIter<Self, F>
    where
        F: Fn(Self::Item) -> SI + Sync + Send,
        SI: IntoIterator,
        SI::Item: Send,
    {
        FlatMapIter::new(self, f)
    }

    /// Yields, in order, the items of the items (which are parallel iterators themselves).
    fn flatten(self) -> Flatten<Self>
    where
        Self::Item: IntoParallelIterator,
    {
        Flatten::new(self)
    }

    /// Yields, in order, the items of the items (which are sequential iterators).
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = vec![vec![1, 2], vec![], vec![3]].into_par_iter().flatten_iter().collect();
    /// assert_eq!(v, [1, 2, 3]);
    /// ```
    fn flatten_iter(self) -> FlattenIter<Self>
    where
        Self::Item: IntoIterator,
        <Self::Item as IntoIterator>::Item: Send,
    {
        FlattenIter::new(self)
    }

    /// Splits pairs into two collections, each in order.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let (a, b): (Vec<u32>, Vec<char>) = vec![(1, 'a'), (2, 'b')].into_par_iter().unzip();
    /// assert_eq!((a, b), (vec![1, 2], vec!['a', 'b']));
    /// ```
    fn unzip<A, B, FromA, FromB>(self) -> (FromA, FromB)
    where
        Self: ParallelIterator<Item = (A, B)>,
        FromA: Default + Send + ParallelExtend<A>,
        FromB: Default + Send + ParallelExtend<B>,
        A: Send,
        B: Send,
    {
        let (a, b) = self.drive(UnzipConsumer);
        let (mut from_a, mut from_b) = (FromA::default(), FromB::default());
        extend_with(&mut from_a, a);
        extend_with(&mut from_b, b);
        (from_a, from_b)
    }

    /// Sorts the items into those for which `predicate` holds and the others, each in order.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let (even, odd): (Vec<u32>, Vec<u32>) = (0..7u32).into_par_iter().partition(|x| x % 2 == 0);
    /// assert_eq!(even, [0, 2, 4, 6]);
    /// assert_eq!(odd, [1, 3, 5]);
    /// ```
    fn partition<A, B, P>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<Self::Item>,
        B: Default + Send + ParallelExtend<Self::Item>,
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        self.partition_map(|x| {
            if predicate(&x) {
                Either::Left(x)
            } else {
                Either::Right(x)
            }
        })
    }

    /// Maps every item to [`Either`] and collects the left and the right values apart, each
    /// in order.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// use hypersteal::iter::Either;
    /// let (small, big): (Vec<u32>, Vec<String>) = (0..5u32)
    ///     .into_par_iter()
    ///     .partition_map(|x| if x < 3 { Either::Left(x) } else { Either::Right(x.to_string()) });
    /// assert_eq!(small, [0, 1, 2]);
    /// assert_eq!(big, ["3", "4"]);
    /// ```
    fn partition_map<A, B, P, L, R>(self, predicate: P) -> (A, B)
    where
        A: Default + Send + ParallelExtend<L>,
        B: Default + Send + ParallelExtend<R>,
        P: Fn(Self::Item) -> Either<L, R> + Sync + Send,
        L: Send,
        R: Send,
    {
        let (left, right) = self.drive(PartitionConsumer::new(&predicate));
        let (mut a, mut b) = (A::default(), B::default());
        extend_with(&mut a, left);
        extend_with(&mut b, right);
        (a, b)
    }

    /// Keeps at most `n` items, *any* `n` of them (not necessarily the first): cheaper than
    /// [`IndexedParallelIterator::take`] and available on unindexed iterators. The items kept
    /// still come out in order relative to each other.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let some: Vec<u32> = (0..100u32).into_par_iter().take_any(10).collect();
    /// assert_eq!(some.len(), 10);
    /// assert!(some.windows(2).all(|w| w[0] < w[1]));
    /// ```
    fn take_any(self, n: usize) -> TakeAny<Self> {
        TakeAny::new(self, n)
    }

    /// Drops `n` items, *any* `n` of them (not necessarily the first), and yields the rest.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// assert_eq!((0..100u32).into_par_iter().skip_any(10).count(), 90);
    /// ```
    fn skip_any(self, n: usize) -> SkipAny<Self> {
        SkipAny::new(self, n)
    }

    /// Yields items while `predicate` holds; once it fails for any item, in any piece, the
    /// iterator stops taking items. Items that pass may still be skipped if another piece
    /// failed first, and (unlike std's `take_while`) items after a failing one may have been
    /// taken by pieces that ran earlier.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let small: Vec<u32> = (0..100u32).into_par_iter().take_any_while(|&x| x < 50).collect();
    /// assert!(small.iter().all(|&x| x < 50));
    /// ```
    fn take_any_while<P>(self, predicate: P) -> TakeAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        TakeAnyWhile::new(self, predicate)
    }

    /// Drops items while `predicate` holds; once it fails for any item, in any piece, every
    /// later-examined item is yielded. Every item that fails the predicate is yielded.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let big: Vec<u32> = (0..100u32).into_par_iter().skip_any_while(|&x| x < 50).collect();
    /// assert!((50..100).all(|x| big.contains(&x)));
    /// ```
    fn skip_any_while<P>(self, predicate: P) -> SkipAnyWhile<Self, P>
    where
        P: Fn(&Self::Item) -> bool + Sync + Send,
    {
        SkipAnyWhile::new(self, predicate)
    }

    /// Stops every piece at its next item once the processing of an item has panicked, rather
    /// than letting pieces already started run to their end. The panic still resumes in the
    /// caller.
    fn panic_fuse(self) -> PanicFuse<Self> {
        PanicFuse::new(self)
    }

    /// Collects the items into a list of vectors, in order: one vector per piece of the loop,
    /// without copying the pieces into one vector.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let list = (0..1000u32).into_par_iter().collect_vec_list();
    /// let flat: Vec<u32> = list.into_iter().flatten().collect();
    /// assert_eq!(flat, (0..1000).collect::<Vec<_>>());
    /// ```
    fn collect_vec_list(self) -> std::collections::LinkedList<Vec<Self::Item>> {
        self.fold(Vec::new, |mut v, x| {
            v.push(x);
            v
        })
        .map(|v| {
            let mut list = std::collections::LinkedList::new();
            if !v.is_empty() {
                list.push_back(v);
            }
            list
        })
        .reduce(std::collections::LinkedList::new, |mut a, mut b| {
            a.append(&mut b);
            a
        })
    }

    /// Puts a clone of `element` between every two items.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v: Vec<u32> = (1..4u32).into_par_iter().intersperse(0).collect();
    /// assert_eq!(v, [1, 0, 2, 0, 3]);
    /// let s: String = "a b c".par_split_whitespace().intersperse("+").collect();
    /// assert_eq!(s, "a+b+c");
    /// ```
    fn intersperse(self, element: Self::Item) -> Intersperse<Self>
    where
        Self::Item: Clone,
    {
        Intersperse::new(self, element)
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

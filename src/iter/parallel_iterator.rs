//! [`ParallelIterator`], the trait every parallel iterator implements, and its consuming
//! methods.

use super::consumers::{
    AllConsumer, AnyConsumer, CountConsumer, FindAnyConsumer, ForEachConsumer, MaxConsumer,
    MinConsumer, ProductConsumer, ReduceConsumer, ReduceWithConsumer, SumConsumer,
};
use super::extend::{extend_with, PartitionConsumer, UnzipConsumer};
use super::find::{FindFirstConsumer, FindLastConsumer};
use super::plumbing::Consumer;
use super::try_ops::{TryReduceConsumer, TryReduceWithConsumer};
#[cfg(doc)]
use super::IndexedParallelIterator;
use super::{
    Chain, Cloned, Copied, Either, Filter, FilterMap, FlatMap, FlatMapIter, Flatten, FlattenIter,
    Fold, FoldWith, FromParallelIterator, Inspect, Intersperse, IntoParallelIterator, Map, MapInit,
    MapWith, PanicFuse, ParallelExtend, SkipAny, SkipAnyWhile, TakeAny, TakeAnyWhile, Try, TryFold,
    TryFoldWith, Update, WhileSome,
};
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

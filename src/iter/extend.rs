//! [`ParallelExtend`] (`par_extend`), and the two-sided collections built on it: `unzip`,
//! `partition` and `partition_map`. Every piece sorts its own items into `Vec`s; the pieces are
//! appended in order, so each side keeps the sequential order.

use crate::iter::collect::{append_pieces, collect_into, collect_vec};
use crate::iter::plumbing::{sealed, Consumer};
use crate::iter::{IntoParallelIterator, ParallelIterator};
use either::Either;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};

/// A collection that can be extended by a parallel iterator's items, in order.
///
/// ```
/// use hypersteal::prelude::*;
/// let mut v = vec![0u32];
/// v.par_extend((1..5u32).into_par_iter().map(|x| x * 10));
/// assert_eq!(v, [0, 10, 20, 30, 40]);
/// ```
pub trait ParallelExtend<T: Send> {
    /// Appends the items of `par_iter` to `self`.
    fn par_extend<I>(&mut self, par_iter: I)
    where
        I: IntoParallelIterator<Item = T>;
}

impl<T: Send> ParallelExtend<T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        // An indexed loop writes straight into the spare capacity (`collect_into`).
        collect_into(self, par_iter);
    }
}

impl<'a, T: Copy + Send + Sync + 'a> ParallelExtend<&'a T> for Vec<T> {
    fn par_extend<I: IntoParallelIterator<Item = &'a T>>(&mut self, par_iter: I) {
        self.par_extend(par_iter.into_par_iter().copied());
    }
}

impl<T: Send> ParallelExtend<T> for LinkedList<T> {
    fn par_extend<I: IntoParallelIterator<Item = T>>(&mut self, par_iter: I) {
        // The nodes are linked in parallel (`LinkedList`'s `FromParallelIterator`).
        let mut items: LinkedList<T> = par_iter.into_par_iter().collect();
        self.append(&mut items);
    }
}

/// Collections extended by collecting in parallel, then inserting in order.
macro_rules! extend_sequentially {
    ($([$($gen:tt)*] $coll:ty, $item:ty;)*) => {$(
        impl<$($gen)*> ParallelExtend<$item> for $coll {
            fn par_extend<I: IntoParallelIterator<Item = $item>>(&mut self, par_iter: I) {
                self.extend(collect_vec(par_iter));
            }
        }
    )*};
}

extend_sequentially! {
    [T: Send] VecDeque<T>, T;
    [T: Send + Ord] BinaryHeap<T>, T;
    [K: Send + Eq + Hash, V: Send, S: BuildHasher] HashMap<K, V, S>, (K, V);
    [T: Send + Eq + Hash, S: BuildHasher] HashSet<T, S>, T;
    [K: Send + Ord, V: Send] BTreeMap<K, V>, (K, V);
    [T: Send + Ord] BTreeSet<T>, T;
    [] String, char;
    ['a] String, &'a str;
    [] String, String;
    ['a] String, &'a char;
    [] String, Box<str>;
    ['a] String, std::borrow::Cow<'a, str>;
    ['a] std::ffi::OsString, &'a std::ffi::OsStr;
    [] std::ffi::OsString, std::ffi::OsString;
    ['a] std::ffi::OsString, std::borrow::Cow<'a, std::ffi::OsStr>;
    ['a, T: Copy + Send + Sync + 'a] VecDeque<T>, &'a T;
    ['a, T: Copy + Send + Sync + 'a] LinkedList<T>, &'a T;
    ['a, T: Copy + Send + Sync + Ord + 'a] BinaryHeap<T>, &'a T;
    ['a, T: Copy + Send + Sync + Eq + Hash + 'a, S: BuildHasher] HashSet<T, S>, &'a T;
    ['a, T: Copy + Send + Sync + Ord + 'a] BTreeSet<T>, &'a T;
    [
        'a,
        K: Copy + Send + Sync + Eq + Hash + 'a,
        V: Copy + Send + Sync + 'a,
        S: BuildHasher,
    ] HashMap<K, V, S>, (&'a K, &'a V);
    ['a, K: Copy + Send + Sync + Ord + 'a, V: Copy + Send + Sync + 'a] BTreeMap<K, V>,
        (&'a K, &'a V);
}

/// Extending `()` runs the iterator for its effects, as collecting into `()` does.
impl ParallelExtend<()> for () {
    fn par_extend<I: IntoParallelIterator<Item = ()>>(&mut self, par_iter: I) {
        par_iter.into_par_iter().for_each(|()| {});
    }
}

/// Pairs extend two collections at once, in order (`unzip` into existing collections).
impl<A, B, EA, EB> ParallelExtend<(A, B)> for (EA, EB)
where
    A: Send,
    B: Send,
    EA: ParallelExtend<A>,
    EB: ParallelExtend<B>,
{
    fn par_extend<I: IntoParallelIterator<Item = (A, B)>>(&mut self, par_iter: I) {
        let (a, b) = par_iter.into_par_iter().drive(UnzipConsumer);
        extend_with(&mut self.0, a);
        extend_with(&mut self.1, b);
    }
}

/// `Either`s extend the left collection with their `Left`s and the right one with their
/// `Right`s, in order (`partition_map` into existing collections).
impl<L, R, A, B> ParallelExtend<Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: ParallelExtend<L>,
    B: ParallelExtend<R>,
{
    fn par_extend<I: IntoParallelIterator<Item = Either<L, R>>>(&mut self, par_iter: I) {
        let identity = |e: Either<L, R>| e;
        let (left, right) = par_iter
            .into_par_iter()
            .drive(PartitionConsumer::new(&identity));
        extend_with(&mut self.0, left);
        extend_with(&mut self.1, right);
    }
}

/// Appends the concatenated `pieces` to `target` through its [`ParallelExtend`].
pub(crate) fn extend_with<T: Send, E: ParallelExtend<T>>(target: &mut E, pieces: Vec<Vec<T>>) {
    let mut all = Vec::new();
    append_pieces(&mut all, pieces);
    target.par_extend(all);
}

/// `unzip`: each piece splits its pairs into two `Vec`s.
pub(crate) struct UnzipConsumer;

impl<A: Send, B: Send> Consumer<(A, B)> for UnzipConsumer {
    type Result = (Vec<Vec<A>>, Vec<Vec<B>>);

    fn consume<I: Iterator<Item = (A, B)>>(&self, iter: I) -> Self::Result {
        let (a, b): (Vec<A>, Vec<B>) = iter.unzip();
        (vec![a], vec![b])
    }

    fn reduce(&self, mut left: Self::Result, right: Self::Result) -> Self::Result {
        left.0.extend(right.0);
        left.1.extend(right.1);
        left
    }

    fn identity(&self) -> Self::Result {
        (Vec::new(), Vec::new())
    }

    fn can_fill(&self, _: sealed::Token) -> bool {
        false
    }
}

/// `partition_map` (and `partition`): each piece sorts its items to the left or the right.
pub(crate) struct PartitionConsumer<'f, F> {
    f: &'f F,
}

impl<'f, F> PartitionConsumer<'f, F> {
    pub(crate) fn new(f: &'f F) -> Self {
        PartitionConsumer { f }
    }
}

impl<T, L: Send, R: Send, F> Consumer<T> for PartitionConsumer<'_, F>
where
    F: Fn(T) -> Either<L, R> + Sync,
{
    type Result = (Vec<Vec<L>>, Vec<Vec<R>>);

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> Self::Result {
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for item in iter {
            match (self.f)(item) {
                Either::Left(l) => left.push(l),
                Either::Right(r) => right.push(r),
            }
        }
        (vec![left], vec![right])
    }

    fn reduce(&self, mut left: Self::Result, right: Self::Result) -> Self::Result {
        left.0.extend(right.0);
        left.1.extend(right.1);
        left
    }

    fn identity(&self) -> Self::Result {
        (Vec::new(), Vec::new())
    }

    fn can_fill(&self, _: sealed::Token) -> bool {
        false
    }
}

//! `collect`: every piece collects into its own `Vec`; the pieces are concatenated in order.

use crate::iter::plumbing::Consumer;
use crate::iter::{FromParallelIterator, IntoParallelIterator, ParallelIterator};
use crate::sync::{AtomicUsize, Ordering};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, LinkedList, VecDeque};
use std::hash::{BuildHasher, Hash};

/// Collects each piece into a `Vec`; partial results are lists of those, joined in order.
struct VecConsumer;

impl<T: Send> Consumer<T> for VecConsumer {
    type Result = Vec<Vec<T>>;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> Vec<Vec<T>> {
        vec![iter.collect()]
    }

    fn reduce(&self, mut left: Vec<Vec<T>>, right: Vec<Vec<T>>) -> Vec<Vec<T>> {
        left.extend(right);
        left
    }

    fn identity(&self) -> Vec<Vec<T>> {
        Vec::new()
    }
}

/// The items, in order, as the `Vec`s the pieces collected.
pub(crate) fn collect_pieces<T: Send, I: IntoParallelIterator<Item = T>>(
    par_iter: I,
) -> Vec<Vec<T>> {
    par_iter.into_par_iter().drive(VecConsumer)
}

/// Appends `pieces`, in order, to `out`.
pub(crate) fn append_pieces<T>(out: &mut Vec<T>, pieces: Vec<Vec<T>>) {
    out.reserve(pieces.iter().map(Vec::len).sum());
    for mut piece in pieces {
        out.append(&mut piece);
    }
}

pub(crate) fn collect_vec<T: Send, I: IntoParallelIterator<Item = T>>(par_iter: I) -> Vec<T> {
    let mut pieces = collect_pieces(par_iter);
    if pieces.len() == 1 {
        return pieces.pop().unwrap_or_default();
    }
    let mut out = Vec::new();
    append_pieces(&mut out, pieces);
    out
}

impl<T: Send> FromParallelIterator<T> for Vec<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter)
    }
}

impl<T: Send> FromParallelIterator<T> for Box<[T]> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_boxed_slice()
    }
}

impl<T: Send + Ord> FromParallelIterator<T> for BinaryHeap<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into()
    }
}

impl<T: Send> FromParallelIterator<T> for LinkedList<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl<T: Send> FromParallelIterator<T> for VecDeque<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into()
    }
}

impl<K: Send + Eq + Hash, V: Send, S: BuildHasher + Default> FromParallelIterator<(K, V)>
    for HashMap<K, V, S>
{
    fn from_par_iter<I: IntoParallelIterator<Item = (K, V)>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl<T: Send + Eq + Hash, S: BuildHasher + Default> FromParallelIterator<T> for HashSet<T, S> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl<K: Send + Ord, V: Send> FromParallelIterator<(K, V)> for BTreeMap<K, V> {
    fn from_par_iter<I: IntoParallelIterator<Item = (K, V)>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl<T: Send + Ord> FromParallelIterator<T> for BTreeSet<T> {
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl FromParallelIterator<char> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = char>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl<'a> FromParallelIterator<&'a str> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = &'a str>>(par_iter: I) -> Self {
        collect_vec(par_iter).concat()
    }
}

impl FromParallelIterator<String> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = String>>(par_iter: I) -> Self {
        collect_vec(par_iter).concat()
    }
}

impl<'a> FromParallelIterator<&'a char> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = &'a char>>(par_iter: I) -> Self {
        collect_vec(par_iter).into_iter().collect()
    }
}

impl FromParallelIterator<Box<str>> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = Box<str>>>(par_iter: I) -> Self {
        collect_vec(par_iter).concat()
    }
}

impl<'a> FromParallelIterator<std::borrow::Cow<'a, str>> for String {
    fn from_par_iter<I: IntoParallelIterator<Item = std::borrow::Cow<'a, str>>>(
        par_iter: I,
    ) -> Self {
        collect_vec(par_iter).concat()
    }
}

/// A `Cow` collects into its owned form.
impl<'a, C, T> FromParallelIterator<T> for std::borrow::Cow<'a, C>
where
    C: ToOwned + ?Sized,
    C::Owned: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = T>>(par_iter: I) -> Self {
        std::borrow::Cow::Owned(C::Owned::from_par_iter(par_iter))
    }
}

/// Pairs collect into two collections, in order: `unzip`.
impl<A, B, FromA, FromB> FromParallelIterator<(A, B)> for (FromA, FromB)
where
    A: Send,
    B: Send,
    FromA: Default + Send + crate::iter::ParallelExtend<A>,
    FromB: Default + Send + crate::iter::ParallelExtend<B>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = (A, B)>>(par_iter: I) -> Self {
        par_iter.into_par_iter().unzip()
    }
}

/// `Either`s collect into two collections, lefts and rights, in order: `partition_map`.
impl<L, R, A, B> FromParallelIterator<either::Either<L, R>> for (A, B)
where
    L: Send,
    R: Send,
    A: Default + Send + crate::iter::ParallelExtend<L>,
    B: Default + Send + crate::iter::ParallelExtend<R>,
{
    fn from_par_iter<I: IntoParallelIterator<Item = either::Either<L, R>>>(par_iter: I) -> Self {
        par_iter.into_par_iter().partition_map(|e| e)
    }
}

impl FromParallelIterator<()> for () {
    fn from_par_iter<I: IntoParallelIterator<Item = ()>>(par_iter: I) -> Self {
        par_iter.into_par_iter().drive(UnitConsumer)
    }
}

struct UnitConsumer;

impl Consumer<()> for UnitConsumer {
    type Result = ();

    fn consume<I: Iterator<Item = ()>>(&self, iter: I) {
        iter.for_each(drop);
    }

    fn reduce(&self, _: (), _: ()) {}

    fn identity(&self) {}
}

/// Collects `Ok` values into `Vec`s until the first `Err` in order. A failing piece publishes
/// its start so that pieces starting later stop early (see `find.rs`); earlier pieces go on,
/// since a failure of theirs would come first.
struct TryCollectConsumer {
    /// The smallest start of a piece that failed (`usize::MAX`: none yet).
    first: AtomicUsize,
}

impl<T: Send, E: Send> Consumer<Result<T, E>> for TryCollectConsumer {
    type Result = Result<Vec<Vec<T>>, E>;

    fn consume<I: Iterator<Item = Result<T, E>>>(&self, iter: I) -> Self::Result {
        iter.collect::<Result<Vec<T>, E>>().map(|v| vec![v])
    }

    fn consume_at<I: Iterator<Item = Result<T, E>>>(&self, start: usize, iter: I) -> Self::Result {
        let mut out = Vec::new();
        for item in iter {
            if self.first.load(Ordering::Relaxed) < start {
                // An earlier piece failed: its error is the answer.
                return Ok(Vec::new());
            }
            match item {
                Ok(x) => out.push(x),
                Err(e) => {
                    self.first.fetch_min(start, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        Ok(vec![out])
    }

    fn reduce(&self, left: Self::Result, right: Self::Result) -> Self::Result {
        let mut left = left?;
        left.extend(right?);
        Ok(left)
    }

    fn identity(&self) -> Self::Result {
        Ok(Vec::new())
    }
}

fn try_collect_vec<T: Send, E: Send, I>(par_iter: I) -> Result<Vec<T>, E>
where
    I: IntoParallelIterator<Item = Result<T, E>>,
{
    let pieces = par_iter.into_par_iter().drive(TryCollectConsumer {
        first: AtomicUsize::new(usize::MAX),
    })?;
    let mut out = Vec::new();
    append_pieces(&mut out, pieces);
    Ok(out)
}

/// Collects the `Ok` values, in order, or returns the first `Err` in order.
///
/// ```
/// use hypersteal::prelude::*;
/// let ok: Result<Vec<u32>, String> = (0..4u32).into_par_iter().map(Ok).collect();
/// assert_eq!(ok, Ok(vec![0, 1, 2, 3]));
/// let err: Result<Vec<u32>, u32> =
///     (0..100u32).into_par_iter().map(|x| if x % 30 == 29 { Err(x) } else { Ok(x) }).collect();
/// assert_eq!(err, Err(29));
/// ```
impl<C, T, E> FromParallelIterator<Result<T, E>> for Result<C, E>
where
    C: FromParallelIterator<T>,
    T: Send,
    E: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Result<T, E>>>(par_iter: I) -> Self {
        try_collect_vec(par_iter).map(C::from_par_iter)
    }
}

/// Collects the `Some` values, in order, or returns `None` if there is a `None`.
///
/// ```
/// use hypersteal::prelude::*;
/// let all: Option<Vec<u32>> = (0..4u32).into_par_iter().map(Some).collect();
/// assert_eq!(all, Some(vec![0, 1, 2, 3]));
/// let gap: Option<Vec<u32>> = (0..4u32).into_par_iter().map(|x| (x != 2).then_some(x)).collect();
/// assert_eq!(gap, None);
/// ```
impl<C, T> FromParallelIterator<Option<T>> for Option<C>
where
    C: FromParallelIterator<T>,
    T: Send,
{
    fn from_par_iter<I: IntoParallelIterator<Item = Option<T>>>(par_iter: I) -> Self {
        let results = par_iter.into_par_iter().map(|x| x.ok_or(()));
        try_collect_vec(results).ok().map(C::from_par_iter)
    }
}

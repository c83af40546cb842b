//! `collect`: every piece collects into its own `Vec`; the pieces are concatenated in order.

use crate::iter::plumbing::Consumer;
use crate::iter::{FromParallelIterator, IntoParallelIterator, ParallelIterator};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
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

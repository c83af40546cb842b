//! The iterators of the slice methods beyond `par_chunks`: windows, exact chunks, chunks from
//! the end, and the pieces between separators or between runs.
//!
//! The window and chunk iterators are indexed: each is a [`Producer`] over its slice that cuts
//! at the slice position of a given window or chunk, and whose pieces are std's sequential
//! iterators of the same name. The splitting iterators (`par_split`, `par_split_inclusive`,
//! `par_chunk_by` and their `_mut` forms) are unindexed: their slice is halved at a boundary
//! between two pieces found near its middle (see `Rule::cut`), so that no piece straddles two
//! halves, and each half is then cut by std's sequential method. The halves' results are
//! combined in order, so the items are std's, in std's order.

use crate::iter::divide::{bridge_divisible, Divisible};
use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, ParallelIterator};
use std::fmt;

/// Implements `ParallelIterator` (through the producer) and `IndexedParallelIterator` for an
/// indexed slice iterator whose producer is built from its `slice` and `size` fields.
macro_rules! indexed_slice_iterator {
    ($name:ident, $bound:ident, $item:ty, $producer:ident, |$s:ident| $len:expr) => {
        impl<'data, T: $bound> ParallelIterator for $name<'data, T> {
            type Item = $item;

            opt_len_indexed!();

            fn drive<C: Consumer<$item>>(self, consumer: C) -> C::Result {
                self.with_producer(DriveCallback { consumer })
            }
        }

        impl<'data, T: $bound> IndexedParallelIterator for $name<'data, T> {
            fn len(&self) -> usize {
                let $s = self;
                $len
            }

            fn with_producer<CB: ProducerCallback<$item>>(self, callback: CB) -> CB::Output {
                callback.callback($producer {
                    slice: self.slice,
                    size: self.size,
                })
            }
        }
    };
}

/// The number of windows of `size` items in a slice of `len` items.
fn window_count(len: usize, size: usize) -> usize {
    (len + 1).saturating_sub(size)
}

// ---------------------------------------------------------------------------------------------
// Windows

/// The iterator of [`ParallelSlice::par_windows`](crate::iter::ParallelSlice::par_windows):
/// every run of `size` consecutive items, overlapping.
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Windows<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<'data, T> Windows<'data, T> {
    pub(crate) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "window_size must not be zero");
        Windows { slice, size }
    }
}

impl<T> Clone for Windows<'_, T> {
    fn clone(&self) -> Self {
        Windows { ..*self }
    }
}

indexed_slice_iterator!(
    Windows,
    Sync,
    &'data [T],
    WindowsProducer,
    |w| window_count(w.slice.len(), w.size)
);

struct WindowsProducer<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<'data, T: Sync> Producer for WindowsProducer<'data, T> {
    type Item = &'data [T];
    type IntoIter = std::slice::Windows<'data, T>;

    fn len(&self) -> usize {
        window_count(self.slice.len(), self.size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        // The windows before `index` end before item `index + size - 1`; those from `index` on
        // start at item `index`. The two halves share `size - 1` items.
        let end = (index + self.size - 1).min(self.slice.len());
        let size = self.size;
        (
            WindowsProducer {
                slice: &self.slice[..end],
                size,
            },
            WindowsProducer {
                slice: &self.slice[index..],
                size,
            },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        self.slice.windows(self.size)
    }
}

/// The iterator of
/// [`ParallelSlice::par_array_windows`](crate::iter::ParallelSlice::par_array_windows): every
/// run of `N` consecutive items, overlapping, as a reference to an array.
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ArrayWindows<'data, T, const N: usize> {
    slice: &'data [T],
}

impl<'data, T, const N: usize> ArrayWindows<'data, T, N> {
    pub(crate) fn new(slice: &'data [T]) -> Self {
        assert!(N != 0, "window size N must not be zero");
        ArrayWindows { slice }
    }
}

impl<T, const N: usize> Clone for ArrayWindows<'_, T, N> {
    fn clone(&self) -> Self {
        ArrayWindows { ..*self }
    }
}

impl<'data, T: Sync, const N: usize> ParallelIterator for ArrayWindows<'data, T, N> {
    type Item = &'data [T; N];

    opt_len_indexed!();

    fn drive<C: Consumer<&'data [T; N]>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl<'data, T: Sync, const N: usize> IndexedParallelIterator for ArrayWindows<'data, T, N> {
    fn len(&self) -> usize {
        window_count(self.slice.len(), N)
    }

    fn with_producer<CB: ProducerCallback<&'data [T; N]>>(self, callback: CB) -> CB::Output {
        callback.callback(ArrayWindowsProducer::<T, N>(WindowsProducer {
            slice: self.slice,
            size: N,
        }))
    }
}

/// A window of `N` items as the array it is.
fn as_array<T, const N: usize>(window: &[T]) -> &[T; N] {
    window.try_into().expect("a window holds exactly N items")
}

/// The windows of a piece, each seen as an array.
struct ArrayWindowsProducer<'data, T, const N: usize>(WindowsProducer<'data, T>);

impl<'data, T: Sync, const N: usize> Producer for ArrayWindowsProducer<'data, T, N> {
    type Item = &'data [T; N];
    type IntoIter = std::iter::Map<std::slice::Windows<'data, T>, fn(&'data [T]) -> &'data [T; N]>;

    fn len(&self) -> usize {
        self.0.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.0.split_at(index);
        (ArrayWindowsProducer(left), ArrayWindowsProducer(right))
    }

    fn into_iter(self) -> Self::IntoIter {
        self.0
            .into_iter()
            .map(as_array::<T, N> as fn(&'data [T]) -> &'data [T; N])
    }
}

// ---------------------------------------------------------------------------------------------
// Exact chunks from the start

/// The iterator of
/// [`ParallelSlice::par_chunks_exact`](crate::iter::ParallelSlice::par_chunks_exact): chunks of
/// exactly `size` items from the start; the items left over are the
/// [`remainder`](Self::remainder).
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ChunksExact<'data, T> {
    /// The whole chunks only.
    slice: &'data [T],
    rem: &'data [T],
    size: usize,
}

impl<'data, T> ChunksExact<'data, T> {
    pub(crate) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "chunk_size must not be zero");
        let (slice, rem) = slice.split_at(slice.len() - slice.len() % size);
        ChunksExact { slice, rem, size }
    }

    /// The last items of the slice, fewer than `chunk_size`, that make no whole chunk (empty if
    /// the length is a multiple of `chunk_size`).
    pub fn remainder(&self) -> &'data [T] {
        self.rem
    }
}

impl<T> Clone for ChunksExact<'_, T> {
    fn clone(&self) -> Self {
        ChunksExact { ..*self }
    }
}

indexed_slice_iterator!(ChunksExact, Sync, &'data [T], ChunksExactProducer, |c| c
    .slice
    .len()
    / c.size);

/// The iterator of
/// [`ParallelSliceMut::par_chunks_exact_mut`](crate::iter::ParallelSliceMut::par_chunks_exact_mut):
/// mutable chunks of exactly `size` items from the start; the items left over are the
/// remainder ([`into_remainder`](Self::into_remainder), [`remainder`](Self::remainder),
/// [`take_remainder`](Self::take_remainder)).
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ChunksExactMut<'data, T> {
    /// The whole chunks only.
    slice: &'data mut [T],
    rem: &'data mut [T],
    size: usize,
}

impl<'data, T> ChunksExactMut<'data, T> {
    pub(crate) fn new(slice: &'data mut [T], size: usize) -> Self {
        assert!(size != 0, "chunk_size must not be zero");
        let at = slice.len() - slice.len() % size;
        let (slice, rem) = slice.split_at_mut(at);
        ChunksExactMut { slice, rem, size }
    }

    /// Gives up the iterator for its remainder: the last items of the slice, fewer than
    /// `chunk_size`, that make no whole chunk.
    pub fn into_remainder(self) -> &'data mut [T] {
        self.rem
    }

    /// The remainder (see [`into_remainder`](Self::into_remainder)), borrowed from the
    /// iterator.
    pub fn remainder(&mut self) -> &mut [T] {
        self.rem
    }

    /// Takes the remainder out of the iterator, for as long as the slice lives; a second call
    /// returns an empty slice.
    pub fn take_remainder(&mut self) -> &'data mut [T] {
        std::mem::take(&mut self.rem)
    }
}

indexed_slice_iterator!(
    ChunksExactMut,
    Send,
    &'data mut [T],
    ChunksExactMutProducer,
    |c| c.slice.len() / c.size
);

struct ChunksExactProducer<'data, T> {
    /// A whole number of chunks.
    slice: &'data [T],
    size: usize,
}

impl<'data, T: Sync> Producer for ChunksExactProducer<'data, T> {
    type Item = &'data [T];
    type IntoIter = std::slice::ChunksExact<'data, T>;

    fn len(&self) -> usize {
        self.slice.len() / self.size
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.slice.split_at(index * self.size);
        let size = self.size;
        (
            ChunksExactProducer { slice: l, size },
            ChunksExactProducer { slice: r, size },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks_exact(self.size)
    }
}

struct ChunksExactMutProducer<'data, T> {
    /// A whole number of chunks.
    slice: &'data mut [T],
    size: usize,
}

impl<'data, T: Send> Producer for ChunksExactMutProducer<'data, T> {
    type Item = &'data mut [T];
    type IntoIter = std::slice::ChunksExactMut<'data, T>;

    fn len(&self) -> usize {
        self.slice.len() / self.size
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.slice.split_at_mut(index * self.size);
        let size = self.size;
        (
            ChunksExactMutProducer { slice: l, size },
            ChunksExactMutProducer { slice: r, size },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks_exact_mut(self.size)
    }
}

// ---------------------------------------------------------------------------------------------
// Chunks from the end

/// Where the slice of chunks from the end is cut so that its last `index` chunks (all whole,
/// but the one at the very start) lie after the cut.
fn rcut(len: usize, size: usize, index: usize) -> usize {
    len.saturating_sub(index.saturating_mul(size))
}

/// The iterator of [`ParallelSlice::par_rchunks`](crate::iter::ParallelSlice::par_rchunks):
/// chunks of `size` items counted from the end of the slice, last chunk first (the chunk at the
/// start of the slice, yielded last, may be shorter).
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct RChunks<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<'data, T> RChunks<'data, T> {
    pub(crate) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "chunk_size must not be zero");
        RChunks { slice, size }
    }
}

impl<T> Clone for RChunks<'_, T> {
    fn clone(&self) -> Self {
        RChunks { ..*self }
    }
}

indexed_slice_iterator!(RChunks, Sync, &'data [T], RChunksProducer, |c| c
    .slice
    .len()
    .div_ceil(c.size));

/// The iterator of
/// [`ParallelSliceMut::par_rchunks_mut`](crate::iter::ParallelSliceMut::par_rchunks_mut):
/// mutable chunks of `size` items counted from the end, last chunk first (the chunk at the start
/// of the slice, yielded last, may be shorter).
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct RChunksMut<'data, T> {
    slice: &'data mut [T],
    size: usize,
}

impl<'data, T> RChunksMut<'data, T> {
    pub(crate) fn new(slice: &'data mut [T], size: usize) -> Self {
        assert!(size != 0, "chunk_size must not be zero");
        RChunksMut { slice, size }
    }
}

indexed_slice_iterator!(RChunksMut, Send, &'data mut [T], RChunksMutProducer, |c| c
    .slice
    .len()
    .div_ceil(c.size));

struct RChunksProducer<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<'data, T: Sync> Producer for RChunksProducer<'data, T> {
    type Item = &'data [T];
    type IntoIter = std::slice::RChunks<'data, T>;

    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        // The first `index` chunks are the slice's tail.
        let (head, tail) = self
            .slice
            .split_at(rcut(self.slice.len(), self.size, index));
        let size = self.size;
        (
            RChunksProducer { slice: tail, size },
            RChunksProducer { slice: head, size },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        self.slice.rchunks(self.size)
    }
}

struct RChunksMutProducer<'data, T> {
    slice: &'data mut [T],
    size: usize,
}

impl<'data, T: Send> Producer for RChunksMutProducer<'data, T> {
    type Item = &'data mut [T];
    type IntoIter = std::slice::RChunksMut<'data, T>;

    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        // The first `index` chunks are the slice's tail.
        let at = rcut(self.slice.len(), self.size, index);
        let (head, tail) = self.slice.split_at_mut(at);
        let size = self.size;
        (
            RChunksMutProducer { slice: tail, size },
            RChunksMutProducer { slice: head, size },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        self.slice.rchunks_mut(self.size)
    }
}

// ---------------------------------------------------------------------------------------------
// Exact chunks from the end

/// The iterator of
/// [`ParallelSlice::par_rchunks_exact`](crate::iter::ParallelSlice::par_rchunks_exact): chunks
/// of exactly `size` items counted from the end, last chunk first; the items left over at the
/// start are the [`remainder`](Self::remainder).
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct RChunksExact<'data, T> {
    /// The whole chunks only.
    slice: &'data [T],
    rem: &'data [T],
    size: usize,
}

impl<'data, T> RChunksExact<'data, T> {
    pub(crate) fn new(slice: &'data [T], size: usize) -> Self {
        assert!(size != 0, "chunk_size must not be zero");
        let (rem, slice) = slice.split_at(slice.len() % size);
        RChunksExact { slice, rem, size }
    }

    /// The first items of the slice, fewer than `chunk_size`, that make no whole chunk (empty
    /// if the length is a multiple of `chunk_size`).
    pub fn remainder(&self) -> &'data [T] {
        self.rem
    }
}

impl<T> Clone for RChunksExact<'_, T> {
    fn clone(&self) -> Self {
        RChunksExact { ..*self }
    }
}

indexed_slice_iterator!(RChunksExact, Sync, &'data [T], RChunksExactProducer, |c| c
    .slice
    .len()
    / c.size);

/// The iterator of
/// [`ParallelSliceMut::par_rchunks_exact_mut`](crate::iter::ParallelSliceMut::par_rchunks_exact_mut):
/// mutable chunks of exactly `size` items counted from the end, last chunk first; the items left
/// over at the start are the remainder ([`into_remainder`](Self::into_remainder),
/// [`remainder`](Self::remainder), [`take_remainder`](Self::take_remainder)).
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct RChunksExactMut<'data, T> {
    /// The whole chunks only.
    slice: &'data mut [T],
    rem: &'data mut [T],
    size: usize,
}

impl<'data, T> RChunksExactMut<'data, T> {
    pub(crate) fn new(slice: &'data mut [T], size: usize) -> Self {
        assert!(size != 0, "chunk_size must not be zero");
        let at = slice.len() % size;
        let (rem, slice) = slice.split_at_mut(at);
        RChunksExactMut { slice, rem, size }
    }

    /// Gives up the iterator for its remainder: the first items of the slice, fewer than
    /// `chunk_size`, that make no whole chunk.
    pub fn into_remainder(self) -> &'data mut [T] {
        self.rem
    }

    /// The remainder (see [`into_remainder`](Self::into_remainder)), borrowed from the
    /// iterator.
    pub fn remainder(&mut self) -> &mut [T] {
        self.rem
    }

    /// Takes the remainder out of the iterator, for as long as the slice lives; a second call
    /// returns an empty slice.
    pub fn take_remainder(&mut self) -> &'data mut [T] {
        std::mem::take(&mut self.rem)
    }
}

indexed_slice_iterator!(
    RChunksExactMut,
    Send,
    &'data mut [T],
    RChunksExactMutProducer,
    |c| c.slice.len() / c.size
);

struct RChunksExactProducer<'data, T> {
    /// A whole number of chunks.
    slice: &'data [T],
    size: usize,
}

impl<'data, T: Sync> Producer for RChunksExactProducer<'data, T> {
    type Item = &'data [T];
    type IntoIter = std::slice::RChunksExact<'data, T>;

    fn len(&self) -> usize {
        self.slice.len() / self.size
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (head, tail) = self
            .slice
            .split_at(rcut(self.slice.len(), self.size, index));
        let size = self.size;
        (
            RChunksExactProducer { slice: tail, size },
            RChunksExactProducer { slice: head, size },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        self.slice.rchunks_exact(self.size)
    }
}

struct RChunksExactMutProducer<'data, T> {
    /// A whole number of chunks.
    slice: &'data mut [T],
    size: usize,
}

impl<'data, T: Send> Producer for RChunksExactMutProducer<'data, T> {
    type Item = &'data mut [T];
    type IntoIter = std::slice::RChunksExactMut<'data, T>;

    fn len(&self) -> usize {
        self.slice.len() / self.size
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let at = rcut(self.slice.len(), self.size, index);
        let (head, tail) = self.slice.split_at_mut(at);
        let size = self.size;
        (
            RChunksExactMutProducer { slice: tail, size },
            RChunksExactMutProducer { slice: head, size },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        self.slice.rchunks_exact_mut(self.size)
    }
}

// ---------------------------------------------------------------------------------------------
// Pieces between separators and runs

/// How one of the splitting iterators cuts its slice, in parallel and sequentially.
///
/// `known` is what earlier cuts learnt about a part (only `chunk_by` uses it, so that its
/// predicate is asked about each pair of neighbours once, as the sequential `chunk_by` does).
trait Rule<T>: Sync {
    /// A cut of `slice` near its middle that no piece of the result straddles, as the end of the
    /// left part and the start of the right part (they differ by the separator that neither
    /// keeps) with what is known of each part, or, when there is no such cut, what is now known
    /// of the whole.
    fn cut(&self, slice: &[T], known: Joined) -> Result<Cut, Joined>;

    /// Folds the pieces of a shared part of the slice.
    fn fold<'d, C: Consumer<&'d [T]>>(
        &self,
        slice: &'d [T],
        known: Joined,
        consumer: &C,
    ) -> C::Result;

    /// Folds the pieces of a mutable part of the slice.
    fn fold_mut<'d, C: Consumer<&'d mut [T]>>(
        &self,
        slice: &'d mut [T],
        known: Joined,
        consumer: &C,
    ) -> C::Result;
}

/// A cut of a part: where the left part ends, where the right part starts, and what is known of
/// each.
struct Cut {
    left_end: usize,
    right_start: usize,
    left: Joined,
    right: Joined,
}

impl Cut {
    /// A cut that teaches nothing about the parts.
    fn plain(left_end: usize, right_start: usize) -> Self {
        Cut {
            left_end,
            right_start,
            left: Joined::NOTHING,
            right: Joined::NOTHING,
        }
    }
}

/// Neighbours of a part already known to be in one run (`chunk_by`): the first `head` pairs and
/// the last `tail` pairs. Pair `i` of a part is its items `i - 1` and `i` (`1 <= i < len`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Joined {
    head: usize,
    tail: usize,
}

impl Joined {
    const NOTHING: Joined = Joined { head: 0, tail: 0 };

    /// Whether pair `i` of a part of `len` items is known to be joined.
    fn holds(self, i: usize, len: usize) -> bool {
        i <= self.head || i + self.tail >= len
    }
}

/// The first position in `mid..end` where `at` holds, else the last one in `start..mid`.
fn near_middle(start: usize, mid: usize, end: usize, at: impl Fn(usize) -> bool) -> Option<usize> {
    (mid..end)
        .find(|&i| at(i))
        .or_else(|| (start..mid).rev().find(|&i| at(i)))
}

/// Cuts around separators, which no piece keeps (`split`).
struct Around<P>(P);

impl<T, P: Fn(&T) -> bool + Sync> Rule<T> for Around<P> {
    fn cut(&self, slice: &[T], known: Joined) -> Result<Cut, Joined> {
        let sep = near_middle(0, slice.len() / 2, slice.len(), |i| (self.0)(&slice[i]));
        sep.map(|sep| Cut::plain(sep, sep + 1)).ok_or(known)
    }

    fn fold<'d, C: Consumer<&'d [T]>>(&self, slice: &'d [T], _: Joined, consumer: &C) -> C::Result {
        consumer.consume(slice.split(|x| (self.0)(x)))
    }

    fn fold_mut<'d, C: Consumer<&'d mut [T]>>(
        &self,
        slice: &'d mut [T],
        _: Joined,
        consumer: &C,
    ) -> C::Result {
        consumer.consume(slice.split_mut(|x| (self.0)(x)))
    }
}

/// Cuts just after separators, which end the pieces they close (`split_inclusive`).
struct After<P>(P);

impl<T, P: Fn(&T) -> bool + Sync> Rule<T> for After<P> {
    fn cut(&self, slice: &[T], known: Joined) -> Result<Cut, Joined> {
        // A separator that ends the slice would leave an empty right part with no pieces:
        // correct, but no use.
        let last = slice.len().checked_sub(1).ok_or(known)?;
        let sep = near_middle(0, slice.len() / 2, last, |i| (self.0)(&slice[i]));
        sep.map(|sep| Cut::plain(sep + 1, sep + 1)).ok_or(known)
    }

    fn fold<'d, C: Consumer<&'d [T]>>(&self, slice: &'d [T], _: Joined, consumer: &C) -> C::Result {
        consumer.consume(slice.split_inclusive(|x| (self.0)(x)))
    }

    fn fold_mut<'d, C: Consumer<&'d mut [T]>>(
        &self,
        slice: &'d mut [T],
        _: Joined,
        consumer: &C,
    ) -> C::Result {
        consumer.consume(slice.split_inclusive_mut(|x| (self.0)(x)))
    }
}

/// Cuts between two neighbours the predicate does not put in one run (`chunk_by`).
///
/// The predicate is asked about each pair of neighbours once in all, as by the sequential
/// `chunk_by`: the pairs a cut search finds joined are remembered in the parts (`Joined`), and
/// a part's own runs skip them. The pairs known of a part are always a prefix and a suffix: a
/// search forward from the middle learns the pairs from the middle to the cut (the left part's
/// suffix); a search that finds nothing forward and goes backward learns every pair from the cut
/// to the end (the whole right part).
struct Runs<P>(P);

impl<P> Runs<P> {
    /// Whether pair `i` of `slice` is joined: known, or asked.
    fn joined<T>(&self, slice: &[T], known: Joined, i: usize) -> bool
    where
        P: Fn(&T, &T) -> bool,
    {
        known.holds(i, slice.len()) || (self.0)(&slice[i - 1], &slice[i])
    }

    /// The ends of `slice`'s runs, in order (each run ends where the next starts).
    fn ends<'a, T>(&'a self, slice: &'a [T], known: Joined) -> impl Iterator<Item = usize> + 'a
    where
        P: Fn(&T, &T) -> bool,
    {
        let len = slice.len();
        let mut start = 0;
        std::iter::from_fn(move || {
            if start >= len {
                return None;
            }
            let mut end = start + 1;
            while end < len && self.joined(slice, known, end) {
                end += 1;
            }
            start = end;
            Some(end)
        })
    }
}

impl<T, P: Fn(&T, &T) -> bool + Sync> Rule<T> for Runs<P> {
    fn cut(&self, slice: &[T], known: Joined) -> Result<Cut, Joined> {
        // Position `i` is a cut if pair `i` (items `i - 1` and `i`) is not joined.
        let len = slice.len();
        let mid = (len / 2).max(1);
        if let Some(at) = (mid..len).find(|&i| !self.joined(slice, known, i)) {
            // Pairs `mid..at` are joined: the end of the left part.
            return Ok(Cut {
                left_end: at,
                right_start: at,
                left: Joined {
                    head: known.head.min(at.saturating_sub(1)),
                    tail: at - mid,
                },
                right: Joined {
                    head: known.head.saturating_sub(at),
                    tail: known.tail.min((len - at).saturating_sub(1)),
                },
            });
        }
        let Some(at) = (1..mid).rev().find(|&i| !self.joined(slice, known, i)) else {
            // Every pair was asked about (or known) and is joined: the part is one run.
            return Err(Joined {
                head: len.saturating_sub(1),
                tail: 0,
            });
        };
        // Every pair after `at` is joined: the right part is one run.
        Ok(Cut {
            left_end: at,
            right_start: at,
            // The known suffix lies after the cut (a known pair is never a cut).
            left: Joined {
                head: known.head.min(at.saturating_sub(1)),
                tail: 0,
            },
            right: Joined {
                head: len - at - 1,
                tail: 0,
            },
        })
    }

    fn fold<'d, C: Consumer<&'d [T]>>(
        &self,
        slice: &'d [T],
        known: Joined,
        consumer: &C,
    ) -> C::Result {
        let mut start = 0;
        consumer.consume(self.ends(slice, known).map(|end| {
            let run = &slice[start..end];
            start = end;
            run
        }))
    }

    fn fold_mut<'d, C: Consumer<&'d mut [T]>>(
        &self,
        slice: &'d mut [T],
        known: Joined,
        consumer: &C,
    ) -> C::Result {
        // The runs' ends come from a shared look at the slice, collected before the slice is
        // handed out in mutable runs.
        let ends: Vec<usize> = self.ends(slice, known).collect();
        let mut rest = slice;
        let mut start = 0;
        consumer.consume(ends.into_iter().map(move |end| {
            let (run, tail) = std::mem::take(&mut rest).split_at_mut(end - start);
            rest = tail;
            start = end;
            run
        }))
    }
}

/// A shared part of the slice of a splitting iterator.
struct Part<'d, 'r, T, R> {
    slice: &'d [T],
    rule: &'r R,
    known: Joined,
}

impl<'d, T: Sync, R: Rule<T>> Divisible for Part<'d, '_, T, R> {
    type Item = &'d [T];

    fn divide(self) -> (Self, Option<Self>) {
        let cut = match self.rule.cut(self.slice, self.known) {
            Ok(cut) => cut,
            Err(known) => return (Part { known, ..self }, None),
        };
        let rule = self.rule;
        let left = Part {
            slice: &self.slice[..cut.left_end],
            rule,
            known: cut.left,
        };
        let right = Part {
            slice: &self.slice[cut.right_start..],
            rule,
            known: cut.right,
        };
        (left, Some(right))
    }

    fn fold_with<C: Consumer<&'d [T]>>(self, consumer: &C) -> C::Result {
        self.rule.fold(self.slice, self.known, consumer)
    }
}

/// A mutable part of the slice of a splitting iterator.
struct PartMut<'d, 'r, T, R> {
    slice: &'d mut [T],
    rule: &'r R,
    known: Joined,
}

impl<'d, T: Send, R: Rule<T>> Divisible for PartMut<'d, '_, T, R> {
    type Item = &'d mut [T];

    fn divide(self) -> (Self, Option<Self>) {
        let cut = match self.rule.cut(self.slice, self.known) {
            Ok(cut) => cut,
            Err(known) => return (PartMut { known, ..self }, None),
        };
        let rule = self.rule;
        let (left, right) = self.slice.split_at_mut(cut.left_end);
        let right = &mut right[cut.right_start - cut.left_end..];
        (
            PartMut {
                slice: left,
                rule,
                known: cut.left,
            },
            Some(PartMut {
                slice: right,
                rule,
                known: cut.right,
            }),
        )
    }

    fn fold_with<C: Consumer<&'d mut [T]>>(self, consumer: &C) -> C::Result {
        self.rule.fold_mut(self.slice, self.known, consumer)
    }
}

/// Defines one splitting iterator: its struct (a slice and a predicate), `Debug`, `Clone` for
/// the shared ones, and `ParallelIterator` through its rule.
macro_rules! splitting_iterator {
    (
        $(#[$doc:meta])*
        $name:ident, shared, $rule:ident, Fn($($arg:ty),*)
    ) => {
        splitting_iterator!(@def $(#[$doc])* $name, &'data [T], Sync, Part, $rule, Fn($($arg),*));

        impl<T, P: Clone> Clone for $name<'_, T, P> {
            fn clone(&self) -> Self {
                $name {
                    slice: self.slice,
                    pred: self.pred.clone(),
                }
            }
        }
    };
    (
        $(#[$doc:meta])*
        $name:ident, mutable, $rule:ident, Fn($($arg:ty),*)
    ) => {
        splitting_iterator!(
            @def $(#[$doc])* $name, &'data mut [T], Send, PartMut, $rule, Fn($($arg),*)
        );
    };
    (
        @def $(#[$doc:meta])*
        $name:ident, $slice:ty, $bound:ident, $part:ident, $rule:ident, Fn($($arg:ty),*)
    ) => {
        $(#[$doc])*
        #[must_use = "parallel iterators do nothing until consumed"]
        pub struct $name<'data, T, P> {
            slice: $slice,
            pred: P,
        }

        impl<'data, T, P> $name<'data, T, P> {
            pub(crate) fn new(slice: $slice, pred: P) -> Self {
                $name { slice, pred }
            }
        }

        impl<T: fmt::Debug, P> fmt::Debug for $name<'_, T, P> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("slice", &self.slice)
                    .finish_non_exhaustive()
            }
        }

        impl<'data, T, P> ParallelIterator for $name<'data, T, P>
        where
            T: $bound,
            P: Fn($($arg),*) -> bool + Sync + Send,
        {
            type Item = $slice;

            fn drive<C: Consumer<$slice>>(self, consumer: C) -> C::Result {
                let rule = $rule(self.pred);
                let part = $part {
                    slice: self.slice,
                    rule: &rule,
                    known: Joined::NOTHING,
                };
                bridge_divisible(part, &consumer)
            }
        }
    };
}

splitting_iterator!(
    /// The iterator of [`ParallelSlice::par_split`](crate::iter::ParallelSlice::par_split): the
    /// sub-slices between the items that match a separator predicate.
    Split, shared, Around, Fn(&T)
);

splitting_iterator!(
    /// The iterator of
    /// [`ParallelSliceMut::par_split_mut`](crate::iter::ParallelSliceMut::par_split_mut): the
    /// mutable sub-slices between the items that match a separator predicate.
    SplitMut, mutable, Around, Fn(&T)
);

splitting_iterator!(
    /// The iterator of
    /// [`ParallelSlice::par_split_inclusive`](crate::iter::ParallelSlice::par_split_inclusive):
    /// the sub-slices each ended by an item that matches a separator predicate (kept in the
    /// sub-slice), and the items after the last separator, if any.
    SplitInclusive, shared, After, Fn(&T)
);

splitting_iterator!(
    /// The iterator of
    /// [`ParallelSliceMut::par_split_inclusive_mut`](crate::iter::ParallelSliceMut::par_split_inclusive_mut):
    /// the mutable sub-slices each ended by an item that matches a separator predicate (kept in
    /// the sub-slice), and the items after the last separator, if any.
    SplitInclusiveMut, mutable, After, Fn(&T)
);

splitting_iterator!(
    /// The iterator of [`ParallelSlice::par_chunk_by`](crate::iter::ParallelSlice::par_chunk_by):
    /// the longest runs of items in which the predicate holds for every two neighbours.
    ChunkBy, shared, Runs, Fn(&T, &T)
);

splitting_iterator!(
    /// The iterator of
    /// [`ParallelSliceMut::par_chunk_by_mut`](crate::iter::ParallelSliceMut::par_chunk_by_mut):
    /// the longest mutable runs of items in which the predicate holds for every two neighbours.
    ChunkByMut, mutable, Runs, Fn(&T, &T)
);

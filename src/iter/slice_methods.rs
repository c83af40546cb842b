//! The iterators of the slice methods beyond `par_chunks`: windows, exact chunks and chunks
//! from the end (the pieces between separators or between runs are in `slice_split.rs`).
//!
//! They are indexed: each is a [`Producer`] over its slice that cuts at the slice position of
//! a given window or chunk, and whose pieces are std's sequential iterators of the same name.

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, ParallelIterator};

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

//! The parallel slice traits, [`ParallelSlice`] and [`ParallelSliceMut`], with `par_chunks`
//! and `par_chunks_mut`: slices cut into consecutive sub-slices of a fixed size. The iterators of
//! the other slice methods are in `slice_methods.rs` and `slice_split.rs`.

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::slice_methods::{
    ArrayWindows, ChunksExact, ChunksExactMut, RChunks, RChunksExact, RChunksExactMut, RChunksMut,
    Windows,
};
use crate::iter::slice_split::{
    ChunkBy, ChunkByMut, Split, SplitInclusive, SplitInclusiveMut, SplitMut,
};
use crate::iter::{DriveCallback, IndexedParallelIterator, ParallelIterator};

/// Parallel methods on shared slices (and, through `Deref`, `Vec`s).
pub trait ParallelSlice<T: Sync> {
    /// The slice itself.
    fn as_parallel_slice(&self) -> &[T];

    /// Iterates in parallel over consecutive sub-slices of `chunk_size` items (the last may be
    /// shorter).
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let sums: Vec<u32> = [1, 2, 3, 4, 5].par_chunks(2).map(|c| c.iter().sum()).collect();
    /// assert_eq!(sums, [3, 7, 5]);
    /// ```
    fn par_chunks(&self, chunk_size: usize) -> Chunks<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        Chunks {
            slice: self.as_parallel_slice(),
            size: chunk_size,
        }
    }

    /// Iterates in parallel over every run of `N` consecutive items, each as a reference to an
    /// array (`&[T; N]`); the windows overlap, and there are none if the slice is shorter than
    /// `N`.
    ///
    /// # Panics
    ///
    /// If `N` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let sums: Vec<i32> = [1, 2, 3, 4].par_array_windows().map(|[a, b, c]| a + b + c).collect();
    /// assert_eq!(sums, [6, 9]);
    /// ```
    fn par_array_windows<const N: usize>(&self) -> ArrayWindows<'_, T, N> {
        ArrayWindows::new(self.as_parallel_slice())
    }

    /// Iterates in parallel over every run of `window_size` consecutive items; the windows
    /// overlap, and there are none if the slice is shorter than `window_size`.
    ///
    /// # Panics
    ///
    /// If `window_size` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let rising = [1, 3, 2, 5, 8].par_windows(2).filter(|w| w[0] < w[1]).count();
    /// assert_eq!(rising, 3);
    /// ```
    fn par_windows(&self, window_size: usize) -> Windows<'_, T> {
        Windows::new(self.as_parallel_slice(), window_size)
    }

    /// Iterates in parallel over consecutive sub-slices of exactly `chunk_size` items; the last
    /// items, too few for a whole chunk, are left out and available from
    /// [`ChunksExact::remainder`].
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v = [1, 2, 3, 4, 5, 6, 7];
    /// let chunks = v.par_chunks_exact(3);
    /// assert_eq!(chunks.remainder(), [7]);
    /// let sums: Vec<i32> = chunks.map(|c| c.iter().sum()).collect();
    /// assert_eq!(sums, [6, 15]);
    /// ```
    fn par_chunks_exact(&self, chunk_size: usize) -> ChunksExact<'_, T> {
        ChunksExact::new(self.as_parallel_slice(), chunk_size)
    }

    /// Iterates in parallel over sub-slices of `chunk_size` items counted from the end: the
    /// last `chunk_size` items come first, and the chunk at the start of the slice, which comes
    /// last, may be shorter.
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let chunks: Vec<&[u8]> = [1, 2, 3, 4, 5].par_rchunks(2).collect();
    /// assert_eq!(chunks, [&[4, 5][..], &[2, 3], &[1]]);
    /// ```
    fn par_rchunks(&self, chunk_size: usize) -> RChunks<'_, T> {
        RChunks::new(self.as_parallel_slice(), chunk_size)
    }

    /// Iterates in parallel over sub-slices of exactly `chunk_size` items counted from the end,
    /// last chunk first; the first items, too few for a whole chunk, are left out and available
    /// from [`RChunksExact::remainder`].
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let v = [1, 2, 3, 4, 5];
    /// let chunks = v.par_rchunks_exact(2);
    /// assert_eq!(chunks.remainder(), [1]);
    /// let got: Vec<&[u8]> = chunks.collect();
    /// assert_eq!(got, [&[4, 5][..], &[2, 3]]);
    /// ```
    fn par_rchunks_exact(&self, chunk_size: usize) -> RChunksExact<'_, T> {
        RChunksExact::new(self.as_parallel_slice(), chunk_size)
    }

    /// Iterates in parallel over the sub-slices between the items for which `separator` holds
    /// (the separators themselves are in no sub-slice), as [`slice::split`] cuts them: `n`
    /// separators make `n + 1` sub-slices, empty ones included.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let sums: Vec<i32> = [4, 5, 0, 7, 0, 0, 1]
    ///     .par_split(|x| *x == 0)
    ///     .map(|piece| piece.iter().sum())
    ///     .collect();
    /// assert_eq!(sums, [9, 7, 0, 1]);
    /// ```
    fn par_split<P>(&self, separator: P) -> Split<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Split::new(self.as_parallel_slice(), separator)
    }

    /// Iterates in parallel over sub-slices each ended by an item for which `separator` holds
    /// (kept as the sub-slice's last item), then the items after the last separator if there
    /// are any, as [`slice::split_inclusive`] cuts them.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let pieces: Vec<&[i32]> = [1, 0, 2, 3, 0, 4].par_split_inclusive(|x| *x == 0).collect();
    /// assert_eq!(pieces, [&[1, 0][..], &[2, 3, 0], &[4]]);
    /// ```
    fn par_split_inclusive<P>(&self, separator: P) -> SplitInclusive<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusive::new(self.as_parallel_slice(), separator)
    }

    /// Iterates in parallel over the longest runs of items in which `pred` holds for every two
    /// neighbours (`pred(&a, &b)` with `a` just before `b`), as [`slice::chunk_by`] cuts them.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let runs: Vec<&[i32]> = [1, 1, 2, 3, 3, 3].par_chunk_by(|a, b| a == b).collect();
    /// assert_eq!(runs, [&[1, 1][..], &[2], &[3, 3, 3]]);
    /// ```
    fn par_chunk_by<F>(&self, pred: F) -> ChunkBy<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkBy::new(self.as_parallel_slice(), pred)
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// Parallel methods on mutable slices (and, through `DerefMut`, `Vec`s).
pub trait ParallelSliceMut<T: Send> {
    /// The slice itself.
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    /// Iterates in parallel over consecutive mutable sub-slices of `chunk_size` items (the last
    /// may be shorter).
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let mut v = vec![0u32; 5];
    /// v.par_chunks_mut(2).enumerate().for_each(|(i, c)| c.fill(i as u32));
    /// assert_eq!(v, [0, 0, 1, 1, 2]);
    /// ```
    fn par_chunks_mut(&mut self, chunk_size: usize) -> ChunksMut<'_, T> {
        assert!(chunk_size != 0, "chunk_size must not be zero");
        ChunksMut {
            slice: self.as_parallel_slice_mut(),
            size: chunk_size,
        }
    }

    /// Iterates in parallel over consecutive mutable sub-slices of exactly `chunk_size` items;
    /// the last items, too few for a whole chunk, are left out and available from
    /// [`ChunksExactMut::into_remainder`] (or `remainder`, `take_remainder`).
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// let mut chunks = v.par_chunks_exact_mut(2);
    /// chunks.take_remainder().fill(0);
    /// chunks.for_each(|c| c.swap(0, 1));
    /// assert_eq!(v, [2, 1, 4, 3, 0]);
    /// ```
    fn par_chunks_exact_mut(&mut self, chunk_size: usize) -> ChunksExactMut<'_, T> {
        ChunksExactMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Iterates in parallel over mutable sub-slices of `chunk_size` items counted from the end:
    /// the last `chunk_size` items come first, and the chunk at the start of the slice, which
    /// comes last, may be shorter.
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let mut v = [0u32; 5];
    /// v.par_rchunks_mut(2).enumerate().for_each(|(i, c)| c.fill(i as u32));
    /// assert_eq!(v, [2, 1, 1, 0, 0]);
    /// ```
    fn par_rchunks_mut(&mut self, chunk_size: usize) -> RChunksMut<'_, T> {
        RChunksMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Iterates in parallel over mutable sub-slices of exactly `chunk_size` items counted from
    /// the end, last chunk first; the first items, too few for a whole chunk, are left out and
    /// available from [`RChunksExactMut::into_remainder`] (or `remainder`, `take_remainder`).
    ///
    /// # Panics
    ///
    /// If `chunk_size` is 0.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let mut v = [1, 2, 3, 4, 5];
    /// let mut chunks = v.par_rchunks_exact_mut(2);
    /// assert_eq!(chunks.remainder(), [1]);
    /// chunks.for_each(|c| c.reverse());
    /// assert_eq!(v, [1, 3, 2, 5, 4]);
    /// ```
    fn par_rchunks_exact_mut(&mut self, chunk_size: usize) -> RChunksExactMut<'_, T> {
        RChunksExactMut::new(self.as_parallel_slice_mut(), chunk_size)
    }

    /// Iterates in parallel over the mutable sub-slices between the items for which
    /// `separator` holds (the separators are in no sub-slice), as [`slice::split_mut`] cuts
    /// them.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let mut v = [3, 1, 0, 5, 4, 0, 2];
    /// v.par_split_mut(|x| *x == 0).for_each(|piece| piece.sort());
    /// assert_eq!(v, [1, 3, 0, 4, 5, 0, 2]);
    /// ```
    fn par_split_mut<P>(&mut self, separator: P) -> SplitMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// Iterates in parallel over mutable sub-slices each ended by an item for which
    /// `separator` holds (kept as the sub-slice's last item), then the items after the last
    /// separator if there are any, as [`slice::split_inclusive_mut`] cuts them.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let mut v = [1, 2, 0, 3, 0, 4];
    /// v.par_split_inclusive_mut(|x| *x == 0).for_each(|piece| piece.reverse());
    /// assert_eq!(v, [0, 2, 1, 0, 3, 4]);
    /// ```
    fn par_split_inclusive_mut<P>(&mut self, separator: P) -> SplitInclusiveMut<'_, T, P>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        SplitInclusiveMut::new(self.as_parallel_slice_mut(), separator)
    }

    /// Iterates in parallel over the longest mutable runs of items in which `pred` holds for
    /// every two neighbours, as [`slice::chunk_by_mut`] cuts them.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let mut v = [1, 2, 3, 2, 5, 6];
    /// v.par_chunk_by_mut(|a, b| a < b).for_each(|run| run.reverse());
    /// assert_eq!(v, [3, 2, 1, 6, 5, 2]);
    /// ```
    fn par_chunk_by_mut<F>(&mut self, pred: F) -> ChunkByMut<'_, T, F>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        ChunkByMut::new(self.as_parallel_slice_mut(), pred)
    }

    /// Sorts the slice in parallel, stably (equal elements keep their order): a merge sort
    /// whose merges are split in parallel too. Needs a scratch buffer as long as the slice.
    ///
    /// If the comparison panics, the slice holds all its elements in some order.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let mut v: Vec<u32> = (0..10_000).rev().collect();
    /// v.par_sort();
    /// assert!(v.windows(2).all(|w| w[0] <= w[1]));
    /// ```
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        crate::iter::sort::par_merge_sort(self.as_parallel_slice_mut(), &T::cmp);
    }

    /// [`par_sort`](Self::par_sort) with a comparison function.
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> std::cmp::Ordering + Sync,
    {
        crate::iter::sort::par_merge_sort(self.as_parallel_slice_mut(), &compare);
    }

    /// [`par_sort`](Self::par_sort) by a key, computed at every comparison (see
    /// [`par_sort_by_cached_key`](Self::par_sort_by_cached_key) for expensive keys).
    fn par_sort_by_key<K, F>(&mut self, key: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        crate::iter::sort::par_merge_sort(self.as_parallel_slice_mut(), &|a: &T, b: &T| {
            key(a).cmp(&key(b))
        });
    }

    /// Sorts stably by a key computed once per element (in parallel): the pairs of key and
    /// position are sorted, then the elements are moved into that order.
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let mut words = vec!["delta", "Alpha", "charlie", "Bravo"];
    /// words.par_sort_by_cached_key(|w| w.to_lowercase());
    /// assert_eq!(words, ["Alpha", "Bravo", "charlie", "delta"]);
    /// ```
    fn par_sort_by_cached_key<K, F>(&mut self, key: F)
    where
        K: Ord + Send,
        F: Fn(&T) -> K + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        if slice.len() < 2 {
            return;
        }
        // Keys with their positions: unique pairs, so an unstable sort is stable here.
        let mut keyed: Vec<(K, usize)> = {
            use crate::iter::{
                IndexedParallelIterator, IntoParallelRefMutIterator, ParallelIterator,
            };
            let key = &key;
            slice
                .par_iter_mut()
                .enumerate()
                .map(move |(i, x)| (key(&*x), i))
                .collect()
        };
        crate::iter::sort::par_quicksort(&mut keyed, &|a: &(K, usize), b: &(K, usize)| a.cmp(b));
        // Move the elements into the sorted order by following the permutation's cycles:
        // position `i` of the result takes the element that was at `keyed[i].1`.
        for i in 0..slice.len() {
            let mut from = keyed[i].1;
            // Earlier positions were filled by swaps; follow where their element went.
            while from < i {
                from = keyed[from].1;
            }
            keyed[i].1 = from;
            slice.swap(i, from);
        }
    }

    /// Sorts the slice in parallel, not necessarily keeping equal elements in order: a
    /// quicksort with its sides sorted in parallel (no scratch buffer).
    ///
    /// ```
    /// use hypersteal::prelude::*;
    /// let mut v: Vec<i64> = (0..10_000).map(|i| (i * 7919) % 10_007 - 5_000).collect();
    /// v.par_sort_unstable();
    /// assert!(v.windows(2).all(|w| w[0] <= w[1]));
    /// ```
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        crate::iter::sort::par_quicksort(self.as_parallel_slice_mut(), &T::cmp);
    }

    /// [`par_sort_unstable`](Self::par_sort_unstable) with a comparison function.
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> std::cmp::Ordering + Sync,
    {
        crate::iter::sort::par_quicksort(self.as_parallel_slice_mut(), &compare);
    }

    /// [`par_sort_unstable`](Self::par_sort_unstable) by a key, computed at every comparison.
    fn par_sort_unstable_by_key<K, F>(&mut self, key: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        crate::iter::sort::par_quicksort(self.as_parallel_slice_mut(), &|a: &T, b: &T| {
            key(a).cmp(&key(b))
        });
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}

/// The iterator of [`ParallelSlice::par_chunks`].
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Chunks<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<T> Clone for Chunks<'_, T> {
    fn clone(&self) -> Self {
        Chunks { ..*self }
    }
}

/// The iterator of [`ParallelSliceMut::par_chunks_mut`].
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ChunksMut<'data, T> {
    slice: &'data mut [T],
    size: usize,
}

impl<'data, T: Sync> ParallelIterator for Chunks<'data, T> {
    type Item = &'data [T];

    opt_len_indexed!();

    fn drive<C: Consumer<&'data [T]>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl<'data, T: Sync> IndexedParallelIterator for Chunks<'data, T> {
    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    fn with_producer<CB: ProducerCallback<&'data [T]>>(self, callback: CB) -> CB::Output {
        callback.callback(ChunksProducer {
            slice: self.slice,
            size: self.size,
        })
    }
}

impl<'data, T: Send> ParallelIterator for ChunksMut<'data, T> {
    type Item = &'data mut [T];

    opt_len_indexed!();

    fn drive<C: Consumer<&'data mut [T]>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl<'data, T: Send> IndexedParallelIterator for ChunksMut<'data, T> {
    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    fn with_producer<CB: ProducerCallback<&'data mut [T]>>(self, callback: CB) -> CB::Output {
        callback.callback(ChunksMutProducer {
            slice: self.slice,
            size: self.size,
        })
    }
}

struct ChunksProducer<'data, T> {
    slice: &'data [T],
    size: usize,
}

impl<'data, T: Sync> Producer for ChunksProducer<'data, T> {
    type Item = &'data [T];
    type IntoIter = std::slice::Chunks<'data, T>;

    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let at = (index * self.size).min(self.slice.len());
        let (l, r) = self.slice.split_at(at);
        let size = self.size;
        (
            ChunksProducer { slice: l, size },
            ChunksProducer { slice: r, size },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks(self.size)
    }
}

struct ChunksMutProducer<'data, T> {
    slice: &'data mut [T],
    size: usize,
}

impl<'data, T: Send> Producer for ChunksMutProducer<'data, T> {
    type Item = &'data mut [T];
    type IntoIter = std::slice::ChunksMut<'data, T>;

    fn len(&self) -> usize {
        self.slice.len().div_ceil(self.size)
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let at = (index * self.size).min(self.slice.len());
        let (l, r) = self.slice.split_at_mut(at);
        let size = self.size;
        (
            ChunksMutProducer { slice: l, size },
            ChunksMutProducer { slice: r, size },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        self.slice.chunks_mut(self.size)
    }
}

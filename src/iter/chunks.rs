//! `par_chunks` and `par_chunks_mut`: slices cut into consecutive sub-slices of a fixed size.

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
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
    /// three-way quicksort with its sides sorted in parallel (no scratch buffer).
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

/// The iterator of [`ParallelSliceMut::par_chunks_mut`].
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct ChunksMut<'data, T> {
    slice: &'data mut [T],
    size: usize,
}

impl<'data, T: Sync> ParallelIterator for Chunks<'data, T> {
    type Item = &'data [T];

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

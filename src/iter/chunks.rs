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

//! `Vec<T>` by value as an indexed parallel iterator.
//!
//! The vector's length is set to zero before its items are handed out, so the vector itself only
//! frees its buffer. Every item is then owned by exactly one producer (pieces never overlap):
//! it is either moved out by that producer's iterator or dropped in place when the producer or
//! its iterator is dropped unfinished (a panic, or `any` stopping early). Hence no item is
//! dropped twice and none is leaked.

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, IntoParallelIterator, ParallelIterator};

/// A parallel iterator that moves the items out of a `Vec`, from `vec.into_par_iter()`.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct IntoIter<T> {
    vec: Vec<T>,
}

impl<T: Send> IntoParallelIterator for Vec<T> {
    type Iter = IntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter { vec: self }
    }
}

/// A boxed slice yields its items by value, as a `Vec` does (the box becomes one, without a
/// copy).
impl<T: Send> IntoParallelIterator for Box<[T]> {
    type Iter = IntoIter<T>;
    type Item = T;

    fn into_par_iter(self) -> IntoIter<T> {
        IntoIter {
            vec: Vec::from(self),
        }
    }
}

impl<T: Send> ParallelIterator for IntoIter<T> {
    type Item = T;

    opt_len_indexed!();

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl<T: Send> IndexedParallelIterator for IntoIter<T> {
    fn len(&self) -> usize {
        self.vec.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let mut vec = self.vec;
        let len = vec.len();
        // SAFETY: the `len` initialised items now belong to the producer below (see the module
        // docs); the vector, with length 0, only frees its buffer when dropped, which happens
        // after the callback returns or unwinds, once every producer is gone.
        let slice = unsafe {
            vec.set_len(0);
            std::slice::from_raw_parts_mut(vec.as_mut_ptr(), len)
        };
        callback.callback(DrainProducer { slice })
    }
}

/// Owns the items of `slice` (they must be moved out or dropped, never used otherwise).
pub(crate) struct DrainProducer<'data, T> {
    slice: &'data mut [T],
}

impl<'data, T> DrainProducer<'data, T> {
    /// A producer that owns the items of `slice`.
    ///
    /// # Safety
    ///
    /// The items must be initialised and must not be read, moved or dropped by anyone else
    /// from now on: the producer moves each out or drops it.
    pub(crate) unsafe fn new(slice: &'data mut [T]) -> Self {
        DrainProducer { slice }
    }
}

// SAFETY: the producer owns its items (moving them to whichever thread runs it), so it may be
// sent when `T` may.
unsafe impl<T: Send> Send for DrainProducer<'_, T> {}

impl<'data, T: Send> Producer for DrainProducer<'data, T> {
    type Item = T;
    type IntoIter = Drain<'data, T>;

    fn len(&self) -> usize {
        self.slice.len()
    }

    fn split_at(mut self, index: usize) -> (Self, Self) {
        let slice = std::mem::take(&mut self.slice);
        let (l, r) = slice.split_at_mut(index);
        (DrainProducer { slice: l }, DrainProducer { slice: r })
    }

    fn into_iter(mut self) -> Drain<'data, T> {
        let slice = std::mem::take(&mut self.slice);
        Drain {
            iter: slice.iter_mut(),
        }
    }
}

impl<T> Drop for DrainProducer<'_, T> {
    fn drop(&mut self) {
        let slice = std::mem::take(&mut self.slice);
        // SAFETY: the producer owns these items and nobody has moved them out (see the module
        // docs); after this the producer holds an empty slice.
        unsafe { std::ptr::drop_in_place(slice) };
    }
}

/// Moves the items of a piece out, in order; drops whatever is left if dropped early.
pub(crate) struct Drain<'data, T> {
    iter: std::slice::IterMut<'data, T>,
}

impl<T> Iterator for Drain<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        let item = self.iter.next()?;
        // SAFETY: the item is owned by this drain and `iter` moves past it, so it is read
        // (moved out) exactly once and never dropped in place.
        Some(unsafe { std::ptr::read(item) })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

impl<T> DoubleEndedIterator for Drain<'_, T> {
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        let item = self.iter.next_back()?;
        // SAFETY: as in `next`: the item is owned by this drain and `iter` moves past it.
        Some(unsafe { std::ptr::read(item) })
    }
}

impl<T> ExactSizeIterator for Drain<'_, T> {}

impl<T> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        let rest = std::mem::take(&mut self.iter).into_slice();
        // SAFETY: the items not yet yielded are still owned by this drain and were not read.
        unsafe { std::ptr::drop_in_place(rest) };
    }
}

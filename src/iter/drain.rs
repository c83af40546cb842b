//! `par_drain`: removing items from a collection while iterating over them in parallel.
//!
//! [`ParallelDrainRange`] removes a range of a `Vec`, `VecDeque` or `String`,
//! [`ParallelDrainFull`] all the items of a `HashMap`, `HashSet` or `BinaryHeap` (the same split
//! as rayon's). Every item removed is moved to the loop or, if the loop does not consume it (`take`, an early stop of
//! `any`, a panic), dropped exactly once; the collection is valid afterwards whatever happened.
//!
//! A `Vec` is drained in place: its length is cut to the start of the range while the loop runs
//! (so a leak cannot expose moved-out items) and its tail is moved down when the loop is over.
//! The other collections hand their items over to a `Vec` when `par_drain` is called.

use crate::iter::plumbing::{Consumer, ProducerCallback};
use crate::iter::vec::DrainProducer;
use crate::iter::{IndexedParallelIterator, ParallelIterator};
use std::marker::PhantomData;
use std::ops::{Bound, Range, RangeBounds};

/// `par_drain(range)`: removes a range of items from a `Vec`, `VecDeque` or `String` (its chars)
/// and iterates over them in parallel, in order.
///
/// ```
/// use hypersteal::prelude::*;
///
/// let mut v: Vec<u32> = (0..10).collect();
/// let drained: Vec<u32> = v.par_drain(2..5).collect();
/// assert_eq!(drained, [2, 3, 4]);
/// assert_eq!(v, [0, 1, 5, 6, 7, 8, 9]);
/// ```
pub trait ParallelDrainRange<Idx = usize> {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// Removes the items in `range` (panics, like std's `drain`, if the range is decreasing or
    /// goes past the end) and iterates over them.
    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

/// `par_drain()`: removes every item of a `HashMap`, `HashSet` or `BinaryHeap` and iterates
/// over them in parallel.
///
/// ```
/// use hypersteal::prelude::*;
/// use std::collections::HashSet;
///
/// let mut set: HashSet<u32> = (0..100).collect();
/// let sum: u32 = set.par_drain().sum();
/// assert_eq!(sum, 4950);
/// assert!(set.is_empty());
/// ```
pub trait ParallelDrainFull {
    /// The parallel iterator.
    type Iter: ParallelIterator<Item = Self::Item>;
    /// Its items.
    type Item: Send;

    /// Removes every item and iterates over them.
    fn par_drain(self) -> Self::Iter;
}

/// Items already taken out of a collection borrowed for `'a`.
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Owned<'a, T> {
    items: crate::iter::IntoIter<T>,
    borrow: PhantomData<&'a mut ()>,
}

impl<T> Owned<'_, T> {
    pub(crate) fn new(items: crate::iter::IntoIter<T>) -> Self {
        Owned {
            items,
            borrow: PhantomData,
        }
    }
}

impl<T: Send> ParallelIterator for Owned<'_, T> {
    type Item = T;

    opt_len_indexed!();

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.items.drive(consumer)
    }
}

impl<T: Send> IndexedParallelIterator for Owned<'_, T> {
    fn len(&self) -> usize {
        self.items.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        self.items.with_producer(callback)
    }
}

/// The range `range` of a collection of `len` items, checked like std's `drain`.
fn checked_range(range: impl RangeBounds<usize>, len: usize) -> Range<usize> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1).expect("par_drain: range start overflows"),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1).expect("par_drain: range end overflows"),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    assert!(
        start <= end,
        "par_drain: range start {start} is greater than its end {end}"
    );
    assert!(
        end <= len,
        "par_drain: range end {end} is past the length {len}"
    );
    start..end
}

/// The items of a range of a `Vec`, removed from it (`vec.par_drain(range)`), in order.
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Drain<'a, T> {
    vec: &'a mut Vec<T>,
    range: Range<usize>,
    /// The vector's length when the drain was made; it is cut to `range.start` while the loop
    /// runs, which is how `drop` tells whether the loop ran.
    len: usize,
}

impl<'a, T: Send> ParallelDrainRange<usize> for &'a mut Vec<T> {
    type Iter = Drain<'a, T>;
    type Item = T;

    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> Drain<'a, T> {
        let len = self.len();
        let range = checked_range(range, len);
        Drain {
            vec: self,
            range,
            len,
        }
    }
}

impl<T: Send> ParallelIterator for Drain<'_, T> {
    type Item = T;

    opt_len_indexed!();

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        self.with_producer(crate::iter::DriveCallback { consumer })
    }
}

impl<T: Send> IndexedParallelIterator for Drain<'_, T> {
    fn len(&self) -> usize {
        self.range.len()
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        let Range { start, end } = self.range.clone();
        // SAFETY: the items in `start..end` are handed to the producer, which moves out or
        // drops each exactly once (see `vec.rs`). The vector's length is cut to `start` first,
        // so nothing else reads or drops them; the tail is moved down by `drop(self)` below,
        // which runs after the callback returns or unwinds, once every producer is gone.
        let producer = unsafe {
            self.vec.set_len(start);
            let base = self.vec.as_mut_ptr().add(start);
            DrainProducer::new(std::slice::from_raw_parts_mut(base, end - start))
        };
        callback.callback(producer)
    }
}

impl<T> Drop for Drain<'_, T> {
    fn drop(&mut self) {
        let Range { start, end } = self.range.clone();
        if self.vec.len() == self.len {
            // Never driven: remove the range the ordinary way.
            self.vec.drain(start..end);
            return;
        }
        let tail = self.len - end;
        // SAFETY: the loop has moved out or dropped every item of `start..end`; the `tail`
        // items after it are initialised and untouched, and are moved down to `start` (the
        // ranges may overlap, hence `copy`), after which the first `start + tail` slots hold
        // the vector's items.
        unsafe {
            let base = self.vec.as_mut_ptr();
            std::ptr::copy(base.add(end), base.add(start), tail);
            self.vec.set_len(start + tail);
        }
    }
}

/// The chars of a range of a `String`, removed from it (`string.par_drain(range)`), in order.
///
/// The range is taken out of the string when `par_drain` is called (sequentially, into a `Vec`
/// of chars), so the string is valid, and shorter, from then on.
#[derive(Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct StringDrain<'a> {
    chars: Owned<'a, char>,
}

impl<'a> ParallelDrainRange<usize> for &'a mut String {
    type Iter = StringDrain<'a>;
    type Item = char;

    /// Panics, like std's `drain`, if a bound of `range` is not on a char boundary.
    fn par_drain<R: RangeBounds<usize>>(self, range: R) -> StringDrain<'a> {
        let chars: Vec<char> = self.drain(range).collect();
        StringDrain {
            chars: Owned::new(crate::iter::IntoParallelIterator::into_par_iter(chars)),
        }
    }
}

impl ParallelIterator for StringDrain<'_> {
    type Item = char;

    fn drive<C: Consumer<char>>(self, consumer: C) -> C::Result {
        self.chars.drive(consumer)
    }
}

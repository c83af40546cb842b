//! Integer and char ranges (`a..b`, `a..=b`) as parallel iterators: indexed, except the 128-bit
//! ones (as in rayon).
//!
//! `RangeIter<T>` has one `ParallelIterator` impl for every item type and one
//! `IndexedParallelIterator` impl for the indexed ones, each forwarding to the sealed traits
//! [`RangeItem`] and [`IndexedRangeItem`]. With one generic impl the compiler can name the item
//! type before it knows which integer it is, so an unsuffixed literal range such as
//! `(0..100).into_par_iter()` takes its type from a later use (`.filter(|&x| is_even(x))` with
//! `is_even(i64)`), and falls back to `i32` when nothing says otherwise, as with rayon.
//!
//! A range of the 64-bit or pointer-sized types can hold one item more than `usize` counts
//! (`0..=u64::MAX`): such a range has no length (`opt_len` is `None`, `len` panics) and is
//! driven as the 128-bit ones are, by halving.

use crate::iter::divide::{bridge_divisible, Divisible, Stopper};
use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::ops::{Range, RangeInclusive};

/// A parallel iterator over an integer or char range, from `(a..b).into_par_iter()` or
/// `(a..=b).into_par_iter()`.
///
/// Indexed for every item type narrower than 128 bits, so it zips, reverses and collects in
/// place; [`opt_len`](ParallelIterator::opt_len) is `None` only for a range longer than
/// `usize::MAX` (`0..=u64::MAX`, which runs unindexed, as 128-bit ranges do).
///
/// ```
/// use hypersteal::prelude::*;
///
/// fn is_square(n: u64) -> bool {
///     n.isqrt().pow(2) == n
/// }
///
/// // The literal range is a range of `u64`, from `is_square`'s argument.
/// let squares: Vec<_> = (1..=100).into_par_iter().filter(|&n| is_square(n)).collect();
/// assert_eq!(squares.len(), 10);
/// assert_eq!(('a'..='e').into_par_iter().rev().collect::<String>(), "edcba");
/// ```
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct RangeIter<T> {
    range: Range<T>,
    /// The inclusive range's last item when it is `T::MAX` (which `range` cannot express).
    last: Option<T>,
}

/// A piece of a range: `range` then possibly `last`.
struct RangeProducer<T> {
    range: Range<T>,
    last: Option<T>,
}

mod sealed {
    pub trait Sealed {}
}

/// The items whose ranges are parallel iterators: every integer type and `char` (sealed).
pub trait RangeItem: sealed::Sealed + Sized + Send {
    /// `range` as a parallel iterator.
    #[doc(hidden)]
    fn half_open(range: Range<Self>) -> RangeIter<Self>;
    /// `range` as a parallel iterator.
    #[doc(hidden)]
    fn inclusive(range: RangeInclusive<Self>) -> RangeIter<Self>;
    /// [`ParallelIterator::drive`] of a range of `Self`.
    #[doc(hidden)]
    fn drive_range<C: Consumer<Self>>(iter: RangeIter<Self>, consumer: C) -> C::Result;
    /// [`ParallelIterator::opt_len`] of a range of `Self`.
    #[doc(hidden)]
    fn range_opt_len(iter: &RangeIter<Self>) -> Option<usize>;
}

/// The items whose ranges are indexed parallel iterators: every integer type narrower than
/// 128 bits, and `char` (sealed).
pub trait IndexedRangeItem: RangeItem {
    /// [`IndexedParallelIterator::len`] of a range of `Self`.
    #[doc(hidden)]
    fn range_len(iter: &RangeIter<Self>) -> usize;
    /// [`IndexedParallelIterator::with_producer`] of a range of `Self`.
    #[doc(hidden)]
    fn range_with_producer<CB: ProducerCallback<Self>>(
        iter: RangeIter<Self>,
        callback: CB,
    ) -> CB::Output;
}

impl<T: RangeItem> IntoParallelIterator for Range<T> {
    type Iter = RangeIter<T>;
    type Item = T;

    fn into_par_iter(self) -> RangeIter<T> {
        T::half_open(self)
    }
}

impl<T: RangeItem> IntoParallelIterator for RangeInclusive<T> {
    type Iter = RangeIter<T>;
    type Item = T;

    fn into_par_iter(self) -> RangeIter<T> {
        T::inclusive(self)
    }
}

impl<T: RangeItem> ParallelIterator for RangeIter<T> {
    type Item = T;

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        T::drive_range(self, consumer)
    }

    fn opt_len(&self) -> Option<usize> {
        T::range_opt_len(self)
    }
}

impl<T: IndexedRangeItem> IndexedParallelIterator for RangeIter<T> {
    fn len(&self) -> usize {
        T::range_len(self)
    }

    fn with_producer<CB: ProducerCallback<T>>(self, callback: CB) -> CB::Output {
        T::range_with_producer(self, callback)
    }
}

/// The number of items of `range` and `last`, if `usize` can count them.
macro_rules! count {
    ($range:expr, $last:expr) => {{
        let Range { start, end } = $range;
        let head = if end > start {
            end.abs_diff(start) as u128
        } else {
            0
        };
        let count = head.checked_add(u128::from($last.is_some()));
        count.and_then(|count| usize::try_from(count).ok())
    }};
}

/// What a range whose length `usize` cannot count says when asked for its length.
const TOO_LONG: &str = "the parallel range holds more than usize::MAX items, so it has no length";

macro_rules! range_impls {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}

        impl RangeItem for $t {
            fn half_open(range: Range<$t>) -> RangeIter<$t> {
                RangeIter { range, last: None }
            }

            fn inclusive(range: RangeInclusive<$t>) -> RangeIter<$t> {
                let (start, end) = range.clone().into_inner();
                if range.is_empty() {
                    RangeIter { range: start..start, last: None }
                } else if end == <$t>::MAX {
                    RangeIter { range: start..end, last: Some(end) }
                } else {
                    RangeIter { range: start..end + 1, last: None }
                }
            }

            fn drive_range<C: Consumer<$t>>(iter: RangeIter<$t>, consumer: C) -> C::Result {
                if Self::range_opt_len(&iter).is_some() {
                    iter.with_producer(DriveCallback { consumer })
                } else {
                    bridge_divisible(RangeProducer { range: iter.range, last: iter.last }, &consumer)
                }
            }

            fn range_opt_len(iter: &RangeIter<$t>) -> Option<usize> {
                count!(iter.range.clone(), iter.last)
            }
        }

        impl IndexedRangeItem for $t {
            fn range_len(iter: &RangeIter<$t>) -> usize {
                Self::range_opt_len(iter).expect(TOO_LONG)
            }

            fn range_with_producer<CB: ProducerCallback<$t>>(
                iter: RangeIter<$t>,
                callback: CB,
            ) -> CB::Output {
                // Panics, saying why, for a range too long to index, before any producer.
                Self::range_len(&iter);
                callback.callback(RangeProducer { range: iter.range, last: iter.last })
            }
        }

        impl Producer for RangeProducer<$t> {
            type Item = $t;
            type IntoIter = RangeSeq<$t>;

            fn len(&self) -> usize {
                count!(self.range.clone(), self.last).expect(TOO_LONG)
            }

            fn split_at(self, index: usize) -> (Self, Self) {
                let head = count!(self.range.clone(), None::<$t>).expect(TOO_LONG);
                if index > head {
                    // Only `last` lies beyond `range`; index == len.
                    let end = RangeProducer { range: self.range.end..self.range.end, last: None };
                    return (self, end);
                }
                // `start + index` lies within the range, so it is a `$t`, although `index`
                // itself may not be (-100i8..100 split at 150).
                let mid = (self.range.start as i128 + index as i128) as $t;
                (
                    RangeProducer { range: self.range.start..mid, last: None },
                    RangeProducer { range: mid..self.range.end, last: self.last },
                )
            }

            fn into_iter(self) -> RangeSeq<$t> {
                RangeSeq { range: self.range, last: self.last }
            }
        }

        impl ExactSizeIterator for RangeSeq<$t> {}
    )*};
}

range_impls!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// The sequential iterator of a piece of a range: `range`, then `last`.
pub(crate) struct RangeSeq<T> {
    range: Range<T>,
    last: Option<T>,
}

impl<T> Iterator for RangeSeq<T>
where
    Range<T>: Iterator<Item = T>,
{
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        match self.range.next() {
            None => self.last.take(),
            item => item,
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let (low, high) = self.range.size_hint();
        let last = usize::from(self.last.is_some());
        (
            low.saturating_add(last),
            high.and_then(|h| h.checked_add(last)),
        )
    }

    #[inline]
    fn fold<B, F: FnMut(B, T) -> B>(self, init: B, mut f: F) -> B {
        let acc = self.range.fold(init, &mut f);
        match self.last {
            Some(last) => f(acc, last),
            None => acc,
        }
    }
}

impl<T> DoubleEndedIterator for RangeSeq<T>
where
    Range<T>: DoubleEndedIterator<Item = T>,
{
    #[inline]
    fn next_back(&mut self) -> Option<T> {
        match self.last.take() {
            None => self.range.next_back(),
            last => last,
        }
    }

    #[inline]
    fn rfold<B, F: FnMut(B, T) -> B>(self, init: B, mut f: F) -> B {
        let acc = match self.last {
            Some(last) => f(init, last),
            None => init,
        };
        self.range.rfold(acc, f)
    }
}

/// 128-bit ranges may hold more than `usize::MAX` items, so, as in rayon, they are unindexed:
/// the range is halved while the split budget lasts (see `divide.rs`).
macro_rules! wide_range_impls {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}

        impl RangeItem for $t {
            fn half_open(range: Range<$t>) -> RangeIter<$t> {
                RangeIter { range, last: None }
            }

            fn inclusive(range: RangeInclusive<$t>) -> RangeIter<$t> {
                let (start, end) = range.clone().into_inner();
                if range.is_empty() {
                    RangeIter { range: start..start, last: None }
                } else {
                    RangeIter { range: start..end, last: Some(end) }
                }
            }

            fn drive_range<C: Consumer<$t>>(iter: RangeIter<$t>, consumer: C) -> C::Result {
                bridge_divisible(RangeProducer { range: iter.range, last: iter.last }, &consumer)
            }

            fn range_opt_len(iter: &RangeIter<$t>) -> Option<usize> {
                count!(iter.range.clone(), iter.last)
            }
        }
    )*};
}

wide_range_impls!(u128, i128);

/// Halving, for the 128-bit ranges and for the few others too long for `usize` to count.
macro_rules! divisible_range_impls {
    ($($t:ty),*) => {$(
        impl Divisible for RangeProducer<$t> {
            type Item = $t;

            fn divide(self) -> (Self, Option<Self>) {
                let Range { start, end } = self.range;
                if end <= start || end.abs_diff(start) < 2 {
                    return (self, None);
                }
                let mid = start + (end.abs_diff(start) / 2) as $t;
                (
                    RangeProducer { range: start..mid, last: None },
                    Some(RangeProducer { range: mid..end, last: self.last }),
                )
            }

            fn fold_with<C: Consumer<$t>>(self, consumer: &C) -> C::Result {
                consumer.consume(self.range.chain(self.last))
            }

            fn fold_until<C: Consumer<$t>>(
                self,
                consumer: &C,
                stop: &mut Stopper,
            ) -> (C::Result, Option<Self>) {
                let RangeProducer { mut range, mut last } = self;
                let mut stopped = false;
                let result = consumer.consume(std::iter::from_fn(|| {
                    if stopped || stop.tick() {
                        stopped = true;
                        return None;
                    }
                    range.next().or_else(|| last.take())
                }));
                let left = !range.is_empty() || last.is_some();
                (result, (stopped && left).then_some(RangeProducer { range, last }))
            }
        }
    )*};
}

divisible_range_impls!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, u128, i128);

/// A char's position among the chars: its code point, less the surrogate gap for those above it.
fn char_position(c: char) -> u32 {
    let c = c as u32;
    if c >= 0xE000 {
        c - 0x800
    } else {
        c
    }
}

/// The char at a position (the inverse of [`char_position`]).
fn char_at(position: u32) -> char {
    let code = if position >= 0xD800 {
        position + 0x800
    } else {
        position
    };
    char::from_u32(code).expect("a char range holds only chars")
}

impl sealed::Sealed for char {}

impl RangeItem for char {
    fn half_open(range: Range<char>) -> RangeIter<char> {
        RangeIter { range, last: None }
    }

    /// `'a'..='z'` keeps its last char apart, as `char::MAX` has no successor.
    fn inclusive(range: RangeInclusive<char>) -> RangeIter<char> {
        let (start, end) = range.clone().into_inner();
        if range.is_empty() {
            RangeIter {
                range: start..start,
                last: None,
            }
        } else {
            RangeIter {
                range: start..end,
                last: Some(end),
            }
        }
    }

    fn drive_range<C: Consumer<char>>(iter: RangeIter<char>, consumer: C) -> C::Result {
        iter.with_producer(DriveCallback { consumer })
    }

    fn range_opt_len(iter: &RangeIter<char>) -> Option<usize> {
        Some(iter.char_positions().len())
    }
}

impl RangeIter<char> {
    /// The positions (see [`char_position`]) of the chars, `last` included.
    fn char_positions(&self) -> Range<u32> {
        let start = char_position(self.range.start);
        let end = match self.last {
            Some(last) => char_position(last) + 1,
            None => char_position(self.range.end),
        };
        start..end.max(start)
    }
}

impl IndexedRangeItem for char {
    fn range_len(iter: &RangeIter<char>) -> usize {
        iter.char_positions().len()
    }

    fn range_with_producer<CB: ProducerCallback<char>>(
        iter: RangeIter<char>,
        callback: CB,
    ) -> CB::Output {
        callback.callback(CharProducer(RangeProducer {
            range: iter.char_positions(),
            last: None,
        }))
    }
}

/// A piece of a char range: the positions of its chars.
struct CharProducer(RangeProducer<u32>);

impl Producer for CharProducer {
    type Item = char;
    type IntoIter = std::iter::Map<<RangeProducer<u32> as Producer>::IntoIter, fn(u32) -> char>;

    fn len(&self) -> usize {
        self.0.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.0.split_at(index);
        (CharProducer(l), CharProducer(r))
    }

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter().map(char_at as fn(u32) -> char)
    }
}

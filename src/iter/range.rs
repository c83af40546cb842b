//! Integer and char ranges (`a..b`, `a..=b`) as parallel iterators: indexed, except the 128-bit
//! ones (as in rayon).

use crate::iter::divide::{bridge_divisible, Divisible, Stopper};
use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, IntoParallelIterator, ParallelIterator};
use std::ops::{Range, RangeInclusive};

/// A parallel iterator over an integer range, from `(a..b).into_par_iter()` or
/// `(a..=b).into_par_iter()`.
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
///
/// One generic `IntoParallelIterator` impl for `Range<T>` and `RangeInclusive<T>` over this
/// trait (rather than one impl per type) lets an unsuffixed literal range such as
/// `(0..100).into_par_iter()` fall back to `i32`, as with rayon.
pub trait RangeItem: sealed::Sealed + Sized + Send {
    /// `range` as a parallel iterator.
    #[doc(hidden)]
    fn half_open(range: Range<Self>) -> RangeIter<Self>;
    /// `range` as a parallel iterator.
    #[doc(hidden)]
    fn inclusive(range: RangeInclusive<Self>) -> RangeIter<Self>;
}

impl<T: RangeItem> IntoParallelIterator for Range<T>
where
    RangeIter<T>: ParallelIterator<Item = T>,
{
    type Iter = RangeIter<T>;
    type Item = T;

    fn into_par_iter(self) -> RangeIter<T> {
        T::half_open(self)
    }
}

impl<T: RangeItem> IntoParallelIterator for RangeInclusive<T>
where
    RangeIter<T>: ParallelIterator<Item = T>,
{
    type Iter = RangeIter<T>;
    type Item = T;

    fn into_par_iter(self) -> RangeIter<T> {
        T::inclusive(self)
    }
}

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
        }

        impl ParallelIterator for RangeIter<$t> {
            type Item = $t;

            fn drive<C: Consumer<$t>>(self, consumer: C) -> C::Result {
                self.with_producer(DriveCallback { consumer })
            }
        }

        impl IndexedParallelIterator for RangeIter<$t> {
            fn len(&self) -> usize {
                range_len(self.range.start as i128, self.range.end as i128)
                    + usize::from(self.last.is_some())
            }

            fn with_producer<CB: ProducerCallback<$t>>(self, callback: CB) -> CB::Output {
                callback.callback(RangeProducer { range: self.range, last: self.last })
            }
        }

        impl Producer for RangeProducer<$t> {
            type Item = $t;
            type IntoIter = std::iter::Chain<Range<$t>, std::option::IntoIter<$t>>;

            fn len(&self) -> usize {
                range_len(self.range.start as i128, self.range.end as i128)
                    + usize::from(self.last.is_some())
            }

            fn split_at(self, index: usize) -> (Self, Self) {
                let head = range_len(self.range.start as i128, self.range.end as i128);
                if index > head {
                    // Only `last` lies beyond `range`; index == len.
                    let end = RangeProducer { range: self.range.end..self.range.end, last: None };
                    return (self, end);
                }
                let mid = (self.range.start as i128 + index as i128) as $t;
                (
                    RangeProducer { range: self.range.start..mid, last: None },
                    RangeProducer { range: mid..self.range.end, last: self.last },
                )
            }

            fn into_iter(self) -> Self::IntoIter {
                self.range.chain(self.last)
            }
        }
    )*};
}

range_impls!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

fn range_len(start: i128, end: i128) -> usize {
    if end <= start {
        return 0;
    }
    usize::try_from(end - start).expect("a parallel range has at most usize::MAX items")
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
        }

        impl ParallelIterator for RangeIter<$t> {
            type Item = $t;

            fn drive<C: Consumer<$t>>(self, consumer: C) -> C::Result {
                bridge_divisible(RangeProducer { range: self.range, last: self.last }, &consumer)
            }
        }

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

wide_range_impls!(u128, i128);

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

impl ParallelIterator for RangeIter<char> {
    type Item = char;

    fn drive<C: Consumer<char>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl IndexedParallelIterator for RangeIter<char> {
    fn len(&self) -> usize {
        self.char_positions().len()
    }

    fn with_producer<CB: ProducerCallback<char>>(self, callback: CB) -> CB::Output {
        callback.callback(CharProducer(RangeProducer {
            range: self.char_positions(),
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

//! Integer ranges (`a..b`, `a..=b`) as indexed parallel iterators.

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

macro_rules! range_impls {
    ($($t:ty),*) => {$(
        impl IntoParallelIterator for Range<$t> {
            type Iter = RangeIter<$t>;
            type Item = $t;

            fn into_par_iter(self) -> RangeIter<$t> {
                RangeIter { range: self, last: None }
            }
        }

        impl IntoParallelIterator for RangeInclusive<$t> {
            type Iter = RangeIter<$t>;
            type Item = $t;

            fn into_par_iter(self) -> RangeIter<$t> {
                let (start, end) = self.clone().into_inner();
                if self.is_empty() {
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

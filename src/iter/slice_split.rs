//! The slice methods that cut at separators or between runs: `par_split`,
//! `par_split_inclusive`, `par_chunk_by` and their `_mut` forms.
//!
//! They are unindexed: their slice is halved at a boundary between two pieces found near its
//! middle (see `Rule::cut`), so that no piece straddles two halves, and each half is then cut by
//! std's sequential method. The halves' results are combined in order, so the items are std's,
//! in std's order.

use crate::iter::divide::{bridge_divisible, Divisible};
use crate::iter::plumbing::Consumer;
use crate::iter::ParallelIterator;
use std::fmt;

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

//! `interleave` and `interleave_shortest`: the items of two indexed iterators in turn.
//!
//! The two producers stay separate; a piece of the interleaving is a piece of each plus which
//! side comes first. Cutting the interleaving after `k` items takes from the first side the
//! number of its items among those `k`: alternate while both sides last, then the rest of the
//! longer one.

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, ParallelIterator, Schedule, Take};

/// The iterator of [`IndexedParallelIterator::interleave`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Interleave<I, J> {
    i: I,
    j: J,
}

impl<I, J> Interleave<I, J> {
    pub(crate) fn new(i: I, j: J) -> Self {
        Interleave { i, j }
    }
}

impl<I, J> ParallelIterator for Interleave<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    type Item = I::Item;

    fn opt_len(&self) -> Option<usize> {
        self.i.len().checked_add(self.j.len())
    }

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        self.with_producer(DriveCallback { consumer })
    }
}

impl<I, J> IndexedParallelIterator for Interleave<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    fn len(&self) -> usize {
        self.opt_len()
            .expect("interleave: the two sides hold more than usize::MAX items together")
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        // Panics, saying why, before any producer whose length would wrap.
        self.len();
        self.i.with_producer(CallbackI {
            callback,
            j: self.j,
        })
    }
}

struct CallbackI<CB, J> {
    callback: CB,
    j: J,
}

impl<T, CB, J> ProducerCallback<T> for CallbackI<CB, J>
where
    J: IndexedParallelIterator<Item = T>,
    CB: ProducerCallback<T>,
{
    type Output = CB::Output;

    fn callback<PI: Producer<Item = T>>(self, i: PI) -> CB::Output {
        self.j.with_producer(CallbackJ {
            callback: self.callback,
            i,
        })
    }
}

struct CallbackJ<CB, PI> {
    callback: CB,
    i: PI,
}

impl<T, CB, PI> ProducerCallback<T> for CallbackJ<CB, PI>
where
    PI: Producer<Item = T>,
    CB: ProducerCallback<T>,
{
    type Output = CB::Output;

    fn callback<PJ: Producer<Item = T>>(self, j: PJ) -> CB::Output {
        self.callback.callback(InterleaveProducer {
            i: self.i,
            j,
            i_first: true,
        })
    }
}

/// How many of the first `k` items of an interleaving of `li` and `lj` items come from the first
/// side, `i_first` saying which side leads.
fn from_i(k: usize, li: usize, lj: usize, i_first: bool) -> usize {
    // While both sides last, the leading side has `ceil(k / 2)` of the first `k` items.
    let (lead, trail) = (k.div_ceil(2), k / 2);
    let (lead_len, trail_len) = if i_first { (li, lj) } else { (lj, li) };
    let lead_taken = if lead <= lead_len && trail <= trail_len {
        lead
    } else if lead > lead_len {
        lead_len
    } else {
        k - trail_len
    };
    if i_first {
        lead_taken
    } else {
        k - lead_taken
    }
}

struct InterleaveProducer<PI, PJ> {
    i: PI,
    j: PJ,
    /// Whether the piece's first item comes from `i` (when both sides have items).
    i_first: bool,
}

impl<T, PI, PJ> Producer for InterleaveProducer<PI, PJ>
where
    PI: Producer<Item = T>,
    PJ: Producer<Item = T>,
{
    type Item = T;
    type IntoIter = InterleaveIter<PI::IntoIter, PJ::IntoIter>;

    fn len(&self) -> usize {
        self.i.len() + self.j.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (li, lj) = (self.i.len(), self.j.len());
        let ni = from_i(index, li, lj, self.i_first);
        let (il, ir) = self.i.split_at(ni);
        let (jl, jr) = self.j.split_at(index - ni);
        // After an odd number of alternating items the other side leads.
        let right_first = if index.is_multiple_of(2) {
            self.i_first
        } else {
            !self.i_first
        };
        (
            InterleaveProducer {
                i: il,
                j: jl,
                i_first: self.i_first,
            },
            InterleaveProducer {
                i: ir,
                j: jr,
                i_first: right_first,
            },
        )
    }

    fn into_iter(self) -> Self::IntoIter {
        InterleaveIter {
            li: self.i.len(),
            lj: self.j.len(),
            i: self.i.into_iter(),
            j: self.j.into_iter(),
            i_next: self.i_first,
        }
    }

    fn min_len(&self) -> usize {
        self.i.min_len().max(self.j.min_len())
    }

    fn max_len(&self) -> usize {
        self.i.max_len().min(self.j.max_len())
    }

    fn schedule(&self) -> Option<Schedule> {
        self.i.schedule().or(self.j.schedule())
    }
}

/// A piece of an interleaving, run in order; it counts what is left on each side to know, from
/// the back, which side the last item comes from.
struct InterleaveIter<I, J> {
    i: I,
    j: J,
    li: usize,
    lj: usize,
    /// Whether the next item from the front comes from `i` (when both sides have items).
    i_next: bool,
}

impl<T, I, J> Iterator for InterleaveIter<I, J>
where
    I: DoubleEndedIterator<Item = T>,
    J: DoubleEndedIterator<Item = T>,
{
    type Item = T;

    fn next(&mut self) -> Option<T> {
        let take_i = if self.li == 0 {
            false
        } else {
            self.lj == 0 || self.i_next
        };
        if take_i {
            self.li -= 1;
            self.i_next = false;
            self.i.next()
        } else if self.lj > 0 {
            self.lj -= 1;
            self.i_next = true;
            self.j.next()
        } else {
            None
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.li + self.lj;
        (n, Some(n))
    }
}

impl<T, I, J> DoubleEndedIterator for InterleaveIter<I, J>
where
    I: DoubleEndedIterator<Item = T>,
    J: DoubleEndedIterator<Item = T>,
{
    fn next_back(&mut self) -> Option<T> {
        let n = self.li + self.lj;
        if n == 0 {
            return None;
        }
        // The last item is from `i` if `i` has more items among all `n` than among the first
        // `n - 1`.
        let last_is_i =
            from_i(n, self.li, self.lj, self.i_next) > from_i(n - 1, self.li, self.lj, self.i_next);
        if last_is_i {
            self.li -= 1;
            self.i.next_back()
        } else {
            self.lj -= 1;
            self.j.next_back()
        }
    }
}

impl<T, I, J> ExactSizeIterator for InterleaveIter<I, J>
where
    I: DoubleEndedIterator<Item = T>,
    J: DoubleEndedIterator<Item = T>,
{
}

/// The iterator of [`IndexedParallelIterator::interleave_shortest`]: an interleaving that stops
/// when the side whose turn it is has run out.
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct InterleaveShortest<I, J> {
    inner: Interleave<Take<I>, Take<J>>,
}

impl<I, J> InterleaveShortest<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    pub(crate) fn new(i: I, j: J) -> Self {
        let (li, lj) = (i.len(), j.len());
        // `i` leads, so it may have one item more than `j`.
        let (ti, tj) = (li.min(lj.saturating_add(1)), lj.min(li));
        InterleaveShortest {
            inner: Interleave::new(i.take(ti), j.take(tj)),
        }
    }
}

impl<I, J> ParallelIterator for InterleaveShortest<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    type Item = I::Item;

    fn opt_len(&self) -> Option<usize> {
        self.inner.opt_len()
    }

    fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
        self.inner.drive(consumer)
    }
}

impl<I, J> IndexedParallelIterator for InterleaveShortest<I, J>
where
    I: IndexedParallelIterator,
    J: IndexedParallelIterator<Item = I::Item>,
{
    fn len(&self) -> usize {
        self.inner.len()
    }

    fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
        self.inner.with_producer(callback)
    }
}

//! `with_min_len`, `with_max_len` and `with_schedule`: adapters that only change how the loop is cut.

use crate::iter::plumbing::{Consumer, Producer, ProducerCallback};
use crate::iter::{DriveCallback, IndexedParallelIterator, ParallelIterator, Schedule};

/// The iterator of [`IndexedParallelIterator::with_min_len`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct MinLen<I> {
    base: I,
    min: usize,
}

impl<I> MinLen<I> {
    pub(crate) fn new(base: I, min: usize) -> Self {
        MinLen { base, min }
    }
}

/// The iterator of [`IndexedParallelIterator::with_max_len`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct MaxLen<I> {
    base: I,
    max: usize,
}

impl<I> MaxLen<I> {
    pub(crate) fn new(base: I, max: usize) -> Self {
        MaxLen { base, max }
    }
}

/// The iterator of [`IndexedParallelIterator::with_schedule`].
#[derive(Clone, Debug)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct WithSchedule<I> {
    base: I,
    schedule: Schedule,
}

impl<I> WithSchedule<I> {
    pub(crate) fn new(base: I, schedule: Schedule) -> Self {
        WithSchedule { base, schedule }
    }
}

/// How a tuning adapter changes its producer's hints.
#[derive(Clone, Copy)]
enum Hint {
    MinLen(usize),
    MaxLen(usize),
    Schedule(Schedule),
}

macro_rules! tuning_iter {
    ($name:ident, $hint:expr) => {
        impl<I: IndexedParallelIterator> ParallelIterator for $name<I> {
            type Item = I::Item;

            opt_len_indexed!();

            fn drive<C: Consumer<I::Item>>(self, consumer: C) -> C::Result {
                self.with_producer(DriveCallback { consumer })
            }
        }

        impl<I: IndexedParallelIterator> IndexedParallelIterator for $name<I> {
            fn len(&self) -> usize {
                self.base.len()
            }

            fn with_producer<CB: ProducerCallback<I::Item>>(self, callback: CB) -> CB::Output {
                #[allow(clippy::redundant_closure_call)]
                let hint = ($hint)(&self);
                self.base.with_producer(HintCallback { callback, hint })
            }
        }
    };
}

tuning_iter!(MinLen, |s: &MinLen<I>| Hint::MinLen(s.min));
tuning_iter!(MaxLen, |s: &MaxLen<I>| Hint::MaxLen(s.max));
tuning_iter!(WithSchedule, |s: &WithSchedule<I>| Hint::Schedule(
    s.schedule
));

struct HintCallback<CB> {
    callback: CB,
    hint: Hint,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for HintCallback<CB> {
    type Output = CB::Output;

    fn callback<P: Producer<Item = T>>(self, base: P) -> CB::Output {
        self.callback.callback(HintProducer {
            base,
            hint: self.hint,
        })
    }
}

struct HintProducer<P> {
    base: P,
    hint: Hint,
}

impl<P: Producer> Producer for HintProducer<P> {
    type Item = P::Item;
    type IntoIter = P::IntoIter;

    fn len(&self) -> usize {
        self.base.len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (l, r) = self.base.split_at(index);
        let hint = self.hint;
        (
            HintProducer { base: l, hint },
            HintProducer { base: r, hint },
        )
    }

    fn into_iter(self) -> P::IntoIter {
        self.base.into_iter()
    }

    fn min_len(&self) -> usize {
        match self.hint {
            Hint::MinLen(min) => min.max(self.base.min_len()),
            _ => self.base.min_len(),
        }
    }

    fn max_len(&self) -> usize {
        match self.hint {
            Hint::MaxLen(max) => max.max(1).min(self.base.max_len()),
            _ => self.base.max_len(),
        }
    }

    fn schedule(&self) -> Option<Schedule> {
        match self.hint {
            // The outermost `with_schedule` wins.
            Hint::Schedule(s) => Some(s),
            _ => self.base.schedule(),
        }
    }
}

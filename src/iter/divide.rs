//! The driver of unindexed sources (strings, 128-bit ranges): pieces that can halve themselves
//! roughly, but whose item count is not known in advance.
//!
//! A source hands the driver one [`Divisible`] piece. The driver halves it recursively with
//! [`crate::join`] under the same split budget as the adaptive schedule of indexed loops (about
//! two pieces per worker, refilled when a half is stolen), folds each leaf with the consumer and
//! combines the partial results left before right, so the items keep their order.

use crate::iter::plumbing::sealed::{Place, Token};
use crate::iter::plumbing::Consumer;
use crate::iter::schedule::initial_splits;
use crate::registry::in_worker;

/// A piece of an unindexed source.
pub(crate) trait Divisible: Send + Sized {
    /// The items.
    type Item;

    /// Cuts the piece in two roughly equal halves, in order, or gives it back whole (and
    /// `None`) when it is too small to cut.
    fn divide(self) -> (Self, Option<Self>);

    /// Folds the piece's items, in order, with `consumer`.
    fn fold_with<C: Consumer<Self::Item>>(self, consumer: &C) -> C::Result;
}

/// Runs the pieces of `piece` through `consumer` in the current pool.
pub(crate) fn bridge_divisible<D, C>(piece: D, consumer: &C) -> C::Result
where
    D: Divisible,
    C: Consumer<D::Item>,
{
    in_worker(|worker, _| {
        let refill = initial_splits(worker.registry.num_threads());
        let ctx = Halving { consumer, refill };
        ctx.run(piece, Place::WHOLE, refill, worker.index)
    })
}

struct Halving<'c, C> {
    consumer: &'c C,
    refill: u32,
}

impl<C> Halving<'_, C> {
    /// Runs `piece`, which occupies `place` of the loop (each halving halves the place, so
    /// the pieces' places are in order even though their positions are unknown).
    fn run<D>(&self, piece: D, place: Place, splits: u32, owner: usize) -> C::Result
    where
        D: Divisible,
        C: Consumer<D::Item>,
    {
        // A leaf that panics does not stop the others (as in rayon; `panic_fuse` does).
        if self.consumer.full_placed(place, Token(())) {
            return self.consumer.identity();
        }
        if splits == 0 {
            return self.leaf(piece, place);
        }
        match piece.divide() {
            (whole, None) => self.leaf(whole, place),
            (left, Some(right)) => {
                let (left_place, right_place) = place.halves();
                let (a, b) = crate::join(
                    || self.run(left, left_place, splits - 1, owner),
                    || {
                        let runner = crate::current_thread_index().unwrap_or(owner);
                        // Stolen: a worker was idle, so this half may split like a fresh one.
                        let splits = if runner != owner {
                            self.refill
                        } else {
                            splits - 1
                        };
                        self.run(right, right_place, splits, runner)
                    },
                );
                self.consumer.reduce(a, b)
            }
        }
    }

    fn leaf<D>(&self, piece: D, place: Place) -> C::Result
    where
        D: Divisible,
        C: Consumer<D::Item>,
    {
        piece.fold_with(&Placed {
            inner: self.consumer,
            place,
        })
    }
}

/// The consumer a leaf folds with: its items are folded as occupying the leaf's place.
struct Placed<'c, C> {
    inner: &'c C,
    place: Place,
}

impl<T, C: Consumer<T>> Consumer<T> for Placed<'_, C> {
    type Result = C::Result;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> C::Result {
        let iter = Polled {
            iter,
            left: POLL_EVERY,
        };
        self.inner.consume_placed(None, self.place, iter, Token(()))
    }

    fn reduce(&self, left: C::Result, right: C::Result) -> C::Result {
        self.inner.reduce(left, right)
    }

    fn identity(&self) -> C::Result {
        self.inner.identity()
    }

    fn full(&self) -> bool {
        self.inner.full_placed(self.place, Token(()))
    }
}

/// Items between two poll points of a leaf.
const POLL_EVERY: u32 = 1024;

/// A leaf's items, with a poll point every [`POLL_EVERY`] of them.
///
/// An unindexed leaf can be long (its size is only halved while the split budget lasts), and
/// the halves its worker split off before it are private until the worker reaches a poll point
/// (`src/worker/README.md`). Without one inside the leaf, an idle worker could not get them
/// until the leaf ends: a `find_last` over a huge range then scans a quarter of it alone
/// instead of handing the later halves over, where the match is found at once.
struct Polled<I> {
    iter: I,
    left: u32,
}

impl<I: Iterator> Iterator for Polled<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        self.left -= 1;
        if self.left == 0 {
            self.left = POLL_EVERY;
            crate::iter::driver::poll_point();
        }
        self.iter.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.iter.size_hint()
    }
}

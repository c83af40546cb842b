//! The driver of unindexed sources (strings, 128-bit ranges): pieces that can halve themselves
//! roughly, but whose item count is not known in advance.
//!
//! A source hands the driver one [`Divisible`] piece. The driver halves it recursively with
//! [`crate::join`] under the same split budget as the adaptive schedule of indexed loops (about
//! two pieces per worker, refilled when a half is stolen), folds each leaf with the consumer and
//! combines the partial results left before right, so the items keep their order.

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
        ctx.run(piece, refill, worker.index)
    })
}

struct Halving<'c, C> {
    consumer: &'c C,
    refill: u32,
}

impl<C> Halving<'_, C> {
    fn run<D>(&self, piece: D, splits: u32, owner: usize) -> C::Result
    where
        D: Divisible,
        C: Consumer<D::Item>,
    {
        // A leaf that panics does not stop the others (as in rayon; `panic_fuse` does).
        if self.consumer.full() {
            return self.consumer.identity();
        }
        if splits == 0 {
            return self.leaf(piece);
        }
        match piece.divide() {
            (whole, None) => self.leaf(whole),
            (left, Some(right)) => {
                let (a, b) = crate::join(
                    || self.run(left, splits - 1, owner),
                    || {
                        let runner = crate::current_thread_index().unwrap_or(owner);
                        // Stolen: a worker was idle, so this half may split like a fresh one.
                        let splits = if runner != owner {
                            self.refill
                        } else {
                            splits - 1
                        };
                        self.run(right, splits, runner)
                    },
                );
                self.consumer.reduce(a, b)
            }
        }
    }

    fn leaf<D>(&self, piece: D) -> C::Result
    where
        D: Divisible,
        C: Consumer<D::Item>,
    {
        piece.fold_with(self.consumer)
    }
}

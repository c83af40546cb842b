//! The driver of unindexed sources (strings, 128-bit ranges): pieces that can halve themselves
//! roughly, but whose item count is not known in advance.
//!
//! A source hands the driver one [`Divisible`] piece. The driver halves it recursively with
//! [`crate::join`] under the same split budget as the adaptive schedule of indexed loops (about
//! eight pieces per worker, refilled when a half is stolen), folds each leaf with the consumer and
//! combines the partial results left before right, so the items keep their order.
//!
//! A leaf is not always short: the budget bounds how often a piece is halved, not how many
//! items it holds (a 128-bit range can hold 10^27). A piece that can stop midway
//! ([`Divisible::fold_until`]) is therefore split *while it runs*: at each of its poll points
//! the leaf asks whether some worker of the pool is idle while this one has nothing queued to
//! give it, and if so it stops, halves what is left, and offers the later half through a `join`
//! (with a fresh budget if another worker takes it, as a stolen half gets; under a
//! sender-initiated policy none, as placed halves get none). Each such split halves the rest of
//! the leaf, so an idle worker gets a share of any long leaf within one poll period, and a leaf
//! is split at most about `log2(items)` times. This is what lets `find_last` over a 10^27-item range
//! end under every policy: the pieces late in the range reach a worker while earlier leaves
//! still run, their matches stop the earlier leaves, and the search moves right by half of
//! what is left at each hand-over.

use crate::iter::plumbing::sealed::{Place, Token};
use crate::iter::plumbing::Consumer;
use crate::iter::schedule::initial_splits;
use crate::worker::in_worker;

/// A piece of an unindexed source.
pub(crate) trait Divisible: Send + Sized {
    /// The items.
    type Item;

    /// Cuts the piece in two roughly equal halves, in order, or gives it back whole (and
    /// `None`) when it is too small to cut.
    fn divide(self) -> (Self, Option<Self>);

    /// Folds the piece's items, in order, with `consumer`.
    fn fold_with<C: Consumer<Self::Item>>(self, consumer: &C) -> C::Result;

    /// Folds the piece's items, in order, with `consumer`, calling `stop.tick()` before each
    /// item; when it says stop, gives back the items not yet folded as a piece of their own.
    ///
    /// A piece that cannot stop midway folds whole (the default, with the driver's own poll
    /// points) and gives back nothing.
    fn fold_until<C: Consumer<Self::Item>>(
        self,
        consumer: &C,
        stop: &mut Stopper,
    ) -> (C::Result, Option<Self>) {
        let _ = stop;
        (self.fold_with(&Polled(consumer)), None)
    }
}

/// Runs the pieces of `piece` through `consumer` in the current pool.
pub(crate) fn bridge_divisible<D, C>(piece: D, consumer: &C) -> C::Result
where
    D: Divisible,
    C: Consumer<D::Item>,
{
    // On a pool of one, called from outside every pool: the pieces would all run on the one
    // worker, so the caller runs them itself, one after the other (as `driver::bridge` does).
    if crate::worker::WorkerThread::current().is_null() && crate::current_num_threads() == 1 {
        let refill = initial_splits(1);
        let ctx = Halving {
            consumer,
            refill,
            placing: false,
            alone: true,
        };
        return ctx.run(piece, Place::WHOLE, refill, 0);
    }
    in_worker(|worker, _| {
        let refill = initial_splits(worker.registry.num_threads());
        let ctx = Halving {
            consumer,
            refill,
            placing: worker.placing(),
            alone: false,
        };
        ctx.run(piece, Place::WHOLE, refill, worker.index)
    })
}

struct Halving<'c, C> {
    consumer: &'c C,
    refill: u32,
    /// The pool's policy is sender-initiated: a half that runs elsewhere was placed there by a
    /// decision, which does not show that anyone was idle.
    placing: bool,
    /// The halves run one after the other on this thread (a caller outside a pool of one,
    /// which nobody can help), not through the pool's `join`.
    alone: bool,
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
                let left_half = || self.run(left, left_place, splits - 1, owner);
                let right_half = || {
                    let runner = crate::current_thread_index().unwrap_or(owner);
                    let splits = self.budget(runner, owner, splits - 1);
                    self.run(right, right_place, splits, runner)
                };
                let (a, b) = if self.alone {
                    crate::join::join_in_place(left_half, |_| right_half())
                } else {
                    crate::join::join_erased(left_half, right_half)
                };
                self.consumer.reduce(a, b)
            }
        }
    }

    /// The split budget of a half made on worker `owner` and run on `runner`: a fresh one
    /// ([`Halving::refill`]) if a thief took it, since a worker was idle; otherwise `kept`. A
    /// half that a sender-initiated decision placed elsewhere keeps `kept` too: a placement
    /// shows nobody idle, and refilling there would feed the workers ever smaller pieces of the
    /// middle of a huge range while the pieces that hold a search's answer wait.
    fn budget(&self, runner: usize, owner: usize, kept: u32) -> u32 {
        if runner != owner && !self.placing {
            self.refill
        } else {
            kept
        }
    }

    /// Folds `piece`, splitting what is left of it whenever a worker is idle (module docs).
    fn leaf<D>(&self, piece: D, place: Place) -> C::Result
    where
        D: Divisible,
        C: Consumer<D::Item>,
    {
        let placed = Placed {
            inner: self.consumer,
            place,
        };
        let (done, rest) = piece.fold_until(&placed, &mut Stopper::new());
        let Some(rest) = rest else { return done };
        if self.consumer.full_placed(place, Token(())) {
            return done;
        }
        // The items folded so far lie before `rest`'s, and their results were (for a search)
        // published at `place.lo`, the start of the left half: the order holds.
        let (left_place, right_place) = place.halves();
        let rest = match rest.divide() {
            (left, Some(right)) => {
                let owner = crate::current_thread_index().unwrap_or(0);
                let (a, b) = crate::join::join_erased(
                    || self.leaf(left, left_place),
                    || {
                        // Left to this worker, it is a leaf again, which splits when asked.
                        let runner = crate::current_thread_index().unwrap_or(owner);
                        let splits = self.budget(runner, owner, 0);
                        self.run(right, right_place, splits, runner)
                    },
                );
                self.consumer.reduce(a, b)
            }
            // Too small to cut: the rest is folded here, without stopping again.
            (whole, None) => whole.fold_with(&Polled(&placed)),
        };
        self.consumer.reduce(done, rest)
    }
}

/// The stop signal a leaf that can stop midway ticks before each item (see the module docs).
pub(crate) struct Stopper {
    left: u32,
}

impl Stopper {
    fn new() -> Self {
        Stopper { left: POLL_EVERY }
    }

    /// Counts one item; every [`POLL_EVERY`] items, runs a poll point and tells whether the
    /// leaf should stop and split what is left (a worker is idle and this one has nothing
    /// queued to give it).
    #[inline]
    pub(crate) fn tick(&mut self) -> bool {
        self.left -= 1;
        if self.left != 0 {
            return false;
        }
        self.left = POLL_EVERY;
        crate::iter::driver::poll_point();
        crate::iter::driver::split_wanted()
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

    fn can_fill(&self, token: Token) -> bool {
        self.inner.can_fill(token)
    }
}

/// Items between two poll points of a leaf.
pub(crate) const POLL_EVERY: u32 = 1024;

/// Counts one item of a piece that runs its own poll points (a tree walk, whose recursion
/// carries the count in a register rather than through [`Polled`]'s counter in memory):
/// `left` items were to go before the next poll point; runs it when this is the last.
#[inline]
pub(crate) fn poll_tick(left: u32) -> u32 {
    if left > 1 {
        left - 1
    } else {
        crate::iter::driver::poll_point();
        POLL_EVERY
    }
}

/// A consumer whose items come with a poll point every [`POLL_EVERY`] of them, for pieces
/// that cannot stop midway.
///
/// Such a leaf can still be long (its size is only halved while the split budget lasts), and
/// the halves its worker split off before it are private until the worker reaches a poll point
/// (`src/worker/README.md`): without one inside the leaf, an idle worker could not get them
/// until the leaf ends.
struct Polled<'c, C>(&'c C);

impl<T, C: Consumer<T>> Consumer<T> for Polled<'_, C> {
    type Result = C::Result;

    fn consume<I: Iterator<Item = T>>(&self, iter: I) -> C::Result {
        let mut left = POLL_EVERY;
        self.0.consume(iter.inspect(move |_| {
            left -= 1;
            if left == 0 {
                left = POLL_EVERY;
                crate::iter::driver::poll_point();
            }
        }))
    }

    fn reduce(&self, left: C::Result, right: C::Result) -> C::Result {
        self.0.reduce(left, right)
    }

    fn identity(&self) -> C::Result {
        self.0.identity()
    }

    fn full(&self) -> bool {
        self.0.full()
    }

    fn can_fill(&self, token: Token) -> bool {
        self.0.can_fill(token)
    }
}

//! [`IndexedParallelIterator::deterministic_reduce`]: a reduction whose result does not depend
//! on the thread count, the policy or who stole what.
//!
//! An ordinary `reduce` combines partial results along a split tree that follows the schedule:
//! a stolen piece splits further, an unstolen one does not. For an operation that is associative
//! only up to rounding (a float sum) the bits of the result then change from run to run. Here
//! the tree is a function of the length alone: a piece of `len` items is a leaf when
//! `len <= grain(total)`, otherwise it is cut at `len / 2`; a leaf folds its items left to right
//! starting from `identity()`, and each inner node combines `op(left, right)`. Which worker
//! computes which node is left to the pool (every inner node is a `join`), but no node's value
//! depends on it.
//!
//! [`IndexedParallelIterator::deterministic_reduce`]: crate::iter::IndexedParallelIterator::deterministic_reduce

use crate::iter::plumbing::{Producer, ProducerCallback};

/// The fewest items a leaf holds (unless the whole iteration is shorter).
pub const DETERMINISTIC_MIN_LEAF: usize = 256;
/// The most leaves an iteration is cut into (about; halving makes them between half and all of
/// the leaf length).
pub const DETERMINISTIC_MAX_LEAVES: usize = 4096;

/// The leaf length for an iteration of `total` items:
/// `max(DETERMINISTIC_MIN_LEAF, ceil(total / DETERMINISTIC_MAX_LEAVES))`.
pub fn deterministic_grain(total: usize) -> usize {
    DETERMINISTIC_MIN_LEAF.max(total.div_ceil(DETERMINISTIC_MAX_LEAVES))
}

/// The callback that runs the fixed tree over an indexed iterator's producer.
pub(crate) struct Tree<'f, ID, OP> {
    pub(crate) identity: &'f ID,
    pub(crate) op: &'f OP,
}

impl<T, ID, OP> ProducerCallback<T> for Tree<'_, ID, OP>
where
    T: Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> T + Sync,
{
    type Output = T;

    fn callback<P: Producer<Item = T>>(self, producer: P) -> T {
        let grain = deterministic_grain(producer.len());
        node(producer, grain, self.identity, self.op)
    }
}

fn node<P, ID, OP>(producer: P, grain: usize, identity: &ID, op: &OP) -> P::Item
where
    P: Producer,
    P::Item: Send,
    ID: Fn() -> P::Item + Sync,
    OP: Fn(P::Item, P::Item) -> P::Item + Sync,
{
    let len = producer.len();
    if len <= grain {
        return producer.into_iter().fold(identity(), op);
    }
    let (left, right) = producer.split_at(len / 2);
    let (a, b) = crate::join::join_erased(
        || node(left, grain, identity, op),
        || node(right, grain, identity, op),
    );
    op(a, b)
}

//! `fold`: one accumulator per piece, as a parallel iterator of accumulators.

use crate::iter::plumbing::sealed::Token;
use crate::iter::plumbing::{until_full, Consumer};
use crate::iter::ParallelIterator;

/// The iterator of [`ParallelIterator::fold`].
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct Fold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

impl<I: std::fmt::Debug, ID, F> std::fmt::Debug for Fold<I, ID, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("Fold")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, ID, F> Fold<I, ID, F> {
    pub(crate) fn new(base: I, identity: ID, fold_op: F) -> Self {
        Fold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, T> ParallelIterator for Fold<I, ID, F>
where
    I: ParallelIterator,
    F: Fn(T, I::Item) -> T + Sync + Send,
    ID: Fn() -> T + Sync + Send,
    T: Send,
{
    type Item = T;

    fn drive<C: Consumer<T>>(self, consumer: C) -> C::Result {
        let Fold {
            base,
            identity,
            fold_op,
        } = self;
        base.drive(FoldConsumer {
            inner: consumer,
            identity: &identity,
            fold_op: &fold_op,
        })
    }
}

/// Folds one piece's items into `acc` until `full()` holds (checked before each item, so that
/// a `find_any` downstream stops every piece), for `fold` and `fold_with`. `full` is `None`
/// where the consumer downstream can never fill (`Consumer::can_fill`): then the piece is
/// folded by the iterator's own `fold`, with nothing looked at between items.
///
/// An accumulator larger than [`LARGE_ACCUMULATOR`] bytes is folded out of line
/// ([`fold_out_of_line`]); a smaller one inline, in the caller's loop. Inlined into the
/// driver's loop, the compiler split a large accumulator between registers and memory and
/// stored part of it back in 8-byte halves before every call of the fold closure; a `HashMap`
/// accumulator's hasher keys (48 bytes in all), stored that way, were then read back whole by
/// the next hash, a load the processor cannot forward from the two stores, which `perf
/// annotate` showed as the hash function's costliest instruction. Out of line the accumulator
/// stays in memory and is copied whole. A small one is better left where the compiler can
/// keep it in registers: a `Vec` pushed onto per item was markedly slower out of line.
///
/// Inline, a piece whose iterator knows its exact length (a range or slice, mapped or
/// chained) is folded by a plain loop over the iterator it owns; any other (`filter`,
/// `flat_map_iter`) through the iterator's own `fold`, whose internal iteration walks nested
/// iterators faster than `next` does. The internal `fold` goes through `until_full`, whose
/// `try_fold` borrows the iterator: in some builds the compiler then kept a `Vec` or
/// `LinkedList` accumulator and the range's position in memory, copying them on every item
/// (`perf annotate` of a `map(..).fold(Vec::new, push)` loop). The plain loop keeps both in
/// registers (the same loop as [`fold_out_of_line`]'s, written out inline).
#[inline]
pub(crate) fn fold_until_full<T, A>(
    iter: impl Iterator<Item = T>,
    acc: A,
    fold_op: impl Fn(A, T) -> A,
    full: Option<impl Fn() -> bool>,
) -> A {
    if std::mem::size_of::<A>() > LARGE_ACCUMULATOR {
        match full {
            Some(full) => fold_out_of_line(iter, acc, fold_op, full),
            None => fold_out_of_line(iter, acc, fold_op, || false),
        }
    } else if let Some(full) = full {
        let (lower, upper) = iter.size_hint();
        if upper == Some(lower) {
            let mut acc = acc;
            for item in iter {
                if full() {
                    break;
                }
                acc = fold_op(acc, item);
            }
            acc
        } else {
            until_full(iter, Some(full)).fold(acc, fold_op)
        }
    } else {
        iter.fold(acc, fold_op)
    }
}

/// The size in bytes above which [`fold_until_full`] folds out of line: four words, so that
/// `Vec`s, `String`s and scalars stay inline and maps and sets (48 bytes and more) do not.
const LARGE_ACCUMULATOR: usize = 32;

/// [`fold_until_full`] for a large accumulator: one loop, out of line (the call is per piece,
/// not per item).
#[inline(never)]
fn fold_out_of_line<T, A>(
    iter: impl Iterator<Item = T>,
    mut acc: A,
    fold_op: impl Fn(A, T) -> A,
    full: impl Fn() -> bool,
) -> A {
    for item in iter {
        if full() {
            break;
        }
        acc = fold_op(acc, item);
    }
    acc
}

struct FoldConsumer<'f, C, ID, F> {
    inner: C,
    identity: &'f ID,
    fold_op: &'f F,
}

impl<T, A, C, ID, F> Consumer<T> for FoldConsumer<'_, C, ID, F>
where
    C: Consumer<A>,
    ID: Fn() -> A + Sync,
    F: Fn(A, T) -> A + Sync,
{
    type Result = C::Result;

    fn consume<It: Iterator<Item = T>>(&self, iter: It) -> C::Result {
        // A fold yields nothing until its piece ends: check the consumer between items, so
        // that a `find_any` downstream stops every piece once one has found.
        let full = self
            .inner
            .can_fill(Token(()))
            .then_some(|| self.inner.full());
        let acc = fold_until_full(iter, (self.identity)(), self.fold_op, full);
        self.inner.consume(std::iter::once(acc))
    }

    fn consume_placed<It: Iterator<Item = T>>(
        &self,
        start: Option<usize>,
        place: crate::iter::plumbing::sealed::Place,
        iter: It,
        token: crate::iter::plumbing::sealed::Token,
    ) -> C::Result {
        let full = self
            .inner
            .can_fill(token)
            .then_some(|| self.inner.full_placed(place, token));
        let acc = fold_until_full(iter, (self.identity)(), self.fold_op, full);
        self.inner
            .consume_placed(start, place, std::iter::once(acc), token)
    }

    fn full_placed(
        &self,
        place: crate::iter::plumbing::sealed::Place,
        token: crate::iter::plumbing::sealed::Token,
    ) -> bool {
        self.inner.full_placed(place, token)
    }

    fn reduce(&self, left: C::Result, right: C::Result) -> C::Result {
        self.inner.reduce(left, right)
    }

    fn identity(&self) -> C::Result {
        self.inner.identity()
    }

    fn full(&self) -> bool {
        self.inner.full()
    }

    fn can_fill(&self, token: crate::iter::plumbing::sealed::Token) -> bool {
        self.inner.can_fill(token)
    }
}

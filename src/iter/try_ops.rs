//! Fallible loops: `try_for_each`, `try_reduce` and `try_fold`, over `Option`, `Result` and
//! `ControlFlow` through the [`Try`] trait (std's own `Try` is not stable).
//!
//! The answer is the sequential one: the first failure in order, or the combined success.
//! Partial results are combined left before right with the left failure winning, and a failing
//! piece publishes its start position so that only pieces starting later stop early (as in
//! `find_first`, see `find.rs`).

use crate::iter::plumbing::Consumer;
use crate::iter::ParallelIterator;
use crate::sync::{AtomicUsize, Ordering};
use std::convert::Infallible;
use std::ops::ControlFlow;

/// A value that either goes on with an `Output` or stops with a `Residual`: `Option<T>`,
/// `Result<T, E>` and `ControlFlow<B, C>`. The fallible methods (`try_for_each`, `try_reduce`,
/// `try_fold`) accept any of them, as rayon's do.
pub trait Try {
    /// What a success carries (`T` of `Some(T)` / `Ok(T)`).
    type Output;
    /// What a failure carries, re-wrappable into any `Try` type of the same family.
    type Residual;

    /// Wraps a success.
    fn from_output(output: Self::Output) -> Self;

    /// Wraps a failure.
    fn from_residual(residual: Self::Residual) -> Self;

    /// Whether to go on (with the success) or stop (with the failure).
    fn branch(self) -> ControlFlow<Self::Residual, Self::Output>;
}

impl<T> Try for Option<T> {
    type Output = T;
    type Residual = Option<Infallible>;

    fn from_output(output: T) -> Self {
        Some(output)
    }

    fn from_residual(_: Option<Infallible>) -> Self {
        None
    }

    fn branch(self) -> ControlFlow<Option<Infallible>, T> {
        match self {
            Some(x) => ControlFlow::Continue(x),
            None => ControlFlow::Break(None),
        }
    }
}

impl<T, E> Try for Result<T, E> {
    type Output = T;
    type Residual = Result<Infallible, E>;

    fn from_output(output: T) -> Self {
        Ok(output)
    }

    fn from_residual(residual: Result<Infallible, E>) -> Self {
        match residual {
            Err(e) => Err(e),
            Ok(never) => match never {},
        }
    }

    fn branch(self) -> ControlFlow<Result<Infallible, E>, T> {
        match self {
            Ok(x) => ControlFlow::Continue(x),
            Err(e) => ControlFlow::Break(Err(e)),
        }
    }
}

impl<B, C> Try for ControlFlow<B, C> {
    type Output = C;
    type Residual = ControlFlow<B, Infallible>;

    fn from_output(output: C) -> Self {
        ControlFlow::Continue(output)
    }

    fn from_residual(residual: ControlFlow<B, Infallible>) -> Self {
        match residual {
            ControlFlow::Break(b) => ControlFlow::Break(b),
            ControlFlow::Continue(never) => match never {},
        }
    }

    fn branch(self) -> ControlFlow<ControlFlow<B, Infallible>, C> {
        match self {
            ControlFlow::Continue(c) => ControlFlow::Continue(c),
            ControlFlow::Break(b) => ControlFlow::Break(ControlFlow::Break(b)),
        }
    }
}

/// The smallest start of a piece that failed, shared by the pieces of one loop.
struct FirstFailure(AtomicUsize);

impl FirstFailure {
    fn new() -> Self {
        FirstFailure(AtomicUsize::new(usize::MAX))
    }

    /// Whether a piece starting at `start` (if known) comes after a known failure.
    fn beaten(&self, start: Option<usize>) -> bool {
        start.is_some_and(|s| self.0.load(Ordering::Relaxed) < s)
    }

    fn failed(&self, start: Option<usize>) {
        if let Some(s) = start {
            self.0.fetch_min(s, Ordering::Relaxed);
        }
    }
}

/// The failure of `left` if any, else that of `right`, else both successes combined by `op`.
fn combine<R: Try>(left: R, right: R, op: impl FnOnce(R::Output, R::Output) -> R) -> R {
    match left.branch() {
        ControlFlow::Break(r) => R::from_residual(r),
        ControlFlow::Continue(a) => match right.branch() {
            ControlFlow::Break(r) => R::from_residual(r),
            ControlFlow::Continue(b) => op(a, b),
        },
    }
}

/// `try_reduce` (and `try_for_each`, a reduction of `()`s): folds a piece from `identity()`,
/// stopping at its first failure.
pub(crate) struct TryReduceConsumer<'f, ID, OP> {
    identity: &'f ID,
    op: &'f OP,
    first: FirstFailure,
}

impl<'f, ID, OP> TryReduceConsumer<'f, ID, OP> {
    pub(crate) fn new(identity: &'f ID, op: &'f OP) -> Self {
        TryReduceConsumer {
            identity,
            op,
            first: FirstFailure::new(),
        }
    }

    fn fold<R, T, I>(&self, start: Option<usize>, iter: I) -> R
    where
        R: Try<Output = T>,
        I: Iterator<Item = R>,
        ID: Fn() -> T,
        OP: Fn(T, T) -> R,
    {
        let mut acc = (self.identity)();
        // Checked before each item is produced, so that a piece after a failure produces
        // nothing (a `map` or `inspect` upstream does not run for it).
        let mut iter = iter;
        loop {
            if self.first.beaten(start) {
                // An earlier piece failed; its failure is the answer.
                return R::from_output(acc);
            }
            let Some(item) = iter.next() else { break };
            let step = match item.branch() {
                ControlFlow::Continue(x) => (self.op)(acc, x).branch(),
                ControlFlow::Break(r) => ControlFlow::Break(r),
            };
            match step {
                ControlFlow::Continue(a) => acc = a,
                ControlFlow::Break(r) => {
                    self.first.failed(start);
                    return R::from_residual(r);
                }
            }
        }
        R::from_output(acc)
    }
}

impl<R, T, ID, OP> Consumer<R> for TryReduceConsumer<'_, ID, OP>
where
    R: Try<Output = T> + Send,
    ID: Fn() -> T + Sync,
    OP: Fn(T, T) -> R + Sync,
{
    type Result = R;

    fn consume<I: Iterator<Item = R>>(&self, iter: I) -> R {
        self.fold(None, iter)
    }

    fn consume_at<I: Iterator<Item = R>>(&self, start: usize, iter: I) -> R {
        self.fold(Some(start), iter)
    }

    fn reduce(&self, left: R, right: R) -> R {
        combine(left, right, self.op)
    }

    fn identity(&self) -> R {
        R::from_output((self.identity)())
    }
}

/// `try_reduce_with`: like `try_reduce` without an identity; `None` for no items.
pub(crate) struct TryReduceWithConsumer<'f, OP> {
    op: &'f OP,
    first: FirstFailure,
}

impl<'f, OP> TryReduceWithConsumer<'f, OP> {
    pub(crate) fn new(op: &'f OP) -> Self {
        TryReduceWithConsumer {
            op,
            first: FirstFailure::new(),
        }
    }

    fn fold<R, T, I>(&self, start: Option<usize>, iter: I) -> Option<R>
    where
        R: Try<Output = T>,
        I: Iterator<Item = R>,
        OP: Fn(T, T) -> R,
    {
        let mut acc: Option<T> = None;
        // Checked before each item is produced, so that a piece after a failure produces
        // nothing (a `map` or `inspect` upstream does not run for it).
        let mut iter = iter;
        loop {
            if self.first.beaten(start) {
                return acc.map(R::from_output);
            }
            let Some(item) = iter.next() else { break };
            let step = match (acc.take(), item.branch()) {
                (Some(a), ControlFlow::Continue(x)) => (self.op)(a, x).branch(),
                (None, ControlFlow::Continue(x)) => ControlFlow::Continue(x),
                (_, ControlFlow::Break(r)) => ControlFlow::Break(r),
            };
            match step {
                ControlFlow::Continue(a) => acc = Some(a),
                ControlFlow::Break(r) => {
                    self.first.failed(start);
                    return Some(R::from_residual(r));
                }
            }
        }
        acc.map(R::from_output)
    }
}

impl<R, T, OP> Consumer<R> for TryReduceWithConsumer<'_, OP>
where
    R: Try<Output = T> + Send,
    OP: Fn(T, T) -> R + Sync,
{
    type Result = Option<R>;

    fn consume<I: Iterator<Item = R>>(&self, iter: I) -> Option<R> {
        self.fold(None, iter)
    }

    fn consume_at<I: Iterator<Item = R>>(&self, start: usize, iter: I) -> Option<R> {
        self.fold(Some(start), iter)
    }

    fn reduce(&self, left: Option<R>, right: Option<R>) -> Option<R> {
        match (left, right) {
            (Some(l), Some(r)) => Some(combine(l, r, self.op)),
            (l, r) => l.or(r),
        }
    }

    fn identity(&self) -> Option<R> {
        None
    }
}

/// The iterator of [`ParallelIterator::try_fold`]: one result per piece, each folded from
/// `identity()` until the piece's first failure.
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct TryFold<I, ID, F> {
    base: I,
    identity: ID,
    fold_op: F,
}

impl<I: std::fmt::Debug, ID, F> std::fmt::Debug for TryFold<I, ID, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("TryFold")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

impl<I, ID, F> TryFold<I, ID, F> {
    pub(crate) fn new(base: I, identity: ID, fold_op: F) -> Self {
        TryFold {
            base,
            identity,
            fold_op,
        }
    }
}

impl<I, ID, F, T, R> ParallelIterator for TryFold<I, ID, F>
where
    I: ParallelIterator,
    ID: Fn() -> T + Sync + Send,
    F: Fn(T, I::Item) -> R + Sync + Send,
    R: Try<Output = T> + Send,
{
    type Item = R;

    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let TryFold {
            base,
            identity,
            fold_op,
        } = self;
        base.drive(TryFoldConsumer {
            inner: consumer,
            identity: &identity,
            fold_op: &fold_op,
            first: FirstFailure::new(),
        })
    }
}

struct TryFoldConsumer<'f, C, ID, F> {
    inner: C,
    identity: &'f ID,
    fold_op: &'f F,
    first: FirstFailure,
}

impl<C, ID, F> TryFoldConsumer<'_, C, ID, F> {
    fn fold<X, T, R, I>(&self, start: Option<usize>, iter: I) -> Option<R>
    where
        I: Iterator<Item = X>,
        ID: Fn() -> T,
        F: Fn(T, X) -> R,
        R: Try<Output = T>,
    {
        let mut acc = (self.identity)();
        // Checked before each item is produced, so that a piece after a failure produces
        // nothing (a `map` or `inspect` upstream does not run for it).
        let mut iter = iter;
        loop {
            if self.first.beaten(start) {
                // An earlier piece failed: this piece's result cannot matter.
                return None;
            }
            let Some(item) = iter.next() else { break };
            match (self.fold_op)(acc, item).branch() {
                ControlFlow::Continue(a) => acc = a,
                ControlFlow::Break(r) => {
                    self.first.failed(start);
                    return Some(R::from_residual(r));
                }
            }
        }
        Some(R::from_output(acc))
    }
}

impl<X, T, R, C, ID, F> Consumer<X> for TryFoldConsumer<'_, C, ID, F>
where
    C: Consumer<R>,
    ID: Fn() -> T + Sync,
    F: Fn(T, X) -> R + Sync,
    R: Try<Output = T>,
{
    type Result = C::Result;

    fn consume<I: Iterator<Item = X>>(&self, iter: I) -> C::Result {
        let folded = self.fold(None, iter);
        self.inner.consume(folded.into_iter())
    }

    fn consume_placed<It: Iterator<Item = X>>(
        &self,
        start: Option<usize>,
        place: crate::iter::plumbing::sealed::Place,
        iter: It,
        token: crate::iter::plumbing::sealed::Token,
    ) -> C::Result {
        let folded = self.fold(start, iter);
        self.inner
            .consume_placed(start, place, folded.into_iter(), token)
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

/// The iterator of [`ParallelIterator::try_fold_with`]: like [`TryFold`], every piece starting
/// from a clone of one value.
#[derive(Clone)]
#[must_use = "parallel iterators do nothing until consumed"]
pub struct TryFoldWith<I, T, F> {
    base: I,
    item: T,
    fold_op: F,
}

impl<I: std::fmt::Debug, T: std::fmt::Debug, F> std::fmt::Debug for TryFoldWith<I, T, F> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The closures have no `Debug` (as in rayon, the adapter is `Debug` all the same).
        out.debug_struct("TryFoldWith")
            .field("base", &self.base)
            .field("item", &self.item)
            .finish_non_exhaustive()
    }
}

impl<I, T, F> TryFoldWith<I, T, F> {
    pub(crate) fn new(base: I, item: T, fold_op: F) -> Self {
        TryFoldWith {
            base,
            item,
            fold_op,
        }
    }
}

impl<I, T, F, R> ParallelIterator for TryFoldWith<I, T, F>
where
    I: ParallelIterator,
    T: Send + Clone,
    F: Fn(T, I::Item) -> R + Sync + Send,
    R: Try<Output = T> + Send,
{
    type Item = R;

    fn drive<C: Consumer<R>>(self, consumer: C) -> C::Result {
        let TryFoldWith {
            base,
            item,
            fold_op,
        } = self;
        // Behind a lock the value need only be `Send` while pieces on several threads clone it.
        let item = crate::sync::Mutex::new(item);
        let identity = || item.lock().clone();
        base.drive(TryFoldConsumer {
            inner: consumer,
            identity: &identity,
            fold_op: &fold_op,
            first: FirstFailure::new(),
        })
    }
}

//! The one abstraction every workload is written against: a per-task context
//! that can fork two closures and wait for both.
//!
//! A workload is a generic function `fn work<C: Fork>(ctx: &mut C, ...)`. It
//! forks with [`Fork::join`]; each closure receives the context it must use for
//! its own forks. Runtimes differ only in what that context is:
//!
//! | context | what `join` does |
//! |---|---|
//! | [`Sequential`] | runs `a`, then `b`, on the calling thread |
//! | [`Rayon`] | `rayon::join` (call it inside a rayon `ThreadPool::install`) |
//! | [`Chili`] (`chili::Scope`) | `chili::Scope::join`, passing each closure the scope it runs on |
//! | [`Hypersteal`] | `hypersteal::join` (call it inside a hypersteal `ThreadPool::install`) |
//!
//! A runtime with a free, rayon-style `join(a, b)` gets a zero-sized context
//! whose [`Fork::Ctx`] is itself, exactly like [`Rayon`]:
//!
//! ```
//! use hypersteal_suite::fork::Fork;
//!
//! /// A zero-sized context for a runtime with a free `join` (here rayon's).
//! struct FreeJoin;
//!
//! impl Fork for FreeJoin {
//!     type Ctx<'a> = FreeJoin;
//!     fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
//!     where
//!         A: FnOnce(&mut FreeJoin) -> RA + Send,
//!         B: FnOnce(&mut FreeJoin) -> RB + Send,
//!         RA: Send,
//!         RB: Send,
//!     {
//!         rayon::join(|| a(&mut FreeJoin), || b(&mut FreeJoin))
//!     }
//! }
//!
//! fn fib<C: Fork>(ctx: &mut C, n: u64) -> u64 {
//!     if n < 2 {
//!         return n;
//!     }
//!     let (x, y) = ctx.join(|c| fib(c, n - 1), |c| fib(c, n - 2));
//!     x + y
//! }
//!
//! assert_eq!(fib(&mut FreeJoin, 20), 6765);
//! ```
//!
//! Why a generic associated type: chili hands each closure a `&mut Scope<'x>`
//! for a lifetime `'x` of its own choosing, so the context inside a closure
//! cannot be the very same type as the caller's `Self`. `Ctx<'x>` names the
//! family (`Scope<'x>` for chili, `Self` for everyone else). Generic recursion
//! `work::<C>` → `work::<C::Ctx<'x>>` instantiates only once per runtime,
//! because instantiations that differ only in lifetimes are the same code.
//!
//! Workloads that create more than two children (UTS, N-Queens, tautology
//! branches, loops over rows) split the child range in halves with `join`
//! until one child (or one grain) is left: see [`fork_range`].

use std::ops::Range;

/// A per-task context that can run two closures, potentially in parallel.
///
/// The context is not required to be `Send`: it never crosses threads. Each
/// closure receives the context it must use for its own nested forks.
pub trait Fork {
    /// The context a forked closure receives. For every runtime except chili
    /// this is `Self`.
    type Ctx<'a>: Fork;

    /// Runs `a` and `b`, potentially in parallel, and returns both results
    /// once both have finished. A panic in either is propagated.
    fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: for<'x> FnOnce(&mut Self::Ctx<'x>) -> RA + Send,
        B: for<'x> FnOnce(&mut Self::Ctx<'x>) -> RB + Send,
        RA: Send,
        RB: Send;
}

/// Runs everything on the calling thread: `a` first, then `b`.
///
/// Running a parallel workload under `Sequential` measures the cost of its
/// parallel decomposition without any runtime.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Sequential;

impl Fork for Sequential {
    type Ctx<'a> = Sequential;

    #[inline]
    fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Sequential) -> RA + Send,
        B: FnOnce(&mut Sequential) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        let ra = a(self);
        let rb = b(self);
        (ra, rb)
    }
}

/// Forks with `rayon::join`. Run the workload inside a rayon pool's
/// `install` to choose the pool (otherwise rayon's global pool is used).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Rayon;

impl Fork for Rayon {
    type Ctx<'a> = Rayon;

    #[inline]
    fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Rayon) -> RA + Send,
        B: FnOnce(&mut Rayon) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        rayon::join(|| a(&mut Rayon), || b(&mut Rayon))
    }
}

/// Forks with `hypersteal::join`. Run the workload inside a hypersteal
/// pool's `install` to choose the pool, and with it the policy and topology
/// (otherwise hypersteal's global pool is used).
///
/// ```
/// use hypersteal_suite::{Hypersteal, Workload};
///
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let mut instance = "fib:20".parse::<Workload>().unwrap().prepare();
/// let outcome = pool.install(|| instance.run(&mut Hypersteal));
/// instance.check(&outcome).unwrap();
/// ```
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Hypersteal;

impl Fork for Hypersteal {
    type Ctx<'a> = Hypersteal;

    #[inline]
    fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut Hypersteal) -> RA + Send,
        B: FnOnce(&mut Hypersteal) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        hypersteal::join(|| a(&mut Hypersteal), || b(&mut Hypersteal))
    }
}

/// The chili context: a chili scope. Obtain one from
/// `chili::ThreadPool::scope` (or `chili::Scope::global()`) and pass
/// `&mut scope` to a workload.
///
/// Note that chili runs `b` before `a` when it does not share `a`.
pub type Chili<'s> = chili::Scope<'s>;

impl<'s> Fork for chili::Scope<'s> {
    type Ctx<'a> = chili::Scope<'a>;

    #[inline]
    fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: for<'x> FnOnce(&mut chili::Scope<'x>) -> RA + Send,
        B: for<'x> FnOnce(&mut chili::Scope<'x>) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        chili::Scope::join(self, a, b)
    }
}

/// Work over an index range, for [`fork_range`]: what one index computes and
/// how two partial results combine.
///
/// A trait rather than a closure because the per-index work may fork itself,
/// and must then be generic over the context type it is handed.
pub trait RangeTask: Sync {
    /// The result of one index and of any sub-range.
    type Output: Send;

    /// The work of index `i`, which may fork through `ctx`.
    fn run<C: Fork>(&self, ctx: &mut C, i: usize) -> Self::Output;

    /// The result of an empty range.
    fn zero(&self) -> Self::Output;

    /// Combines the results of two adjacent sub-ranges, `left` first.
    fn combine(&self, left: Self::Output, right: Self::Output) -> Self::Output;
}

/// Runs `task` on every index of `range` by splitting the range in halves with
/// [`Fork::join`] until at most `grain` indices are left, which run in order
/// on one task. A `grain` of 0 is taken as 1.
pub fn fork_range<C: Fork, T: RangeTask>(
    ctx: &mut C,
    task: &T,
    range: Range<usize>,
    grain: usize,
) -> T::Output {
    let len = range.end.saturating_sub(range.start);
    if len <= grain.max(1) {
        let mut acc = task.zero();
        for i in range {
            let r = task.run(ctx, i);
            acc = task.combine(acc, r);
        }
        return acc;
    }
    let mid = range.start + len / 2;
    let (left, right) = ctx.join(
        |c| fork_range(c, task, range.start..mid, grain),
        |c| fork_range(c, task, mid..range.end, grain),
    );
    task.combine(left, right)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Squares;

    impl RangeTask for Squares {
        type Output = u64;
        fn run<C: Fork>(&self, _ctx: &mut C, i: usize) -> u64 {
            (i as u64) * (i as u64)
        }
        fn zero(&self) -> u64 {
            0
        }
        fn combine(&self, a: u64, b: u64) -> u64 {
            a + b
        }
    }

    fn expected(n: u64) -> u64 {
        (0..n).map(|i| i * i).sum()
    }

    #[test]
    fn fork_range_sequential_all_grains() {
        for n in [0usize, 1, 2, 3, 10, 100] {
            for grain in [0usize, 1, 2, 7, 1000] {
                assert_eq!(
                    fork_range(&mut Sequential, &Squares, 0..n, grain),
                    expected(n as u64)
                );
            }
        }
    }

    #[test]
    fn fork_range_rayon_and_chili() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        assert_eq!(
            pool.install(|| fork_range(&mut Rayon, &Squares, 0..1000, 3)),
            expected(1000)
        );
        let tp = chili::ThreadPool::with_config(chili::Config {
            thread_count: std::num::NonZero::new(2),
            ..Default::default()
        });
        let mut scope = tp.scope();
        assert_eq!(fork_range(&mut scope, &Squares, 0..1000, 3), expected(1000));
    }
}

//! Parallel iterators with rayon's names, driven by hypersteal's pools and loop schedules.
//!
//! Switching from rayon is a change of import: `use hypersteal::prelude::*;` brings
//! [`ParallelIterator`], [`IndexedParallelIterator`], [`IntoParallelIterator`],
//! [`IntoParallelRefIterator`] (`par_iter`), [`IntoParallelRefMutIterator`] (`par_iter_mut`),
//! [`ParallelSlice`] (`par_chunks`, `par_windows`, `par_split`, …), [`ParallelSliceMut`]
//! (`par_chunks_mut`, `par_split_mut`, …, the sorts) and [`ParallelExtend`] (`par_extend`) into
//! scope. The fallible methods (`try_for_each`, `try_reduce`, `try_fold`) accept `Option`,
//! `Result` and `ControlFlow` through [`Try`], and `partition_map` sorts with [`Either`] (the
//! `either` crate's, as rayon re-exports it).
//!
//! Order-sensitive methods give the sequential answer under every schedule: `find_first`,
//! `position_first`, `try_for_each`, `cmp`, … return what the sequential iterator would, and
//! still stop early: a piece that finds an answer publishes where it starts, and only pieces
//! that start later give up (see [`plumbing::Consumer::consume_at`]).
//!
//! ```
//! use hypersteal::prelude::*;
//!
//! let v: Vec<u64> = (0..1000).collect();
//! let sum: u64 = v.par_iter().map(|x| x * 2).sum();
//! assert_eq!(sum, 999_000);
//! let evens: Vec<u64> = v.par_iter().copied().filter(|x| x % 2 == 0).collect();
//! assert_eq!(evens.len(), 500);
//! assert_eq!(evens[..3], [0, 2, 4]);
//! ```
//!
//! A loop runs in the pool it is called in ([`crate::ThreadPool::install`]), under that pool's
//! policy. How an indexed loop is cut into chunks is its [`Schedule`]: `adaptive` by default,
//! or one of the self-scheduling schemes chosen with
//! [`IndexedParallelIterator::with_schedule`]. Results are the sequential iterator's whatever the
//! schedule: partial results are combined in index order, so `collect` keeps the order and
//! `reduce` needs an associative operation but not a commutative one.
//!
//! [`IndexedParallelIterator::for_each_with_report`] reports when each worker finished, for
//! measuring a schedule's imbalance ([`LoopReport`]).

/// The `opt_len` of a parallel iterator that is indexed wherever it is a parallel iterator:
/// its length.
macro_rules! opt_len_indexed {
    () => {
        fn opt_len(&self) -> Option<usize> {
            Some($crate::iter::IndexedParallelIterator::len(self))
        }
    };
}

mod any_order;
mod blocks;
mod bridge;
mod chain;
pub(crate) mod chunks;
mod collect;
pub mod collections;
mod consumers;
mod deterministic;
mod divide;
mod drain;
mod driver;
mod enumerate;
mod extend;
mod filter;
mod find;
mod flat_map;
mod fold;
mod indexed;
mod indexed_parallel_iterator;
mod interleave;
mod intersperse;
mod into;
mod map;
mod parallel_iterator;
mod peek;
pub mod plumbing;
mod range;
mod report;
mod schedule;
mod sides;
mod slice;
pub(crate) mod slice_methods;
pub(crate) mod slice_split;
mod sort;
pub mod sources;
pub mod strings;
mod try_ops;
mod tuning;
mod tuples;
mod vec;
mod walk_tree;
mod with;
mod zip;

pub use any_order::{FoldChunksWith, PanicFuse, SkipAny, SkipAnyWhile, TakeAny, TakeAnyWhile};
pub use blocks::{ExponentialBlocks, UniformBlocks};
pub use bridge::{IterBridge, ParallelBridge};
pub use chain::Chain;
pub use chunks::{ChunksMut, ParallelSlice, ParallelSliceMut};
pub use collections::{array, option, result};
pub use deterministic::{deterministic_grain, DETERMINISTIC_MAX_LEAVES, DETERMINISTIC_MIN_LEAF};
pub use drain::{Drain, ParallelDrainFull, ParallelDrainRange, StringDrain};
pub use either::Either;
pub use enumerate::Enumerate;
pub use extend::ParallelExtend;
pub use filter::{Filter, FilterMap};
pub use flat_map::{FlatMap, FlatMapIter, Flatten, FlattenIter};
pub use fold::Fold;
pub use indexed::{Chunks, FoldChunks, Rev, Skip, StepBy, Take};

/// The former name of [`Chunks`], the iterator of [`IndexedParallelIterator::chunks`].
#[deprecated(
    note = "renamed `Chunks`, as in rayon; slices' `par_chunks` iterator is `slice::Chunks`"
)]
pub type IterChunks<I> = Chunks<I>;
pub use interleave::{Interleave, InterleaveShortest};
pub use intersperse::Intersperse;
pub use map::{Cloned, Copied, Map};
pub use peek::{Inspect, Positions, Update, WhileSome, ZipEq};
pub use range::RangeIter;
pub use report::{LoopReport, WorkerFinish};
pub use schedule::{ParseScheduleError, Schedule};
pub use slice::{Iter, IterMut};
pub use slice_methods::{
    ArrayWindows, ChunksExact, ChunksExactMut, RChunks, RChunksExact, RChunksExactMut, RChunksMut,
    Windows,
};
// `slice_split::Split` is reachable as `hypersteal::slice::Split`: here the name is the `split`
// source's, as in rayon.
pub use slice_split::{ChunkBy, ChunkByMut, SplitInclusive, SplitInclusiveMut, SplitMut};
pub use sources::{
    empty, once, repeat, repeat_n, repeatn, split, Empty, Once, Repeat, RepeatN, Split,
};
pub use strings::{ParallelString, Pattern};
pub use try_ops::{Try, TryFold, TryFoldWith};
pub use tuning::{MaxLen, MinLen, WithSchedule};
pub use tuples::MultiZip;
pub use vec::IntoIter;
pub use walk_tree::{
    walk_tree, walk_tree_postfix, walk_tree_prefix, WalkTree, WalkTreePostfix, WalkTreePrefix,
};
pub use with::{FoldWith, MapInit, MapWith};
pub use zip::Zip;

pub(crate) use indexed_parallel_iterator::DriveCallback;
pub use indexed_parallel_iterator::IndexedParallelIterator;
pub use into::{
    FromParallelIterator, IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator,
};
pub use parallel_iterator::ParallelIterator;

//! # hypersteal
//!
//! A work-stealing task runtime whose workers form a virtual topology (hypercube, mesh, torus,
//! ring, complete) and whose load-balancing policy you choose: random polling, nearest neighbour,
//! asynchronous and global round robin, GRR with a combining tree, scheduler-based, or
//! most-loaded — the schemes of Kumar, Grama and Rao and their relatives — or place new tasks
//! as they are created (ACWN, the gradient model, randomized allocation), all translated to
//! threads sharing memory. The API is rayon's: [`join`], [`scope`], [`spawn`], [`ThreadPoolBuilder`],
//! and every pool reports what it did ([`PoolStats`]).
//!
//! ## Quick start
//!
//! ```
//! use hypersteal::{Policy, ThreadPoolBuilder, Topology};
//!
//! fn fib(n: u64) -> u64 {
//!     if n < 20 {
//!         return (1..=n).fold((0, 1), |(a, b), _| (b, a + b)).0;
//!     }
//!     let (a, b) = hypersteal::join(|| fib(n - 1), || fib(n - 2));
//!     a + b
//! }
//!
//! // The global pool: one worker per core, random polling on a hypercube.
//! assert_eq!(fib(30), 832_040);
//!
//! // A pool of your own: 4 workers on a mesh, asking the most loaded neighbour.
//! let pool = ThreadPoolBuilder::new()
//!     .num_threads(4)
//!     .topology(Topology::Mesh)
//!     .policy("most-loaded:scope=neighbors".parse::<Policy>().unwrap())
//!     .build()
//!     .unwrap();
//! assert_eq!(pool.install(|| fib(30)), 832_040);
//!
//! // What it did: every task made available ran exactly once.
//! let stats = pool.stats().total();
//! assert_eq!(stats.executed, stats.spawned);
//! println!("requests {} (ok {}), locality {:.2}", stats.requests, stats.requests_ok, stats.locality());
//! ```
//!
//! ## Choosing
//!
//! `docs/choosing.md` explains how to pick a policy and a topology; `docs/design.md` the worker
//! loop, the sleep protocol and how each policy maps the papers' messages onto shared memory;
//! `docs/stats.md` how to read [`PoolStats`]; `docs/simulator.md` how the policies scale to
//! 16,384 simulated processors (the `hypersteal-sim` crate). The environment variables
//! `HYPERSTEAL_NUM_THREADS`, `HYPERSTEAL_POLICY`, `HYPERSTEAL_TOPOLOGY`, `HYPERSTEAL_PIN`,
//! `HYPERSTEAL_PLACEMENT`, `HYPERSTEAL_PIN_CLAIMS` and `HYPERSTEAL_TRACE` set the defaults of every
//! builder (and so of the global pool).

#![deny(missing_docs)]
#![warn(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]

mod broadcast;
mod builder;
#[cfg(doctest)]
mod compile_fail;
mod config;
mod fifo;
mod future;
pub mod hardware;
mod isolate;
pub mod iter;
mod job;
mod join;
mod latch;
mod pinning;
pub mod policy;
mod pool;
pub mod prelude;
mod registry;
mod scope;
mod sleep;
mod spawn;
mod stats;
mod sync;
#[cfg(test)]
mod test_child;
mod thread_builder;
mod topology;
pub mod trace;
mod unwind;
mod worker;
mod yielding;

pub use broadcast::{broadcast, spawn_broadcast, BroadcastContext};
#[allow(deprecated)]
pub use builder::Configuration;
pub use builder::ThreadPoolBuilder;
pub use config::{
    BuildError, BuildError as ThreadPoolBuildError, DEFAULT_HEARTBEAT, ENV_NUM_THREADS, ENV_PIN,
    ENV_PIN_CLAIMS, ENV_PLACEMENT, ENV_POLICY, ENV_TOPOLOGY, ENV_TRACE, MAX_HEARTBEAT,
    MAX_IDLE_LINGER, MIN_HEARTBEAT,
};
pub use iter::{array, collections, option, result};
pub use thread_builder::{
    CustomSpawn, DefaultSpawn, ThreadBuilder, ThreadSpawn, SPAWN_HANDLER_DEADLINE,
};

/// rayon's `range` module: the parallel iterator of `a..b` for every integer type and `char`.
pub mod range {
    pub use crate::iter::RangeIter as Iter;
}

/// rayon's `range_inclusive` module: the parallel iterator of `a..=b` (the same type as `a..b`'s
/// here).
pub mod range_inclusive {
    pub use crate::iter::RangeIter as Iter;
}

/// rayon's `slice` module: the parallel slice traits and their iterators.
pub mod slice {
    pub use crate::iter::chunks::Chunks;
    pub use crate::iter::slice_split::Split;
    pub use crate::iter::{
        ArrayWindows, ChunkBy, ChunkByMut, ChunksExact, ChunksExactMut, ChunksMut, Iter, IterMut,
        ParallelSlice, ParallelSliceMut, RChunks, RChunksExact, RChunksExactMut, RChunksMut,
        SplitInclusive, SplitInclusiveMut, SplitMut, Windows,
    };
}

/// rayon's `str` module: the parallel string trait and its iterators.
pub mod str {
    pub use crate::iter::strings::*;
}

/// rayon's `string` module: the parallel drain of a `String`.
pub mod string {
    pub use crate::iter::StringDrain as Drain;
}

/// rayon's `vec` module: a `Vec`'s parallel iterator by value and its parallel drain.
pub mod vec {
    pub use crate::iter::{Drain, IntoIter};
}
pub use future::{block_on, spawn_future, spawn_with_handle, JoinHandle};
pub use hardware::Placement;
pub use isolate::isolate;
pub use join::{join, join_context, FnContext};
pub use policy::{LoadMeasure, LoadScope, ParsePolicyError, Policy, PolicyError};
pub use pool::ThreadPool;
pub use scope::{in_place_scope, in_place_scope_fifo, scope, scope_fifo, Scope, ScopeFifo};
pub use spawn::{spawn, spawn_fifo};
pub use stats::{PoolStats, WorkerStats};
pub use topology::{
    Neighbors, ParseTopologyError, Topology, TopologyError, TopologyGraph, MAX_NODES, MAX_WORKERS,
};
pub use trace::{EventKind, Trace, TraceEvent};
pub use yielding::{current_thread_has_pending_tasks, yield_local, yield_now, Yield};

/// The number of workers of the current pool (the global pool outside any pool).
pub fn current_num_threads() -> usize {
    let w = worker::WorkerThread::current();
    // SAFETY: the thread-local points to this thread's live worker, or is null.
    match unsafe { w.as_ref() } {
        Some(w) => w.registry.num_threads(),
        None => builder::global_registry().num_threads(),
    }
}

/// The index of the current worker in its pool, or `None` outside any pool.
pub fn current_thread_index() -> Option<usize> {
    let w = worker::WorkerThread::current();
    // SAFETY: the thread-local points to this thread's live worker, or is null.
    unsafe { w.as_ref() }.map(|w| w.index)
}

/// The largest pool this crate builds: [`ThreadPoolBuilder::num_threads`] and
/// `HYPERSTEAL_NUM_THREADS` accept 0 (one worker per core) up to this many workers
/// ([`MAX_WORKERS`], 1024; "one per core" is capped at it too).
///
/// Unlike rayon, which silently lowers a larger request to its maximum, asking for more is an
/// error that names the value and the limit ([`BuildError::TooManyThreads`]).
///
/// ```
/// let max = hypersteal::max_num_threads();
/// assert_eq!(max, hypersteal::MAX_WORKERS);
/// let err = hypersteal::ThreadPoolBuilder::new().num_threads(max + 1).build().unwrap_err();
/// assert!(matches!(err, hypersteal::ThreadPoolBuildError::TooManyThreads { .. }));
/// ```
pub fn max_num_threads() -> usize {
    MAX_WORKERS
}

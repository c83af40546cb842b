//! Who starts a pool's threads: [`ThreadBuilder`], the spawn strategies a
//! [`crate::ThreadPoolBuilder`] carries ([`DefaultSpawn`], [`CustomSpawn`]), and the count of
//! stopped workers that [`crate::ThreadPool::shutdown`] waits on when the threads are not ours to
//! join.

use crate::job::JobRef;
use crate::registry::Registry;
use crate::sync::deque::Worker;
use crate::sync::thread::JoinHandle;
use crate::sync::{Condvar, Mutex};
use std::fmt;
use std::io;
use std::sync::Arc;

/// One worker thread of a pool being built, handed to the closure given to
/// [`crate::ThreadPoolBuilder::spawn_handler`]. The closure starts a thread however it likes
/// (a thread of its own library, a scoped thread, a thread with a priority set) and calls
/// [`ThreadBuilder::run`] on it.
///
/// `run` must be called exactly once, on a thread that is not already a worker of some pool.
/// The build waits for every worker to report in: a `ThreadBuilder` dropped without being run,
/// or neither run nor dropped within [`SPAWN_HANDLER_DEADLINE`] (`mem::forget`), is a worker
/// that would never start, and the build fails with [`crate::BuildError::ThreadSpawn`] naming
/// it (a pool with such a worker would never finish a `broadcast`). The type cannot be cloned,
/// so it cannot be run twice.
pub struct ThreadBuilder {
    name: String,
    stack_size: Option<usize>,
    index: usize,
    /// Taken by `run`; still here when the builder is dropped unrun.
    deque: Option<Worker<JobRef>>,
    registry: Arc<Registry>,
}

impl fmt::Debug for ThreadBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ThreadBuilder")
            .field("index", &self.index)
            .field("name", &self.name)
            .field("stack_size", &self.stack_size)
            .finish_non_exhaustive()
    }
}

impl ThreadBuilder {
    pub(crate) fn new(
        name: String,
        stack_size: Option<usize>,
        index: usize,
        deque: Worker<JobRef>,
        registry: Arc<Registry>,
    ) -> Self {
        ThreadBuilder {
            name,
            stack_size,
            index,
            deque: Some(deque),
            registry,
        }
    }

    /// The worker's index in its pool (`0..num_threads`).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The name [`crate::ThreadPoolBuilder::thread_name`] gave this worker, or the default
    /// `hypersteal-{index}`. (rayon answers `None` when no name was set; here every worker
    /// has a name.)
    pub fn name(&self) -> Option<&str> {
        Some(&self.name)
    }

    /// The stack size asked for with [`crate::ThreadPoolBuilder::stack_size`], if any.
    pub fn stack_size(&self) -> Option<usize> {
        self.stack_size
    }

    /// Runs the worker on the calling thread until the pool is stopped and its work is done:
    /// pinning, the start handler, the scheduling loop, the exit handler. Call it on the new
    /// thread, once.
    ///
    /// # Panics
    ///
    /// If the calling thread is already a worker of a pool (it would run two workers at once).
    pub fn run(mut self) {
        assert!(
            crate::registry::WorkerThread::current().is_null(),
            "hypersteal: ThreadBuilder::run called on a thread that is already a pool worker"
        );
        let deque = self.deque.take().expect("a ThreadBuilder runs once");
        let registry = Arc::clone(&self.registry);
        let stopped = Arc::clone(&registry.stopped);
        let index = self.index;
        stopped.report(index, true);
        // Release this builder's hold on the registry before the loop, so that when the loop
        // returns, this thread holds nothing of the pool but `stopped`.
        drop(self);
        crate::worker::main_loop(deque, index, registry);
        stopped.add(1);
    }
}

impl Drop for ThreadBuilder {
    fn drop(&mut self) {
        if self.deque.is_some() {
            // Never run (a spawn handler that failed, panicked or dropped it): count the worker
            // as stopped, and as done with its exit handler, so that neither a failed build nor
            // `shutdown` waits for a thread that does not exist.
            self.registry.stopped.report(self.index, false);
            self.registry.worker_never_started();
        }
    }
}

/// How a pool's threads are started; the type parameter of [`crate::ThreadPoolBuilder`]. It is
/// sealed: the two strategies are [`DefaultSpawn`] and [`CustomSpawn`].
pub trait ThreadSpawn: sealed::Sealed {
    /// Starts one worker; returns its handle when the thread is the pool's to join.
    #[doc(hidden)]
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>>;

    /// Whether the build must check that every builder was run or dropped (a user's spawn
    /// handler may forget one; the default strategy always runs it).
    #[doc(hidden)]
    fn may_forget(&self) -> bool {
        false
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::DefaultSpawn {}
    impl<F> Sealed for super::CustomSpawn<F> {}
}

/// The default way to start a pool's threads: `std::thread::Builder` with the worker's name
/// and stack size; [`crate::ThreadPool::shutdown`] joins them.
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultSpawn;

impl ThreadSpawn for DefaultSpawn {
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>> {
        let name = thread.name.clone();
        crate::sync::thread::spawn_named(name, thread.stack_size, move || thread.run()).map(Some)
    }
}

/// Threads started by a closure of the user's ([`crate::ThreadPoolBuilder::spawn_handler`]).
pub struct CustomSpawn<F>(F);

impl<F> fmt::Debug for CustomSpawn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CustomSpawn(..)")
    }
}

impl<F> CustomSpawn<F> {
    pub(crate) fn new(f: F) -> Self {
        CustomSpawn(f)
    }
}

impl<F> ThreadSpawn for CustomSpawn<F>
where
    F: FnMut(ThreadBuilder) -> io::Result<()>,
{
    fn spawn(&mut self, thread: ThreadBuilder) -> io::Result<Option<JoinHandle<()>>> {
        (self.0)(thread).map(|()| None)
    }

    fn may_forget(&self) -> bool {
        true
    }
}

/// How long a build waits for a spawn handler's threads to report in (run their
/// `ThreadBuilder`, or drop it) before it gives up on a worker whose builder was neither run nor
/// dropped (`mem::forget`): the build then fails with [`crate::BuildError::ThreadSpawn`]
/// instead of hanging, or building a pool whose `broadcast` never returns.
pub const SPAWN_HANDLER_DEADLINE: std::time::Duration = std::time::Duration::from_secs(5);

/// How many of a pool's workers have left their loop: what [`crate::ThreadPool::shutdown`]
/// waits on when it has no handles to join (threads from a spawn handler); and which workers
/// have *reported in*: their `ThreadBuilder` ran or was dropped.
pub(crate) struct Stopped {
    state: Mutex<StoppedState>,
    changed: Condvar,
}

struct StoppedState {
    stopped: usize,
    /// Per worker: `None` until its builder ran (`Some(true)`) or was dropped unrun
    /// (`Some(false)`).
    reported: Vec<Option<bool>>,
}

impl Stopped {
    pub(crate) fn new(workers: usize) -> Self {
        Stopped {
            state: Mutex::new(StoppedState {
                stopped: 0,
                reported: vec![None; workers],
            }),
            changed: Condvar::new(),
        }
    }

    /// `n` more workers have stopped, or will never start.
    pub(crate) fn add(&self, n: usize) {
        self.state.lock().stopped += n;
        self.changed.notify_all();
    }

    /// Blocks until `n` workers have stopped.
    pub(crate) fn wait_for(&self, n: usize) {
        let mut state = self.state.lock();
        while state.stopped < n {
            self.changed.wait(&mut state);
        }
    }

    /// Worker `index`'s builder ran (`ran`) or was dropped unrun.
    pub(crate) fn report(&self, index: usize, ran: bool) {
        if let Some(r) = self.state.lock().reported.get_mut(index) {
            *r = Some(ran);
        }
        self.changed.notify_all();
    }

    /// Waits until every worker below `upto` has reported in, at most until `deadline`.
    /// Returns the workers whose builder was dropped unrun and those that have not reported
    /// (their builders were forgotten: the build gives up on them and marks them reported).
    pub(crate) fn unreported(
        &self,
        upto: usize,
        deadline: std::time::Instant,
    ) -> (Vec<usize>, Vec<usize>) {
        let mut state = self.state.lock();
        loop {
            let missing: Vec<usize> = (0..upto).filter(|&i| state.reported[i].is_none()).collect();
            let now = std::time::Instant::now();
            if missing.is_empty() || now >= deadline {
                for &i in &missing {
                    state.reported[i] = Some(false);
                }
                let dropped = (0..upto)
                    .filter(|&i| state.reported[i] == Some(false) && !missing.contains(&i))
                    .collect();
                return (dropped, missing);
            }
            self.changed.wait_for(&mut state, deadline - now);
        }
    }
}

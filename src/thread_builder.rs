//! Who starts a pool's threads: [`ThreadBuilder`], the spawn strategies a
//! [`crate::ThreadPoolBuilder`] carries ([`DefaultSpawn`], [`CustomSpawn`]), and the count of
//! stopped workers that [`crate::ThreadPool::shutdown`] waits on when the threads are not ours to
//! join.

use crate::config::{BuildError, Config};
use crate::job::JobRef;
use crate::registry::Registry;
use crate::sync::deque::Worker;
use crate::sync::thread::JoinHandle;
use crate::unwind;
use std::fmt;
use std::io;
use std::sync::Arc;
use std::time::Instant;

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
            crate::worker::WorkerThread::current().is_null(),
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

/// Builds a pool's registry and starts its workers, each through `spawn` (worker 0 is the
/// calling thread with `use_current_thread`). A failure to start any of them stops those
/// already started and waits for them, so a failed build leaves no thread behind.
pub(crate) fn start<S: ThreadSpawn>(
    mut config: Config,
    spawn: &mut S,
) -> Result<(Arc<Registry>, Vec<JoinHandle<()>>), BuildError> {
    let (registry, deques) = Registry::new(&mut config)?;
    let n = deques.len();
    let mut handles = Vec::with_capacity(n);
    let names = std::mem::take(&mut config.thread_names);
    // With `use_current_thread`, worker 0 is the calling thread, adopted below once every
    // other worker started. It runs no loop, so it counts as stopped (and done with its
    // exit handler, which does not run for it) from the start.
    let mut adopted_deque = None;
    if config.use_current_thread {
        registry.stopped.report(0, true);
        registry.worker_never_started();
    }
    for ((index, deque), name) in deques.into_iter().enumerate().zip(names) {
        if config.use_current_thread && index == 0 {
            adopted_deque = Some(deque);
            continue;
        }
        let thread =
            ThreadBuilder::new(name, config.stack_size, index, deque, Arc::clone(&registry));
        // A spawn handler that panics must not leave started workers behind either.
        let spawned = match unwind::halt_unwinding(|| spawn.spawn(thread)) {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(payload) => {
                let message = format!(
                    "the spawn handler panicked: {}",
                    unwind::payload_message(&payload)
                );
                unwind::drop_payload(payload);
                Err(message)
            }
        };
        match spawned {
            Ok(Some(h)) => handles.push(h),
            Ok(None) => {}
            Err(error) => {
                // The workers already started exit at once (nothing is outstanding); wait
                // for them, so a failed build leaves no thread behind. Those that never
                // started have no exit handler to wait for.
                // Worker `index` counts itself: its builder, if dropped unrun, or its
                // thread when it stops, if the handler started it before failing.
                let never_built = n - index - 1;
                registry.workers_never_built(never_built);
                registry.terminate();
                for h in handles {
                    let _ = h.join();
                }
                // A builder the handler neither ran nor dropped (`mem::forget`) never
                // counts itself: give up on it after the deadline.
                give_up_on_unreported(&registry, index + 1, &*spawn);
                registry.stopped.wait_for(n);
                return Err(BuildError::ThreadSpawn {
                    index,
                    stack_size: config.stack_size,
                    error,
                });
            }
        }
    }
    // Every worker must report in (its builder run or dropped): a pool with a worker that
    // never starts would hang its first `broadcast`.
    let (dropped, forgotten) = give_up_on_unreported(&registry, n, &*spawn);
    let failed = match (dropped.first(), forgotten.first()) {
        (Some(&i), _) => Some((
            i,
            "the spawn handler dropped this worker's ThreadBuilder without running it".to_string(),
        )),
        (None, Some(&i)) => Some((
            i,
            format!(
                "the spawn handler neither ran nor dropped this worker's ThreadBuilder within {:?}",
                SPAWN_HANDLER_DEADLINE
            ),
        )),
        (None, None) => None,
    };
    if let Some((index, error)) = failed {
        registry.terminate();
        for h in handles {
            let _ = h.join();
        }
        registry.stopped.wait_for(n);
        return Err(BuildError::ThreadSpawn {
            index,
            stack_size: config.stack_size,
            error,
        });
    }
    if let Some(deque) = adopted_deque {
        // Leaked on purpose (`ThreadPoolBuilder::use_current_thread`): the thread stays
        // worker 0 for the rest of its life.
        crate::worker::adopt(deque, Arc::clone(&registry));
    }
    Ok((registry, handles))
}

/// With a spawn handler that may forget a builder: waits (at most
/// [`SPAWN_HANDLER_DEADLINE`]) for the
/// workers below `upto` to report in, and counts those that did not as never started.
/// Returns the workers whose builder was dropped unrun and those whose builder was
/// forgotten.
fn give_up_on_unreported<S: ThreadSpawn>(
    registry: &Registry,
    upto: usize,
    spawn: &S,
) -> (Vec<usize>, Vec<usize>) {
    if !spawn.may_forget() {
        return (Vec::new(), Vec::new());
    }
    let deadline = Instant::now() + SPAWN_HANDLER_DEADLINE;
    let (dropped, forgotten) = registry.stopped.unreported(upto, deadline);
    for _ in &forgotten {
        registry.worker_never_started();
    }
    (dropped, forgotten)
}

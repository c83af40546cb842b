//! Futures and handles: CPU work handed to a pool from async code ([`spawn_future`]), a handle
//! to a spawned task's result ([`spawn_with_handle`], [`JoinHandle`]), and a future waited for
//! by a thread that keeps working for its pool meanwhile ([`block_on`]).
//!
//! # The handoff between a task and its handle
//!
//! The task and its [`JoinHandle`] share one `State` behind a lock: the result once the task
//! has ended (a value or the panic it raised), the waker of the last poll that found no result,
//! and whether the handle is gone. The task stores its result and takes the waker in **one**
//! critical section, then wakes outside it; a poll looks for the result and, finding none,
//! stores its waker in one critical section. So either the poll sees the result, or it stores
//! its waker before the task looks for one, and the task then wakes it: no wake-up is lost,
//! and no poll returns `Ready` without the result. (The loom model
//! `future::loom_tests::a_spawned_future_wakes_its_waiter` checks this on a real pool; its
//! broken variant `waker` wakes before storing the result, in two critical sections, and loom
//! finds the waiter asleep with the result stored and nobody left to wake it.)
//!
//! # `block_on` on a worker
//!
//! A worker that blocks on a future keeps running its pool's tasks, as a worker waiting in
//! `join` does: its waker sets a flag and wakes the worker through the sleep protocol
//! (`Sleep::notify_worker`, as a latch's setter does), and the worker waits for that flag with
//! its ordinary wait loop, whose sleep re-check probes it. It clears the flag *before* each
//! poll, so a wake-up that arrives during the poll makes the wait that follows return at once
//! and the future is polled again. Off a worker, the thread parks, and its waker unparks it.

use crate::latch::Probe;
use crate::registry::Registry;
use crate::sync::{broken, AtomicBool, Broken, Mutex, Ordering};
use crate::unwind;
use crate::worker::WorkerThread;
use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc as StdArc;
use std::task::{Context, Poll, Wake, Waker};

/// What a task and its handle share.
struct State<T> {
    /// The task's outcome, once it has ended; taken by the poll that returns it.
    result: Option<Result<T, Box<dyn Any + Send>>>,
    /// The outcome was taken: polling again is a misuse.
    taken: bool,
    /// The waker of the last poll that found no result.
    waker: Option<Waker>,
    /// The handle was dropped: nobody will take the outcome.
    detached: bool,
}

/// The shared half of a [`JoinHandle`].
struct Shared<T> {
    state: Mutex<State<T>>,
    /// The task's pool, whose panic handling gets a panic nobody will take.
    registry: StdArc<Registry>,
}

impl<T> Shared<T> {
    fn new(registry: StdArc<Registry>) -> Self {
        Shared {
            registry,
            state: Mutex::new(State {
                result: None,
                taken: false,
                waker: None,
                detached: false,
            }),
        }
    }

    /// The task's end: stores the outcome and wakes the waiting poll, if any (module docs).
    /// Returns the outcome back if the handle is gone, so that a panic nobody will see goes to
    /// the pool's panic handling instead.
    fn complete(
        &self,
        outcome: Result<T, Box<dyn Any + Send>>,
    ) -> Option<Result<T, Box<dyn Any + Send>>> {
        if broken(Broken::Waker) {
            // Test-only broken variant (docs/loom.md): wakes first, stores afterwards.
            let waker = self.state.lock().waker.take();
            if let Some(waker) = waker {
                waker.wake();
            }
            self.state.lock().result = Some(outcome);
            return None;
        }
        let waker = {
            let mut state = self.state.lock();
            if state.detached {
                return Some(outcome);
            }
            state.result = Some(outcome);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        None
    }
}

/// A handle to a task spawned with [`spawn_with_handle`] or [`spawn_future`] (or their
/// [`crate::ThreadPool`] forms): a [`Future`] of the task's result, which can also be waited
/// for without an executor ([`JoinHandle::join`]).
///
/// If the task panics, awaiting or joining the handle resumes the panic. Dropping the handle
/// does not cancel the task: it still runs, its result is dropped, and a panic goes to the
/// pool's panic handling as a [`crate::spawn`]'s would.
pub struct JoinHandle<T> {
    shared: StdArc<Shared<T>>,
}

impl<T> std::fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JoinHandle")
            .field("finished", &self.is_finished())
            .finish()
    }
}

impl<T> JoinHandle<T> {
    /// Whether the task has ended (its result is ready, or was already taken).
    pub fn is_finished(&self) -> bool {
        let state = self.shared.state.lock();
        state.result.is_some() || state.taken
    }

    /// Waits for the task and returns its result, resuming its panic if it panicked. On a
    /// worker of a pool the thread keeps running that pool's tasks while it waits (possibly
    /// this very task); elsewhere it blocks. The same as [`block_on`] of the handle.
    pub fn join(self) -> T {
        block_on(self)
    }
}

impl<T> Future for JoinHandle<T> {
    type Output = T;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let mut state = self.shared.state.lock();
        match state.result.take() {
            Some(outcome) => {
                state.taken = true;
                state.waker = None;
                drop(state);
                match outcome {
                    Ok(value) => Poll::Ready(value),
                    Err(payload) => unwind::resume_unwinding(payload),
                }
            }
            None => {
                assert!(
                    !state.taken,
                    "a JoinHandle polled after it returned its result"
                );
                match &mut state.waker {
                    Some(waker) if waker.will_wake(cx.waker()) => {}
                    slot => *slot = Some(cx.waker().clone()),
                }
                Poll::Pending
            }
        }
    }
}

impl<T> Drop for JoinHandle<T> {
    fn drop(&mut self) {
        let mut state = self.shared.state.lock();
        state.detached = true;
        state.waker = None;
        // A value nobody took is dropped here, outside the lock.
        let result = state.result.take();
        drop(state);
        // A panic the task ended with and nobody took goes where a `spawn`'s would, as it does
        // when the handle is dropped before the task ends (`Shared::complete`).
        if let Some(Err(payload)) = result {
            self.shared.registry.handle_task_panic(payload);
        }
    }
}

/// The task behind a handle, queued in `registry` as a `'static` spawn.
fn spawn_in<F, T>(registry: &StdArc<Registry>, f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let shared = StdArc::new(Shared::new(StdArc::clone(registry)));
    let task_shared = StdArc::clone(&shared);
    registry.spawn_static(move || {
        let outcome = unwind::halt_unwinding(f);
        if let Some(Err(payload)) = task_shared.complete(outcome) {
            // Nobody holds the handle: the panic goes where a `spawn`'s would.
            unwind::resume_unwinding(payload);
        }
    });
    JoinHandle { shared }
}

/// Spawns `f` into the current pool (the global pool outside any) as [`crate::spawn`] does,
/// and returns a [`JoinHandle`] to its result.
///
/// ```
/// let handle = hypersteal::spawn_with_handle(|| (1..=10u64).product::<u64>());
/// assert_eq!(handle.join(), 3_628_800);
/// ```
pub fn spawn_with_handle<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let worker = WorkerThread::current();
    // SAFETY: the thread-local points to this thread's live worker, or is null.
    match unsafe { worker.as_ref() } {
        Some(w) => spawn_in(&w.registry, f),
        None => spawn_in(crate::builder::global_registry(), f),
    }
}

/// Spawns `f` into the current pool (the global pool outside any) and returns a future of its
/// result, for async code that hands CPU work to the pool and awaits it without a channel. The
/// future works with any executor: it only stores the waker of its last poll and wakes it
/// when the task ends. A panic in `f` is resumed where the future is awaited.
///
/// ```
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let sum = pool.spawn_future(|| (1..=100u64).sum::<u64>());
/// // Any executor can await it; `block_on` is the pool's own.
/// assert_eq!(hypersteal::block_on(async { sum.await * 2 }), 10_100);
/// ```
pub fn spawn_future<F, T>(f: F) -> impl Future<Output = T> + Send + 'static
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    spawn_with_handle(f)
}

impl crate::ThreadPool {
    /// [`spawn_with_handle`] into this pool.
    pub fn spawn_with_handle<F, T>(&self, f: F) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        spawn_in(&self.registry, f)
    }

    /// [`spawn_future`] into this pool.
    pub fn spawn_future<F, T>(&self, f: F) -> impl Future<Output = T> + Send + 'static
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        self.spawn_with_handle(f)
    }

    /// Runs `future` to completion on a worker of this pool, which keeps running the pool's
    /// tasks whenever the future is pending ([`block_on`] inside [`crate::ThreadPool::install`]).
    pub fn block_on<F>(&self, future: F) -> F::Output
    where
        F: Future + Send,
        F::Output: Send,
    {
        self.install(|| block_on(future))
    }
}

/// The waker of a worker blocked on a future: a flag its wait probes, and the worker to wake.
struct WorkerWaker {
    woken: AtomicBool,
    registry: StdArc<Registry>,
    index: usize,
}

impl Wake for WorkerWaker {
    fn wake(self: StdArc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &StdArc<Self>) {
        // Release, then the sleep protocol's notification, as a latch's setter does: either the
        // worker's re-check sees the flag or the notification finds it asleep and wakes it.
        self.woken.store(true, Ordering::Release);
        self.registry.notify_latch_set(self.index);
    }
}

impl Probe for WorkerWaker {
    fn probe(&self) -> bool {
        self.woken.load(Ordering::Acquire)
    }
}

/// The waker of a thread outside every pool: a flag, and the thread to unpark.
struct ThreadWaker {
    woken: std::sync::atomic::AtomicBool,
    thread: std::thread::Thread,
}

impl Wake for ThreadWaker {
    fn wake(self: StdArc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &StdArc<Self>) {
        self.woken.store(true, std::sync::atomic::Ordering::Release);
        self.thread.unpark();
    }
}

/// Runs `future` to completion on the calling thread and returns its output.
///
/// On a worker of a pool, the worker keeps running that pool's tasks while the future is
/// pending, as it does while it waits in [`crate::join`] (and, inside [`crate::isolate`], only
/// the region's tasks); the future's waker wakes it. So a task can wait for async work (a
/// [`JoinHandle`], a channel's receive future) without taking a worker out of the pool, and a
/// future that waits for tasks of the same pool does not starve them. Elsewhere the thread
/// parks until the future's waker unparks it. The future is polled only on the calling thread.
///
/// A future that never wakes its waker blocks the caller for good, as in any executor. And
/// as with any wait that runs other tasks meanwhile, the caller's own continuation is below
/// whatever task it picked up: if that task itself blocks on a future that only the
/// caller's continuation would complete, both wait for good (on a pool of one, always).
/// Futures make such a cycle easy to write; the tasks a worker may pick up while it waits
/// can be restricted with [`crate::isolate`].
///
/// ```
/// let pool = hypersteal::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
/// let total = pool.install(|| {
///     let parts: Vec<_> = (0..4u64)
///         .map(|i| hypersteal::spawn_with_handle(move || i * 10))
///         .collect();
///     // This worker runs pool tasks (perhaps these very ones) while it waits.
///     hypersteal::block_on(async {
///         let mut total = 0;
///         for part in parts {
///             total += part.await;
///         }
///         total
///     })
/// });
/// assert_eq!(total, 60);
/// ```
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let worker = WorkerThread::current();
    // SAFETY: the thread-local points to this thread's live worker, or is null; the worker
    // outlives every frame its thread runs, this one included.
    match unsafe { worker.as_ref() } {
        Some(worker) => {
            let wake = StdArc::new(WorkerWaker {
                woken: AtomicBool::new(false),
                registry: StdArc::clone(&worker.registry),
                index: worker.index,
            });
            let waker = Waker::from(StdArc::clone(&wake));
            let mut cx = Context::from_waker(&waker);
            loop {
                // Cleared before the poll: a wake during the poll ends the next wait at once.
                wake.woken.store(false, Ordering::Relaxed);
                if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                    return output;
                }
                worker.wait_until(&*wake);
            }
        }
        None => {
            let wake = StdArc::new(ThreadWaker {
                woken: std::sync::atomic::AtomicBool::new(false),
                thread: std::thread::current(),
            });
            let waker = Waker::from(StdArc::clone(&wake));
            let mut cx = Context::from_waker(&waker);
            loop {
                wake.woken
                    .store(false, std::sync::atomic::Ordering::Relaxed);
                if let Poll::Ready(output) = future.as_mut().poll(&mut cx) {
                    return output;
                }
                while !wake.woken.load(std::sync::atomic::Ordering::Acquire) {
                    std::thread::park();
                }
            }
        }
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    //! Loom model of the handoff between a spawned task and its handle (module docs).

    use crate::sync::loom_check::{model, pool};

    /// Worker 0 blocks on the handle of a task it spawned; the task runs on either worker
    /// (popped by worker 0 while it waits, or stolen by worker 1). The waiter must end with the
    /// task's value: no lost wake-up (a deadlock otherwise), no early `Ready`.
    fn spawned_future() {
        let pool = pool(2);
        let value = pool.install(|| crate::block_on(crate::spawn_future(|| 7u32)));
        assert_eq!(value, 7);
        pool.shutdown();
    }

    #[test]
    fn a_spawned_future_wakes_its_waiter() {
        model(spawned_future);
    }

    /// Waking before the result is stored lets the waiter poll too early and store its
    /// waker again, which nobody then wakes.
    #[test]
    fn a_spawned_future_rejects_broken_variant() {
        use crate::sync::loom_check::{assert_rejected, DEADLOCK};
        use crate::sync::Broken;
        assert_rejected(
            Broken::Waker,
            "future::loom_tests::a_spawned_future_wakes_its_waiter",
            &[DEADLOCK],
        );
    }
}

//! The in-place flag: whether this thread's `join`s may run in place without looking at its
//! worker.
//!
//! A `join` runs both closures in place when nobody could take `b` (a pool of one) or when
//! [`PRIVATE_TASKS`] unstarted tasks already wait on the private stack below it. Deciding that
//! from the worker is a poll point (it also answers a pending request and, while some worker
//! is idle, promotes a task) and costs a chain of loads: the thread-local worker pointer, the
//! stack's length, the request cell, the idle count. At fine grain (fib with a join at every
//! call) that chain cost more than the call itself, and two workers ran fib(35) no faster than
//! one thread ran the plain function (0.95-0.97 of its time, `cargo run --release --example
//! joins 35 9`). So a `join` that finds it may run in place while nothing
//! is asked of its worker raises the worker's flag (`Exchange::in_place`), and the `join`s after
//! it read only that flag, through a thread-local pointer: two loads, no store, nothing
//! written that the next `join` must wait for.
//!
//! The flag stands for "nothing to do at a poll point": the stack holds [`PRIVATE_TASKS`]
//! tasks, no request is pending and no worker is idle. Each of the three is taken back by the
//! one who changes it (`README.md`, "The in-place flag", argues the orderings):
//!
//! - **the owner**, when a task leaves its own queues: every removal in `Tasks` (`tasks.rs`)
//!   lowers the flag ([`lower_own`]), so while it is up the stack still holds the tasks;
//! - **a thief**, after posting a request to the worker (`request_from`): it lowers the
//!   worker's flag, so the worker's next `join` polls and answers;
//! - **a worker going idle** when none was ([`lower_all`], from `block_requests`): it lowers
//!   every worker's flag, so the busy ones promote for it and wake a sleeper as before.
//!
//! The owner raises its flag ([`WorkerThread::poll_in_place`]) only at a `join` that runs in
//! place with no demand, then checks the request cell and the idle count again behind a
//! sequentially consistent fence, as the thief and the idler do behind theirs after their own
//! change: whichever fence comes second sees the other's change, so a request or an idle worker
//! is never left unseen with the flag up. While some worker is idle the flag stays down, and
//! every `join` polls, as it did before the flag existed.
//!
//! The worker of a pool of one keeps its flag up: nothing is ever asked of it (a removal from its
//! queues lowers the flag, and its next `join` raises it again). Under loom no worker of a
//! larger pool raises it: the models explore every poll point.
//!
//! # Sender-initiated workers
//!
//! Nobody asks a sender-initiated worker for anything: its poll points are for its heartbeat,
//! whose decisions send work to others. Its in-place `join`s count down to the next clock
//! reading (`place.rs`, `clock_poll`), and that countdown, a load and a store in every `join`,
//! made two workers run fine-grained fib(35) at 0.87-0.88 of the sequential time where the
//! stealing policies took 0.58-0.60 (`cargo run --release --example joins 35 15`, pinned,
//! 2-core VM, builds side by side). So a clock reading that finds [`PRIVATE_TASKS`] undecided
//! tasks on the stack and no worker hungry (`README.md`, "Hunger") raises the flag
//! ([`WorkerThread::raise_placing`]), and the `join`s after it neither count down nor read
//! the clock.
//!
//! While the flag is up the worker's **heartbeat is paused**: the stretch gathers no decision
//! credit and no standing steps (`policy::machine::Heartbeat::resume`, at the next poll point).
//! Decisions taken while every worker is busy mostly keep tasks where they are (a neighbour
//! that is busy too is not lighter), and a kept task waits in the standing queue, where only
//! the slower standing phase moves it; counting the paused stretch would spend the credit it
//! gathered, at the first poll point after it, on keeping the oldest, largest undecided tasks,
//! and the next hungry worker would be sent only the small ones made since (without the pause,
//! 0.71-0.74 of the sequential time under each sender-initiated policy in the run above).
//! Paused, the oldest undecided tasks wait on the stack until a worker is hungry, and the first
//! decision then sends it the largest, as a thief would steal it.
//!
//! The flag comes down by the first and third rules above: a task leaving the worker's queues,
//! and the first worker to turn hungry ([`lower_all`] from `wait::Hunger::begin`, after its
//! increment of `idle`). The raise is the same store, fence and second look at `idle` as
//! `poll_in_place`'s, so a hungry worker is never left unseen with the flag up, and the busy
//! worker's next `join` counts down to a reading as before.
//!
//! Every `join` reads the flag, whatever the pool: a thread that is no worker, or a worker
//! whose flag is down, goes on to look at its worker. One test for all keeps
//! the in-place path the `join`'s fall-through; with a byte for the pool of one tested first and
//! the flag second, one of the two paths jumped to the shared in-place code, and that alone took
//! fine-grained fib at one worker from 1.15 to 1.6 times the sequential time
//! (`cargo run --release --example joins 35 9`, 2-core VM).

use super::{Mode, WorkerThread, PAUSED, PRIVATE_TASKS};
use crate::registry::Registry;
use std::cell::Cell;
use std::ptr;
use std::sync::atomic::{fence, AtomicBool, Ordering};

/// The flag of every thread that is no worker: never raised.
static NEVER: AtomicBool = AtomicBool::new(false);

#[cfg(not(loom))]
crate::sync::thread_local! {
    static FLAG: Cell<*const AtomicBool> = const { Cell::new(ptr::addr_of!(NEVER)) };
}
#[cfg(loom)]
crate::sync::thread_local! {
    static FLAG: Cell<*const AtomicBool> = Cell::new(ptr::addr_of!(NEVER));
}

/// The current thread's flag.
#[inline(always)]
fn flag() -> &'static AtomicBool {
    // SAFETY: the pointer is `NEVER` or the flag of this thread's worker, in the worker's
    // registry (`Exchange::in_place`); `enter` sets it for as long as the thread is that worker,
    // whose `WorkerThread` keeps the registry alive, and `leave` resets it before the worker
    // goes (an adopted worker is leaked with its registry: it never goes).
    unsafe { &*FLAG.with(|f| f.get()) }
}

/// Whether the current thread's `join` may run in place without polling: its worker's flag is
/// up.
#[inline(always)]
pub(crate) fn allowed() -> bool {
    flag().load(Ordering::Relaxed)
}

/// A task left the current thread's own queues: lower its flag if it is up (only the owner
/// raises it, so a flag read down stays down for this thread; and a worker whose flag is never
/// raised, sender-initiated, writes nothing).
#[inline(always)]
pub(super) fn lower_own() {
    let flag = flag();
    if flag.load(Ordering::Relaxed) {
        flag.store(false, Ordering::Relaxed);
    }
}

/// The current thread becomes a worker in `mode`, whose flag is `own` (raised for good in a pool
/// of one).
pub(super) fn enter(own: &AtomicBool, mode: Mode) {
    FLAG.with(|f| f.set(own));
    if mode == Mode::Solo {
        own.store(true, Ordering::Relaxed);
    }
}

/// The current thread is no longer a worker.
pub(super) fn leave() {
    FLAG.with(|f| f.set(ptr::addr_of!(NEVER)));
}

/// A thief posted a request to `victim`: lower the victim's flag, after the fence that orders
/// the post before it.
pub(super) fn lower_for_request(registry: &Registry, victim: usize) {
    if cfg!(loom) {
        return;
    }
    fence(Ordering::SeqCst);
    registry.workers[victim]
        .exchange
        .in_place
        .store(false, Ordering::Relaxed);
}

/// A worker went idle while none was: lower every worker's flag, after the fence that orders
/// the idle count's increment before it ([`WorkerThread::count_idle`]).
pub(super) fn lower_all(registry: &Registry) {
    if cfg!(loom) {
        return;
    }
    fence(Ordering::SeqCst);
    for w in registry.workers.iter() {
        w.exchange.in_place.store(false, Ordering::Relaxed);
    }
}

impl WorkerThread {
    /// This stealing worker is now idle: count it in the pool's `idle` (SeqCst), and if it is
    /// the first, lower every worker's flag so that the busy ones poll and promote for it.
    pub(super) fn count_idle(&self) {
        if self.idle_count().fetch_add(1, Ordering::SeqCst) == 0 {
            lower_all(&self.registry);
        }
    }

    /// A stealing worker's `join` runs in place with its flag down: serve what is pending,
    /// then raise the flag if nothing is asked of this worker, and check again behind the fence
    /// (module docs). Out of line, as one call: with the serve and the raise as two calls in
    /// every `join`, the `join` saved one more register on each entry, and fine-grained fib at
    /// one worker, which never gets here, took 1.58 times the sequential time instead of 1.40
    /// (`cargo run --release --example joins 35 9`, builds differing only in this).
    #[cold]
    #[inline(never)]
    pub(super) fn poll_in_place(&self) {
        if self.exchange().pending() || self.demand() {
            self.serve();
        }
        if cfg!(loom) || self.demand() || self.stack().len() < PRIVATE_TASKS {
            return;
        }
        let own = &self.exchange().in_place;
        own.store(true, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        if self.exchange().pending() || self.demand() {
            own.store(false, Ordering::Relaxed);
        }
    }
}

impl WorkerThread {
    /// A sender-initiated worker's clock reading found enough undecided tasks on its stack:
    /// unless some worker is hungry, raise the flag, then look at `idle` again behind the fence
    /// (module docs, "Sender-initiated workers"). Under loom the flag stays down: every poll
    /// point is a heartbeat there.
    pub(super) fn raise_placing(&self) {
        if cfg!(loom) || self.demand() {
            return;
        }
        let own = &self.exchange().in_place;
        own.store(true, Ordering::Relaxed);
        fence(Ordering::SeqCst);
        if self.demand() {
            own.store(false, Ordering::Relaxed);
        } else {
            self.last_clock.set(PAUSED);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{allowed, lower_all, lower_for_request};
    use crate::worker::{WorkerThread, PAUSED};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// Spins until `cond` holds; panics after a minute (a watchdog, not a timing assertion).
    fn until(what: &str, cond: impl Fn() -> bool) {
        let start = Instant::now();
        while !cond() {
            assert!(start.elapsed() < Duration::from_secs(60), "never: {what}");
            std::hint::spin_loop();
        }
    }

    /// The current thread's worker (the closures below run on the worker that called them).
    fn me() -> &'static WorkerThread {
        // SAFETY: called only inside `install` on a worker of a pool that outlives the test's
        // use of the reference.
        unsafe { &*WorkerThread::current() }
    }

    /// Ends a spinning task however the test that made it ends (a failed assertion too).
    struct Stop<'a>(&'a AtomicBool);

    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }

    /// `join`s nested three deep, so that three `b`s wait on the private stack, around `inner`.
    fn three_deep(inner: impl FnOnce() + Send) {
        crate::join(|| crate::join(|| crate::join(inner, || ()), || ()), || ());
    }

    /// The flag goes up only at an in-place `join` while the other worker is busy, and comes
    /// down on each event that must make the worker poll again: a task leaving its queues, a
    /// worker going idle, a request.
    #[test]
    fn the_flag_is_up_only_while_nothing_is_asked() {
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(2)
            .pin_threads(false)
            .build()
            .unwrap();
        let done = Arc::new(AtomicBool::new(false));
        let spinning = Arc::clone(&done);
        let _stop = Stop(&done);
        pool.install(|| {
            // A worker whose thief withdrew publishes its next tasks eagerly: use that up.
            while me().eager.get() != 0 {
                crate::join(|| (), || ());
            }
            // Keep the other worker busy, so that nobody is idle.
            crate::spawn(move || {
                while !spinning.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            });
            until("the other worker busy", || {
                me().idle_count().load(Ordering::SeqCst) == 0
            });
            assert!(!allowed(), "no flag before an in-place join");
            three_deep(|| {
                assert_eq!(me().stack().len(), 3);
                // In place, nothing asked: the flag goes up.
                crate::join(|| (), || ());
                assert!(allowed(), "raised by an in-place join");
                // A task leaves the stack (and comes back): down.
                let newest = me().stack().pop_back().expect("three tasks");
                me().stack().push_back(newest);
                assert!(!allowed(), "lowered by a removal");
                // Up again; then each rule lowers it.
                crate::join(|| (), || ());
                assert!(allowed(), "raised again");
                lower_all(&me().registry);
                assert!(!allowed(), "lowered for an idle worker");
                crate::join(|| (), || ());
                assert!(allowed(), "raised once more");
                lower_for_request(&me().registry, me().index);
                assert!(!allowed(), "lowered for a request");
                // While a worker counts as idle, no join raises it (the count is raised by
                // hand: a real idler would take this worker's tasks and be busy again). The
                // first in-place join promotes the oldest task for the idler; the next join
                // pushes its `b`, three tasks again, and the one inside it promotes nothing
                // more (the public deque holds one): only the idle count keeps the flag down.
                me().idle_count().fetch_add(1, Ordering::SeqCst);
                crate::join(|| (), || ());
                assert_eq!(me().stack().len(), 2, "one task promoted for the idler");
                crate::join(
                    || {
                        assert_eq!(me().stack().len(), 3);
                        crate::join(|| (), || ());
                        assert!(!allowed(), "not raised while one is idle");
                    },
                    || (),
                );
                me().idle_count().fetch_sub(1, Ordering::SeqCst);
            });
        });
        assert!(!allowed(), "the caller is no worker");
    }

    /// A pool of two workers under a sender-initiated policy whose heartbeat grants no decision
    /// within a test (the longest, a second, and none banked at the start), so that nothing
    /// moves unless the test moves it.
    fn placing_pool() -> crate::ThreadPool {
        crate::ThreadPoolBuilder::new()
            .num_threads(2)
            .policy("acwn".parse().unwrap())
            .heartbeat(Duration::from_secs(1))
            .pin_threads(false)
            .build()
            .unwrap()
    }

    /// A sender-initiated worker raises its flag at a clock reading that finds three undecided
    /// tasks and nobody hungry, pausing its heartbeat; the first hungry worker's lowering and a
    /// task leaving the stack take it down, and no reading raises it while some worker is
    /// hungry.
    #[test]
    fn a_placing_worker_raises_its_flag_only_while_nobody_is_hungry() {
        let pool = placing_pool();
        let done = Arc::new(AtomicBool::new(false));
        let spinning = Arc::clone(&done);
        let _stop = Stop(&done);
        // Keep the other worker busy, so that nobody is hungry (from outside the pool: the job
        // goes to whichever worker is idle, not onto the stack of the one that runs the test).
        pool.spawn(move || {
            while !spinning.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
        pool.install(|| {
            until("the other worker busy", || {
                me().idle_count().load(Ordering::SeqCst) == 0
            });
            three_deep(|| {
                assert_eq!(me().stack().len(), 3);
                me().clock_poll();
                assert!(allowed(), "raised at a reading");
                assert_eq!(me().last_clock.get(), PAUSED, "the heartbeat paused");
                crate::join(|| (), || ());
                assert!(allowed(), "an in-place join leaves it up");
                // A worker turns hungry (counted by hand, as `Hunger::begin` counts it) and
                // lowers every flag; no reading raises it while the worker is hungry.
                me().idle_count().fetch_add(1, Ordering::SeqCst);
                lower_all(&me().registry);
                assert!(!allowed(), "lowered for a hungry worker");
                me().clock_poll();
                assert!(!allowed(), "not raised while a worker is hungry");
                assert_ne!(
                    me().last_clock.get(),
                    PAUSED,
                    "the pause ended at a reading"
                );
                me().idle_count().fetch_sub(1, Ordering::SeqCst);
                me().clock_poll();
                assert!(allowed(), "raised again");
                // A removal lowers it; a reading with two tasks left does not raise it.
                let newest = me().stack().pop_back().expect("three tasks");
                assert!(!allowed(), "lowered by a removal");
                me().clock_poll();
                assert!(!allowed(), "two tasks: not raised");
                me().stack().push_back(newest);
            });
        });
    }

    /// A `join` whose `b` was exposed (its entry on the stack became a ticket) takes `b` back
    /// through that entry, leaving nothing on the stack: a husk left there would count towards
    /// the in-place test.
    #[test]
    fn a_join_takes_back_its_exposed_b_without_leaving_a_husk() {
        let pool = placing_pool();
        pool.install(|| {
            let ran_b = AtomicBool::new(false);
            let ran_b = &ran_b;
            crate::join(
                || {
                    me().expose_all();
                    assert!(
                        me().stack().back().is_some_and(|job| job.is_ticket()),
                        "b exposed"
                    );
                },
                || assert!(!ran_b.swap(true, Ordering::Relaxed), "b ran twice"),
            );
            assert!(ran_b.load(Ordering::Relaxed), "b ran");
            assert_eq!(me().stack().len(), 0, "no husk left on the stack");
        });
    }
}

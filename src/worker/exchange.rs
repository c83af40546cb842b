//! Requests, answers and promotion: how a busy worker's private tasks reach idle workers under
//! the receiver-initiated policies. `README.md` beside this file argues why no task is lost or
//! run twice, why no wake-up is lost and why no wait deadlocks.
//!
//! Each worker has a **request cell**: [`NO_REQUEST`], [`BLOCKED`] (the owner is idle, so every
//! request fails at once), or the index of the one thief waiting for this worker's answer; and
//! an **answer slot** where a victim leaves its answer to this worker's own request.

use super::{Mode, WorkerThread};
use crate::job::JobRef;
use crate::policy::machine::Answer as Decision;
use crate::registry::cells::{BLOCKED, GOT, NO_REQUEST, REJECT, WAITING};
use crate::stats::bump;
use crate::sync::deque::Steal;
use crate::sync::{broken, Broken, Ordering};
use crate::trace::{EventKind, NO_PEER};

/// How long a thief waits for an answer before it withdraws its request (the victim is in a
/// stretch without poll points), in nanoseconds of the pool's clock. A bound in time, not in
/// polls: on a loaded machine each yield may cost a whole time slice, and a count of them
/// could hold a thief, which asks nobody else meanwhile, for as long as the victim's stretch.
#[cfg_attr(loom, allow(dead_code))]
const ANSWER_WAIT_NS: u64 = 1_000_000;
/// Under loom time does not pass: a thief withdraws after this many polls.
#[cfg(loom)]
const ANSWER_POLLS: u32 = 3;
/// The first polls spin; the rest yield.
#[cfg(not(loom))]
const ANSWER_SPINS: u32 = 64;
/// Under loom a spin is a yield too (`sync::spin_hint`), and the thief withdraws at its
/// `ANSWER_POLLS`-th poll, as the models expect.
#[cfg(loom)]
const ANSWER_SPINS: u32 = ANSWER_POLLS;

/// Tasks a worker publishes at once (as rayon publishes every task) after a thief starved
/// waiting for its answer: its tasks are coarse enough that the cost of publishing does not
/// matter, and a task hidden behind a long stretch without poll points leaves a worker idle.
pub(super) const EAGER_PUSHES: u32 = 64;

impl WorkerThread {
    /// A poll point found a request or an idle worker: answer the request; then, if somebody is
    /// still idle, promote the oldest private task to the public deque.
    #[cold]
    #[inline(never)]
    pub(super) fn serve(&self) {
        // A poll point runs inside user frames (a `join` whose `b` is on the private stack):
        // an unwind out of here would leave that `b` dangling, so none may pass.
        let guard = crate::unwind::AbortOnUnwind::new("a poll point's answer or promotion");
        self.serve_guarded();
        guard.disarm();
    }

    fn serve_guarded(&self) {
        crate::unwind::poll_fault_point();
        let exchange = self.exchange();
        let r = exchange.request.load(Ordering::Relaxed);
        if r < BLOCKED {
            self.answer(r);
        }
        // A starved thief is idle, so the demand signal brings this worker here at its next
        // poll point; from now on its next tasks are public at once.
        if exchange.starved.load(Ordering::Relaxed) {
            exchange.starved.store(false, Ordering::Relaxed);
            self.eager.set(EAGER_PUSHES);
            bump(&self.counters().starved, 1);
        }
        if self.stack().is_empty() {
            return;
        }
        let eager = self.eager.get();
        if eager != 0 {
            self.eager.set(eager - 1);
            self.promote();
        } else if self.demand() && self.deque.is_empty() {
            self.promote();
        }
    }

    /// Moves the oldest private task to the public deque and wakes a sleeper that may take it.
    pub(crate) fn promote(&self) {
        let stack = self.stack();
        let Some(job) = stack.pop_front() else { return };
        self.publish_load();
        bump(&self.counters().promoted, 1);
        self.record(EventKind::Promoted, NO_PEER, 0);
        self.deque.push(job);
        // Test-only broken variant (docs/loom.md): the promotion wakes nobody.
        if !broken(Broken::Promote) {
            self.registry.notify_new_job(self.index);
        }
    }

    /// Claims the request of thief `r` (unless it withdrew meanwhile) and answers it: the
    /// oldest private task, or a reject.
    fn answer(&self, r: usize) {
        let cell = &self.exchange().request;
        // The claim: exactly one of this CAS and the thief's withdrawal succeeds. Acquire pairs
        // with the thief's Release post, so its reset of the answer state is ordered before ours.
        if cell
            .compare_exchange(r, NO_REQUEST, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return;
        }
        let stack = self.stack();
        let give = {
            let mut machine = self.machine.borrow_mut();
            machine.answer(&self.env(), stack.len()) == Decision::Give
        };
        let thief = &self.registry.workers[r].exchange;
        let job = if give { stack.pop_front() } else { None };
        self.record(
            EventKind::RequestAnswered,
            r as u32,
            u32::from(job.is_some()),
        );
        match job {
            Some(job) => {
                self.publish_load();
                // SAFETY: the claim gives this worker the thief's slot until the store below;
                // the thief reads it only after seeing `GOT`.
                thief.slot.with_mut(|s| unsafe { *s = Some(job) });
                // Test-only broken variant (docs/loom.md): a Relaxed store publishes `GOT`
                // without the slot's write.
                let order = if broken(Broken::Answer) {
                    Ordering::Relaxed
                } else {
                    Ordering::Release
                };
                thief.state.store(GOT, order);
            }
            None => thief.state.store(REJECT, Ordering::Release),
        }
    }

    /// Going idle: make every request to this worker fail at once, answering (with a reject:
    /// the private stack is empty when a worker goes idle) a request already posted; count this
    /// worker idle.
    pub(super) fn block_requests(&self) {
        let cell = &self.exchange().request;
        loop {
            let r = cell.load(Ordering::Relaxed);
            debug_assert_ne!(r, BLOCKED, "blocked twice");
            if r < BLOCKED {
                self.answer(r);
                continue;
            }
            // Test-only broken variant (docs/loom.md): a plain store may overwrite a request
            // posted after the load above, and that thief waits for an answer forever.
            if broken(Broken::Block) {
                cell.store(BLOCKED, Ordering::Relaxed);
                break;
            }
            if cell
                .compare_exchange(NO_REQUEST, BLOCKED, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                break;
            }
        }
        self.count_idle();
    }

    /// Leaving the main loop for good: requests to this worker fail at once from now on
    /// (README, "Leaving"). A worker still in the idle state it started in is blocked already;
    /// an adopted worker (`use_current_thread`) never leaves `BLOCKED`.
    pub(super) fn retire(&self) {
        if self.mode == Mode::Stealing && !self.adopted && !self.starts_blocked.get() {
            self.block_requests();
        }
    }

    /// Busy again: accept requests. Only the owner leaves `BLOCKED`, so a plain store does.
    pub(super) fn unblock_requests(&self) {
        self.idle_count().fetch_sub(1, Ordering::SeqCst);
        self.exchange().request.store(NO_REQUEST, Ordering::Relaxed);
    }

    /// Whether a thief has waited long enough for an answer: [`ANSWER_WAIT_NS`] since it
    /// stopped spinning (`since`, set at the first call).
    #[cfg(not(loom))]
    fn answer_overdue(&self, _polls: u32, since: &mut Option<u64>) -> bool {
        let now = self.registry.now_ns();
        now.saturating_sub(*since.get_or_insert(now)) >= ANSWER_WAIT_NS
    }

    /// Under loom: after [`ANSWER_POLLS`] polls.
    #[cfg(loom)]
    fn answer_overdue(&self, polls: u32, _since: &mut Option<u64>) -> bool {
        polls >= ANSWER_POLLS
    }

    /// One request to `victim`: its public deque first, then its private stack through the
    /// request cell. This worker is idle (its own cell `BLOCKED`), so nobody waits for it while
    /// it waits: waits cannot form a cycle.
    pub(super) fn request_from(&self, victim: usize) -> Result<JobRef, bool> {
        let registry = &*self.registry;
        match registry.workers[victim].stealer.steal() {
            Steal::Success(job) => return Ok(job),
            Steal::Retry => return Err(true),
            Steal::Empty => {}
        }
        let own = self.exchange();
        let cell = &registry.workers[victim].exchange.request;
        own.state.store(WAITING, Ordering::Relaxed);
        // Release: the WAITING store above is ordered before the victim's answer.
        if cell.load(Ordering::Relaxed) != NO_REQUEST
            || cell
                .compare_exchange(NO_REQUEST, self.index, Ordering::Release, Ordering::Relaxed)
                .is_err()
        {
            // Idle, or another thief asked first.
            return Err(false);
        }
        // The victim may be running joins in place on its flag: make its next one poll.
        super::in_place::lower_for_request(registry, victim);
        let mut polls = 0u32;
        let mut yielding_since = None;
        let state = loop {
            let s = own.state.load(Ordering::Acquire);
            if s != WAITING {
                break s;
            }
            polls += 1;
            if polls < ANSWER_SPINS {
                crate::sync::spin_hint();
                continue;
            }
            if !self.answer_overdue(polls, &mut yielding_since) {
                answer_wait_yield();
                continue;
            }
            // Withdraw. If the victim claimed first, its answer is on its way: keep waiting.
            if broken(Broken::Withdraw) {
                // Test-only broken variant (docs/loom.md): a plain store cannot tell whether the
                // victim claimed the request; its answer is then never read.
                cell.store(NO_REQUEST, Ordering::Relaxed);
                return Err(false);
            }
            if cell
                .compare_exchange(self.index, NO_REQUEST, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
            {
                #[cfg(all(test, not(loom)))]
                probe::MOST_POLLS_BEFORE_WITHDRAW.fetch_max(polls, Ordering::Relaxed);
                bump(&self.counters().withdrawn, 1);
                registry.workers[victim]
                    .exchange
                    .starved
                    .store(true, Ordering::Relaxed);
                return Err(false);
            }
            crate::sync::yield_now();
        };
        if state == GOT {
            // SAFETY: the Acquire load of GOT makes the victim's write of the slot visible, and
            // nobody writes it again before this worker posts its next request.
            let job = own.slot.with_mut(|s| unsafe { (*s).take() });
            Ok(job.expect("an answer GOT carries a task"))
        } else {
            Err(false)
        }
    }
}

/// A yield while a thief waits for an answer. Test builds can make it slow, as on a loaded
/// machine where each yield may cost a whole time slice (`probe`).
#[inline]
fn answer_wait_yield() {
    #[cfg(all(test, not(loom)))]
    {
        let ms = probe::SLOW_YIELD_MS.load(Ordering::Relaxed);
        if ms > 0 {
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
    }
    crate::sync::yield_now();
}

/// Test builds only: what the answer wait's test needs to see into.
#[cfg(all(test, not(loom)))]
mod probe {
    use std::sync::atomic::{AtomicU32, AtomicU64};

    /// Each yield of an answer wait first sleeps this long (0: not at all).
    pub(super) static SLOW_YIELD_MS: AtomicU64 = AtomicU64::new(0);
    /// The most polls (spins and yields) an answer wait made before its thief withdrew.
    pub(super) static MOST_POLLS_BEFORE_WITHDRAW: AtomicU32 = AtomicU32::new(0);
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::{probe, ANSWER_SPINS};
    use crate::worker::WorkerThread;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    /// A thief that asked a worker whose stack was empty gets the `b` that worker's next `join`
    /// pushes: the join serves the pending request after its push, so the request is answered
    /// with `b` rather than rejected (and `b` then promoted to the public deque instead).
    #[test]
    fn a_pending_request_gets_the_b_a_join_pushes() {
        let pool = crate::ThreadPoolBuilder::new()
            .num_threads(2)
            .pin_threads(false)
            .build()
            .unwrap();
        let mut exercised = 0;
        let start = Instant::now();
        while exercised < 5 && start.elapsed() < Duration::from_secs(60) {
            let answered = pool.install(|| {
                // SAFETY: `install` runs this on a worker of `pool`, which outlives the call.
                let worker = unsafe { &*WorkerThread::current() };
                let home = worker.index;
                // A worker whose thief withdrew (on a loaded machine) publishes its next tasks
                // eagerly, which this test is not about: use that up first.
                while worker.eager.get() != 0 {
                    crate::join(|| (), || ());
                }
                // Wake the other worker with a task to take, then wait, in user code, until it
                // has asked this one (whose stack is empty).
                crate::spawn(|| ());
                let start = Instant::now();
                while !worker.exchange().pending() && start.elapsed() < Duration::from_millis(200) {
                    std::hint::spin_loop();
                }
                if !worker.exchange().pending() || worker.eager.get() != 0 {
                    return None;
                }
                let promoted = pool.stats().total().promoted;
                let started = AtomicBool::new(false);
                let ((), moved) = crate::join(
                    || {
                        let start = Instant::now();
                        while !started.load(Ordering::Acquire)
                            && start.elapsed() < Duration::from_secs(5)
                        {
                            std::hint::spin_loop();
                        }
                    },
                    || {
                        started.store(true, Ordering::Release);
                        crate::current_thread_index() != Some(home)
                    },
                );
                Some((moved, pool.stats().total().promoted - promoted))
            });
            if let Some((moved, promoted)) = answered {
                assert!(moved, "b stayed with the worker that made it");
                assert_eq!(
                    promoted, 0,
                    "b was promoted: the pending request was rejected"
                );
                exercised += 1;
            }
        }
        assert!(
            exercised > 0,
            "the idle worker never asked the busy one in 60 s"
        );
    }

    /// A thief's wait for an answer from a victim that runs user code without poll points ends
    /// after [`super::ANSWER_WAIT_NS`] of the pool's clock, however slow each of its yields is:
    /// with every yield taking 2 ms (a loaded machine), it withdraws after a yield or two. (A
    /// bound by count, 2,048 yields, held it for seconds, asking nobody else meanwhile.) In a
    /// child process, since the slow yields are process-wide.
    #[test]
    fn a_thief_waits_for_an_answer_by_time_not_by_count() {
        const VAR: &str = "HYPERSTEAL_ANSWER_WAIT_CHILD";
        if std::env::var_os(VAR).is_some() {
            probe::SLOW_YIELD_MS.store(2, Ordering::Relaxed);
            let pool = crate::ThreadPoolBuilder::new()
                .num_threads(2)
                .pin_threads(false)
                .build()
                .unwrap();
            // One worker runs user code with no poll point until the idle one has asked it,
            // waited and withdrawn (or 10 s passed); the idle one can only ask that worker.
            pool.install(|| {
                let start = Instant::now();
                while pool.stats().total().withdrawn == 0
                    && start.elapsed() < Duration::from_secs(10)
                {
                    std::hint::spin_loop();
                }
            });
            let withdrawn = pool.stats().total().withdrawn;
            let polls = probe::MOST_POLLS_BEFORE_WITHDRAW.load(Ordering::Relaxed);
            assert!(withdrawn > 0, "the idle worker never withdrew its request");
            assert!(
                polls <= ANSWER_SPINS + 4,
                "a wait took {polls} polls ({ANSWER_SPINS} spins, then 2-ms yields)"
            );
            return;
        }
        let (status, out) = crate::test_child::run_test_in_child(
            "worker::exchange::tests::a_thief_waits_for_an_answer_by_time_not_by_count",
            (VAR, "1"),
            Duration::from_secs(120),
        );
        assert!(status.success(), "{out}");
    }
}

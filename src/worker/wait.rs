//! Waiting: a worker that waits (for a `join`'s `b`, a scope, a cross-pool `install`, or, in
//! its main loop, termination) runs other work until its latch is set, and sleeps when it
//! finds none. One loop per mode:
//!
//! - [`WorkerThread::wait_stealing`] (receiver-initiated policies, and a pool of one): own
//!   work, the injector, then the policy's requests; after [`SEARCH_ROUNDS`] fruitless rounds
//!   and a quiet linger ([`QUIET_LINGER_NS`]: own work and the injector, other workers' public
//!   deques only now and then), sleep.
//! - [`WorkerThread::wait_placing`] (sender-initiated): placed tasks first (a task placed here
//!   runs here, as the policy decided), own work, the injector; before sleeping, take back an
//!   unstarted task the waiter waits for, then linger awake for about a heartbeat.
//! - [`WorkerThread::wait_deep`] (sender-initiated, past [`HELP_DEPTH`] nested waits): only
//!   what it waits for, taken back, and work from outside the pool; other work only as a
//!   rescue, once per rescue bound, so its stack grows at most that fast (`docs/sender.md`,
//!   "Deadlock freedom").
//! - [`WorkerThread::wait_isolated`] (inside `crate::isolate`, any policy): only the region's
//!   own tasks, from the worker's own queues and other workers' public deques, taken-back
//!   tasks and its broadcast share (`isolated.rs`).

use super::{in_place, Mode, WorkerThread, HELP_DEPTH, SEARCH_ROUNDS};
use crate::job::JobRef;
use crate::job::Ticket;
use crate::latch::Probe;
use crate::policy::machine;
use crate::registry::Registry;
use crate::sleep::Recheck;
use crate::stats::bump;
use crate::sync::deque::Steal;
use crate::sync::{broken, AtomicUsize, Broken, Ordering};
use crate::trace::{EventKind, NO_PEER};
use crate::unwind;
use std::cell::Cell;
use std::time::Duration;

/// How long an idle worker under a receiver-initiated policy, on a pool without an idle linger
/// of its own, keeps looking for work from outside the pool (the injector, its broadcast queue)
/// and its own queues after a fruitless search, yielding between looks, before it sleeps; it
/// counts from the start of the search or the last wake-up. It sends no requests meanwhile, so
/// the busy workers of a running computation are not asked again and again for tasks too small
/// to be worth handing over; but the next call of a loop called back to back from outside
/// finds it awake instead of waiting for a wake-up. Why no requests: with a linger that sent
/// them, `cargo run --release --example compat -- 15` on the 2-core development VM measured
/// `flat_map` with parallel inner loops at 2.3 times rayon's time, against 0.72 with this one.
/// Other workers' public deques (where a busy worker promotes tasks for idle ones) it looks at
/// only every [`QUIET_LOOK_NS`].
const QUIET_LINGER_NS: u64 = 50_000;

/// How often a worker in the quiet linger ([`QUIET_LINGER_NS`]) steals from the public deques
/// its policy reaches. A request of its that was rejected (its peer had nothing yet) makes the
/// peer promote a task at its next split, often a few microseconds later, while the worker
/// already lingers: without a look it took that task only at the linger's end, a large share
/// of a call that lasts a few hundred microseconds (a tree walk or a sort of 50,000 elements
/// called from outside a pool of two: the pool's trace shows the task promoted and taken).
/// Looking at every turn of the linger brings back what the quiet linger is for:
/// `flat_map` with parallel inner loops of 10 items went from 0.61 to 1.07 of rayon's time
/// (`cargo run --release --example compat -- 9`, 2-core development VM), the lingering worker
/// taking the 5-item halves its busy peer then waits for; a look every 3 or 10 µs kept it at
/// 0.51-0.65 (five runs), where it was without any look. What a look still costs: a small
/// task near the end of a loop that the lingering worker takes and its peer then waits for.
const QUIET_LOOK_NS: u64 = 10_000;

/// The longest a placing waiter lingers awake, yielding, before it sleeps (ns): one heartbeat,
/// but never more than this, so that a long heartbeat does not keep idle workers busy.
const LINGER_MAX_NS: u64 = 100_000;

/// What a waiter under a sender-initiated policy can take back: the unstarted tasks it waits for
/// (a `join`'s ticket, a scope's placed tasks). See `docs/sender.md`, "Deadlock freedom".
pub(crate) trait Reclaim {
    /// Takes back one unstarted task the waiter waits for and runs it on `worker`; returns
    /// whether it ran one.
    fn reclaim(&self, worker: &WorkerThread) -> bool;

    /// The sleep re-check: whether a task may have joined the set since [`Reclaim::reclaim`]
    /// last came back empty. Whoever adds to the set must notify the waiter afterwards
    /// (`Sleep::notify_worker`), so that either this sees the task or the waiter is woken.
    fn may_reclaim(&self) -> bool;
}

/// What an idle worker's search ended with.
pub(super) enum Found {
    /// A task to run.
    Job(JobRef),
    /// It took back and ran a task it was waiting for.
    Ran,
    /// The latch it waits for is set.
    LatchSet,
}

enum Acquired {
    Job(JobRef),
    /// A steal lost a race: try again before thinking of sleep.
    Contended,
    Nothing,
}

pub(super) fn steal_retrying(mut steal: impl FnMut() -> Steal<JobRef>) -> Option<JobRef> {
    loop {
        match steal() {
            Steal::Success(job) => return Some(job),
            Steal::Empty => return None,
            Steal::Retry => crate::sync::spin_hint(),
        }
    }
}

/// A placing waiter's place in the pool's `idle` count while it is hungry: added once by
/// [`Hunger::begin`], removed when the search ends, however it ends.
struct Hunger<'a> {
    idle: &'a AtomicUsize,
    registry: &'a Registry,
    counted: Cell<bool>,
}

impl Hunger<'_> {
    fn begin(&self) {
        // The first hungry worker lowers every in-place flag (behind `lower_all`'s fence), so
        // that the busy workers' joins poll again and feed it (`in_place.rs`).
        if !self.counted.replace(true) && self.idle.fetch_add(1, Ordering::Relaxed) == 0 {
            in_place::lower_all(self.registry);
        }
    }
}

impl Drop for Hunger<'_> {
    fn drop(&mut self) {
        if self.counted.get() {
            self.idle.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// An idle stretch's view of work it sees but may not take now (`README.md`, "Rescue"): when
/// it first saw some, so that it takes it once the pool's rescue bound has passed. Dropped at
/// the end of the search: a worker that saw such work and leaves without having rescued it
/// makes sure another idle worker will look at it (`Sleep::notify_rescuer`).
struct Rescue<'a> {
    worker: &'a WorkerThread,
    since: Cell<Option<u64>>,
    rescued: Cell<bool>,
}

impl<'a> Rescue<'a> {
    fn new(worker: &'a WorkerThread) -> Self {
        Rescue {
            worker,
            since: Cell::new(worker.rescue_since.get()),
            rescued: Cell::new(false),
        }
    }

    /// Such work is visible now: how long until it may be taken (zero: now).
    fn seen(&self) -> Duration {
        let registry = &*self.worker.registry;
        let now = registry.now_ns();
        let since = self.since.get().unwrap_or(now);
        self.since.set(Some(since));
        Duration::from_nanos((since + registry.rescue_ns).saturating_sub(now))
    }

    /// Nothing of the kind is visible: a later sighting starts a new bound.
    fn forget(&self) {
        self.since.set(None);
    }

    /// A search round's look: whether such work is `visible` now and its bound has passed
    /// since the worker first saw some (a round that sees none starts the bound anew).
    fn ready(&self, visible: bool) -> bool {
        if !visible {
            self.forget();
            return false;
        }
        self.seen() == Duration::ZERO
    }

    /// The sleep re-check's answer for work that may only be rescued.
    fn recheck(&self, visible: bool) -> Recheck {
        if !visible {
            self.forget();
            return Recheck::Nothing;
        }
        match self.seen() {
            Duration::ZERO => Recheck::Work,
            wait => Recheck::Until(wait),
        }
    }
}

impl Drop for Rescue<'_> {
    fn drop(&mut self) {
        let pending = self.since.get().filter(|_| !self.rescued.get());
        self.worker.rescue_since.set(pending);
        if pending.is_some() {
            self.worker.registry.sleep.notify_rescuer();
        }
    }
}

impl WorkerThread {
    /// Runs other work until `latch` is set.
    #[inline]
    pub(crate) fn wait_until<L: Probe>(&self, latch: &L) {
        if !latch.probe() {
            self.wait_cold(latch, None);
        }
    }

    /// Runs other work until `latch` is set. `reclaim` (sender-initiated policies) takes back
    /// unstarted tasks the waiter waits for.
    pub(crate) fn wait_reclaiming<L: Probe>(&self, latch: &L, reclaim: &dyn Reclaim) {
        if !latch.probe() {
            self.wait_cold(latch, Some(reclaim));
        }
    }

    #[cold]
    fn wait_cold<L: Probe>(&self, latch: &L, reclaim: Option<&dyn Reclaim>) {
        let depth = self.depth.get();
        self.depth.set(depth + 1);
        let guard = unwind::AbortOnUnwind::new("a worker's wait");
        // A pool of one under a sender-initiated policy waits the placing way too (its inbox is
        // real, if only the loom models place into it), and so does a waiter with tasks to take
        // back.
        // Inside an isolated region only the region's tasks may run here (`isolated.rs`; the
        // test-only broken variant waits as if outside it).
        if self.isolation.get() != 0 && !broken(Broken::Isolate) {
            self.wait_isolated(latch, reclaim);
        } else if self.mode == Mode::Placing && depth >= HELP_DEPTH {
            self.wait_deep(latch, reclaim);
        } else if self.sender || reclaim.is_some() {
            self.wait_placing(latch, reclaim);
        } else {
            self.wait_stealing(latch);
        }
        guard.disarm();
        self.depth.set(depth);
    }

    /// Receiver-initiated waiting (module docs).
    fn wait_stealing<L: Probe>(&self, latch: &L) {
        while !latch.probe() {
            // A worker that starts idle takes its first job inside an idle stretch, which ends
            // by counting it busy; taking one here would run it while others count it idle.
            if !self.starts_blocked.get() {
                if let Some(job) = self.pop_own().or_else(|| self.take_outside()) {
                    self.execute(job);
                    continue;
                }
            }
            if self.idle_stretch(|| self.search_stealing(latch)) {
                return;
            }
        }
    }

    fn search_stealing<L: Probe>(&self, latch: &L) -> Found {
        let mut rounds = 0;
        let mut since = self.registry.now_ns();
        // Past a fruitless search, lingering for work from outside the pool and, now and then,
        // other workers' public work (see `QUIET_LINGER_NS`).
        let mut quiet = false;
        let mut looked = since;
        let rescue = Rescue::new(self);
        loop {
            if latch.probe() {
                return Found::LatchSet;
            }
            if let Some(job) = self.pop_own().or_else(|| self.take_outside()) {
                return Found::Job(job);
            }
            if !quiet {
                match self.acquire_round() {
                    Acquired::Job(job) => return Found::Job(job),
                    Acquired::Contended => continue,
                    Acquired::Nothing => {}
                }
                if rescue.ready(self.rescue_visible(false)) {
                    if let Some(job) = self.take_rescue(&rescue) {
                        return Found::Job(job);
                    }
                }
                rounds += 1;
                // Two rounds, or as long as the pool's idle linger says.
                if rounds < SEARCH_ROUNDS || self.lingers(since, None) {
                    crate::sync::yield_now();
                    continue;
                }
                quiet = self.registry.linger_ns.is_none();
            }
            if quiet && self.lingers(since, Some(QUIET_LINGER_NS)) {
                let now = self.registry.now_ns();
                if now.saturating_sub(looked) >= QUIET_LOOK_NS {
                    looked = now;
                    // A task promoted for this worker after its last request (`QUIET_LOOK_NS`),
                    // counted and traced as a request that succeeded (`docs/stats.md`).
                    if let Some((victim, job)) = self.steal_public() {
                        let c = self.counters();
                        bump(&c.requests, 1);
                        bump(&c.requests_ok, 1);
                        self.record(EventKind::RequestSent, victim as u32, 0);
                        self.record(EventKind::Stolen, victim as u32, job.hops());
                        return Found::Job(job);
                    }
                }
                crate::sync::yield_now();
                continue;
            }
            quiet = false;
            rounds = 0;
            let asleep = self.trace_now();
            let slept = self.registry.sleep.sleep(self.index, || {
                if latch.probe() || self.work_visible(false) {
                    Recheck::Work
                } else {
                    rescue.recheck(self.rescue_visible(false))
                }
            });
            if slept {
                bump(&self.counters().sleeps, 1);
                self.record_sleep(asleep);
            }
            // Woken: the linger (the pool's, or the quiet one) counts from here, so that a
            // worker woken for work another worker took stays awake for the next.
            since = self.registry.now_ns();
        }
    }

    /// Whether an idle worker that began looking at `since` (pool clock) keeps looking, yielding,
    /// rather than sleep: for the pool's idle linger if one is set, else for `otherwise` (ns;
    /// `None`: no longer). Under loom time does not pass, so nobody lingers.
    pub(super) fn lingers(&self, since: u64, otherwise: Option<u64>) -> bool {
        !cfg!(loom)
            && self
                .registry
                .linger_ns
                .or(otherwise)
                .is_some_and(|linger| self.registry.now_ns().saturating_sub(since) < linger)
    }

    /// After a sleep: with an idle linger set, the worker lingers again before its next sleep
    /// (a wake-up for work another worker took would otherwise leave it asleep at once, and the
    /// pool with one worker awake). Without one, the built-in rule counts from the search's
    /// start.
    pub(super) fn relinger(&self, since: &mut u64) {
        if self.registry.linger_ns.is_some() {
            *since = self.registry.now_ns();
        }
    }

    /// Sender-initiated waiting (module docs).
    fn wait_placing<L: Probe>(&self, latch: &L, reclaim: Option<&dyn Reclaim>) {
        while !latch.probe() {
            if let Some(job) = self
                .take_placed()
                .or_else(|| self.pop_own())
                .or_else(|| self.take_outside())
            {
                self.execute(job);
                continue;
            }
            if self.idle_stretch(|| self.search_placing(latch, reclaim, false)) {
                return;
            }
        }
    }

    /// The deep waiter (module docs): it only takes back what it waits for, or runs work from
    /// outside the pool, and otherwise sleeps until its latch is set. Every task it could wait
    /// for can be taken back while unstarted, so this cannot deadlock. Its own queued tasks
    /// (which other workers may rescue meanwhile), and then other workers' exposed tasks, it
    /// runs only when they have waited for the rescue bound (`README.md`, "Rescue").
    fn wait_deep<L: Probe>(&self, latch: &L, reclaim: Option<&dyn Reclaim>) {
        while !latch.probe() {
            if reclaim.is_some_and(|r| r.reclaim(self)) {
                continue;
            }
            if let Some(job) = self.take_outside() {
                self.execute(job);
                continue;
            }
            if self.idle_stretch(|| self.search_placing(latch, reclaim, true)) {
                return;
            }
        }
    }

    /// The placing waiters' search: their own sources a few times, then (rather than sleep while
    /// a task it waits for sits unstarted somewhere) take one back, then linger for about a
    /// heartbeat (at most [`LINGER_MAX_NS`]), then sleep. Trying to take back only after the
    /// search gives the worker the task was placed on the first chance. Lingering matters
    /// because a placing worker cannot ask for work: it can only be sent some, at most once per
    /// heartbeat by each busy worker, and a task that finds it asleep pays a wake-up first
    /// (measured in `docs/sender.md`). Work the policy does not send it, it rescues once the
    /// rescue bound has passed (`README.md`, "Rescue"); a deep waiter its own tasks first.
    fn search_placing<L: Probe>(
        &self,
        latch: &L,
        reclaim: Option<&dyn Reclaim>,
        deep: bool,
    ) -> Found {
        let mut rounds = 0;
        let mut since = self.registry.now_ns();
        // Counted in `idle` from the start of the linger until the search ends (README,
        // "Hunger"). A deep waiter counts too: busy workers then expose what they keep, and it
        // runs that (or what they send it) once the rescue bound has passed.
        let hunger = Hunger {
            idle: self.idle_count(),
            registry: &self.registry,
            counted: Cell::new(false),
        };
        let rescue = Rescue::new(self);
        loop {
            if latch.probe() {
                return Found::LatchSet;
            }
            let own = if deep {
                None
            } else {
                self.take_placed().or_else(|| self.pop_own())
            };
            if let Some(job) = own.or_else(|| self.take_outside()) {
                return Found::Job(job);
            }
            if rescue.ready(self.rescue_visible(deep)) {
                let rescued = if deep {
                    self.take_own_late(&rescue)
                        .or_else(|| self.take_rescue(&rescue))
                } else {
                    self.take_rescue(&rescue)
                };
                if let Some(job) = rescued {
                    return Found::Job(job);
                }
            }
            rounds += 1;
            if rounds < SEARCH_ROUNDS {
                crate::sync::yield_now();
                continue;
            }
            if reclaim.is_some_and(|r| r.reclaim(self)) {
                return Found::Ran;
            }
            // A waiter with nothing to do is hungry from here on: busy workers then decide each
            // task they push at once (README, "Hunger"), so work comes while it lingers.
            hunger.begin();
            // Linger (yielding) for about one heartbeat before sleeping: a busy worker's next
            // decision may send work here, and catching it awake saves a sleep and a wake-up.
            if !deep && self.lingers(since, Some(self.registry.heartbeat_ns.min(LINGER_MAX_NS))) {
                crate::sync::yield_now();
                continue;
            }
            rounds = 0;
            // The re-check also asks whether a task joined the set the waiter may take back
            // (a scope task that spawned a sibling): its spawner notified us after adding it.
            let asleep = self.trace_now();
            let slept = self.registry.sleep.sleep(self.index, || {
                if latch.probe()
                    || self.work_visible(deep)
                    || reclaim.is_some_and(|r| r.may_reclaim())
                {
                    Recheck::Work
                } else {
                    rescue.recheck(self.rescue_visible(deep))
                }
            });
            if slept {
                bump(&self.counters().sleeps, 1);
                self.record_sleep(asleep);
            }
            self.relinger(&mut since);
        }
    }

    /// Records a sleep that began at `asleep` and a wake-up now, if tracing.
    pub(super) fn record_sleep(&self, asleep: u64) {
        if self.tracing() || cfg!(feature = "tracing") {
            self.record_at(asleep, EventKind::Sleep, NO_PEER, 0);
            self.record(EventKind::Wake, NO_PEER, 0);
        }
    }

    /// An idle stretch, the same in every mode: the policy learns that the worker is idle, the
    /// counters time the stretch, a receiver-initiated worker blocks its request cell
    /// (`exchange.rs`) while `search` runs, and what the search found runs afterwards. Returns
    /// whether the latch is set.
    pub(super) fn idle_stretch(&self, search: impl FnOnce() -> Found) -> bool {
        let registry = &*self.registry;
        let since = registry.now_ns();
        self.record_at(since, EventKind::IdleBegin, NO_PEER, 0);
        let reclaimed_before = self.reclaimed_ns.get();
        self.counters()
            .idle_since
            .store(since + 1, Ordering::Relaxed);
        self.machine.borrow_mut().idle(&self.env());
        let stealing = self.mode == Mode::Stealing;
        // A worker still in the idle state it started in is blocked and counted already. An
        // adopted worker's cell stays blocked for good; it is counted idle while it waits
        // (`adopt`).
        if stealing && self.adopted {
            self.count_idle();
        } else if stealing && !self.starts_blocked.replace(false) {
            self.block_requests();
        }
        let found = search();
        if stealing && self.adopted {
            self.idle_count().fetch_sub(1, Ordering::SeqCst);
        } else if stealing {
            self.unblock_requests();
        }
        self.machine.borrow_mut().busy(&self.env());
        // Clear the start before adding the stretch, Release: see `Counters::snapshot`.
        let c = self.counters();
        c.idle_since.store(0, Ordering::Relaxed);
        // Tasks the search took back and ran were work, not idleness (their own waits counted
        // their own idle stretches).
        let working = self.reclaimed_ns.get() - reclaimed_before;
        let now = registry.now_ns();
        let idle =
            c.idle_ns.load(Ordering::Relaxed) + now.saturating_sub(since).saturating_sub(working);
        c.idle_ns.store(idle, Ordering::Release);
        self.record_at(now, EventKind::IdleEnd, NO_PEER, 0);
        match found {
            Found::Job(job) => {
                self.execute(job);
                false
            }
            Found::Ran => false,
            Found::LatchSet => true,
        }
    }

    /// A task from outside the pool.
    fn take_injected(&self) -> Option<JobRef> {
        let job = steal_retrying(|| self.registry.injector.steal())?;
        // SB: a worker that obtains work is a donor (this is how the root's holder joins).
        let env = self.env();
        self.machine.borrow_mut().busy(&env);
        Some(job)
    }

    /// Work every waiter takes, the deep waiter included: a job from outside the pool, or a
    /// broadcast job for this worker (`broadcast.rs`). A broadcast waits for every worker, so a
    /// waiter that ignored it could block the broadcaster, and through it a task the waiter
    /// waits for.
    pub(super) fn take_outside(&self) -> Option<JobRef> {
        self.take_injected()
            .or_else(|| steal_retrying(|| self.registry.workers[self.index].broadcasts.steal()))
    }

    /// A task placed in the own inbox that stays here (sender-initiated policies).
    pub(super) fn take_placed(&self) -> Option<JobRef> {
        let queue = &self.registry.workers[self.index].inbox;
        while let Some(job) = steal_retrying(|| queue.steal()) {
            if let Some(job) = self.receive(job) {
                return Some(job);
            }
        }
        None
    }

    /// One round of the policy's acquire step: requests to the victims it chooses.
    fn acquire_round(&self) -> Acquired {
        let registry = &*self.registry;
        if self.mode != Mode::Stealing {
            return Acquired::Nothing;
        }
        let env = self.env();
        let mut machine = self.machine.borrow_mut();
        let requests = machine::start_round(&mut **machine, &env);
        let mut contended = false;
        let c = self.counters();
        for _ in 0..requests {
            let Some(victim) = machine.next_victim(&env) else {
                break;
            };
            debug_assert!(victim != self.index && victim < registry.num_threads());
            bump(&c.requests, 1);
            self.record(EventKind::RequestSent, victim as u32, 0);
            match self.request_from(victim) {
                Ok(job) => {
                    bump(&c.requests_ok, 1);
                    self.record(EventKind::Stolen, victim as u32, job.hops());
                    return Acquired::Job(job);
                }
                Err(true) => {
                    self.record(EventKind::RequestRejected, victim as u32, 0);
                    contended = true;
                }
                Err(false) => {
                    self.record(EventKind::RequestRejected, victim as u32, 0);
                    machine.request_failed(&env, victim);
                }
            }
        }
        if contended {
            Acquired::Contended
        } else {
            Acquired::Nothing
        }
    }

    /// The sleep re-check: is there anything this worker could act on now? Private stacks of
    /// other workers are not looked at: a busy worker that sees idle workers promotes or
    /// exposes work to its public deque and wakes one (README, "Promotion", "Rescue"). Work
    /// in a public deque the policy does not let this worker ask for is not counted here but
    /// by [`WorkerThread::rescue_visible`].
    fn work_visible(&self, deep: bool) -> bool {
        let registry = &*self.registry;
        // Termination is not work: the main loop waits for it as its latch, which the re-check
        // probes first, and no other wait ends with it.
        if !registry.injector.is_empty()
            || !registry.workers[self.index].broadcasts.is_empty()
            || (!deep
                && ((self.mode != Mode::Placing && !self.deque.is_empty())
                    || self.waiting() != 0
                    || (!broken(Broken::Inbox) && !registry.workers[self.index].inbox.is_empty())))
        {
            return true;
        }
        if self.mode != Mode::Stealing {
            return false;
        }
        // The policy decides what is worth waking for: the same victims its searches may ask.
        let env = self.env();
        let machine = self.machine.borrow();
        machine::worth_waking(&**machine, &env, 0..registry.num_threads(), |w| {
            !registry.workers[w].stealer.is_empty()
        })
    }

    /// Whether work this worker may rescue is visible: a task in another worker's public
    /// deque, or, under a sender-initiated policy, an exposed copy in its own (the task may
    /// have been placed on a worker that is blocked); for a deep waiter, its own queued tasks too
    /// (`README.md`, "Rescue").
    fn rescue_visible(&self, deep: bool) -> bool {
        let registry = &*self.registry;
        if deep && (self.waiting() != 0 || !registry.workers[self.index].inbox.is_empty()) {
            return true;
        }
        (self.mode == Mode::Placing && !self.deque.is_empty())
            || (0..registry.num_threads())
                .any(|w| w != self.index && !registry.workers[w].stealer.is_empty())
    }

    /// A rescue: a task from any other worker's public deque, whatever the policy says (its
    /// bound has passed). Copies of tasks that already ran elsewhere (husks) are dropped.
    fn take_rescue(&self, rescue: &Rescue<'_>) -> Option<JobRef> {
        let registry = &*self.registry;
        let p = registry.num_threads();
        for w in (self.index + 1..p).chain(0..self.index) {
            let live = |job| {
                // SAFETY: the job was just stolen; this worker owns it.
                unsafe { Ticket::unless_husk(job) }
            };
            let steal = || steal_retrying(|| registry.workers[w].stealer.steal());
            if let Some(job) = std::iter::from_fn(steal).find_map(live) {
                rescue.rescued.set(true);
                bump(&self.counters().rescued, 1);
                self.record(EventKind::Rescued, w as u32, job.hops());
                return Some(job);
            }
        }
        // Under a sender-initiated policy, last, the copies of the worker's own tasks: one the
        // policy placed on a worker that does not run it. Its own task moves nowhere, so it is
        // not counted in `rescued`, which counts transfers.
        if self.mode != Mode::Placing {
            return None;
        }
        let job = self.pop_own_copy()?;
        rescue.rescued.set(true);
        Some(job)
    }

    /// A deep waiter's own queued tasks, once they have waited for the rescue bound without
    /// another worker taking them: it runs them itself rather than leave them (and whoever
    /// waits for them) stranded.
    fn take_own_late(&self, rescue: &Rescue<'_>) -> Option<JobRef> {
        let job = self
            .take_placed()
            .or_else(|| self.pop_own())
            .or_else(|| self.pop_own_copy())?;
        rescue.rescued.set(true);
        Some(job)
    }
}

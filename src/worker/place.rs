//! The sender-initiated side: a poll point runs the policy's allocating phase for the oldest
//! waiting tasks no decision has seen, one per heartbeat's credit, then its standing phase for the
//! oldest waiting task once per heartbeat that passed (`policy::machine::Heartbeat`,
//! `allocating_beat`, `standing_beat`); placed tasks travel as [`Ticket`]s so their waiters can
//! take them back (`docs/sender.md`).

use super::{
    WorkerThread, HUNGRY_JOIN_POLLS_PER_CLOCK, JOIN_POLLS_PER_CLOCK, PAUSED, PRIVATE_TASKS,
};
use crate::job::{JobRef, Ticket};
use crate::policy::machine::{self, BeatSteps};
use crate::stats::bump;
use crate::sync::Ordering;
use crate::trace::EventKind;
use crate::unwind;

/// Tasks at the front of each own queue a hungry poll point looks at to expose (`expose_waiting`).
const EXPOSE_SCAN: usize = 8;

/// A worker's poll point as [`machine::Heartbeat::run`] drives it.
struct Steps<'a>(&'a WorkerThread);

impl BeatSteps for Steps<'_> {
    fn undecided(&mut self) -> bool {
        self.0.undecided()
    }
    fn allocate(&mut self) {
        self.0.allocate();
    }
    fn stand(&mut self) {
        self.0.stand();
    }
}

impl WorkerThread {
    /// A join poll point whose countdown ran out: adapt the stride to the joins' grain (about
    /// two clock readings per heartbeat, at most one per [`JOIN_POLLS_PER_CLOCK`] joins; every
    /// join under loom, whose models explore each decision point), then run the heartbeat with
    /// the time just read. The stride at most doubles per reading: a burst of fast joins (a
    /// recursion's first descent, fourteen pushes with no work between them) would otherwise
    /// set it to the bound, and at coarse grain the next reading, and with it every decision,
    /// came that many joins later (64 were about a millisecond at fib(34) with a join above
    /// n = 20, when the bound was 64). While some worker is hungry the bound is
    /// [`HUNGRY_JOIN_POLLS_PER_CLOCK`]: joins that run in place test no demand signal.
    #[cold]
    #[inline(never)]
    pub(super) fn clock_poll(&self) {
        // Inside user frames, as every poll point: no unwind may pass (`serve`).
        let guard = unwind::AbortOnUnwind::new("a poll point's heartbeat");
        self.clock_poll_guarded();
        guard.disarm();
    }

    fn clock_poll_guarded(&self) {
        let registry = &*self.registry;
        let now = registry.now_ns();
        let last = self.last_clock.replace(now);
        if last == PAUSED {
            // The flag was up since the last reading: that stretch says nothing about the
            // joins' grain, and the heartbeat did not run in it (`in_place.rs`).
            self.resume_beat(now);
            self.countdown.set(self.stride.get() - 1);
        } else {
            self.adapt_stride(now.saturating_sub(last).max(1));
        }
        self.heartbeat(now);
        // Nobody hungry and enough undecided tasks below: the joins after this one run in
        // place without counting down (`in_place.rs`, "Sender-initiated workers").
        if self.stack().len() >= PRIVATE_TASKS {
            self.raise_placing();
        }
    }

    /// Sets the join countdown's stride from the time `elapsed` since the last clock reading.
    fn adapt_stride(&self, elapsed: u64) {
        let registry = &*self.registry;
        let per_half_beat =
            u64::from(self.stride.get()) * (registry.heartbeat_ns / 2).max(1) / elapsed;
        let stride = if cfg!(loom) {
            1
        } else {
            let bound = if self.demand() {
                HUNGRY_JOIN_POLLS_PER_CLOCK
            } else {
                JOIN_POLLS_PER_CLOCK
            };
            per_half_beat
                .min(2 * u64::from(self.stride.get()))
                .clamp(1, u64::from(bound)) as u32
        };
        self.stride.set(stride);
        self.countdown.set(stride - 1);
    }

    /// The heartbeat starts again at `now` after a stretch with the in-place flag up, which
    /// does not count (`Heartbeat::resume`).
    fn resume_beat(&self, now: u64) {
        let mut beat = self.beat.get();
        beat.resume(now);
        self.beat.set(beat);
    }

    /// A poll point under a sender-initiated policy: the heartbeats that passed since the last
    /// one (`policy::machine::Heartbeat`): the allocating phase for undecided tasks, oldest first,
    /// while its credit lasts, then the standing phase once per heartbeat passed.
    #[cold]
    #[inline(never)]
    pub(super) fn heartbeat(&self, now: u64) {
        // Inside user frames, as every poll point: no unwind may pass (`serve`).
        let guard = unwind::AbortOnUnwind::new("a poll point's heartbeat");
        self.heartbeat_guarded(now);
        guard.disarm();
    }

    fn heartbeat_guarded(&self, now: u64) {
        unwind::poll_fault_point();
        // Under loom every poll point is a heartbeat: the models explore every decision point
        // instead of depending on the clock.
        if cfg!(loom) {
            self.allocate();
            self.stand();
            return;
        }
        if self.last_clock.get() == PAUSED {
            // A poll point other than a join's (a spawn, a push while someone is hungry) ends
            // the pause too.
            self.last_clock.set(now);
            self.resume_beat(now);
        }
        let mut beat = self.beat.get();
        beat.run(now, self.registry.heartbeat_ns, &mut Steps(self));
        self.beat.set(beat);
    }

    /// A poll point while some worker is hungry (`README.md`, "Hunger"): the heartbeat at the
    /// time read now, whose credit still bounds the allocating phase, then one standing step
    /// more, the demand standing in for the clock: a standing task can leave before a long
    /// stretch without poll points rather than after it.
    #[cold]
    #[inline(never)]
    pub(super) fn hungry_poll(&self) {
        let guard = unwind::AbortOnUnwind::new("a poll point's placement");
        self.heartbeat(self.registry.now_ns());
        self.stand();
        self.expose_waiting();
        guard.disarm();
    }

    /// While some worker is hungry, every task this worker keeps waiting is *exposed*: it
    /// becomes a ticket with a copy in the public deque, which a hungry worker takes once the
    /// rescue bound has passed without a decision sending it work (`README.md`, "Rescue"). A
    /// task exposed once stays a ticket, so this only wraps the tasks made since the last time;
    /// a `join`'s `b` records its ticket, so its frame takes it back or waits for it.
    ///
    /// Only the oldest [`EXPOSE_SCAN`] tasks of each queue are looked at, so that a poll point
    /// costs the same whatever the queues hold (a scope body that spawns 100,000 tasks while a
    /// worker is hungry polls at every spawn); spawns are exposed when made anyway.
    fn expose_waiting(&self) {
        self.expose_oldest(EXPOSE_SCAN);
    }

    /// Exposes every task this worker keeps waiting (an isolated waiter's tasks from outside
    /// its region, `isolated.rs`).
    pub(super) fn expose_all(&self) {
        self.expose_oldest(usize::MAX);
    }

    /// Exposes the oldest `scan` tasks of each own queue that are not tickets yet.
    fn expose_oldest(&self, scan: usize) {
        for queue in [self.standing(), self.stack()] {
            for i in 0..queue.len().min(scan) {
                let Some(job) = queue.get(i) else { break };
                if job.is_ticket() {
                    continue;
                }
                let ticket = Ticket::new(job);
                let queued = Ticket::job_ref(&ticket);
                if job.awaited() {
                    // SAFETY: `job` is a `join`'s `b` this worker created and still holds on
                    // its own queue; its frame reads the ticket only on this thread, after it
                    // finds `b` gone.
                    unsafe { job.set_ticket(ticket) };
                }
                queue.replace(i, queued);
                self.expose_copy(queued);
            }
        }
    }

    /// Puts a copy of the ticket `job` (which stays where it is) into the public deque, after
    /// dropping the copies at its top whose tasks already ran (husks), and makes sure an idle
    /// worker will look at it.
    pub(super) fn expose_copy(&self, job: JobRef) {
        if let Some(live) = self.pop_own_copy() {
            self.deque.push(live);
        }
        // SAFETY: `job` is a ticket JobRef that still owns its reference (it is on this
        // worker's own queue).
        self.deque.push(unsafe { Ticket::copy_ref(&job) });
        self.registry.notify_new_job(self.index);
    }

    /// Whether a task no decision has seen waits on the stack.
    #[inline(always)]
    pub(super) fn undecided(&self) -> bool {
        !self.stack().is_empty()
    }

    /// The allocating phase for the oldest task no decision has seen, if any
    /// (`policy::machine::allocating_beat`, the rule the simulator follows too): the front of
    /// the private stack. A task kept here moves to the back of the standing queue, which keeps
    /// creation order (every standing task is older than every task on the stack).
    fn allocate(&self) {
        let stack = self.stack();
        let env = self.env();
        let undecided = stack.front().map(|job| job.hops());
        let allocated = machine::allocating_beat(&mut **self.machine.borrow_mut(), &env, undecided);
        match allocated {
            Some(Some(to)) => {
                let job = stack.pop_front().expect("the undecided task is there");
                self.publish_load();
                self.place_out(job, to);
            }
            Some(None) => {
                let job = stack.pop_front().expect("the undecided task is there");
                self.standing().push_back(job);
            }
            None => {}
        }
    }

    /// One heartbeat's standing phase for the oldest waiting task
    /// (`policy::machine::standing_beat`).
    fn stand(&self) {
        // The oldest waiting task: the standing queue's front, else the stack's.
        let queue = if self.standing().is_empty() {
            self.stack()
        } else {
            self.standing()
        };
        let oldest = queue.front().map(|job| job.hops());
        let env = self.env();
        if let Some(to) = machine::standing_beat(&mut **self.machine.borrow_mut(), &env, oldest) {
            if let Some(job) = queue.pop_front() {
                self.publish_load();
                self.place_out(job, to);
            }
        }
    }

    /// Sends one of this worker's own waiting tasks to worker `to`. A `join`'s `b` still on
    /// its creator's stack gets its ticket here (so joins allocate only when they place).
    fn place_out(&self, job: JobRef, to: usize) {
        let job = if job.is_ticket() || !job.awaited() {
            job
        } else {
            let ticket = Ticket::new(job);
            let queued = Ticket::job_ref(&ticket);
            // SAFETY: `job` is a `join`'s `b` this worker created and still owned (it was on its
            // private stack or in its standing queue); its frame reads the ticket only on this
            // thread, after it finds `b` gone from both.
            unsafe { job.set_ticket(ticket) };
            queued
        };
        self.send(job, to);
    }

    /// Places `job` into worker `to`'s inbox (one more hop) and wakes `to` if it sleeps.
    pub(super) fn send(&self, job: JobRef, to: usize) {
        job.add_hop();
        bump(&self.counters().placed_out, 1);
        self.record(EventKind::Placed, to as u32, job.hops());
        let registry = &*self.registry;
        registry.workers[to].inbox.push(job);
        registry.sleep.notify_worker(to);
    }

    /// Counts a task taken from the own inbox (not a husk): `placed_in`, the `Received` event
    /// and the largest hop count seen.
    pub(super) fn count_received(&self, job: &JobRef) {
        let c = self.counters();
        bump(&c.placed_in, 1);
        self.record(EventKind::Received, job.origin(), job.hops());
        if u64::from(job.hops()) > c.max_hops.load(Ordering::Relaxed) {
            c.max_hops.store(u64::from(job.hops()), Ordering::Relaxed);
        }
    }

    /// A task arrived in the inbox: count it and let the allocating phase forward it (ACWN's
    /// contracting goes on downhill). Returns the task if it stays here.
    pub(super) fn receive(&self, job: JobRef) -> Option<JobRef> {
        // A husk: its creator took it back, or a rescuer ran its other copy.
        // SAFETY: the JobRef was just taken from the inbox; this worker owns it.
        let job = unsafe { Ticket::unless_husk(job) }?;
        self.count_received(&job);
        let to = {
            let env = self.env();
            self.machine.borrow_mut().place(&env, job.hops(), true)
        };
        match to {
            Some(to) => {
                self.send(job, to);
                None
            }
            None => Some(job),
        }
    }
}

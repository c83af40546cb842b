//! The sender-initiated side: at most once per heartbeat, a poll point runs the policy's
//! allocating phase on the oldest waiting task that was never decided, or else its standing
//! phase on the oldest waiting task; placed tasks travel as [`Ticket`]s so their waiters can
//! take them back (`docs/sender.md`).

use super::WorkerThread;
use crate::job::{JobRef, Ticket};
use crate::policy::machine::{Env, LoadView};
use crate::registry::Registry;
use crate::stats::bump;
use crate::sync::Ordering;

/// Decisions a worker may take in a row after a quiet stretch (see `heartbeat_cold`).
const BURST: u64 = 16;

/// Loads as the allocating phase sees them: the task being decided is not counted at its
/// creator.
struct Deciding<'a> {
    inner: &'a Registry,
    me: usize,
}

impl LoadView for Deciding<'_> {
    fn queued(&self, w: usize) -> usize {
        let q = self.inner.queued(w);
        if w == self.me {
            q.saturating_sub(1)
        } else {
            q
        }
    }
    fn ns_per_task(&self, w: usize) -> f64 {
        self.inner.ns_per_task(w)
    }
    fn speed(&self, w: usize) -> f64 {
        self.inner.speed(w)
    }
}

impl WorkerThread {
    /// A poll point under a sender-initiated policy: act if a heartbeat has passed since the
    /// last action and a task waits.
    #[inline]
    pub(super) fn heartbeat(&self) {
        if self.stack().is_empty() {
            return;
        }
        self.heartbeat_cold();
    }

    #[cold]
    #[inline(never)]
    fn heartbeat_cold(&self) {
        let registry = &*self.registry;
        // Under loom every poll point is a heartbeat: the models explore every decision point
        // instead of depending on the clock.
        if !cfg!(loom) {
            // A token bucket: one decision per heartbeat on average, and up to
            // [`BURST`] in a row after a quiet stretch, so a burst of coarse spawns is decided
            // task by task as in the papers while fine-grained tasks mostly stay home.
            let now = registry.now_ns();
            let period = registry.heartbeat_ns;
            let credit = (self.credit.get() + now.saturating_sub(self.last_beat.get()))
                .min(period.saturating_mul(BURST));
            self.last_beat.set(now);
            if credit < period {
                self.credit.set(credit);
                return;
            }
            self.credit.set(credit - period);
        }
        let stack = self.stack();
        let kept = self.kept.get().min(stack.len());
        let env = self.env();
        let mut machine = self.machine.borrow_mut();
        if let Some(&job) = stack.get(kept) {
            // The allocating phase, for the oldest task never decided. The loads it reads do not
            // count that task at this worker: it is being decided, not waiting (as a new task
            // in the papers, decided when it is created).
            let loads = Deciding {
                inner: registry,
                me: self.index,
            };
            let env = Env {
                loads: &loads,
                ..env
            };
            match machine.place(&env, job.hops(), false) {
                Some(to) => {
                    stack.remove(kept);
                    let len = stack.len();
                    self.kept.set(kept);
                    self.publish_load(len);
                    drop(machine);
                    self.place_out(job, to);
                }
                None => self.kept.set(kept + 1),
            }
            return;
        }
        // Every waiting task was decided: the standing phase, for the oldest.
        let oldest = stack.front().copied();
        if let Some(to) = machine.tick(&env, oldest.map(|j| j.hops())) {
            let Some(job) = oldest else { return };
            stack.pop_front();
            let len = stack.len();
            self.kept.set(self.kept.get().saturating_sub(1).min(len));
            self.publish_load(len);
            drop(machine);
            self.place_out(job, to);
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
            // private stack); its frame reads the ticket only on this thread, after it finds
            // `b` gone from the stack.
            unsafe { job.set_ticket(ticket) };
            queued
        };
        self.send(job, to);
    }

    /// Places `job` into worker `to`'s inbox (one more hop) and wakes `to` if it sleeps.
    pub(super) fn send(&self, job: JobRef, to: usize) {
        job.add_hop();
        bump(&self.counters().placed_out, 1);
        let registry = &*self.registry;
        registry.workers[to].inbox.push(job);
        registry.sleep.notify_worker(to);
    }

    /// A task arrived in the inbox: count it and let the allocating phase forward it (ACWN's
    /// contracting goes on downhill). Returns the task if it stays here.
    pub(super) fn receive(&self, job: JobRef) -> Option<JobRef> {
        if job.is_ticket() && Ticket::is_claimed(&job) {
            // Its creator took it back: drop the husk.
            // SAFETY: the ticket JobRef was taken from the inbox and is consumed here, once.
            let taken = unsafe { Ticket::redeem(job) };
            debug_assert!(taken.is_none());
            return None;
        }
        let c = self.counters();
        bump(&c.placed_in, 1);
        if u64::from(job.hops()) > c.max_hops.load(Ordering::Relaxed) {
            c.max_hops.store(u64::from(job.hops()), Ordering::Relaxed);
        }
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

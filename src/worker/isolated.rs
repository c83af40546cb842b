//! Waiting inside an isolated region (`crate::isolate`): the worker runs only tasks made in
//! the region it waits in, never a task from outside it.
//!
//! # Regions and tags
//!
//! `isolate` gives its closure a fresh *tag* (a process-wide counter, never 0) and sets it as
//! the worker's current region. Every task made while a region is current (a `join`'s `b`, a
//! spawn, a scope's task) carries the tag in its header; a worker that runs a task switches to
//! the task's region for as long as the task runs (`WorkerThread::execute`, `reclaim`). So a
//! task of the region that another worker took still makes region tasks, and that worker's own
//! waits inside it are isolated too. Tag 0 is "no region": outside every region nothing
//! changes.
//!
//! # What an isolated waiter runs
//!
//! - the tasks it waits for, taken back (`Reclaim`, sender-initiated policies);
//! - tasks of its region on its own queues: private stack, standing queue, public deque
//!   (receiver-initiated), inbox (sender-initiated);
//! - broadcast jobs for it: a broadcast waits for every worker, so refusing one could block
//!   the broadcaster and through it anything that waits for the broadcaster.
//!
//! It takes nothing from the injector, sends no requests and steals from no other worker's
//! deque: a request's answer or a stolen task may come from outside the region, and a task
//! once taken cannot be given back to the queue it came from. Region tasks that other workers
//! hold are run by them or by other idle workers, as any task is.
//!
//! # Nothing stranded, nothing run twice
//!
//! Tasks from outside the region that sit on the waiter's own queues would wait for the
//! region to end, however long, while other workers idle. So before each search the waiter
//! makes them public (`release_foreign`): under a receiver-initiated policy it moves them from
//! the private stack to its public deque, oldest first (a promotion, counted as one; a frame
//! whose `b` moved finds it gone and waits for its latch, as after any promotion), and under a
//! sender-initiated one it exposes them (a ticket with a copy in the public deque, which a
//! rescuer takes: `README.md`, "Rescue"). A task placed in its inbox from outside the region
//! goes onto its own stack, exposed, the same way. Each move takes a task from a queue only
//! this worker takes from (its stack, its inbox's consumer side) and puts it into exactly one
//! other queue, so every task stays in exactly one place.
//!
//! Looking for a region task in its own public deque, the waiter pops from its end until it
//! finds one, then pushes what it popped back in the order it was, and notifies as a spawn
//! does (`Sleep::notify`): a thief that looked while those tasks were out may have gone to
//! sleep, and the notification pairs with its re-check as for any new task. Thieves take from
//! the other end meanwhile, as always. The scan looks at the whole deque, not a bounded part:
//! the waiter may be the only worker left that can run the region task beneath the others
//! (every other one blocked on a lock the region's caller holds, the case isolation exists
//! for).
//!
//! # No lost wake-up
//!
//! The waiter sleeps through the sleep protocol (`../sleep/README.md`) with a re-check of
//! what it could act on: its latch, a broadcast job, a task it may take back, a task in its
//! inbox. Each of those notifies the waiter after it is published (the latch's setter, the
//! broadcaster, `Reclaim`'s contract, the placing worker), so either the re-check sees it or
//! the waiter is woken. Its own stack and deque change only by its own hand while it waits
//! (thieves only take), so there is nothing there to be woken for. It never sleeps with a
//! time limit: it rescues nothing. Region tasks that appear elsewhere do not wake it; it
//! does not take them.
//!
//! The loom model `isolation::loom_tests::an_isolated_wait_runs_only_its_region` checks
//! that an isolated waiter whose region task was stolen waits without running an outer task on
//! its deque, and still ends; its broken variant (`isolate`: the waiter waits as if outside
//! every region) runs the outer task inside the region and is rejected.

use super::wait::{steal_retrying, Found, Reclaim};
use super::{Mode, WorkerThread, SEARCH_ROUNDS};
use crate::job::{JobRef, Ticket};
use crate::latch::Probe;
use crate::sleep::Recheck;
use crate::stats::bump;

impl WorkerThread {
    /// The isolated region this thread works in now, or 0.
    #[inline(always)]
    pub(crate) fn isolation(&self) -> u32 {
        self.isolation.get()
    }

    /// Makes `tag` the current region; returns the region it replaces.
    pub(crate) fn enter_isolation(&self, tag: u32) -> u32 {
        self.isolation.replace(tag)
    }

    /// Waits for `latch` inside the current region (module docs).
    pub(super) fn wait_isolated<L: Probe>(&self, latch: &L, reclaim: Option<&dyn Reclaim>) {
        while !latch.probe() {
            self.release_foreign();
            if reclaim.is_some_and(|r| r.reclaim(self)) {
                continue;
            }
            if let Some(job) = self.take_isolated() {
                self.execute(job);
                continue;
            }
            if self.idle_stretch(|| self.search_isolated(latch, reclaim)) {
                return;
            }
        }
    }

    /// The isolated waiter's search: its own region tasks a few times, then sleep until
    /// something it could act on appears (module docs, "No lost wake-up").
    fn search_isolated<L: Probe>(&self, latch: &L, reclaim: Option<&dyn Reclaim>) -> Found {
        let mut rounds = 0;
        let mut since = self.registry.now_ns();
        loop {
            if latch.probe() {
                return Found::LatchSet;
            }
            self.release_foreign();
            if let Some(job) = self.take_isolated() {
                return Found::Job(job);
            }
            if reclaim.is_some_and(|r| r.reclaim(self)) {
                return Found::Ran;
            }
            rounds += 1;
            if rounds < SEARCH_ROUNDS || self.lingers(since, None) {
                crate::sync::yield_now();
                continue;
            }
            rounds = 0;
            let registry = &*self.registry;
            let asleep = self.trace_now();
            let slept = registry.sleep.sleep(self.index, || {
                let own = &registry.workers[self.index];
                if latch.probe()
                    || !own.broadcasts.is_empty()
                    || !own.inbox.is_empty()
                    || reclaim.is_some_and(|r| r.may_reclaim())
                {
                    Recheck::Work
                } else {
                    Recheck::Nothing
                }
            });
            if slept {
                bump(&self.counters().sleeps, 1);
                self.record_sleep(asleep);
            }
            self.relinger(&mut since);
        }
    }

    /// A task of the current region from this worker's own queues, or a broadcast job for it.
    pub(crate) fn take_isolated(&self) -> Option<JobRef> {
        let tag = self.isolation.get();
        self.pop_stack_tagged(tag)
            .or_else(|| self.pop_deque_tagged(tag))
            .or_else(|| self.take_placed_tagged(tag))
            .or_else(|| {
                let own = &self.registry.workers[self.index];
                steal_retrying(|| own.broadcasts.steal())
            })
    }

    /// The newest task of region `tag` on the private stack, or in the standing queue (all of
    /// whose tasks are older); copies of tasks that ran elsewhere are dropped on the way.
    fn pop_stack_tagged(&self, tag: u32) -> Option<JobRef> {
        for queue in [self.stack(), self.standing()] {
            while let Some(i) = queue.newest_where(|job| job.isolation() == tag) {
                let job = queue.remove(i)?;
                self.publish_load();
                // SAFETY: just removed from the own queues; this worker owns it.
                if let Some(job) = unsafe { Ticket::unless_husk(job) } {
                    return Some(job);
                }
            }
        }
        None
    }

    /// The newest task of region `tag` in the own public deque (receiver-initiated policies;
    /// a sender-initiated one keeps only copies there, whose tasks the stack scan finds). What
    /// lies above it goes back in order, followed by a notification (module docs).
    fn pop_deque_tagged(&self, tag: u32) -> Option<JobRef> {
        if self.mode == Mode::Placing {
            return None;
        }
        let mut aside = Vec::new();
        let found = loop {
            let Some(job) = self.deque.pop() else {
                break None;
            };
            if job.isolation() == tag {
                break Some(job);
            }
            aside.push(job);
        };
        if !aside.is_empty() {
            for job in aside.into_iter().rev() {
                self.deque.push(job);
            }
            self.registry.notify_new_job(self.index);
        }
        // SAFETY: just popped from the own deque; this worker owns it.
        found.and_then(|job| unsafe { Ticket::unless_husk(job) })
    }

    /// A task of region `tag` placed in the own inbox (sender-initiated policies). Tasks from
    /// outside the region found on the way go onto the own stack, exposed (module docs).
    fn take_placed_tagged(&self, tag: u32) -> Option<JobRef> {
        let inbox = &self.registry.workers[self.index].inbox;
        for _ in 0..inbox.len() {
            let job = steal_retrying(|| inbox.steal())?;
            // SAFETY: just taken from the own inbox; this worker owns it.
            let Some(job) = (unsafe { Ticket::unless_husk(job) }) else {
                continue;
            };
            bump(&self.counters().placed_in, 1);
            if job.isolation() == tag {
                return Some(job);
            }
            self.keep_exposed(job);
        }
        None
    }

    /// Makes this worker's tasks from outside the current region public (module docs).
    fn release_foreign(&self) {
        let tag = self.isolation.get();
        match self.mode {
            Mode::Solo => {}
            Mode::Stealing => {
                let stack = self.stack();
                let mut moved = false;
                while let Some(i) = stack.oldest_where(|job| job.isolation() != tag) {
                    let Some(job) = stack.remove(i) else { break };
                    bump(&self.counters().promoted, 1);
                    self.deque.push(job);
                    moved = true;
                }
                if moved {
                    self.publish_load();
                    self.registry.notify_new_job(self.index);
                }
            }
            Mode::Placing => self.expose_all(),
        }
    }

    /// A placed task this worker keeps for later: onto its stack, as a ticket with a copy in
    /// the public deque, so that a rescuer can run it meanwhile.
    fn keep_exposed(&self, job: JobRef) {
        let job = if job.is_ticket() {
            job
        } else {
            Ticket::job_ref(&Ticket::new(job))
        };
        // Not `push_stack`: the task was counted as spawned by its creator.
        self.stack().push_back(job);
        self.publish_load();
        self.expose_copy(job);
    }
}

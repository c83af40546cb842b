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
//!   the broadcaster and through it anything that waits for the broadcaster;
//! - tasks of its region in other workers' public deques (spawns, promoted tasks, exposed
//!   copies), whatever its policy says: a region task that a worker left in its deque before it
//!   went on with other work (and perhaps blocked on the lock the region's caller holds) has
//!   nobody else to run it. A task from outside the region that it steals on the way goes, if
//!   it belongs to no region, to the pool's injector, where any worker outside a region takes
//!   it (isolated waiters never do, so no two of them pass such a task back and forth),
//!   followed by the injector's notification; a task of another region goes to the waiter's
//!   own public deque, where that region's waiter (which does not read the injector) and every
//!   worker outside a region can find it, followed by a spawn's notification. At most
//!   [`STEAL_SCAN`] such tasks per deque per search round. Region tasks it finds there are
//!   counted as rescues (`rescued`, `EventKind::Rescued`). Two waiters of two other regions
//!   may pass a third region's task between their deques until that region's waiter or a
//!   worker outside every region takes it: a cost in CPU while three regions wait at once,
//!   never a lost task.
//!
//! It takes nothing from the injector and sends no requests: a request's answer may come from
//! outside the region, and the victim's private stack is its own. Region tasks other workers
//! keep private are run by them, or reach a public deque by promotion (the isolated waiter
//! counts as idle) or exposure.
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
//! inbox, a task in another worker's public deque. Each of those notifies after it is
//! published (the latch's setter, the broadcaster, `Reclaim`'s contract, the placing worker,
//! a spawn or promotion, `Sleep::notify`), so either the re-check sees it or the waiter is
//! woken. Its own stack and deque change only by its own hand while it waits (thieves only
//! take), so there is nothing there to be woken for. A public deque that holds only tasks from
//! outside the region keeps the waiter awake only until its next rounds have moved them to
//! the injector.
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
use crate::trace::{EventKind, NO_PEER};

/// Tasks from outside its region an isolated waiter moves out of one other worker's public
/// deque per search round, looking for a task of its region behind them.
const STEAL_SCAN: usize = 16;

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
            if let Some(job) = self
                .take_isolated()
                .or_else(|| self.steal_tagged(self.isolation.get()))
            {
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
                    || (0..registry.num_threads())
                        .any(|w| w != self.index && !registry.workers[w].stealer.is_empty())
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
                let job = steal_retrying(|| own.broadcasts.steal())?;
                // A broadcast share runs in the waiter's region: its own waits stay isolated.
                // The job is this worker's alone now.
                job.set_isolation(tag);
                Some(job)
            })
    }

    /// A task of region `tag` from another worker's public deque; tasks from outside the
    /// region found on the way go to the injector, or to the own deque if they belong to
    /// another region (module docs).
    fn steal_tagged(&self, tag: u32) -> Option<JobRef> {
        let registry = &*self.registry;
        let p = registry.num_threads();
        let (mut moved, mut own) = (false, false);
        let mut found = None;
        'victims: for w in (self.index + 1..p).chain(0..self.index) {
            let mut foreign = 0;
            while foreign < STEAL_SCAN {
                let Some(job) = steal_retrying(|| registry.workers[w].stealer.steal()) else {
                    break;
                };
                // SAFETY: just stolen; this worker owns it.
                let Some(job) = (unsafe { Ticket::unless_husk(job) }) else {
                    continue;
                };
                if job.isolation() == tag {
                    bump(&self.counters().rescued, 1);
                    self.record(EventKind::Rescued, w as u32, job.hops());
                    found = Some(job);
                    break 'victims;
                }
                if job.isolation() == 0 {
                    // Outside every region: any worker outside a region may run it.
                    registry.injector.push(job);
                    moved = true;
                } else {
                    // Another region's: it stays in a public deque, where that region's
                    // waiter looks (it does not read the injector).
                    self.deque.push(job);
                    own = true;
                }
                foreign += 1;
            }
        }
        if moved {
            registry.sleep.notify(|| 0..p);
        }
        if own {
            registry.notify_new_job(self.index);
        }
        found
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

    /// The newest task of region `tag` in the own public deque: a spawn or promoted task, a
    /// task another isolated waiter left here, or (sender-initiated policies) an exposed copy.
    /// What lies above it goes back in order, followed by a notification (module docs).
    fn pop_deque_tagged(&self, tag: u32) -> Option<JobRef> {
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
            self.count_received(&job);
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
                    self.record(EventKind::Promoted, NO_PEER, 0);
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

    /// A placed task this worker keeps for later: at the front of its standing queue (the
    /// oldest of its kept tasks), as a ticket with a copy in the public deque, so that a
    /// rescuer can run it meanwhile. Not on the private stack: a `join` of an enclosing region
    /// takes back what lies above its `b` there and runs it (`pop_private_above`), which would
    /// run this task inside that region.
    fn keep_exposed(&self, job: JobRef) {
        let job = if job.is_ticket() {
            job
        } else {
            Ticket::job_ref(&Ticket::new(job))
        };
        // Not `push_stack`: the task was counted as spawned by its creator.
        self.standing().push_front(job);
        self.publish_load();
        self.expose_copy(job);
    }
}

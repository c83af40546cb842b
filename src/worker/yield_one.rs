//! The worker's side of cooperative yielding (the public `yield_now`, `yield_local` and
//! `current_thread_has_pending_tasks` are in `src/yielding.rs`): running one task on request.
//!
//! A yield runs at most one task, through [`WorkerThread::execute`], so it is counted exactly
//! as a task the wait loops run (`executed` keeps matching `spawned`). A yielding worker is not
//! idle: it sends no requests (a request leaves the thief's own cell blocked while it waits for
//! the answer, which only an idle worker may do, `exchange.rs`) and does not tell the policy it
//! is idle. It only takes what it can take without anyone's help: its own tasks, its inbox, the
//! injector, and the public deques its policy lets it steal from. Inside an isolated region
//! both yields take only the region's tasks from the worker's own queues (its inbox included)
//! and its broadcast share, as an isolated wait does first (`isolated.rs`).

use super::WorkerThread;
use crate::job::JobRef;
use crate::policy::Reach;
use crate::sync::deque::Steal;
use crate::Yield;

impl WorkerThread {
    /// Whether this worker has unstarted tasks of its own: on its private stack, in its standing
    /// queue or on its public deque (another worker may take those at any moment, so the answer
    /// may be stale).
    pub(crate) fn has_own_tasks(&self) -> bool {
        self.waiting() != 0 || !self.deque.is_empty()
    }

    /// Runs the newest task of this worker's own stack or public deque, if there is one.
    pub(crate) fn yield_local(&self) -> Yield {
        // Inside an isolated region, only the region's tasks (`isolated.rs`).
        if self.isolation() != 0 {
            return self.run_one(self.take_isolated());
        }
        self.run_one(self.pop_own())
    }

    /// Runs one task from anywhere this worker may take one without help: its own tasks
    /// first, then its inbox (tasks placed here), the injector and its broadcast queue, and the
    /// public deques of the workers its policy reaches.
    pub(crate) fn yield_now(&self) -> Yield {
        if self.isolation() != 0 {
            return self.run_one(self.take_isolated());
        }
        let job = self
            .pop_own()
            .or_else(|| self.take_placed())
            .or_else(|| self.take_outside())
            .or_else(|| self.steal_public().map(|(_, job)| job));
        self.run_one(job)
    }

    fn run_one(&self, job: Option<JobRef>) -> Yield {
        match job {
            Some(job) if self.execute(job) => Yield::Executed,
            // Nothing, or a husk (a copy of a task that already ran elsewhere).
            _ => Yield::Idle,
        }
    }

    /// One pass over the public deques this worker's policy may steal from, starting after its
    /// own index so that yielders do not all hit worker 0; the task taken, and from whom.
    pub(super) fn steal_public(&self) -> Option<(usize, JobRef)> {
        let registry = &*self.registry;
        let steal = |victim: usize| loop {
            match registry.workers[victim].stealer.steal() {
                Steal::Success(job) => return Some((victim, job)),
                Steal::Empty => return None,
                Steal::Retry => crate::sync::spin_hint(),
            }
        };
        let p = registry.num_threads();
        match registry.reach {
            Reach::All => (self.index + 1..p).chain(0..self.index).find_map(steal),
            Reach::Neighbors => registry.graph.neighbors(self.index).find_map(steal),
            Reach::Nothing => None,
        }
    }
}

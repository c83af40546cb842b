//! FIFO lanes: how `spawn_fifo` and `ScopeFifo::spawn_fifo` keep one worker's spawns in order.
//!
//! A worker's own tasks come back LIFO: joins and spawns go onto its private stack or public
//! deque, and it pops the newest. A FIFO spawn therefore goes in two parts. The task itself is
//! appended to a **lane**, a FIFO queue belonging to the spawning worker (one per worker of the
//! pool, in the scope for a [`crate::ScopeFifo`], in the registry for `'static` spawns). What
//! travels the usual way (pushed by `push_spawn`, or queued as a ticket under a
//! sender-initiated policy) is a small **indirection** job that carries no task of its own:
//! running it takes the *oldest* task of its lane and runs that. Whichever indirection a worker
//! pops, stealer steals or policy places, it runs the lane's oldest task; so the tasks one worker
//! spawned FIFO start in spawn order among those it runs itself (and among those any single
//! worker runs).
//!
//! **Each task runs exactly once, under every policy.** The runtime already guarantees that
//! every `JobRef` it is given is executed exactly once, whoever ends up holding it: popped by
//! its owner, stolen, handed over in answer to a request (receiver-initiated), placed into an
//! inbox, or taken back through its ticket by the waiter (sender-initiated; a ticket is claimed
//! once, and an unclaimed husk never runs its job). Nothing here changes how indirections move,
//! so each indirection runs exactly once. A spawn appends exactly one task to the lane *before*
//! it publishes exactly one indirection; each indirection removes exactly one task (the lane is
//! a linearizable queue, so no task is removed twice). And a lane is never empty when an
//! indirection runs: if `m` removals came before this one, they belong to `m` other
//! indirections, whose `m` appends, like this indirection's own, happened before their
//! indirections were published and hence before their removals; these `m + 1` distinct appends
//! all precede this removal, which therefore finds a task. So removals and tasks match one to
//! one: every task runs once, none is lost. An indirection touches its lane only before it runs
//! the task, so a scope that ends when its last task finishes never sees its lanes used after.
//!
//! Statistics count the indirection (one `spawned`, one `executed`), never the task inside, so
//! `executed == spawned` still holds.

use crate::job::{Job, JobHeader, JobRef};
use crate::sync::deque::{Injector, Steal};
use std::sync::OnceLock;

/// Each worker's FIFO tasks; a worker's lane is allocated on its first FIFO spawn, so a scope
/// costs a word or two per worker of its pool until then.
pub(crate) struct Lanes {
    lanes: Vec<OnceLock<Box<Injector<JobRef>>>>,
}

/// The indirection queued in place of a FIFO task: it runs its lane's oldest task.
#[repr(C)]
struct Turn {
    header: JobHeader,
    lane: *const Injector<JobRef>,
}

impl Job for Turn {
    unsafe fn execute(this: *const (), here: u32) {
        // SAFETY: `this` came from `Box::into_raw` in `Lanes::enqueue` and runs once.
        let turn = unsafe { Box::from_raw(this as *mut Turn) };
        // SAFETY: the lanes stay alive until this job has run (`Lanes::enqueue`'s contract).
        let task = take_oldest(unsafe { &*turn.lane });
        drop(turn);
        // SAFETY: removed from the lane, so this is the task's one execution. It catches its
        // own panics (a scope's task, a spawn). Its lane is not touched after this.
        unsafe { task.execute(here) };
    }
}

impl Lanes {
    /// No lane yet for each of `workers` workers.
    pub(crate) fn new(workers: usize) -> Self {
        Lanes {
            lanes: (0..workers).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Appends `task` to worker `origin`'s lane and returns the indirection to queue in its
    /// place (with `origin` as its creator).
    ///
    /// # Safety
    ///
    /// `self` stays alive until the returned job has run; `task` was made to run once, and is
    /// not queued anywhere else.
    pub(crate) unsafe fn enqueue(&self, origin: u32, task: JobRef) -> JobRef {
        let lane: &Injector<JobRef> =
            self.lanes[origin as usize].get_or_init(|| Box::new(Injector::new()));
        lane.push(task);
        let turn = Box::new(Turn {
            header: JobHeader::new(false, false),
            lane,
        });
        // SAFETY: `Turn` is `repr(C)` with its header first; the box is leaked here and
        // reclaimed in `Turn::execute`, which runs once, while the lanes live (the caller's
        // contract).
        unsafe { JobRef::new(Box::into_raw(turn), origin) }
    }
}

/// The oldest task of a lane, which is never empty when one of its indirections runs (module
/// docs).
fn take_oldest(lane: &Injector<JobRef>) -> JobRef {
    loop {
        match lane.steal() {
            Steal::Success(task) => return task,
            Steal::Retry => crate::sync::spin_hint(),
            Steal::Empty => unreachable!("hypersteal: a FIFO lane ran dry (a task ran twice)"),
        }
    }
}

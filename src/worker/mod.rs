//! The worker: its private task stack, its poll points and its wait loops.
//!
//! A worker keeps the tasks it creates with `join` on a **private stack** (no atomic
//! read-modify-write, no fence) and exposes them only when they are wanted
//! (`README.md` beside this file argues the protocol):
//!
//! - receiver-initiated policies: an idle worker posts a **request** to the victim its policy
//!   chooses; the victim answers at its next poll point with its oldest unstarted task or a
//!   reject ([`exchange`]). While some worker is idle, a busy one also **promotes** its oldest
//!   private task to its public deque at each poll point, where a sleeper it wakes can take it;
//! - sender-initiated policies: at a poll point, the heartbeats that passed since the last one
//!   run the policy's allocating phase on the oldest undecided tasks and its standing phase on
//!   the oldest waiting task ([`place`]).
//!
//! Poll points are every `join`, every spawn, every task a worker starts and every chunk of a
//! self-scheduled loop. Once [`PRIVATE_TASKS`] unstarted tasks are private, a `join` runs both
//! closures in place: the tasks below it are the larger ones to give away. (Under a
//! sender-initiated policy the private stack holds the tasks no decision has seen; those a
//! decision kept wait in the worker's standing queue.)
//!
//! Spawned tasks (`spawn`, `Scope::spawn`) under receiver-initiated policies go to the public
//! deque at once: a spawned task may be what a blocked task waits for, and nobody could ask for
//! it while its creator blocks.
//!
//! Waiting (for a `join`'s `b`, a scope, an `install`, termination) has one loop per mode
//! ([`wait`]): stealing, placing, and the deep waiter of the sender-initiated policies; a wait
//! inside an isolated region (`crate::isolate`) has its own ([`isolated`]).

mod entry;
mod exchange;
pub(crate) mod in_place;
mod isolated;
mod place;
mod tasks;
mod wait;
mod yield_one;

use crate::job::{JobRef, Ticket, EXTERNAL};
use crate::latch::Probe;
use crate::policy::machine::{Env, Heartbeat, Machine};
use crate::registry::cells::Exchange;
use crate::registry::Registry;
use crate::stats::{bump, Counters};
use crate::sync::deque::Worker;
use crate::sync::{AtomicUsize, Ordering};
use crate::trace::{EventKind, Ring, TraceEvent};
use crate::unwind;
use crossbeam_utils::CachePadded;
use std::cell::{Cell, RefCell};
use std::ptr;
use std::sync::Arc;
use tasks::Tasks;

pub(crate) use wait::Reclaim;

/// Unstarted tasks a worker keeps private before a `join` runs its closures in place.
pub(crate) const PRIVATE_TASKS: usize = 3;

/// `last_clock` of a sender-initiated worker whose in-place flag went up at its last clock
/// reading: its heartbeat is paused until its next poll point (`in_place.rs`, "Sender-initiated
/// workers").
pub(super) const PAUSED: u64 = u64::MAX;

/// Nesting of waits (a worker waiting in a `join` runs other tasks, which may wait in turn) up to
/// which a waiter under a sender-initiated policy runs other workers' tasks before taking back
/// its own; deeper waiters only take back the unstarted tasks they wait for.
pub(crate) const HELP_DEPTH: u32 = 16;

/// Fruitless search rounds (each up to one request per candidate victim) before a worker sleeps.
pub(crate) const SEARCH_ROUNDS: u32 = 2;

/// At most this many join poll points between two clock readings of the heartbeat
/// (sender-initiated policies). The stride adapts so that the clock is read about twice per
/// heartbeat: fine-grained joins read it every 1024 joins, coarse ones at every join. Spawns and
/// task starts read the clock every time (`WorkerThread::poll`). A reading costs about 25 ns on
/// the development VM, and a `join` in place about a nanosecond: with a bound of 64 the readings
/// are a fifth of fine-grained fib's time at 2 workers (README, "The join countdown").
const JOIN_POLLS_PER_CLOCK: u32 = 1024;

/// The bound of the join countdown's stride set at a clock reading that sees a hungry worker:
/// joins that run in place do not test the demand signal, so while some worker is hungry they
/// read the clock at least this often.
const HUNGRY_JOIN_POLLS_PER_CLOCK: u32 = 64;

/// How a worker exposes work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Alone in its pool: nobody to give work to, every `join` runs in place.
    Solo,
    /// Receiver-initiated: requests and promotion.
    Stealing,
    /// Sender-initiated: heartbeat placement.
    Placing,
}

// The thread-local pointer to the current worker, if this thread is one.
#[cfg(not(loom))]
crate::sync::thread_local! {
    static WORKER_THREAD: Cell<*const WorkerThread> = const { Cell::new(ptr::null()) };
}
#[cfg(loom)]
crate::sync::thread_local! {
    static WORKER_THREAD: Cell<*const WorkerThread> = Cell::new(ptr::null());
}

/// The thread-private half of a worker.
pub(crate) struct WorkerThread {
    /// Public deque: spawns and promoted tasks, which other workers steal.
    deque: Worker<JobRef>,
    /// Private stack of unstarted tasks, oldest at the front. Only this thread touches it.
    /// Under a sender-initiated policy it holds the tasks no decision has seen yet (*undecided*);
    /// the ones decided to stay here move to `standing`.
    stack: Tasks,
    pub(crate) index: usize,
    pub(crate) registry: Arc<Registry>,
    machine: RefCell<Box<dyn Machine>>,
    /// This worker's counters (the registry holds the other handle).
    counters: Arc<CachePadded<Counters>>,
    mode: Mode,
    /// The policy is sender-initiated (whatever the pool's size): waits drain the inbox.
    sender: bool,
    /// Publish the count of waiting tasks, private stack and standing queue (policies that read
    /// loads).
    publish: bool,
    /// This worker's cells in the registry (`exchange`) and the pool's idle count, cached: the
    /// poll point of every `join` reads both. They point into `registry`, which this struct
    /// keeps alive.
    own_exchange: *const Exchange,
    idle: *const AtomicUsize,
    /// Placing: join polls left until the next clock reading, the stride it was last set to,
    /// and when the clock was last read at a join (ns since the pool started).
    countdown: Cell<u32>,
    stride: Cell<u32>,
    /// [`PAUSED`] while the heartbeat is paused (`in_place.rs`).
    last_clock: Cell<u64>,
    /// Placing: the heartbeat (`policy::machine::Heartbeat`, in ns since the pool started).
    /// Boxed: only a clock reading touches it, and kept inline its 24 bytes pushed the fields
    /// every `join` reads apart (fine-grained fib 3-4% slower at 2 workers, measured).
    beat: Box<Cell<Heartbeat<u64>>>,
    /// Placing: the tasks the allocating phase decided to keep here (the papers' standing
    /// queue), oldest at the front; all of them are older than every task on `stack`, so the
    /// two together, `standing` then `stack`, are this worker's waiting tasks in creation order.
    /// Kept off the stack so that a `join`'s in-place test counts only undecided tasks (README,
    /// "Kept tasks"). Only this thread touches it. Boxed for the reason `beat` is.
    standing: Box<Tasks>,
    /// Waits in progress on this thread's stack (see [`HELP_DEPTH`]).
    depth: Cell<u32>,
    /// The isolated region this thread works in now (`crate::isolate`), or 0: set by
    /// `isolate` for its closure and, for each task, to the region the task was made in while
    /// it runs. Tasks made here carry it; a wait in a region runs only the region's tasks
    /// (`isolated.rs`).
    isolation: Cell<u32>,
    /// Tasks in execution on this thread's stack ([`WorkerThread::execute`]): more than one
    /// means a task runs on top of another that is suspended below it, waiting or yielding
    /// ([`WorkerThread::runs_nested`]).
    running: Cell<u32>,
    /// Time spent running tasks taken back ([`WorkerThread::reclaim`]), ns: a waiter takes
    /// them back during its idle stretch, which must not count that time as idle.
    reclaimed_ns: Cell<u64>,
    /// When this worker's idle stretches first saw work it may only rescue, if they have seen
    /// some at every search since (`wait.rs`, `Rescue`): the bound runs across short busy
    /// stretches between them (`README.md`, "Rescue").
    rescue_since: Cell<Option<u64>>,
    /// Receiver-initiated: the worker is still in the idle state it started in (its request
    /// cell `BLOCKED` and counted in `idle`, `Exchange::new`) and has not yet been busy. Its
    /// first idle stretch takes that state over instead of blocking again.
    starts_blocked: Cell<bool>,
    /// Receiver-initiated: tasks still to publish at once because a thief starved waiting for
    /// this worker (`exchange::EAGER_PUSHES`).
    eager: Cell<u32>,
    /// The thread that built the pool with `use_current_thread` (worker 0; `adopt`).
    adopted: bool,
    /// This worker's event ring in the registry, or null when the pool does not trace: the one
    /// field every recording point tests (`src/trace/`).
    ring: *const Ring,
}

impl WorkerThread {
    /// Worker `index`'s state, for the thread that will be that worker.
    fn new(deque: Worker<JobRef>, index: usize, registry: Arc<Registry>, adopted: bool) -> Self {
        let mode = WorkerThread::mode_of(&registry);
        let machine = crate::policy::machine::machine_for(
            &registry.policy,
            index,
            registry.num_threads(),
            registry.seed,
        );
        let own_exchange: *const Exchange = &registry.workers[index].exchange;
        let idle: *const AtomicUsize = &*registry.idle;
        let ring: *const Ring = registry
            .ring(index)
            .map_or(ptr::null(), |r| r as *const Ring);
        WorkerThread {
            ring,
            own_exchange,
            idle,
            deque,
            stack: Tasks::with_capacity(64),
            index,
            machine: RefCell::new(machine),
            counters: Arc::clone(&registry.workers[index].stats),
            mode,
            sender: registry.policy.is_sender_initiated(),
            publish: mode != Mode::Solo && registry.policy.reads_loads(),
            countdown: Cell::new(0),
            stride: Cell::new(1),
            last_clock: Cell::new(0),
            beat: Box::new(Cell::new(Heartbeat::default())),
            standing: Box::new(Tasks::with_capacity(0)),
            registry,
            depth: Cell::new(0),
            isolation: Cell::new(0),
            running: Cell::new(0),
            reclaimed_ns: Cell::new(0),
            rescue_since: Cell::new(None),
            // An adopted worker never takes over its starting idle state: it stays blocked.
            starts_blocked: Cell::new(mode == Mode::Stealing && !adopted),
            eager: Cell::new(0),
            adopted,
        }
    }

    fn mode_of(registry: &Registry) -> Mode {
        if !registry.multi {
            Mode::Solo
        } else if registry.placing {
            Mode::Placing
        } else {
            Mode::Stealing
        }
    }
}

/// Makes the calling thread worker 0 of `registry` without a main loop (`use_current_thread`):
/// it takes part in the pool's work only while it waits (a `join`, a scope, `yield_now`), as a
/// worker does, and otherwise runs its own code. The worker is leaked: the thread stays worker
/// 0 for the rest of its life, so no frame of it can outlive its worker (freeing the worker
/// when the pool is dropped could pull it from under a `join` running on this thread).
///
/// Only receiver-initiated pools of two or more adopt (the builder checks). So that nothing
/// waits for a worker that is away, the adopted worker's request cell stays `BLOCKED` for good
/// (every request to it fails at once; thieves steal from its public deque instead, where it
/// promotes a task while some worker is idle). It is counted in `idle` only while it waits,
/// as any worker: counted for good, every other worker would see demand at every poll point
/// and promote and serve all the time. Its private tasks belong to `join` frames, which end
/// before it leaves the pool's work, so none is left behind.
pub(crate) fn adopt(deque: Worker<JobRef>, registry: Arc<Registry>) {
    debug_assert!(WorkerThread::current().is_null());
    debug_assert_eq!(WorkerThread::mode_of(&registry), Mode::Stealing);
    let worker: &'static WorkerThread =
        Box::leak(Box::new(WorkerThread::new(deque, 0, registry, true)));
    // To the policy the worker is busy while away (SB lists it as a donor, so idle workers
    // look at its deque); its waits tell the policy when it is idle, as any worker's do.
    worker.machine.borrow_mut().busy(&worker.env());
    // Counted idle only while it waits (`idle_stretch`), not while it runs its own code: the
    // pool starts with every worker counted idle, this one included.
    worker.idle_count().fetch_sub(1, Ordering::SeqCst);
    WORKER_THREAD.with(|t| t.set(worker));
    in_place::enter(&worker.exchange().in_place, Mode::Stealing);
}

impl WorkerThread {
    /// This worker is a thread that built its pool with `use_current_thread` (`adopt`).
    pub(crate) fn is_adopted(&self) -> bool {
        self.adopted
    }
}

pub(crate) fn main_loop(deque: Worker<JobRef>, index: usize, registry: Arc<Registry>) {
    let guard = unwind::AbortOnUnwind::new("a worker thread's main loop");
    if let Some(core) = registry.core_of(index) {
        // Pinning is best effort: a refused affinity call leaves the thread unpinned.
        let _ = core_affinity::set_for_current(core_affinity::CoreId { id: core });
    }
    let mode = WorkerThread::mode_of(&registry);
    let worker = WorkerThread::new(deque, index, registry, false);
    WORKER_THREAD.with(|t| t.set(&worker));
    in_place::enter(&worker.exchange().in_place, mode);
    // The user's handlers run as workers of the pool; their panics are caught (`registry.rs`).
    worker.registry.thread_started(index);
    worker.wait_until(&Terminated(&worker.registry));
    // Nothing is outstanding, but tasks taken back by their creators may have left husks
    // (ticket references) here; release them.
    while let Some(job) = worker.pop_own().or_else(|| worker.pop_own_copy()) {
        worker.execute(job);
    }
    // The exit handler may submit work: every worker stays until all handlers have run and
    // that work is done (`Registry::thread_exiting`).
    if worker.registry.thread_exiting(index) {
        worker.wait_until(&ExitsDone(&worker.registry));
        while let Some(job) = worker.pop_own().or_else(|| worker.pop_own_copy()) {
            worker.execute(job);
        }
    }
    // Gone for good: requests to this worker must fail at once (README, "Leaving").
    worker.retire();
    in_place::leave();
    WORKER_THREAD.with(|t| t.set(ptr::null()));
    guard.disarm();
}

/// The "latch" the main loop waits for: termination requested and nothing outstanding.
struct Terminated<'a>(&'a Registry);

impl Probe for Terminated<'_> {
    fn probe(&self) -> bool {
        self.0.quiescent_and_terminating()
    }
}

/// The "latch" of the last wait when the pool has an exit handler: every worker's handler has
/// returned and nothing is outstanding.
struct ExitsDone<'a>(&'a Registry);

impl Probe for ExitsDone<'_> {
    fn probe(&self) -> bool {
        self.0.exits_done_and_quiescent()
    }
}

impl WorkerThread {
    /// The current thread's worker, or null.
    #[inline]
    pub(crate) fn current() -> *const WorkerThread {
        WORKER_THREAD.with(|t| t.get())
    }

    #[inline]
    pub(crate) fn counters(&self) -> &Counters {
        &self.counters
    }

    #[inline(always)]
    fn exchange(&self) -> &Exchange {
        // SAFETY: points into `self.registry`, which lives as long as `self`.
        unsafe { &*self.own_exchange }
    }

    /// What this worker's policy machine sees.
    fn env(&self) -> Env<'_> {
        let registry = &*self.registry;
        Env {
            me: self.index,
            graph: &registry.graph,
            loads: registry,
            shared: &registry.shared,
        }
    }

    /// The private stack.
    #[inline(always)]
    fn stack(&self) -> &Tasks {
        &self.stack
    }

    /// The standing queue (`standing`).
    #[inline(always)]
    fn standing(&self) -> &Tasks {
        &self.standing
    }

    /// This worker's waiting tasks: its private stack and its standing queue.
    #[inline(always)]
    fn waiting(&self) -> usize {
        self.stack().len() + self.standing().len()
    }

    /// Publishes this worker's load, its [`waiting`](Self::waiting) tasks, for policies that
    /// read loads.
    #[inline(always)]
    fn publish_load(&self) {
        if self.publish {
            self.exchange().publish_load(self.waiting());
        }
    }

    /// Whether sender-initiated placement is on (more than one worker).
    #[inline]
    pub(crate) fn placing(&self) -> bool {
        self.mode == Mode::Placing
    }

    /// A `join` whose worker's in-place flag is down (`in_place.rs`) asks whether to run its
    /// closures in place: alone in the pool, or with enough private tasks below it. Either way
    /// this is a poll point; a `join` that runs in place with nothing asked of its worker raises
    /// the flag for the joins after it.
    #[inline(always)]
    pub(crate) fn join_in_place(&self) -> bool {
        match self.mode {
            Mode::Solo => {
                // Nothing is ever asked of a pool of one: raise the flag again after a removal
                // from the queues lowered it.
                self.exchange().in_place.store(true, Ordering::Relaxed);
                true
            }
            Mode::Stealing => {
                // A join that makes a task serves after pushing it (`push_private`): a thief
                // that asked while the stack was empty then gets the new task instead of a
                // reject. Only a join that runs in place serves here.
                let in_place = self.stack().len() >= PRIVATE_TASKS;
                if in_place {
                    self.poll_in_place();
                }
                in_place
            }
            Mode::Placing => {
                // The poll comes after the push for a join that makes a task (`push_private`),
                // so that its own `b` can be decided before `a` runs. The stack holds only
                // undecided tasks: the ones a decision kept wait in the standing queue, so they
                // do not stop this worker from making new tasks to decide (README, "Kept tasks").
                let in_place = self.stack().len() >= PRIVATE_TASKS;
                if in_place {
                    self.tick_countdown();
                }
                in_place
            }
        }
    }

    /// A join's poll point under a sender-initiated policy: read the clock when the countdown
    /// runs out (`place.rs`, `clock_poll`).
    #[inline(always)]
    fn tick_countdown(&self) {
        let c = self.countdown.get();
        if c == 0 {
            self.clock_poll();
        } else {
            self.countdown.set(c - 1);
        }
    }

    /// Some worker is idle: under a receiver-initiated policy, searching or asleep; under a
    /// sender-initiated one, lingering or asleep after a search that found nothing (hungry,
    /// `README.md`, "Hunger"). The demand signal.
    #[inline(always)]
    pub(super) fn demand(&self) -> bool {
        self.idle_count().load(Ordering::Relaxed) != 0
    }

    /// Whether a running leaf of an unindexed loop should split what is left of it, just
    /// after a poll point: some worker is idle (hungry) and this one has nothing queued that
    /// it could get instead. Under a receiver-initiated policy: no waiting task and no promoted
    /// one. Under a sender-initiated one, the poll point has exposed what waits here, so an
    /// empty public deque means that nothing here can be rescued (what still waits is a ticket
    /// whose copy was taken, a husk, or the newest tasks past the exposure scan).
    pub(crate) fn wants_split(&self) -> bool {
        match self.mode {
            Mode::Solo => false,
            Mode::Stealing => self.demand() && self.waiting() == 0 && self.deque.is_empty(),
            Mode::Placing => self.demand() && self.deque.is_empty(),
        }
    }

    /// A coarse poll point (a spawn, a task start, a loop chunk): answer, promote or place.
    #[inline]
    pub(crate) fn poll(&self) {
        match self.mode {
            Mode::Solo => {}
            Mode::Stealing => {
                if self.exchange().pending() || self.demand() {
                    self.serve();
                }
            }
            Mode::Placing if self.demand() => self.hungry_poll(),
            // Spawns and task starts come in bursts (a task spawning its children), which an
            // adaptive stride would read as a fine grain: they read the clock every time.
            Mode::Placing => self.heartbeat(self.registry.now_ns()),
        }
    }

    /// Counts a new task and pushes it onto the private stack.
    #[inline(always)]
    fn push_stack(&self, job: JobRef) {
        bump(&self.counters().spawned, 1);
        self.stack().push_back(job);
        self.publish_load();
    }

    /// Pops the newest waiting task: from the private stack, or from the standing queue (whose
    /// tasks are all older) once the stack is empty; keeps the published load in step.
    #[inline(always)]
    fn pop_stack(&self) -> Option<JobRef> {
        let job = match self.stack().pop_back() {
            Some(job) => job,
            None => self.standing().pop_back()?,
        };
        self.publish_load();
        Some(job)
    }

    /// Pushes a `join`'s `b` onto the private stack (no fence, no read-modify-write).
    #[inline(always)]
    pub(crate) fn push_private(&self, job: JobRef) {
        self.push_stack(job);
        // The task just pushed may be the one to give: a `join` whose `a` has no poll points
        // would otherwise hide it until `a` ends.
        match self.mode {
            Mode::Stealing
                if self.exchange().pending() || self.demand() || self.eager.get() != 0 =>
            {
                self.serve()
            }
            // A hungry worker waits until somebody sends it work: poll now rather than at the
            // end of the adaptive stride, which may come only after a long stretch of coarse
            // joins (README, "Hunger").
            Mode::Placing if self.demand() => self.hungry_poll(),
            Mode::Placing => self.tick_countdown(),
            _ => {}
        }
    }

    /// Pops the newest private task if it is `id` (a `join` taking its `b` back).
    #[inline(always)]
    pub(crate) fn pop_private_if(&self, id: *const ()) -> bool {
        let stack = self.stack();
        if stack.back().is_some_and(|job| job.id() == id) {
            stack.pop_back();
            self.publish_load();
            true
        } else {
            self.pop_standing_if(id)
        }
    }

    /// Pops the newest standing task if it is `id` and nothing newer waits (a `join` taking
    /// back a `b` that a decision kept here).
    #[cold]
    #[inline(never)]
    fn pop_standing_if(&self, id: *const ()) -> bool {
        // With the stack empty, `pop_stack` takes the standing queue's newest task.
        let is_b = self.stack().is_empty() && self.standing().back().is_some_and(|j| j.id() == id);
        is_b && self.pop_stack().is_some()
    }

    /// Takes back a `join`'s `b` that was *exposed* while it waited here (`place.rs`,
    /// `expose_waiting`): its entry on this worker's own queues is then its ticket, not `b`
    /// itself, so [`WorkerThread::pop_private_if`] does not see it. Pops that entry if it is the
    /// newest waiting task and redeems it: true if this claimed `b` (it has not run, and runs
    /// here); false if the entry is not there (the ticket was placed elsewhere) or a rescuer
    /// claimed `b` through the public copy first (the entry was a husk, given back here).
    ///
    /// Without this, the entry stayed on the stack as a husk after the frame took `b` back
    /// through its ticket: the `join`'s in-place test counts the stack, so husks let a taken-back
    /// task of any size run wholly in place, and the allocating phase kept deciding the husks
    /// and the small tasks above them while a hungry worker starved (fine-grained fib at 2
    /// workers under `acwn`).
    #[cold]
    #[inline(never)]
    pub(crate) fn take_back_exposed(&self, ticket: &Ticket) -> bool {
        let id = std::ptr::from_ref(ticket).cast::<()>();
        let stack = self.stack();
        let newest = if stack.back().is_some_and(|job| job.id() == id) {
            stack.pop_back()
        } else if stack.is_empty() && self.standing().back().is_some_and(|job| job.id() == id) {
            self.standing().pop_back()
        } else {
            None
        };
        let Some(entry) = newest else {
            return false;
        };
        self.publish_load();
        // SAFETY: the entry is a ticket `JobRef` that was on this worker's own queue, which
        // owned its reference; it was just popped, so it is consumed here, once.
        unsafe { Ticket::redeem(entry) }.is_some()
    }

    /// Pops the newest task of the own stack or public deque. Under a sender-initiated policy
    /// the public deque holds only exposed copies (`place.rs`, `expose_copy`), which are for
    /// rescuers: a task the policy placed elsewhere must not come back through its copy. The
    /// owner takes its own copies only as a rescue ([`WorkerThread::pop_own_copy`]). A task
    /// found after its other holder ran it is a husk, dropped here.
    #[inline]
    pub(crate) fn pop_own(&self) -> Option<JobRef> {
        loop {
            let job = match self.pop_stack() {
                Some(job) => job,
                None if self.mode == Mode::Placing => return None,
                None => self.deque.pop()?,
            };
            // SAFETY: just popped from the own queues; this worker owns it.
            if let Some(job) = unsafe { Ticket::unless_husk(job) } {
                return Some(job);
            }
        }
    }

    /// The newest exposed copy in the own public deque whose task nobody ran yet, dropping
    /// husks (sender-initiated policies: a rescue of the worker's own task).
    pub(crate) fn pop_own_copy(&self) -> Option<JobRef> {
        let live = |job| {
            // SAFETY: the job was just popped from the own deque; this worker owns it.
            unsafe { Ticket::unless_husk(job) }
        };
        std::iter::from_fn(|| self.deque.pop()).find_map(live)
    }

    /// A spawned task: public at once under receiver-initiated policies (see the module docs);
    /// under sender-initiated ones, onto the private stack for the policy to place at a
    /// heartbeat, and *exposed* at once as well (a ticket with a copy in the public deque,
    /// `place.rs`), since its creator may block before any decision moves it.
    pub(crate) fn push_spawn(&self, job: JobRef) {
        if self.mode == Mode::Placing {
            let job = if job.is_ticket() {
                job
            } else {
                Ticket::job_ref(&Ticket::new(job))
            };
            self.push_stack(job);
            self.expose_copy(job);
        } else {
            bump(&self.counters().spawned, 1);
            self.deque.push(job);
            if self.mode == Mode::Stealing {
                self.registry.notify_new_job(self.index);
            }
        }
        self.poll();
    }

    /// Under a sender-initiated policy, queues a task somebody will wait for (a scope's task)
    /// as a [`Ticket`], so the waiter can take it back while nobody has started it, wherever it
    /// was placed or moved.
    pub(crate) fn push_ticket(&self, job: JobRef) -> Arc<Ticket> {
        debug_assert!(self.placing());
        let ticket = Ticket::new(job);
        self.push_spawn(Ticket::job_ref(&ticket));
        ticket
    }

    /// Counts a task that runs here, then runs it. Returns whether a task ran: a ticket whose
    /// task another holder claimed first is a husk, dropped unrun.
    #[inline]
    pub(crate) fn execute(&self, mut job: JobRef) -> bool {
        if job.is_ticket() {
            // SAFETY: a ticket JobRef taken from a queue is redeemed exactly once, here.
            match unsafe { Ticket::redeem(job) } {
                Some(inner) => job = inner,
                None => return false, // its creator took the task back, or a rescuer ran it
            }
        }
        // Jobs catch their closures' panics; an unwind out of one, or out of the poll point
        // before it (policy, heartbeat and trace code), would leave the job's waiter pointing
        // at a frame that is gone.
        let guard = unwind::AbortOnUnwind::new("a task's execution");
        let remote = self.count_execution(&job);
        self.poll();
        // No unwind passes this frame (the guard aborts), so the count and the region are
        // restored below. The task runs in the region it was made in (`isolated.rs`).
        self.running.set(self.running.get() + 1);
        let region = self.isolation.replace(job.isolation());
        if remote && (self.tracing() || cfg!(feature = "tracing")) {
            let creator = job.origin();
            self.record(EventKind::TaskStart, creator, 0);
            // SAFETY: every JobRef in a queue is executed exactly once, by whoever removed it.
            unsafe { job.execute(self.index as u32) };
            self.record(EventKind::TaskEnd, creator, 0);
        } else {
            // SAFETY: as above.
            unsafe { job.execute(self.index as u32) };
        }
        self.isolation.set(region);
        self.running.set(self.running.get() - 1);
        guard.disarm();
        true
    }

    /// Whether the task running now sits on top of another task of this thread that is
    /// suspended below it (a wait or a yield inside that task ran this one). A task that may
    /// wait for a lock must not wait then, even in the pool's own way (`latch::PoolLock`): the
    /// suspended task may be what the holder of that lock waits for (`iter::bridge`).
    pub(crate) fn runs_nested(&self) -> bool {
        self.running.get() > 1
    }

    /// Whether this worker records events (the pool was built with tracing).
    #[inline(always)]
    pub(crate) fn tracing(&self) -> bool {
        !self.ring.is_null()
    }

    /// Records an event now, if tracing; `peer` and `hops` as [`TraceEvent`] describes.
    #[inline(always)]
    pub(crate) fn record(&self, kind: EventKind, peer: u32, hops: u32) {
        if self.tracing() || cfg!(feature = "tracing") {
            self.record_at(self.registry.now_ns(), kind, peer, hops);
        }
    }

    /// The time for an event recorded later with [`WorkerThread::record_at`]: now if tracing,
    /// else 0 (no clock reading).
    #[inline(always)]
    pub(crate) fn trace_now(&self) -> u64 {
        if self.tracing() {
            self.registry.now_ns()
        } else {
            0
        }
    }

    /// Records an event with the given time, if tracing.
    #[inline]
    pub(crate) fn record_at(&self, ts_ns: u64, kind: EventKind, peer: u32, hops: u32) {
        #[cfg(feature = "tracing")]
        crate::trace::emit(self.index, kind, peer, hops);
        // SAFETY: points into `self.registry`'s rings, which live as long as `self`; only this
        // worker records into its own ring.
        if let Some(ring) = unsafe { self.ring.as_ref() } {
            ring.record(TraceEvent {
                ts_ns,
                kind,
                peer,
                hops,
            });
        }
    }

    /// Records that this worker popped back its own `b` and runs it inline.
    #[inline(always)]
    pub(crate) fn count_popped_back(&self) {
        bump(&self.counters().executed_local, 1);
    }

    /// Records that `job` runs on this worker; returns whether another worker created it.
    #[inline(always)]
    pub(crate) fn count_execution(&self, job: &JobRef) -> bool {
        // One counter per case; `executed` is their sum, derived in the snapshot.
        let c = self.counters();
        let origin = job.origin();
        if origin as usize == self.index {
            bump(&c.executed_local, 1);
            false
        } else if origin == EXTERNAL {
            bump(&c.injected, 1);
            false
        } else {
            bump(&c.executed_remote, 1);
            true
        }
    }

    /// Takes back the task behind `ticket` if nobody started it, and runs it here.
    pub(crate) fn reclaim(&self, ticket: &Ticket) -> bool {
        match ticket.take() {
            Some(job) => {
                bump(&self.counters().reclaimed, 1);
                self.count_execution(&job);
                let guard = unwind::AbortOnUnwind::new("a task taken back by its waiter");
                let start = self.registry.now_ns();
                let region = self.isolation.replace(job.isolation());
                // SAFETY: the claim makes this the only execution of the job.
                unsafe { job.execute(self.index as u32) };
                self.isolation.set(region);
                let ran = self.registry.now_ns().saturating_sub(start);
                self.reclaimed_ns.set(self.reclaimed_ns.get() + ran);
                guard.disarm();
                true
            }
            None => false,
        }
    }

    /// The idle count, for the exchange's blocking and unblocking.
    #[inline(always)]
    fn idle_count(&self) -> &AtomicUsize {
        // SAFETY: points into `self.registry`, which lives as long as `self`.
        unsafe { &*self.idle }
    }
}

#[cfg(all(test, loom))]
#[path = "../loom/worker.rs"]
mod loom_tests;

/// Runs `op` on a worker: the current one, or one of the global pool.
#[inline]
pub(crate) fn in_worker<OP, R>(op: OP) -> R
where
    OP: FnOnce(&WorkerThread, bool) -> R + Send,
    R: Send,
{
    let worker = WorkerThread::current();
    // SAFETY: the thread-local points to this thread's live worker, or is null; the worker
    // outlives every job its thread runs.
    match unsafe { worker.as_ref() } {
        Some(w) => op(w, false),
        // Straight to the outside path: `Registry::in_worker` would compile `op` once more
        // for a same-pool case that cannot happen here.
        None => crate::builder::global_registry().in_worker_from(None, op),
    }
}

impl WorkerThread {
    /// Takes back the task `id` (a `join`'s `b`) that is not the newest private task: runs the
    /// work queued above it first (spawns, under a sender-initiated policy), then pops it.
    /// False if it left the private stack. Out of line: it is not the common case, and every
    /// `join` site would compile it again.
    #[inline(never)]
    pub(crate) fn take_back_below(&self, id: *const ()) -> bool {
        while let Some(job) = self.pop_private_above(id) {
            self.execute(job);
            if self.pop_private_if(id) {
                return true;
            }
        }
        false
    }

    /// Pops the newest waiting task if the task `id` still waits below it, on the private stack
    /// or in the standing queue (work queued above a `join`'s `b`, which runs before `b` is
    /// taken back).
    pub(crate) fn pop_private_above(&self, id: *const ()) -> Option<JobRef> {
        if !self.stack().contains(id) && !self.standing().contains(id) {
            return None;
        }
        self.pop_stack()
    }
}

//! Every policy as one state machine, interpreted by the runtime and by the simulator.
//!
//! A policy never touches a queue, a thread or a clock. It owns its per-worker decision state
//! (a [`Machine`]) and answers the interpreter's questions at fixed events, with the pool-wide
//! state it needs in [`Shared`] and what it may read about other workers in [`Env`]:
//!
//! | event (the interpreter's "when") | hook | decision |
//! |---|---|---|
//! | an idle worker starts a search round ([`start_round`]) | [`Machine::begin_round`], then [`Machine::round_len`] | how many requests the round may make |
//! | an idle worker decides whether to sleep ([`worth_waking`]) | [`Machine::may_ask`] for each worker with work | whether any work is worth waking for |
//! | it needs a victim | [`Machine::next_victim`] | whom to ask, or nobody |
//! | the request failed | [`Machine::request_failed`] | (state update) |
//! | a request reaches a busy worker | [`Machine::answer`] | give the oldest unstarted task, or reject |
//! | a new task decided at once, or a heartbeat's credit ([`Heartbeat`]) finds a waiting task no decision has seen (the oldest such; sender-initiated; [`allocating_beat`]) | [`Machine::place`] with `arriving = false` | where it goes (`None`: stays) |
//! | a placed task arrives | [`Machine::place`] with `arriving = true` | forward it, or keep it |
//! | every heartbeat that passed, after the allocating half ([`Heartbeat`], [`standing_beat`]; in the simulator without a heartbeat, after every task) | [`Machine::tick`] | where the oldest waiting task goes (standing phase) |
//! | the worker runs out of work / obtains work | [`Machine::idle`], [`Machine::busy`] | (state update) |
//!
//! The runtime (`src/worker/`), the simulator (the `hypersteal-sim` crate) and MPI's ranks (the
//! `hypersteal-mpi` crate) are three interpreters of these decisions. The rules of when are
//! functions here that all of them call: [`start_round`] (the round's order), [`Heartbeat::run`] (a
//! sender-initiated poll point) and [`worth_waking`] (the sleep condition; an MPI rank, which
//! cannot see other ranks' stacks, backs off between rounds instead). Where they differ, they
//! follow the policy's spec, not its name: its reach, and where a victim is chosen
//! ([`Choice`]: by the asker's machine, or by a draw of a counter, through a combining tree or at
//! a scheduler, whose decisions are still the machines' own; an interpreter that sends messages
//! carries each of these out with its own messages). Each policy's file holds its machine and
//! its spec ([`super::spec::Spec`]), which builds the machine ([`machine_for`]) and says what
//! pool-wide state it needs.
//!
//! This module and `super::spec` are the interpreters' interface, used by the sibling crates
//! `hypersteal-sim` and `hypersteal-mpi`; they are hidden from the crate's documentation and not
//! covered by its semver promise.

use super::combining::CombiningTree;
use super::sb::DonorQueue;
#[cfg(doc)]
use super::spec::Choice;
use super::spec::SharedState;
use super::Policy;
use crate::sync::{AtomicU64, AtomicUsize, Ordering};
use crate::topology::TopologyGraph;
use std::fmt;

/// What a policy may read about other workers' loads.
///
/// In the runtime a load is the owner's count of its waiting tasks, published with relaxed
/// stores (so a reader may see a value a few tasks old); in the simulator it is exact.
pub trait LoadView {
    /// Tasks waiting at worker `w` (unstarted, and placed there but not yet taken).
    fn queued(&self, w: usize) -> usize;
    /// Measured nanoseconds per task on worker `w` (only `most-loaded:load=time` asks).
    fn ns_per_task(&self, _w: usize) -> f64 {
        1.0
    }
    /// Relative speed of worker `w` (1.0 unless the pool was given speeds).
    fn speed(&self, _w: usize) -> f64 {
        1.0
    }
}

/// Loads given as a plain vector: `loads[w]` tasks wait at worker `w` (tests, small tools).
impl LoadView for Vec<usize> {
    fn queued(&self, w: usize) -> usize {
        self[w]
    }
}

/// Pool-wide decision state: GRR's counter, GRR-M's combining tree, SB's donor queue and the
/// gradient model's published proximities. Built once per pool (or simulation) by
/// [`Shared::new`]; each piece exists only for the policy that uses it.
pub struct Shared {
    pub(crate) grr: AtomicU64,
    pub(crate) tree: Option<CombiningTree>,
    pub(crate) donors: Option<DonorQueue>,
    pub(crate) proximity: Vec<AtomicUsize>,
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shared")
            .field("grr", &self.grr.load(Ordering::Relaxed))
            .field("combining", &self.tree.is_some())
            .field("donors", &self.donors.is_some())
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// The shared state `policy` needs on `graph`.
    pub fn new(policy: &Policy, graph: &TopologyGraph) -> Self {
        Shared::with_state(policy.spec().shared_state(policy), graph)
    }

    /// The shared state of an interpreter whose workers take turns in one thread (the
    /// simulator): a combining tree's values do not depend on its window, and there a window
    /// could only spin, so the tree gets none.
    pub fn taking_turns(policy: &Policy, graph: &TopologyGraph) -> Self {
        Shared::with_state(
            match policy.spec().shared_state(policy) {
                SharedState::CombiningTree { .. } => SharedState::CombiningTree { window: 0 },
                other => other,
            },
            graph,
        )
    }

    /// One worker's copy of the shared state, for an interpreter whose workers share no memory
    /// (MPI's ranks): the pieces a protocol keeps at one place ([`Choice::CombiningTree`]'s
    /// tree, [`Choice::Scheduler`]'s donor queue) are absent, because the interpreter keeps them
    /// where its messages go; the counter and the proximities are filled from messages
    /// ([`Shared::set_counter`], [`Shared::set_proximity`]).
    pub fn copy_per_worker(policy: &Policy, graph: &TopologyGraph) -> Self {
        Shared::with_state(
            match policy.spec().shared_state(policy) {
                SharedState::CombiningTree { .. } => SharedState::Counter,
                SharedState::DonorQueue => SharedState::Nothing,
                other => other,
            },
            graph,
        )
    }

    fn with_state(state: SharedState, graph: &TopologyGraph) -> Self {
        let p = graph.len();
        Shared {
            grr: AtomicU64::new(0),
            tree: match state {
                SharedState::CombiningTree { window } => Some(CombiningTree::new(
                    (0..p).map(|k| graph.tree_parent(k)).collect(),
                    window,
                )),
                _ => None,
            },
            donors: (state == SharedState::DonorQueue).then(|| DonorQueue::new(p)),
            proximity: match state {
                SharedState::Proximities => (0..p).map(|_| AtomicUsize::new(0)).collect(),
                _ => Vec::new(),
            },
        }
    }

    /// Whether worker `w` is in SB's donor queue (false under every other policy).
    pub fn is_donor(&self, w: usize) -> bool {
        self.donors.as_ref().is_some_and(|d| d.contains(w))
    }

    /// The gradient model's published proximity of worker `w` (0 under every other policy).
    pub fn proximity(&self, w: usize) -> usize {
        self.proximity
            .get(w)
            .map_or(0, |p| p.load(Ordering::Relaxed))
    }

    /// The next value of the global round-robin counter for worker `me` (`grr`, `grr-m`):
    /// through the combining tree where the state holds one, from the counter otherwise.
    pub(crate) fn draw(&self, me: usize) -> u64 {
        match &self.tree {
            Some(tree) => tree.next(me),
            None => self.grr.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Sets the global round-robin counter to `value`, so that the next draw on this state
    /// returns it.
    ///
    /// For interpreters that draw the counter's values over messages: an MPI rank (the
    /// `hypersteal-mpi` crate) draws `grr-m`'s values over the rank tree and hands each one to
    /// its own machine through this call, on its [`Shared::copy_per_worker`]. The runtime and
    /// the simulator never call it.
    pub fn set_counter(&self, value: u64) {
        self.grr.store(value, Ordering::Relaxed);
    }

    /// Records worker `w`'s gradient proximity as `value` (no effect under other policies).
    ///
    /// For interpreters whose workers do not share memory: the MPI crate copies the proximities
    /// that other ranks send it into its own `Shared` before its gradient machine reads them.
    /// The runtime and the simulator never call it (their machines publish their own).
    pub fn set_proximity(&self, w: usize, value: usize) {
        if let Some(p) = self.proximity.get(w) {
            p.store(value, Ordering::Relaxed);
        }
    }
}

/// What a decision may look at: who decides, the topology, the published loads and the
/// pool-wide state.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    /// The deciding worker.
    pub me: usize,
    /// The virtual topology.
    pub graph: &'a TopologyGraph,
    /// Published loads of every worker.
    pub loads: &'a dyn LoadView,
    /// The pool-wide state ([`Shared`]).
    pub shared: &'a Shared,
}

impl fmt::Debug for Env<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Env")
            .field("me", &self.me)
            .field("workers", &self.graph.len())
            .finish_non_exhaustive()
    }
}

/// A busy worker's answer to a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Hand over the oldest unstarted task.
    Give,
    /// Refuse (nothing worth giving).
    Reject,
}

/// One worker's decision state under one policy (module docs: the hooks and when they run).
///
/// Every hook has a default that does nothing, so a receiver-initiated policy implements only
/// the asking side and a sender-initiated one only the placing side.
pub trait Machine: Send + fmt::Debug {
    /// Requests worth making in one search round before the worker considers sleeping.
    fn round_len(&self, _env: &Env<'_>) -> usize {
        0
    }

    /// A search round starts.
    fn begin_round(&mut self, _env: &Env<'_>) {}

    /// The victim of the next request, or `None` when nobody is worth asking now.
    fn next_victim(&mut self, _env: &Env<'_>) -> Option<usize> {
        None
    }

    /// The request to `victim` (the last one chosen) failed.
    fn request_failed(&mut self, _env: &Env<'_>, _victim: usize) {}

    /// Whether this worker's searches may ask `victim` now: the work worth waking an idle
    /// worker for is what it may ask for. Work elsewhere (beyond its neighbourhood, below
    /// `most-loaded`'s `min`, with a worker its manager does not serve) it takes only by a
    /// rescue, after the pool's rescue bound (`src/worker/README.md`, "Rescue"). The default:
    /// every other worker.
    fn may_ask(&self, env: &Env<'_>, victim: usize) -> bool {
        victim != env.me
    }

    /// A request reached this worker while `waiting` of its tasks are unstarted.
    fn answer(&mut self, _env: &Env<'_>, waiting: usize) -> Answer {
        if waiting > 0 {
            Answer::Give
        } else {
            Answer::Reject
        }
    }

    /// The allocating phase: where a task with `hops` transfers goes, either a new task the
    /// worker created (`arriving = false`) or one another worker placed here (`arriving = true`).
    /// `None` keeps it here (it becomes *standing*).
    fn place(&mut self, _env: &Env<'_>, _hops: u32, _arriving: bool) -> Option<usize> {
        None
    }

    /// A heartbeat's standing phase (after its allocating half, see [`standing_beat`]; called
    /// once for every heartbeat that passed, so the calls count time). `oldest_hops` is the hop
    /// count of the oldest waiting task, if any; the answer is where that task goes. The machine
    /// counts its own interval between standing steps, in calls of this hook.
    fn tick(&mut self, _env: &Env<'_>, _oldest_hops: Option<u32>) -> Option<usize> {
        None
    }

    /// The worker ran out of work (before it searches or waits for placed work).
    fn idle(&mut self, _env: &Env<'_>) {}

    /// The worker obtained work, or resumes a frame that waited.
    fn busy(&mut self, _env: &Env<'_>) {}

    /// Under a hierarchy of managers (`sl`, `ml`): this worker's rank and the number of ranks,
    /// `(rank, ranks)`. The top manager has rank 0, a manager below it rank 1, and so on; a
    /// worker that manages nobody has rank `ranks`. `None` for a policy without managers.
    ///
    /// A static property, read once: the runtime does not need it (its managers hand out
    /// whatever tasks they have); the simulator's subtask generators (seed 002 section 6) cut
    /// the work they hand out finer for a requester of a higher rank.
    fn rank(&self) -> Option<(u32, u32)> {
        None
    }

    /// Under a hierarchy of managers (`sl`, `ml`): this worker's own manager, the first it asks
    /// in a round. `None` for the top manager and for a policy without managers.
    ///
    /// A static property, read once, like [`Machine::rank`]: the simulator's subtask generators
    /// that take nothing back (seed 002 section 6) ask their own manager and nobody else, so
    /// they need to know who that is without walking the machine's rounds.
    fn manager(&self) -> Option<usize> {
        None
    }
}

/// The machine of worker `me` of `workers` under `policy`; `seed` seeds its random draws.
///
/// Each policy's spec builds its own machine (`Spec::machine`, in the policy's file).
pub fn machine_for(policy: &Policy, me: usize, workers: usize, seed: u64) -> Box<dyn Machine> {
    (policy.spec().machine)(policy, me, workers, seed)
}

/// Helpers for the machines' unit tests.
#[cfg(all(test, not(loom)))]
pub(crate) mod testing {
    use super::{machine_for, Env, LoadView, Shared};
    use crate::policy::Policy;
    use crate::topology::{Topology, TopologyGraph};

    /// The decision environment of worker `me`.
    pub(crate) fn env<'a>(
        me: usize,
        graph: &'a TopologyGraph,
        loads: &'a dyn LoadView,
        shared: &'a Shared,
    ) -> Env<'a> {
        Env {
            me,
            graph,
            loads,
            shared,
        }
    }

    /// The first `n` victims worker `me` of `p` on `topology` asks under `policy` (seed 7),
    /// every worker showing one waiting task.
    pub(crate) fn draws(
        policy: &str,
        me: usize,
        topology: Topology,
        p: usize,
        n: usize,
    ) -> Vec<usize> {
        let policy: Policy = policy.parse().unwrap();
        let g = topology.graph(p);
        let shared = Shared::new(&policy, &g);
        let mut m = machine_for(&policy, me, p, 7);
        let loads = vec![1; p];
        let env = env(me, &g, &loads, &shared);
        (0..n).map(|_| m.next_victim(&env).unwrap()).collect()
    }
}

/// An idle worker starts a search round: [`Machine::begin_round`], then the number of requests
/// the round may make ([`Machine::round_len`]). The one order every interpreter follows (the
/// runtime's worker, the simulator's engine and MPI's rank), so a machine whose round length
/// depends on its round's state sees it reset first.
pub fn start_round(machine: &mut dyn Machine, env: &Env<'_>) -> usize {
    machine.begin_round(env);
    machine.round_len(env)
}

/// Whether worker `env.me` sees work worth waking for, as its policy sees it: one of
/// `candidates` for which `has_work` holds and that the machine may ask ([`Machine::may_ask`]).
/// The sleep condition of the runtime's idle workers (`has_work`: a non-empty public deque)
/// and of the simulator's processors (`has_work`: a waiting task in the engine's view).
pub fn worth_waking(
    machine: &dyn Machine,
    env: &Env<'_>,
    mut candidates: impl Iterator<Item = usize>,
    has_work: impl Fn(usize) -> bool,
) -> bool {
    candidates.any(|w| w != env.me && has_work(w) && machine.may_ask(env, w))
}

/// Allocating decisions a sender-initiated worker may take in a row after a quiet stretch, and
/// the most standing steps one poll point catches up on ([`Heartbeat`]).
pub const BURST: u32 = 16;

/// When a sender-initiated worker decides: the heartbeat, kept by both interpreters (the
/// runtime's worker in nanoseconds, `Heartbeat<u64>`; the simulator's processor in simulated
/// time, `Heartbeat<f64>`).
///
/// Every `period` of time is one heartbeat. At each poll point the interpreter calls
/// [`Heartbeat::poll`], which returns the heartbeats that passed since the last poll point (at
/// most [`BURST`]): the standing phase ([`standing_beat`]) runs once for each, so that a policy's
/// `interval` counts time however far apart the poll points are (a worker running tasks of ten
/// heartbeats each still takes ten standing steps per task). The allocating phase
/// ([`allocating_beat`]) runs on a token bucket instead: each heartbeat adds one decision's
/// credit, up to [`BURST`], and the interpreter decides undecided tasks, oldest first, while one
/// waits and [`Heartbeat::take`] grants credit. Credit that a poll point with nothing undecided
/// leaves unused stays for the next one, so a burst of coarse spawns after a quiet stretch is
/// decided task by task, while fine-grained tasks (many per heartbeat) mostly stay home
/// undecided.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Heartbeat<T> {
    /// When the last poll point looked.
    last: T,
    /// The allocating phase's credit then (time; a decision costs one period).
    credit: T,
    /// Time gathered towards the next standing step (less than one period after a poll).
    standing: T,
}

/// A time for [`Heartbeat`]: integer nanoseconds (the runtime) or simulated time (the
/// simulator).
pub trait BeatTime:
    Copy + Default + PartialOrd + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self>
{
    /// `self - earlier`, or zero if `earlier` is later.
    fn since(self, earlier: Self) -> Self;
    /// Whole periods in `self` (rounded down), saturated at `u32::MAX`.
    fn periods(self, period: Self) -> u32;
    /// `n` periods.
    fn times(period: Self, n: u32) -> Self;
}

impl BeatTime for u64 {
    fn since(self, earlier: u64) -> u64 {
        self.saturating_sub(earlier)
    }
    fn periods(self, period: u64) -> u32 {
        u32::try_from(self / period.max(1)).unwrap_or(u32::MAX)
    }
    fn times(period: u64, n: u32) -> u64 {
        period.saturating_mul(u64::from(n))
    }
}

impl BeatTime for f64 {
    fn since(self, earlier: f64) -> f64 {
        (self - earlier).max(0.0)
    }
    fn periods(self, period: f64) -> u32 {
        // `as` saturates, and a NaN (a zero period) becomes 0.
        (self / period).floor() as u32
    }
    fn times(period: f64, n: u32) -> f64 {
        period * f64::from(n)
    }
}

impl<T: BeatTime> Heartbeat<T> {
    /// A poll point at time `now`, heartbeats `period` apart: brings the allocating credit up to
    /// date and returns how many standing steps are due (at most [`BURST`]).
    #[inline]
    pub fn poll(&mut self, now: T, period: T) -> u32 {
        let elapsed = now.since(self.last);
        self.last = now;
        let burst = T::times(period, BURST);
        let credit = self.credit + elapsed;
        self.credit = if credit < burst { credit } else { burst };
        let gathered = self.standing + elapsed;
        if gathered < period {
            self.standing = gathered;
            return 0;
        }
        let due = gathered.periods(period);
        if due >= BURST {
            self.standing = T::default();
            BURST
        } else {
            self.standing = gathered - T::times(period, due);
            due
        }
    }

    /// Starts counting again at `now` after a stretch that does not count: neither credit nor
    /// standing time gathers for the time since the last poll point; what had gathered before
    /// it stays (the runtime's worker pauses its heartbeat while its joins run in place with
    /// nobody hungry, `src/worker/in_place.rs`).
    #[inline]
    pub fn resume(&mut self, now: T) {
        self.last = now;
    }

    /// Takes one allocating decision's credit if a period's worth has gathered.
    #[inline]
    pub fn take(&mut self, period: T) -> bool {
        let ok = self.credit >= period;
        if ok {
            self.credit = self.credit - period;
        }
        ok
    }

    /// A poll point at time `now` under heartbeats `period` apart, the rule both interpreters
    /// follow: the allocating phase for undecided tasks, oldest first, while one waits and the
    /// credit lasts ([`Heartbeat::take`]), then one standing step for every heartbeat that passed
    /// ([`Heartbeat::poll`]).
    #[inline]
    pub fn run(&mut self, now: T, period: T, steps: &mut impl BeatSteps) {
        let standing = self.poll(now, period);
        while steps.undecided() && self.take(period) {
            steps.allocate();
        }
        for _ in 0..standing {
            steps.stand();
        }
    }
}

/// What an interpreter does at the steps of [`Heartbeat::run`].
pub trait BeatSteps {
    /// Whether a waiting task that may move has not been seen by a decision yet.
    fn undecided(&mut self) -> bool;
    /// The allocating phase for the oldest such task ([`allocating_beat`]).
    fn allocate(&mut self);
    /// One standing step for the oldest waiting task ([`standing_beat`]).
    fn stand(&mut self);
}

/// The allocating half of a heartbeat of a sender-initiated policy; see [`standing_beat`] for
/// the other half. At a poll point, for each decision's credit the [`Heartbeat`] grants while a
/// task waits undecided, the allocating phase ([`Machine::place`], `arriving = false`) runs on
/// the oldest waiting task that no decision has seen yet, whose hop count is `undecided_hops`,
/// with loads in which that task is not counted at its creator (it is being decided, not
/// waiting: as a new task in the papers, decided when it is created). Returns `None` when no
/// task waits undecided, `Some(None)` when the task stays (it is *standing* from now on),
/// `Some(Some(to))` when it goes to worker `to`.
///
/// Both interpreters (the runtime's worker, the simulator's engine) follow this rule, carry each
/// decision out, and then call [`standing_beat`] once per heartbeat that passed
/// ([`Heartbeat::poll`]) with the oldest task still waiting.
pub fn allocating_beat(
    machine: &mut dyn Machine,
    env: &Env<'_>,
    undecided_hops: Option<u32>,
) -> Option<Option<usize>> {
    let hops = undecided_hops?;
    let loads = Deciding {
        inner: env.loads,
        me: env.me,
    };
    let env = Env {
        loads: &loads,
        ..*env
    };
    Some(machine.place(&env, hops, false))
}

/// The standing half of a heartbeat (after [`allocating_beat`], once for every heartbeat that
/// passed since the last poll point): the standing phase
/// ([`Machine::tick`], which counts its own `interval` of heartbeats) for the oldest waiting
/// task, whose hop count is `oldest_hops` (`None`: nothing waits; the gradient model still
/// recomputes its proximity). Returns where that task goes.
pub fn standing_beat(
    machine: &mut dyn Machine,
    env: &Env<'_>,
    oldest_hops: Option<u32>,
) -> Option<usize> {
    machine.tick(env, oldest_hops)
}

/// Loads as the allocating phase sees them: the task being decided is not counted at `me`.
struct Deciding<'a> {
    inner: &'a dyn LoadView,
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

#[cfg(all(test, not(loom)))]
mod heartbeat_tests {
    use super::{Heartbeat, BURST};

    #[test]
    fn standing_steps_count_the_heartbeats_that_passed() {
        let mut beat = Heartbeat::<u64>::default();
        // Poll points closer than a period: one step each time a period has gathered.
        let due: Vec<u32> = [5, 10, 19, 20, 39, 41].map(|t| beat.poll(t, 10)).to_vec();
        assert_eq!(due, [0, 1, 0, 1, 1, 1]);
        // A poll point after a long task takes every step that passed, up to BURST.
        assert_eq!(beat.poll(41 + 75, 10), 7);
        assert_eq!(beat.poll(1_000_000, 10), BURST);
        assert_eq!(beat.poll(1_000_005, 10), 0);
        // Time never runs backwards for the clock, and a stale reading takes nothing.
        assert_eq!(beat.poll(3, 10), 0);
    }

    #[test]
    fn allocating_credit_is_a_token_bucket() {
        let mut beat = Heartbeat::<u64>::default();
        beat.poll(25, 10);
        assert!(beat.take(10) && beat.take(10) && !beat.take(10));
        // Unused credit stays, up to BURST decisions after a quiet stretch.
        beat.poll(10_000, 10);
        let taken = (0..100).take_while(|_| beat.take(10)).count();
        assert_eq!(taken, BURST as usize);
        // The simulator's time behaves the same.
        let mut sim = Heartbeat::<f64>::default();
        assert_eq!(sim.poll(125.0, 50.0), 2);
        assert!(sim.take(50.0) && sim.take(50.0) && !sim.take(50.0));
        assert_eq!(sim.poll(150.0, 50.0), 1);
    }
}

//! The discrete-event engine: the simulator's interpreter of the policies' decisions.
//!
//! Each simulated worker holds at most one executing piece of work plus a LIFO deque (and, for
//! sender-initiated policies, an inbox). Events: a piece finishes (`Done`), a divisible piece
//! becomes too small to split (`Unsplittable`), a request reaches its victim (`Request`), a reject
//! returns (`Retry`), work arrives (`Arrive`).
//!
//! Every decision is a hook of the worker's policy [`Machine`], raised at the events of the table
//! in `hypersteal::policy::machine`, over the simulated loads:
//!
//! | engine event | hook |
//! |---|---|
//! | an idle receiver starts a search round / sends a request / gets a reject | `begin_round` + `round_len` (`start_round`) / `next_victim` / `request_failed` |
//! | a request reaches its victim | `answer` |
//! | a task is spawned (heartbeat 0), or a heartbeat's credit finds it the oldest waiting task no decision has seen | `place(hops, false)` |
//! | a placed task is taken from the inbox | `place(hops, true)` |
//! | a task ended (heartbeat 0; with a load-exchange period, once per period passed), or, at the end of a task, every heartbeat that passed since the last one, after the allocating half | `tick(oldest_hops)` |
//! | a worker runs out of work / a thief's loot arrives (and the root, at the start) | `idle` / `busy` |
//!
//! A search processor (a stack of untried alternatives) answers the requests that reach it while
//! it expands a node at its next poll point, paying for each answer it sends (`Proc::pending`,
//! seed 002 sections 4 and 5); every other victim answers at once and for free. Under `sl` and
//! `ml` with `SearchRules::subtasks`, a manager is a subtask generator instead (seed 002 section
//! 6): it holds its work as a pool it does not search and serves requests one at a time, each
//! with one subtask cut for the requester, paying for the cutting and the sending
//! (`Proc::pool`, `Engine::serve`). Once its pool is spent it asks only its own manager, as
//! seed 002's managers, which generate every subtask from the work they were given (the top
//! manager, which has none, is then done); with `SearchRules::takeback` it asks as the
//! runtime's machine says, the workers it manages included.
//!
//! The engine itself never asks which policy it runs, except for static properties: whether it
//! is sender-initiated, its [`Reach`] and what a victim is worth asking (the sleep re-check), and
//! where a victim is chosen ([`Choice`]: the messages and queueing a request takes).
//!
//! This file holds the state, the event loop and a task's life on a processor (start, done,
//! loads); the receiver side (search rounds, requests, answers) is `engine/asking.rs`, the
//! sender side (placing, the heartbeat's halves, arrivals) `engine/placing.rs`, managers as
//! subtask generators `engine/managers.rs`.

use crate::cost::{CostModel, Server};
use crate::queue::EventQueue;
use crate::stack::{SearchRules, SearchStack};
use crate::workload::{SplitWork, TaskTree};
use crate::{Idle, SimConfig, SimResult};
use hypersteal::policy::machine::{
    self, machine_for, Answer, BeatSteps, Env, Heartbeat, LoadView, Machine, Shared,
};
use hypersteal::policy::spec::Choice;
use hypersteal::policy::{Reach, XorShift};
use hypersteal::TopologyGraph;
use std::collections::VecDeque;

mod asking;
mod managers;
mod placing;

#[derive(Clone, Debug)]
enum Work<N> {
    Node(N),
    Chunk(f64),
    /// A depth-first search's stack of untried alternatives; its top node is being expanded.
    Stack(SearchStack<N>),
}

#[derive(Clone, Debug)]
struct Task<N> {
    work: Work<N>,
    hops: u32,
    /// Depth in the task tree (the root is 0).
    depth: u32,
    /// Whether the allocating phase has decided where this task goes (or it may not move).
    /// Only a heartbeat leaves a task undecided for a while.
    decided: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Executing a piece.
    Busy,
    /// Idle with a request (or a reject) in flight.
    Asking,
    /// Idle, not asking: nothing worth asking is visible (the runtime's sleep), or a
    /// sender-initiated worker waiting for placed work.
    Parked,
    /// A subtask generator that has handed out its pool and asks nobody (the top manager
    /// without `SearchRules::takeback`): idle for good.
    Done,
}

struct Proc<N> {
    deque: VecDeque<Task<N>>,
    inbox: VecDeque<Task<N>>,
    current: Option<(Task<N>, f64)>,
    state: State,
    version: u64,
    /// This worker's heartbeat (with a heartbeat set).
    beat: Heartbeat<f64>,
    round_left: usize,
    stealable: bool,
    depth: usize,
    /// Thieves whose requests reached this worker while it was expanding a node of a search:
    /// it answers them, in arrival order, when that expansion ends (its next poll point).
    pending: Vec<usize>,
    /// Node expansions since this worker's last poll point (a search).
    since_poll: u32,
    /// SB: `Some(t)` while this idle worker (it went idle, or the last poll for it was
    /// rejected) is still in the donor queue, where the scheduler placed it when it polled for
    /// it; `t` is when the message that says it is idle (its request, or the reject of that
    /// poll) reaches processor 0. The scheduler removes it when it serves that message (one
    /// access for that and the next poll), or, sooner, a reject the worker itself sent while
    /// idle (`repoll`).
    leaving: Option<f64>,
    /// Its rank under a hierarchy of managers (`Machine::rank`), read when managers generate
    /// subtasks (`SearchRules::subtasks`); `None` otherwise. A manager is then a subtask
    /// generator (`Proc::generates`).
    rank: Option<(u32, u32)>,
    /// Its own manager under a hierarchy of managers (`Machine::manager`), read with `rank`;
    /// `None` for the top manager, and when `rank` is.
    manager: Option<usize>,
    /// A generator's pool: the stack it was given, expanded only as far as cutting subtasks
    /// needed (`None` when empty; a generator with a pool counts as busy).
    pool: Option<SearchStack<N>>,
    /// A generator serves one request at a time: it is busy serving until then.
    free_at: f64,
}

impl<N> Proc<N> {
    /// A subtask generator (seed 002 section 6): a manager whose work is a pool of subtasks yet
    /// to be generated, which it hands out one per request and does not search itself.
    fn generates(&self) -> bool {
        matches!(self.rank, Some((rank, ranks)) if rank < ranks)
    }
}

/// What SB's scheduler did, in order, for tests: whom it polled for whom, and which idle
/// rejecters it removed from the queue (`Engine::repoll`).
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SbEvent {
    Poll { victim: usize, thief: usize },
    Dropped(usize),
}

#[cfg(test)]
thread_local! {
    /// This thread's SB events, recorded only while a test has put a log here (`None`, the
    /// default, records nothing, so other tests' runs leave no trace).
    pub(crate) static SB_LOG: std::cell::RefCell<Option<Vec<SbEvent>>> =
        const { std::cell::RefCell::new(None) };
}

/// Records `e` in this thread's SB log, if a test has opened one.
#[cfg(test)]
fn sb_log(e: SbEvent) {
    SB_LOG.with(|l| {
        if let Some(log) = l.borrow_mut().as_mut() {
            log.push(e);
        }
    });
}

enum Ev<N> {
    Done(usize, u64),
    Unsplittable(usize, u64),
    Request {
        victim: usize,
        thief: usize,
    },
    Retry(usize),
    /// GRR, SB: the shared point serves this idle processor's access; its victim is chosen.
    Choose(usize),
    /// SB: the scheduler serves an idle processor's leaving the donor queue (it asks nobody).
    Leave(usize),
    /// SB: the scheduler serves a reject of a poll it sent for the idle `thief`, and polls the
    /// next donor for it; `victim` is the donor that rejected, and `victim_idle` whether it was
    /// idle then (the reject says so).
    Repoll {
        thief: usize,
        victim: usize,
        victim_idle: bool,
    },
    Arrive {
        to: usize,
        task: Task<N>,
        placed: bool,
    },
}

/// Loads as the policies see them at one instant: waiting tasks (deque + inbox), for a
/// divisible piece the number of grains it could still give away, and for a search stack the
/// untried alternatives above the cut-off.
struct View<'a, N> {
    procs: &'a [Proc<N>],
    now: f64,
    cost: &'a CostModel,
    grain: f64,
    cutoff: u32,
}

impl<N> View<'_, N> {
    /// What the executing piece could give: grains of a divisible piece, alternatives of a
    /// search stack.
    fn chunk_grains(&self, p: &Proc<N>) -> usize {
        match &p.current {
            // A generator gives the subtasks of its pool.
            _ if p.generates() => p.pool.as_ref().map_or(0, SearchStack::len),
            Some((
                Task {
                    work: Work::Stack(stack),
                    ..
                },
                _,
            )) => stack.giveable(self.cutoff),
            Some((
                Task {
                    work: Work::Chunk(_),
                    ..
                },
                end,
            )) => {
                let rem = (end - self.now) / self.cost.t_work;
                if rem >= 2.0 * self.grain {
                    (rem / self.grain) as usize
                } else {
                    0
                }
            }
            _ => 0,
        }
    }
}

impl<N> LoadView for View<'_, N> {
    fn queued(&self, w: usize) -> usize {
        let p = &self.procs[w];
        p.deque.len() + p.inbox.len() + self.chunk_grains(p)
    }
}

/// The work of expanding the node on top of `stack` of `tree`'s search: that node's cost (the
/// one definition, for a searcher's step and a generator's cutting alike).
fn expansion<T: TaskTree>(tree: &T, stack: &SearchStack<T::Node>) -> f64 {
    tree.cost(stack.top().expect("a stack being searched has a top"))
}

pub(crate) struct Engine<'a, T: TaskTree> {
    tree: Option<&'a T>,
    split: SplitWork,
    /// A stack-splitting search of `tree` instead of running it as a task tree.
    search: Option<SearchRules>,
    cost: CostModel,
    /// The policy's reach and whether it is sender-initiated, read at every event.
    reach: Reach,
    sender: bool,
    graph: TopologyGraph,
    /// The policy's pool-wide state.
    shared: Shared,
    /// Every worker's policy machine: all its decisions.
    machines: Vec<Box<dyn Machine>>,
    procs: Vec<Proc<T::Node>>,
    queue: EventQueue<Ev<T::Node>>,
    rng: XorShift,
    /// Workers with something a thief could take.
    stealable: usize,
    parked: Vec<usize>,
    /// What the policy's victim choice goes through.
    choice: Choice,
    /// GRR's counter / SB's donor queue, at worker 0.
    point: Server,
    bus: Server,
    kids: Vec<T::Node>,
    end: f64,
    work_done: f64,
    requests: u64,
    requests_ok: u64,
    rejects: u64,
    /// Processor time donors spent answering requests between two node expansions.
    answer_time: f64,
    /// Requests that waited for their victim's poll point.
    deferred: u64,
    transfers: u64,
    tasks: u64,
    max_hops: u32,
    /// Idle processors keep asking until the work is done (the papers' machines) instead of
    /// parking when nothing stealable is visible (the runtime's sleep).
    poll: bool,
    /// Tasks deeper than this in the tree are never given away (Kumar's cut-off depth).
    cutoff_depth: u32,
    /// Simulated time between two allocating or standing decisions of a worker (0: a new task
    /// is decided when created, the standing phase runs after every task).
    heartbeat: f64,
    /// Processors executing a piece.
    busy: usize,
    /// Work messages on their way.
    in_flight: usize,
    /// Stop (and report `truncated`) after this many requests.
    pub(crate) max_requests: u64,
}

impl<'a, T: TaskTree> Engine<'a, T> {
    pub(crate) fn new(config: &SimConfig, tree: Option<&'a T>, split: SplitWork) -> Self {
        let p = config.procs;
        let graph = config.topology.graph(p);
        // The window's cost is `t_combine`; the tree itself does not spin here.
        let shared = Shared::taking_turns(&config.policy, &graph);
        let procs = (0..p)
            .map(|k| {
                let mut depth = 0;
                let mut at = k;
                while let Some(up) = graph.tree_parent(at) {
                    depth += 1;
                    at = up;
                }
                Proc {
                    deque: VecDeque::new(),
                    inbox: VecDeque::new(),
                    current: None,
                    state: State::Parked,
                    version: 0,
                    beat: Heartbeat::default(),
                    round_left: 0,
                    stealable: false,
                    depth,
                    pending: Vec::new(),
                    leaving: None,
                    since_poll: 0,
                    rank: None,
                    manager: None,
                    pool: None,
                    free_at: 0.0,
                }
            })
            .collect();
        Engine {
            tree,
            split,
            search: None,
            cost: config.cost,
            reach: config.policy.reach(),
            sender: config.policy.is_sender_initiated(),
            machines: (0..p)
                .map(|k| machine_for(&config.policy, k, p, config.seed))
                .collect(),
            shared,
            graph,
            procs,
            queue: EventQueue::new(),
            rng: XorShift::new(config.seed ^ 0x5117_5EED),
            stealable: 0,
            parked: Vec::new(),
            choice: config.policy.spec().choice,
            point: Server::default(),
            bus: Server::default(),
            kids: Vec::new(),
            end: 0.0,
            work_done: 0.0,
            requests: 0,
            requests_ok: 0,
            rejects: 0,
            answer_time: 0.0,
            deferred: 0,
            transfers: 0,
            tasks: 0,
            max_hops: 0,
            cutoff_depth: config.cutoff_depth.unwrap_or(u32::MAX),
            heartbeat: config.heartbeat,
            poll: config.idle == Idle::Poll,
            busy: 0,
            in_flight: 0,
            max_requests: u64::MAX,
        }
    }

    /// Searches the tree depth first instead, as `rules` say: processor 0 starts with the root
    /// on its stack; requests split stacks above the rules' cut-off depth.
    pub(crate) fn searching(mut self, rules: SearchRules) -> Self {
        assert!(self.tree.is_some(), "a search needs a tree");
        self.search = Some(rules);
        self.cutoff_depth = rules.cutoff.unwrap_or(u32::MAX);
        if rules.subtasks.is_some() {
            for (proc, machine) in self.procs.iter_mut().zip(&self.machines) {
                proc.rank = machine.rank();
                proc.manager = machine.manager();
            }
        }
        self
    }

    fn receiver(&self) -> bool {
        !self.sender && self.procs.len() > 1
    }

    /// Runs one hook of worker `p`'s machine, with `p`'s view of the simulated loads at `now`.
    fn decide<R>(
        &mut self,
        p: usize,
        now: f64,
        hook: impl FnOnce(&mut dyn Machine, &Env<'_>) -> R,
    ) -> R {
        let loads = View {
            procs: &self.procs,
            now,
            cost: &self.cost,
            grain: self.split.grain,
            cutoff: self.cutoff_depth,
        };
        let env = Env {
            me: p,
            graph: &self.graph,
            loads: &loads,
            shared: &self.shared,
        };
        hook(self.machines[p].as_mut(), &env)
    }

    /// Worker `p` obtained work from another worker (a thief's loot arrived).
    fn obtained(&mut self, p: usize, now: f64) {
        // SB: the scheduler already placed `p` at the tail of the donor queue when it chose
        // the poll that brought this work.
        if self.choice != Choice::Scheduler {
            self.decide(p, now, |m, env| m.busy(env));
        }
    }

    /// GRR, SB: `p` sends an access to the shared point at processor 0, which queues there;
    /// `served` happens when the access has been served. Returns when the access reaches
    /// processor 0 (it is served later, in its turn).
    fn access_point(&mut self, p: usize, now: f64, served: Ev<T::Node>) -> f64 {
        let there = self.msg(now, self.graph.distance(p, 0));
        let at = self.point.access(there, self.cost.t_access);
        self.queue.push(at, served);
        there
    }

    /// A message of `d` hops sent at `t` arrives at the returned time (queueing on the bus).
    fn deliver(&mut self, t: f64, one_way: f64) -> f64 {
        if self.cost.t_bus > 0.0 {
            self.bus.access(t, self.cost.t_bus) + one_way
        } else {
            t + one_way
        }
    }

    fn msg(&mut self, t: f64, d: usize) -> f64 {
        let one_way = self.cost.t_msg(d);
        self.deliver(t, one_way)
    }

    fn transfer(&mut self, t: f64, d: usize) -> f64 {
        let one_way = self.cost.t_transfer(d);
        self.deliver(t, one_way)
    }

    /// Runs to the end; `None` if the request budget ran out first.
    pub(crate) fn run_capped(self) -> Option<SimResult> {
        let cap = self.max_requests;
        let r = self.run();
        (r.requests <= cap).then_some(r)
    }

    pub(crate) fn run(mut self) -> SimResult {
        let root = match (self.search, self.tree) {
            (Some(_), Some(t)) => Work::Stack(SearchStack::new(t.root())),
            (_, Some(t)) => Work::Node(t.root()),
            (_, None) => Work::Chunk(self.split.work),
        };
        // The worker that is given the root is busy from the start (under SB: the first donor;
        // being given the root is no access to the queue).
        self.decide(0, 0.0, |m, env| m.busy(env));
        self.take(
            0,
            Task {
                work: root,
                hops: 0,
                depth: 0,
                decided: true,
            },
            0.0,
        );
        for k in 1..self.procs.len() {
            self.become_idle(k, 0.0);
        }
        while let Some((now, ev)) = self.queue.pop() {
            if self.requests > self.max_requests {
                break;
            }
            match ev {
                Ev::Done(p, v) if self.procs[p].version == v => self.done(p, now),
                Ev::Unsplittable(p, v) if self.procs[p].version == v => self.refresh(p, now),
                Ev::Done(..) | Ev::Unsplittable(..) => {}
                Ev::Request { victim, thief } => self.request(victim, thief, now),
                Ev::Retry(p) => self.acquire(p, now),
                Ev::Choose(p) => self.choose(p, now),
                Ev::Leave(p) => self.decide(p, now, |m, env| m.idle(env)),
                Ev::Repoll {
                    thief,
                    victim,
                    victim_idle,
                } => self.repoll(thief, victim, victim_idle, now),
                Ev::Arrive { to, task, placed } => self.arrive(to, task, placed, now),
            }
        }
        // Everything ran and nothing is left anywhere, unless the request budget stopped the
        // run (`run_capped`, which then reports nothing).
        debug_assert!(
            self.requests > self.max_requests
                || self.procs.iter().all(|p| p.current.is_none()
                    && p.pool.is_none()
                    && p.deque.is_empty()
                    && p.inbox.is_empty()
                    && p.pending.is_empty())
        );
        SimResult {
            time: self.end,
            work: self.work_done,
            requests: self.requests,
            requests_ok: self.requests_ok,
            rejects: self.rejects,
            transfers: self.transfers,
            tasks: self.tasks,
            max_hops: self.max_hops,
            shared_wait: self.point.waited + self.bus.waited,
            answer_time: self.answer_time,
            deferred: self.deferred,
            shared_accesses: self.point.accesses,
            ..SimResult::default()
        }
    }

    fn view(&self, now: f64) -> View<'_, T::Node> {
        View {
            procs: &self.procs,
            now,
            cost: &self.cost,
            grain: self.split.grain,
            cutoff: self.cutoff_depth,
        }
    }

    /// Re-evaluates whether `p` has something to steal; wakes parked thieves when it now has.
    fn refresh(&mut self, p: usize, now: f64) {
        let proc = &self.procs[p];
        let has = proc
            .deque
            .front()
            .is_some_and(|t| t.depth <= self.cutoff_depth)
            || self.view(now).chunk_grains(proc) > 0;
        if has == proc.stealable {
            return;
        }
        self.procs[p].stealable = has;
        if !has {
            self.stealable -= 1;
            return;
        }
        self.stealable += 1;
        if !self.receiver() || self.parked.is_empty() {
            return;
        }
        let reach = self.reach;
        let mut i = 0;
        while i < self.parked.len() {
            let w = self.parked[i];
            let wake = match reach {
                Reach::Neighbors => self.graph.is_neighbor(w, p),
                _ => true,
            };
            if wake && self.procs[w].state == State::Parked {
                self.parked.swap_remove(i);
                self.procs[w].state = State::Asking;
                // A parked processor starts asking after its wake-up (`CostModel::t_wake`).
                self.queue.push(now + self.cost.t_wake, Ev::Retry(w));
            } else {
                i += 1;
            }
        }
    }

    /// The work of expanding the node on top of `stack`: the tree's cost of that node.
    fn expansion(&self, stack: &SearchStack<T::Node>) -> f64 {
        expansion(self.tree.expect("a search has a tree"), stack)
    }

    /// `p` takes work it was given at `now`: it starts it, or, a subtask generator given a
    /// stack, makes it its pool and waits for requests.
    fn take(&mut self, p: usize, task: Task<T::Node>, now: f64) {
        match task.work {
            Work::Stack(stack) if self.procs[p].generates() => {
                debug_assert!(
                    self.procs[p].pool.is_none(),
                    "a generator asks only when out"
                );
                self.busy += 1;
                let proc = &mut self.procs[p];
                proc.pool = Some(stack);
                proc.state = State::Busy;
                self.refresh(p, now);
            }
            _ => self.start(p, task, now),
        }
    }

    /// `p` starts executing `task` at `now`.
    fn start(&mut self, p: usize, task: Task<T::Node>, now: f64) {
        let units = match &task.work {
            Work::Node(n) => self.tree.expect("a node needs a tree").cost(n),
            Work::Chunk(w) => *w,
            // One node expansion.
            Work::Stack(s) => self.expansion(s),
        };
        // A task of a tree also pays its bookkeeping (`t_task`, processor time that is no work).
        // A task placed here from elsewhere (`hops > 0`) pays the receiving side as well.
        let overhead = match &task.work {
            Work::Node(_) if task.hops > 0 => self.cost.t_task + self.cost.t_task_remote,
            Work::Node(_) => self.cost.t_task,
            _ => 0.0,
        };
        let end = now + units * self.cost.t_work + overhead;
        self.busy += 1;
        let proc = &mut self.procs[p];
        proc.version += 1;
        proc.state = State::Busy;
        let v = proc.version;
        let chunk = matches!(task.work, Work::Chunk(_));
        proc.current = Some((task, end));
        self.queue.push(end, Ev::Done(p, v));
        if chunk {
            let cut = end - 2.0 * self.split.grain * self.cost.t_work;
            if cut > now {
                self.queue.push(cut, Ev::Unsplittable(p, v));
            }
        }
        self.refresh(p, now);
    }

    fn done(&mut self, p: usize, now: f64) {
        let (task, end) = self.procs[p]
            .current
            .take()
            .expect("a Done event has a piece");
        self.busy -= 1;
        self.end = self.end.max(end);
        self.tasks += 1;
        if let Work::Stack(mut stack) = task.work {
            // The top node is expanded: its children replace it and the next top starts.
            let search = self.search.expect("a stack belongs to a search");
            self.work_done += self.expansion(&stack) * self.cost.t_work;
            let tree = self.tree.expect("a search has a tree");
            stack.expand_top(tree, &mut self.kids);
            // The poll point (seed 002 section 4: a busy processor "does a fixed amount of work
            // and checks for any pending work-request messages"; here the fixed amount is one
            // node expansion, or `poll` of them): the requests that arrived since the last poll
            // point are answered now.
            self.procs[p].since_poll += 1;
            let at_poll = self.procs[p].since_poll >= search.poll || stack.is_empty();
            let pending = if at_poll {
                self.procs[p].since_poll = 0;
                std::mem::take(&mut self.procs[p].pending)
            } else {
                Vec::new()
            };
            if stack.is_empty() {
                // Out of work: the waiting requests are rejected as by an idle processor.
                self.refresh(p, now);
                for thief in pending {
                    self.answer(p, thief, now, false);
                }
                self.become_idle(p, now);
            } else {
                let task = Task {
                    work: Work::Stack(stack),
                    ..task
                };
                self.start(p, task, now);
                // Answering is the donor's own processor time (section 5: the overhead is "time
                // spent in requesting for work and sending work"): each answer sends its
                // message once the previous one is sent, and the next expansion waits for all.
                let mut t = now;
                for thief in pending {
                    t = self.answer(p, thief, t, true);
                }
                if t > now {
                    let proc = &mut self.procs[p];
                    let (_, end) = proc.current.as_mut().expect("the next node was started");
                    *end += t - now;
                    proc.version += 1;
                    let (v, end) = (proc.version, *end);
                    self.queue.push(end, Ev::Done(p, v));
                }
            }
            return;
        }
        let mut next = None;
        match &task.work {
            Work::Chunk(w) => self.work_done += w * self.cost.t_work,
            Work::Stack(_) => unreachable!("handled above"),
            Work::Node(n) => {
                let tree = self.tree.expect("a node needs a tree");
                self.work_done += tree.cost(n) * self.cost.t_work;
                let mut kids = std::mem::take(&mut self.kids);
                tree.children(n, &mut kids);
                // As `join`: the first child runs here next, the others are spawned (pushed, or
                // placed by a sender-initiated policy), the last one oldest.
                let mut it = kids.drain(..);
                next = it.next();
                let spawned: Vec<_> = it.rev().collect();
                self.kids = kids;
                for child in spawned {
                    self.spawn(
                        p,
                        Task {
                            work: Work::Node(child),
                            hops: 0,
                            depth: task.depth + 1,
                            decided: false,
                        },
                        now,
                    );
                }
            }
        }
        self.beat(p, now);
        let task = match next {
            Some(n) => Some(Task {
                work: Work::Node(n),
                hops: 0,
                depth: task.depth + 1,
                decided: true,
            }),
            None => self.procs[p].deque.pop_back(),
        };
        match task {
            Some(t) => self.start(p, t, now),
            None => {
                self.refresh(p, now);
                self.become_idle(p, now);
            }
        }
    }
}

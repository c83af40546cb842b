//! One rank: the third interpreter of the policy machines, after the runtime's workers and the
//! simulator's engine.
//!
//! A rank loops over *steps*. While it holds tasks, a step takes the newest ones from its stack
//! (one per pool worker), runs each depth-first for at most [`Config::step`] tasks in its pool, and
//! pushes what is left back; then the rank reads every message that has arrived (answering
//! requests, taking in work, passing the token), and a sender-initiated policy runs its
//! heartbeat as a pool's worker does at a poll point (`Heartbeat::run`: the allocating phase for
//! undecided tasks while the heartbeats' credit lasts, then a standing step per heartbeat that
//! passed, [`Config::heartbeat`] apart), also while passive. While it holds none, it
//! is *passive*: it passes the termination token, asks for work (receiver-initiated policies) and
//! waits for messages, sleeping between looks (from 10 µs, doubling to 1 ms while nothing comes)
//! rather than spinning: ranks often share cores.
//!
//! The machines see ranks as workers: `Env::me` is the rank, the graph has one node per rank, and
//! the loads are each rank's waiting tasks as last heard (exact for itself). Each rank keeps its
//! own copy of the pool-wide state ([`Shared::copy_per_worker`]); where a victim is chosen is
//! the policy's [`Choice`], carried out with these messages:
//!
//! - [`Choice::Counter`] (`grr`) and [`Choice::Scheduler`] (`sb`): rank 0 keeps the one real
//!   [`Shared`] (the counter, the donor queue) and one machine per rank. An idle rank sends a
//!   `Draw` and rank 0 runs *that rank's* machine against the real state, answering with the
//!   victim; under a scheduler, every rank's `busy`/`idle` events travel to rank 0 as `Donor`
//!   messages. One authority keeps the counter's sequence and the donors' FIFO exact, at the cost
//!   of a round trip to rank 0 per request. (The simulator's scheduler also sends the request and
//!   hears the reject itself, as seed 002 describes; here the asker sends its own request.)
//! - [`Choice::CombiningTree`] (`grr-m`): the combining is done over the rank tree
//!   (`TopologyGraph::tree_parent`). Draws waiting at a rank when it next looks at the network (its
//!   own and its children's) go up as one `Draw { count }`; the root claims `count` consecutive
//!   values of the counter and each level hands out `base + offset` on the way down (`Grant`), in
//!   the order the draws came up (MPI keeps the order between two ranks). The asker feeds its value
//!   to its own machine through its copy's counter ([`Shared::set_counter`]); the machine skips the
//!   asker as usual.
//! - `gradient`: each rank's proximity travels with its load (`Load` messages) to its neighbours,
//!   which copy it into their own [`Shared`] ([`Shared::set_proximity`]).
//!
//! Loads are published only by the policies that read them (`most-loaded`, `acwn`, `gradient`):
//! a rank sends its load (and proximity) to its neighbours (`most-loaded:scope=all`: to every rank)
//! when the load changes power-of-two bucket (0, 1, 2-3, 4-7, ...) or the proximity changes, so a
//! reader sees a value within a factor of two. Every request, answer and transfer also carries
//! its sender's load.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use hypersteal::policy::machine::{
    allocating_beat, machine_for, standing_beat, start_round, Answer, BeatSteps, Env, Heartbeat,
    Machine, Shared,
};
use hypersteal::policy::spec::Choice;
use hypersteal::policy::Reach;
use hypersteal::prelude::*;
use hypersteal::{ThreadPool, ThreadPoolBuilder, TopologyGraph};
use mpi::topology::{Communicator, SimpleCommunicator};

use crate::stats::{MpiStats, RankStats};
use crate::termination::{Safra, Step};
use crate::wire::{self, Msg, Outbox};
use crate::{Config, Error, Outcome, Task};

/// How a receiver-initiated rank finds its next victim: the messages of its policy's
/// [`Choice`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choose {
    /// [`Choice::Own`]: the rank's own machine decides.
    Local,
    /// [`Choice::Counter`], [`Choice::Scheduler`]: rank 0 decides with this rank's machine and
    /// the real shared state, and sends the victim back.
    Central,
    /// [`Choice::CombiningTree`]: a counter value drawn over the rank tree, fed to the rank's own
    /// machine.
    Combining,
    /// Sender-initiated: idle ranks never ask.
    Never,
}

/// Where an idle rank is in asking for work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ask {
    /// No request out.
    Ready,
    /// A draw is out (to rank 0, or up the tree); the victim comes back.
    Drawing,
    /// A request is out to this rank.
    Asked(usize),
}

/// A waiting task and the transfers it has made.
struct Entry<T> {
    task: T,
    hops: u32,
}

/// Rank 0's share under a counter or a scheduler: the real shared state and every rank's machine.
struct Central {
    shared: Shared,
    machines: Vec<Box<dyn Machine>>,
}

struct Rank<'c, T: Task> {
    comm: &'c SimpleCommunicator,
    /// This run's message tag (`wire::run_tag`).
    tag: i32,
    me: usize,
    size: usize,
    /// Whether rank 0 is the policy's scheduler ([`Choice::Scheduler`]): it then hears when a
    /// rank becomes busy or idle.
    reports_to_scheduler: bool,
    graph: TopologyGraph,
    step: usize,
    /// Sender-initiated: the heartbeat ([`Config::heartbeat`]), in nanoseconds since `started`.
    beat: Heartbeat<u64>,
    heartbeat_ns: u64,
    started: Instant,
    machine: Box<dyn Machine>,
    shared: Shared,
    loads: Vec<usize>,
    central: Option<Central>,
    choose: Choose,
    /// Waiting tasks: front the oldest, back the newest (the next to run).
    stack: VecDeque<Entry<T>>,
    /// The oldest `decided` tasks have been seen by an allocating decision (sender-initiated).
    decided: usize,
    output: Option<T::Output>,
    ask: Ask,
    round_left: usize,
    retry_at: Option<Instant>,
    backoff: Duration,
    nap: Duration,
    /// `grr-m`: draws waiting here to go up, `(rank, count)`, and batches gone up, in order.
    draws: Vec<(usize, u64)>,
    batches: VecDeque<Vec<(usize, u64)>>,
    /// `grr-m` on rank 0: the counter.
    counter: u64,
    term: Safra,
    busy: bool,
    idle_since: Option<Instant>,
    /// Load bucket and proximity last published.
    published: Option<(u32, usize)>,
    publish_to: Vec<usize>,
    done: bool,
    /// Results of tree children that arrived before this rank heard `Done`.
    early: Vec<(T::Output, Subtree)>,
    stats: RankStats,
    outbox: Outbox,
}

/// A rank's poll point as [`Heartbeat::run`] drives it.
struct Beats<'r, 'c, T: Task>(&'r mut Rank<'c, T>);

impl<T: Task> BeatSteps for Beats<'_, '_, T> {
    fn undecided(&mut self) -> bool {
        self.0.decided < self.0.stack.len()
    }
    fn allocate(&mut self) {
        self.0.allocate();
    }
    fn stand(&mut self) {
        self.0.stand();
    }
}

/// Stats of the ranks of a subtree of the rank tree, by rank.
type Subtree = Vec<(u32, RankStats)>;

/// The power-of-two bucket of a load: 0, 1, 2-3, 4-7, ...
fn bucket(load: usize) -> u32 {
    usize::BITS - load.leading_zeros()
}

pub(crate) fn run<T: Task>(
    world: &SimpleCommunicator,
    config: &Config,
    roots: Vec<T>,
) -> Result<Outcome<T::Output>, Error> {
    let size = world.size() as usize;
    config.validate(size)?;
    let pool = ThreadPoolBuilder::new()
        .num_threads(config.workers)
        .policy(config.pool_policy)
        .seed(config.seed ^ world.rank() as u64)
        .build()
        .map_err(|e| Error::Pool(e.to_string()))?;
    // This run's own tag: messages left over from an earlier run can never be taken for its own.
    let tag = wire::run_tag();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let start = Instant::now();
        let mut rank = Rank::new(world, tag, config, roots);
        rank.work(&pool);
        rank.finish(start)
    }));
    match result {
        Ok(outcome) => Ok(outcome),
        // The panic hook has printed the message; end every rank rather than leave them waiting.
        Err(_) => world.abort(101),
    }
}

impl<'c, T: Task> Rank<'c, T> {
    fn new(comm: &'c SimpleCommunicator, tag: i32, config: &Config, roots: Vec<T>) -> Self {
        let me = comm.rank() as usize;
        let size = comm.size() as usize;
        let policy = config.policy;
        let graph = config.topology.graph(size);
        let seed = config.seed.wrapping_add(me as u64);
        let spec = policy.spec();
        let choose = match spec.choice {
            _ if policy.is_sender_initiated() => Choose::Never,
            Choice::Own => Choose::Local,
            Choice::Counter | Choice::Scheduler => Choose::Central,
            Choice::CombiningTree => Choose::Combining,
        };
        let central = (me == 0 && choose == Choose::Central).then(|| Central {
            shared: Shared::new(&policy, &graph),
            machines: (0..size)
                .map(|r| machine_for(&policy, r, size, config.seed.wrapping_add(r as u64)))
                .collect(),
        });
        let publish_to = match spec.loads_read(&policy) {
            Reach::All => (0..size).filter(|&r| r != me).collect(),
            Reach::Neighbors => graph.neighbors(me).collect(),
            Reach::Nothing => Vec::new(),
        };
        let stack: VecDeque<_> = roots
            .into_iter()
            .map(|task| Entry { task, hops: 0 })
            .collect();
        Rank {
            comm,
            tag,
            me,
            size,
            reports_to_scheduler: spec.choice == Choice::Scheduler,
            shared: Shared::copy_per_worker(&policy, &graph),
            machine: machine_for(&policy, me, size, seed),
            graph,
            step: config.step,
            beat: Heartbeat::default(),
            heartbeat_ns: u64::try_from(config.heartbeat.as_nanos()).unwrap_or(u64::MAX),
            started: Instant::now(),
            loads: vec![0; size],
            central,
            choose,
            stack,
            decided: 0,
            output: Some(T::Output::default()),
            ask: Ask::Ready,
            round_left: 0,
            retry_at: None,
            backoff: MIN_BACKOFF,
            nap: MIN_NAP,
            draws: Vec::new(),
            batches: VecDeque::new(),
            counter: 0,
            term: Safra::new(me, size),
            busy: false,
            idle_since: None,
            published: None,
            publish_to,
            done: false,
            early: Vec::new(),
            stats: RankStats::default(),
            outbox: Outbox::new(),
        }
    }

    /// Runs `f` on this rank's machine, with its decision environment (its own load exact).
    fn decide<R>(&mut self, f: impl FnOnce(&mut dyn Machine, &Env<'_>) -> R) -> R {
        self.loads[self.me] = self.stack.len();
        let env = Env {
            me: self.me,
            graph: &self.graph,
            loads: &self.loads,
            shared: &self.shared,
        };
        f(self.machine.as_mut(), &env)
    }

    fn send(&mut self, to: usize, msg: &Msg<T, T::Output>) {
        let bytes = bincode::serialize(msg).expect("a task or output that serde can serialise");
        self.stats.messages += 1;
        self.stats.bytes += bytes.len() as u64;
        if let Msg::Work { tasks, .. } = msg {
            self.stats.work_bytes += bytes.len() as u64;
            self.stats.transfers += 1;
            self.stats.tasks_sent += tasks.len() as u64;
            self.term.sent_work();
        }
        self.outbox.send(self.comm, self.tag, to, bytes);
    }

    /// The main loop, until termination is detected.
    fn work(&mut self, pool: &ThreadPool) {
        loop {
            self.poll();
            if self.done {
                return;
            }
            if self.stack.is_empty() {
                self.become_idle();
                self.beat();
                self.publish();
                match self.term.passive() {
                    Step::Wait => {}
                    Step::Pass { to, q, black } => self.send(to, &Msg::Token { q, black }),
                    Step::Terminated => {
                        for r in 1..self.size {
                            self.send(r, &Msg::Done);
                        }
                        self.done = true;
                        return;
                    }
                }
                self.seek();
                self.flush_draws();
                self.wait();
            } else {
                self.become_busy();
                self.run_step(pool);
                self.beat();
                self.publish();
            }
        }
    }

    /// Reads every message that has arrived.
    fn poll(&mut self) {
        while let Some((from, bytes)) = wire::try_receive(self.comm, self.tag) {
            self.nap = MIN_NAP;
            let msg: Msg<T, T::Output> =
                bincode::deserialize(&bytes).expect("a message this crate serialised");
            self.handle(from, msg);
            if self.done {
                return;
            }
        }
        self.flush_draws();
        self.outbox.reap();
    }

    fn handle(&mut self, from: usize, msg: Msg<T, T::Output>) {
        match msg {
            Msg::Request { load } => {
                self.loads[from] = load as usize;
                self.answer(from);
            }
            Msg::Reject { load } => {
                self.loads[from] = load as usize;
                if self.ask == Ask::Asked(from) {
                    self.ask = Ask::Ready;
                    self.decide(|m, env| m.request_failed(env, from));
                    self.round_left = self.round_left.saturating_sub(1);
                    if self.round_left == 0 {
                        self.back_off();
                    }
                }
            }
            Msg::Work {
                tasks,
                placed,
                load,
            } => {
                self.loads[from] = load as usize;
                self.term.received_work();
                self.stats.tasks_received += tasks.len() as u64;
                if placed {
                    self.take_placed(tasks);
                } else {
                    if self.ask == Ask::Asked(from) {
                        self.ask = Ask::Ready;
                        self.stats.requests_ok += 1;
                        self.round_left = 0;
                        self.backoff = MIN_BACKOFF;
                        self.retry_at = None;
                    }
                    self.stack
                        .extend(tasks.into_iter().map(|(task, hops)| Entry { task, hops }));
                }
            }
            Msg::Load { load, proximity } => {
                self.loads[from] = load as usize;
                self.shared.set_proximity(from, proximity as usize);
            }
            Msg::Draw { count } => match self.choose {
                Choose::Combining => self.draws.push((from, count)),
                _ => {
                    let victim = self.decide_centrally(from);
                    self.send(
                        from,
                        &Msg::Victim {
                            victim: victim.map(|v| v as u32),
                        },
                    );
                }
            },
            Msg::Victim { victim } => {
                if self.ask == Ask::Drawing {
                    self.drew(victim.map(|v| v as usize));
                }
            }
            Msg::Grant { base } => self.granted(base),
            Msg::Donor { busy } => self.donor(from, busy),
            Msg::Token { q, black } => self.term.token(q, black),
            Msg::Done => self.done = true,
            // A child that heard `Done` first: its result waits for this rank's own `Done`.
            Msg::Result { output, stats } => self.early.push((output, stats)),
        }
    }

    /// A request from `from`: the machine decides; a gift is the older half of the stack (at
    /// least one task), the stack split of seed 002.
    fn answer(&mut self, from: usize) {
        let waiting = self.stack.len();
        let answer = self.decide(|m, env| m.answer(env, waiting));
        let load = self.stack.len() as u64;
        if answer == Answer::Give && waiting > 0 {
            let n = waiting.div_ceil(2);
            let tasks: Vec<_> = self
                .stack
                .drain(..n)
                .map(|e| (e.task, e.hops + 1))
                .collect();
            self.decided = self.decided.saturating_sub(n);
            let load = self.stack.len() as u64;
            self.send(
                from,
                &Msg::Work {
                    tasks,
                    placed: false,
                    load,
                },
            );
        } else {
            self.send(from, &Msg::Reject { load });
        }
    }

    /// Placed tasks arrived: each is forwarded or kept, as the machine decides.
    fn take_placed(&mut self, tasks: Vec<(T, u32)>) {
        for (task, hops) in tasks {
            self.stats.placed_in += 1;
            match self.decide(|m, env| m.place(env, hops, true)) {
                Some(to) if to != self.me => self.place(to, task, hops),
                _ => {
                    // Kept: it is standing, so it joins the decided (oldest) end.
                    self.stack.push_front(Entry { task, hops });
                    self.decided += 1;
                }
            }
        }
    }

    fn place(&mut self, to: usize, task: T, hops: u32) {
        self.stats.placed_out += 1;
        let load = self.stack.len() as u64;
        self.send(
            to,
            &Msg::Work {
                tasks: vec![(task, hops + 1)],
                placed: true,
                load,
            },
        );
    }

    /// A sender-initiated policy's poll point, as [`Heartbeat::run`] drives it for a pool's
    /// worker: the allocating half on undecided tasks, oldest first, while the heartbeat's credit
    /// lasts, then the standing half on the oldest waiting task once per heartbeat that passed
    /// (`policy::machine`, `allocating_beat` and `standing_beat`).
    fn beat(&mut self) {
        if self.choose != Choose::Never || self.size < 2 {
            return;
        }
        let now = u64::try_from(self.started.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let mut beat = self.beat;
        beat.run(now, self.heartbeat_ns, &mut Beats(self));
        self.beat = beat;
    }

    /// The allocating half for the oldest undecided task (one waits).
    fn allocate(&mut self) {
        let undecided = self.stack.get(self.decided).map(|e| e.hops);
        match self.decide(|m, env| allocating_beat(m, env, undecided)) {
            Some(Some(to)) if to != self.me => {
                let e = self
                    .stack
                    .remove(self.decided)
                    .expect("the undecided task exists");
                self.place(to, e.task, e.hops);
            }
            Some(_) => self.decided += 1,
            None => {}
        }
    }

    /// One standing step for the oldest waiting task.
    fn stand(&mut self) {
        let oldest = self.stack.front().map(|e| e.hops);
        if let Some(to) = self.decide(|m, env| standing_beat(m, env, oldest)) {
            if to != self.me {
                if let Some(e) = self.stack.pop_front() {
                    self.decided = self.decided.saturating_sub(1);
                    self.place(to, e.task, e.hops);
                }
            }
        }
    }

    /// Publishes this rank's load and proximity when they changed enough (module docs).
    fn publish(&mut self) {
        if self.publish_to.is_empty() {
            return;
        }
        let load = self.stack.len();
        let proximity = self.shared.proximity(self.me);
        let now = (bucket(load), proximity);
        if self.published == Some(now) {
            return;
        }
        self.published = Some(now);
        for i in 0..self.publish_to.len() {
            let to = self.publish_to[i];
            self.send(
                to,
                &Msg::Load {
                    load: load as u64,
                    proximity: proximity as u64,
                },
            );
        }
    }

    /// One step: the newest tasks, one per worker, each run depth-first for at most `step` tasks,
    /// in parallel on the rank's pool. A batch of one task (one worker, or one task waiting) runs
    /// on the rank's own thread: handing it to a pool thread and back would only add a wake-up
    /// per step.
    fn run_step(&mut self, pool: &ThreadPool) {
        let take = self.stack.len().min(pool.current_num_threads());
        let batch: Vec<T> = (0..take)
            .map(|_| self.stack.pop_back().expect("counted").task)
            .collect();
        self.decided = self.decided.min(self.stack.len());
        let budget = self.step;
        let results: Vec<(T::Output, Vec<T>, u64)> = if batch.len() == 1 {
            batch.into_iter().map(|t| explore(t, budget)).collect()
        } else {
            pool.install(|| batch.into_par_iter().map(|t| explore(t, budget)).collect())
        };
        for (out, rest, ran) in results {
            self.stats.executed += ran;
            let acc = self.output.take().unwrap_or_default();
            self.output = Some(T::combine(acc, out));
            self.stack
                .extend(rest.into_iter().map(|task| Entry { task, hops: 0 }));
        }
    }

    fn become_busy(&mut self) {
        if self.busy {
            return;
        }
        self.busy = true;
        if let Some(t) = self.idle_since.take() {
            self.stats.idle += t.elapsed();
        }
        self.ask = Ask::Ready;
        self.round_left = 0;
        self.decide(|m, env| m.busy(env));
        if self.reports_to_scheduler {
            self.report_donor(true);
        }
    }

    fn become_idle(&mut self) {
        if !self.busy && self.idle_since.is_some() {
            return;
        }
        self.busy = false;
        self.idle_since = Some(Instant::now());
        self.decide(|m, env| m.idle(env));
        if self.reports_to_scheduler {
            self.report_donor(false);
        }
    }

    fn report_donor(&mut self, busy: bool) {
        if self.me == 0 {
            self.donor(0, busy);
        } else {
            self.send(0, &Msg::Donor { busy });
        }
    }

    /// Rank 0: rank `r`'s SB machine sees it become busy or idle, on the real donor queue.
    fn donor(&mut self, r: usize, busy: bool) {
        let central = self.central.as_mut().expect("donor events go to rank 0");
        let env = Env {
            me: r,
            graph: &self.graph,
            loads: &self.loads,
            shared: &central.shared,
        };
        if busy {
            central.machines[r].busy(&env);
        } else {
            central.machines[r].idle(&env);
        }
    }

    /// Rank 0: rank `r`'s machine picks its victim on the real shared state.
    fn decide_centrally(&mut self, r: usize) -> Option<usize> {
        self.loads[self.me] = self.stack.len();
        let central = self
            .central
            .as_mut()
            .expect("draws for grr/sb go to rank 0");
        let env = Env {
            me: r,
            graph: &self.graph,
            loads: &self.loads,
            shared: &central.shared,
        };
        central.machines[r].next_victim(&env)
    }

    /// Passive and receiver-initiated: ask for work unless a request is out or a back-off runs.
    fn seek(&mut self) {
        if self.choose == Choose::Never || self.size < 2 || self.ask != Ask::Ready {
            return;
        }
        if let Some(t) = self.retry_at {
            if Instant::now() < t {
                return;
            }
            self.retry_at = None;
        }
        if self.round_left == 0 {
            self.round_left = self.decide(|m, env| start_round(m, env).max(1));
        }
        match self.choose {
            Choose::Local => {
                let victim = self.decide(|m, env| m.next_victim(env));
                self.drew(victim);
            }
            Choose::Central => {
                self.ask = Ask::Drawing;
                if self.me == 0 {
                    let victim = self.decide_centrally(0);
                    self.drew(victim);
                } else {
                    self.send(0, &Msg::Draw { count: 1 });
                }
            }
            Choose::Combining => {
                self.ask = Ask::Drawing;
                self.draws.push((self.me, 1));
            }
            Choose::Never => {}
        }
    }

    /// The victim is known (`None`: nobody worth asking now; the round ends).
    fn drew(&mut self, victim: Option<usize>) {
        if self.busy {
            self.ask = Ask::Ready;
            return;
        }
        match victim {
            Some(v) if v != self.me => {
                self.stats.requests += 1;
                self.ask = Ask::Asked(v);
                self.send(v, &Msg::Request { load: 0 });
            }
            _ => {
                self.ask = Ask::Ready;
                self.round_left = 0;
                self.back_off();
            }
        }
    }

    /// `grr-m`: this rank's draw got the counter value `value`.
    fn got_value(&mut self, value: u64) {
        if self.ask != Ask::Drawing || self.busy {
            self.ask = Ask::Ready;
            return;
        }
        self.shared.set_counter(value);
        let victim = self.decide(|m, env| m.next_victim(env));
        self.drew(victim);
    }

    /// `grr-m`: sends the draws gathered here up the tree as one, or serves them at the root.
    fn flush_draws(&mut self) {
        if self.draws.is_empty() {
            return;
        }
        let batch = std::mem::take(&mut self.draws);
        let count: u64 = batch.iter().map(|&(_, c)| c).sum();
        match self.graph.tree_parent(self.me) {
            Some(parent) => {
                self.batches.push_back(batch);
                self.send(parent, &Msg::Draw { count });
            }
            None => {
                let base = self.counter;
                self.counter += count;
                self.hand_out(batch, base);
            }
        }
    }

    /// `grr-m`: the grant for the oldest batch gone up.
    fn granted(&mut self, base: u64) {
        let batch = self
            .batches
            .pop_front()
            .expect("grants come back in the order draws went up");
        self.hand_out(batch, base);
    }

    fn hand_out(&mut self, batch: Vec<(usize, u64)>, base: u64) {
        let mut next = base;
        for (who, count) in batch {
            if who == self.me {
                self.got_value(next);
            } else {
                self.send(who, &Msg::Grant { base: next });
            }
            next += count;
        }
    }

    fn back_off(&mut self) {
        self.retry_at = Some(Instant::now() + self.backoff);
        self.backoff = (self.backoff * 2).min(MAX_BACKOFF);
    }

    /// Passive: waits for the next message, sleeping a little longer each time nothing came.
    fn wait(&mut self) {
        if self.done || wire::probe(self.comm, self.tag) {
            return;
        }
        let mut nap = self.nap;
        if let Some(t) = self.retry_at {
            nap = nap.min(t.saturating_duration_since(Instant::now()));
        }
        std::thread::sleep(nap);
        self.nap = (self.nap * 2).min(MAX_NAP);
    }

    /// After termination: collects the subtree's outputs and stats over the rank tree and sends
    /// them up; rank 0 returns the whole.
    fn finish(mut self, start: Instant) -> Outcome<T::Output> {
        if let Some(t) = self.idle_since.take() {
            self.stats.idle += t.elapsed();
        }
        let children = (0..self.size)
            .filter(|&k| self.graph.tree_parent(k) == Some(self.me))
            .count();
        let mut output = self.output.take().unwrap_or_default();
        let mut stats = vec![(self.me as u32, self.stats)];
        let mut got = 0;
        for (o, s) in std::mem::take(&mut self.early) {
            output = T::combine(output, o);
            stats.extend(s);
            got += 1;
        }
        while got < children {
            let (_, bytes) = wire::receive(self.comm, self.tag);
            // Control messages still in flight at termination (requests, draws, loads, tokens)
            // are dropped: only results matter now.
            let msg: Msg<T, T::Output> =
                bincode::deserialize(&bytes).expect("a message this crate serialised");
            if let Msg::Result {
                output: o,
                stats: s,
            } = msg
            {
                output = T::combine(output, o);
                stats.extend(s);
                got += 1;
            }
        }
        let own = self.stats;
        match self.graph.tree_parent(self.me) {
            Some(parent) => {
                self.send(parent, &Msg::Result { output, stats });
                self.outbox.flush();
                Outcome {
                    output: None,
                    stats: MpiStats {
                        ranks: vec![own],
                        elapsed: start.elapsed(),
                    },
                }
            }
            None => {
                stats.sort_by_key(|&(r, _)| r);
                self.outbox.flush();
                Outcome {
                    output: Some(output),
                    stats: MpiStats {
                        ranks: stats.into_iter().map(|(_, s)| s).collect(),
                        elapsed: start.elapsed(),
                    },
                }
            }
        }
    }
}

const MIN_NAP: Duration = Duration::from_micros(10);
const MAX_NAP: Duration = Duration::from_millis(1);
const MIN_BACKOFF: Duration = Duration::from_micros(50);
const MAX_BACKOFF: Duration = Duration::from_millis(5);

/// Runs `task` and its descendants depth-first, at most `budget` tasks; returns the output, the
/// tasks left (oldest first) and how many ran.
fn explore<T: Task>(task: T, budget: usize) -> (T::Output, Vec<T>, u64) {
    let mut stack = vec![task];
    let mut out = T::Output::default();
    let mut ran = 0;
    while ran < budget as u64 {
        let Some(t) = stack.pop() else { break };
        let o = t.run(&mut stack);
        out = T::combine(out, o);
        ran += 1;
    }
    (out, stack, ran)
}

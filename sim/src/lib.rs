//! A deterministic discrete-event simulator of hypersteal's scheduling policies on machines
//! larger than the one at hand (up to [`MAX_NODES`] simulated processors).
//!
//! The simulator replays the papers' setting: `P` processors on a virtual topology, one piece of
//! work executing per processor, requests and work messages whose cost grows with the topology
//! distance ([`CostModel`]), and serialising shared points (GRR's counter, SB's donor queue). It
//! is the runtime's second interpreter of the policies: every decision — whom an idle processor
//! asks, how a busy one answers, where a new task is placed, what ACWN and the gradient model move
//! — is a hook of the policy's state machine ([`hypersteal::policy::machine::Machine`]), the same
//! machines the runtime's workers drive, called with the simulated loads at the same events. The
//! engine adds only time: when things happen and what they cost. `docs/simulator.md` describes
//! the model and the reproduced tables.
//!
//! ```
//! use hypersteal::{Policy, Topology};
//! use hypersteal_sim::{simulate, CostModel, Idle, SimConfig, Workload};
//!
//! let config = SimConfig {
//!     policy: Policy::RandomPolling,
//!     topology: Topology::Hypercube,
//!     procs: 64,
//!     workload: "split:200000".parse::<Workload>().unwrap(),
//!     cost: CostModel::default(),
//!     seed: 1,
//!     idle: Idle::Park,
//!     cutoff_depth: None,
//!     heartbeat: 0.0,
//! };
//! let r = simulate(&config).unwrap();
//! assert!(r.efficiency > 0.5 && r.efficiency <= 1.0);
//! assert_eq!(r, simulate(&config).unwrap()); // deterministic
//! ```

#![deny(missing_docs)]

mod cost;
mod engine;
mod iso;
mod output;
mod papers;
mod phased;
mod queue;
mod stack;
mod workload;

#[cfg(test)]
mod stack_tests;
#[cfg(test)]
mod tests;

pub use cost::CostModel;
pub use iso::{
    isoefficiency, paper_isoefficiency, paper_lower_bound, Architecture, IsoConfig, IsoPoint,
    IsoResult, PaperIso,
};
pub use output::{iso_table, table};
pub use papers::{papers, papers_with, PapersConfig, Searched, Verdict};
pub use phased::{PhaseNode, PhaseTree, Phased};
pub use stack::{walk, SearchNode, SearchRules, SearchTree, StackSplit};
pub use workload::{
    fib_calls, tree_size, FibTree, QueensNode, QueensTree, SplitWork, TaskTree, Workload,
};

use hypersteal::{Policy, Topology, MAX_NODES};
use std::fmt;

/// One simulation: a policy on a topology of `procs` processors running a workload.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimConfig {
    /// The scheduling policy (any [`Policy`]; sender-initiated ones need a tree workload).
    pub policy: Policy,
    /// The virtual topology the processors form.
    pub topology: Topology,
    /// Simulated processors, 1 to [`MAX_NODES`].
    pub procs: usize,
    /// What to run.
    pub workload: Workload,
    /// The machine's costs.
    pub cost: CostModel,
    /// Seeds every random choice (victims, random allocation, split fractions).
    pub seed: u64,
    /// What an idle receiver-initiated processor does when it sees nothing to take.
    pub idle: Idle,
    /// Tree workloads: only tasks at most this deep in the tree (the root is depth 0) ever
    /// leave the processor that made them, as the papers' tree searches split their stacks only
    /// above a cut-off depth. A request that finds nothing that shallow is rejected, and
    /// sender-initiated policies keep deeper tasks where they were made. `None`: any task may
    /// go. Divisible work rejects it (its cut-off is the grain).
    pub cutoff_depth: Option<u32>,
    /// The period, in simulated time, of a sender-initiated processor's heartbeat, kept as the
    /// runtime keeps it (`hypersteal::policy::machine::Heartbeat`). At the end of each task the
    /// processor runs the allocating phase (`Machine::place`) on its oldest tasks no decision
    /// has seen, one per heartbeat's credit (up to 16 after a quiet stretch), then the standing
    /// phase (`Machine::tick`) once for every heartbeat that passed since the end of its last
    /// task. New tasks are not decided when they are created; most are run by their owner
    /// before they are the oldest.
    ///
    /// `0` (the default of the command line): every new task is decided when it is created and
    /// the standing phase runs after every executed task, which is what the papers' coarse tasks
    /// amount to. Finite, at least 0; receiver-initiated policies are not affected.
    pub heartbeat: f64,
}

/// What an idle processor of a receiver-initiated policy does while nothing stealable is in
/// sight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Idle {
    /// It parks until some worker has stealable work again, as the runtime's workers sleep
    /// (shared memory: the loads are visible to all).
    #[default]
    Park,
    /// It keeps sending requests until the computation has ended, as the papers' message-passing
    /// processors do (no global view; only termination detection stops them).
    Poll,
}

/// What one simulation measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SimResult {
    /// The policy, as it displays.
    pub policy: String,
    /// The topology's name.
    pub topology: String,
    /// Simulated processors.
    pub procs: usize,
    /// The workload, as it displays.
    pub workload: String,
    /// The sequential time: total work × `t_work`.
    pub work: f64,
    /// Simulated parallel time: when the last piece of work finished.
    pub time: f64,
    /// `work / time`.
    pub speedup: f64,
    /// `speedup / procs`.
    pub efficiency: f64,
    /// Work requests sent (receiver-initiated policies; the `V(P)`-style count of seed 002).
    pub requests: u64,
    /// Requests that obtained work.
    pub requests_ok: u64,
    /// Requests their victim rejected. Every request is answered once: `requests_ok + rejects
    /// == requests` when a run ends.
    pub rejects: u64,
    /// Work messages: granted requests plus tasks placed by sender-initiated policies.
    pub transfers: u64,
    /// Pieces of work executed (tree nodes, or divisible pieces).
    pub tasks: u64,
    /// The most hops any placed task made.
    pub max_hops: u32,
    /// Total time messages queued at serialising points (GRR's counter, SB's queue, the bus).
    pub shared_wait: f64,
    /// Processor time busy search processors spent answering requests at their poll points
    /// (sending work or rejects); part of `procs × time − work`.
    pub answer_time: f64,
    /// Requests that reached a processor in the middle of a node expansion and waited for its
    /// poll point (the end of the expansion).
    pub deferred: u64,
    /// Accesses to the serialising shared point (GRR's counter, SB's donor queue).
    pub shared_accesses: u64,
}

/// Why a simulation could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimError(pub String);

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SimError {}

fn check(config: &SimConfig, tree: bool) -> Result<(), SimError> {
    if config.procs == 0 || config.procs > MAX_NODES {
        return Err(SimError(format!(
            "procs must be 1..={MAX_NODES}, got {}",
            config.procs
        )));
    }
    config.cost.validate().map_err(SimError)?;
    if !(config.heartbeat.is_finite() && config.heartbeat >= 0.0) {
        return Err(SimError(format!(
            "heartbeat must be finite and >= 0, got {}",
            config.heartbeat
        )));
    }
    // The runtime's own validation: a hand-built policy is held to the parser's ranges.
    config
        .policy
        .validate()
        .map_err(|e| SimError(e.to_string()))?;
    if let Workload::Search(t) = config.workload {
        t.validate().map_err(SimError)?;
        check_search(config, &config.workload.to_string())?;
    }
    if config.policy.is_sender_initiated() && !tree {
        return Err(SimError(format!(
            "{} places new tasks and needs a tree workload, not divisible work",
            config.policy
        )));
    }
    if !tree && config.cutoff_depth.is_some() {
        return Err(SimError(
            "a cut-off depth needs a tree workload; divisible work's cut-off is its grain".into(),
        ));
    }
    if let Workload::Split(s) = config.workload {
        if !(s.work > 0.0 && s.grain > 0.0 && s.alpha_min > 0.0 && s.alpha_min <= s.alpha_max)
            || s.alpha_max >= 1.0
        {
            return Err(SimError(format!("bad divisible work {s:?}")));
        }
    }
    Ok(())
}

/// What a stack-splitting search refuses: policies that place tasks, and a cut-off given
/// outside its rules.
fn check_search(config: &SimConfig, name: &str) -> Result<(), SimError> {
    if config.policy.is_sender_initiated() {
        return Err(SimError(format!(
            "{} places new tasks and needs a tree workload; the search of {name} moves work only by splitting stacks on request (receiver-initiated policies)",
            config.policy
        )));
    }
    if config.cutoff_depth.is_some() {
        return Err(SimError(format!(
            "a search takes its cut-off in its rules (search:NODES:cutoff=D, SearchRules::cutoff), not cutoff_depth; got {name}"
        )));
    }
    Ok(())
}

fn finish(config: &SimConfig, workload: String, mut r: SimResult) -> SimResult {
    r.policy = config.policy.to_string();
    r.topology = config.topology.name().to_string();
    r.procs = config.procs;
    r.workload = workload;
    r.speedup = if r.time > 0.0 { r.work / r.time } else { 1.0 };
    r.efficiency = r.speedup / config.procs as f64;
    r
}

/// Runs one simulation of a built-in workload.
pub fn simulate(config: &SimConfig) -> Result<SimResult, SimError> {
    check(config, config.workload.is_tree())?;
    let r = match config.workload {
        Workload::Split(s) => engine::Engine::<FibTree>::new(config, None, s).run(),
        Workload::Fib(t) => engine::Engine::new(config, Some(&t), SplitWork::halving(1.0)).run(),
        Workload::Queens(t) => engine::Engine::new(config, Some(&t), SplitWork::halving(1.0)).run(),
        Workload::Search(t) => engine::Engine::new(config, Some(&t), SplitWork::halving(1.0))
            .searching(t.rules)
            .run(),
        Workload::Phased(p) => simulate_phases(config, p),
    };
    Ok(finish(config, config.workload.to_string(), r))
}

/// Divisible work with a request budget: `None` when the run needed more requests.
/// The phases of `p` one after another: each starts at processor 0 once the previous one has
/// ended everywhere, after a barrier of a round trip over the diameter (termination detection,
/// then the broadcast of the next threshold or row). Counters add up.
fn simulate_phases(config: &SimConfig, p: Phased) -> SimResult {
    let graph = config.topology.graph(config.procs);
    let barrier = 2.0 * config.cost.t_msg(graph.diameter());
    let mut total = SimResult::default();
    for k in 0..p.phases() {
        let tree = p.phase(k);
        let r = engine::Engine::new(config, Some(&tree), SplitWork::halving(1.0)).run();
        if k > 0 && config.procs > 1 {
            total.time += barrier;
        }
        total.time += r.time;
        total.work += r.work;
        total.requests += r.requests;
        total.requests_ok += r.requests_ok;
        total.rejects += r.rejects;
        total.transfers += r.transfers;
        total.tasks += r.tasks;
        total.max_hops = total.max_hops.max(r.max_hops);
        total.shared_wait += r.shared_wait;
        total.answer_time += r.answer_time;
        total.deferred += r.deferred;
        total.shared_accesses += r.shared_accesses;
    }
    total
}

pub(crate) fn simulate_split_capped(
    config: &SimConfig,
    split: SplitWork,
    max_requests: u64,
) -> Result<Option<SimResult>, SimError> {
    let config = SimConfig {
        workload: Workload::Split(split),
        ..*config
    };
    check(&config, false)?;
    let mut engine = engine::Engine::<FibTree>::new(&config, None, split);
    engine.max_requests = max_requests;
    Ok(engine
        .run_capped()
        .map(|r| finish(&config, config.workload.to_string(), r)))
}

/// Runs one simulation of any [`TaskTree`] (`config.workload` is ignored; `name` names the
/// tree in the result).
pub fn simulate_tree<T: TaskTree>(
    config: &SimConfig,
    name: &str,
    tree: &T,
) -> Result<SimResult, SimError> {
    check(config, true)?;
    let r = engine::Engine::new(config, Some(tree), SplitWork::halving(1.0)).run();
    Ok(finish(config, name.to_string(), r))
}

/// Runs one depth-first search of any [`TaskTree`] with stack splitting, as `rules` say (the
/// model of [`SearchTree`], seed 002 section 8, on another tree: the suite's Davis-Putnam
/// satisfiability search, for one). Every node expansion costs the tree's [`TaskTree::cost`] of
/// that node; `config.workload` is ignored and `name` names the search in the result. Only
/// receiver-initiated policies run, and the cut-off comes from `rules`, not
/// `config.cutoff_depth`.
pub fn simulate_search<T: TaskTree>(
    config: &SimConfig,
    name: &str,
    tree: &T,
    rules: SearchRules,
) -> Result<SimResult, SimError> {
    check(config, true)?;
    rules.validate().map_err(SimError)?;
    check_search(config, name)?;
    let r = engine::Engine::new(config, Some(tree), SplitWork::halving(1.0))
        .searching(rules)
        .run();
    Ok(finish(config, name.to_string(), r))
}

/// Runs `f` on its own thread and panics if it has not finished within `secs` seconds (or if it
/// panicked): the watchdog of the simulator's tests and the suite's, so that a run that never
/// ends fails its test instead of stalling CI. Not part of the simulator's interface.
#[doc(hidden)]
pub fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(std::time::Duration::from_secs(secs)) {
        Ok(v) => v,
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => panic!("no end within {secs} s"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => panic!("the checked run panicked"),
    }
}

impl CostModel {
    /// Seed 002's Ncube/2 as its section 5.3.6 gives it, with a node expansion as the time unit:
    /// a message costs `ts + m × tw + d × th`, with the start-up `ts` about 100 µs, `tw` 2 µs a
    /// 4-byte word and `th` 2 µs a hop, and a message carrying work is about 500 bytes, so
    /// `ts + m × tw` is about 350 µs. Taking `ts` as one unit: a small message (a request, a
    /// reject, a counter access) 1, a work message 3.5, each hop 0.02 of either. The paper does
    /// not give the time of a node expansion; one unit for it, `ts`, is this preset's one
    /// assumption, as it is the default's. GRR-M's combining-tree level keeps the default's
    /// `t_combine` (0.5 each way; the paper says only that software combining on the Ncube/2 is
    /// "quite expensive"), and serving an access at a shared point costs a small message's
    /// start-up, as in the default. The default differs in distance (0.1 a hop, five times the
    /// Ncube/2's, so that the topologies' distances show) and in the work message (2).
    pub fn ncube2() -> CostModel {
        CostModel {
            t_work: 1.0,
            msg_base: 1.0,
            msg_per_hop: 0.02,
            transfer_base: 3.5,
            transfer_per_hop: 0.02,
            t_access: 1.0,
            t_combine: 0.5,
            ..CostModel::free()
        }
    }

    /// Seed 000's Intel iPSC/2 in milliseconds: about 0.45 ms of communication overhead per
    /// message plus 0.3 ms of bookkeeping for a message that carries a chare, a small per-hop
    /// time (cut-through routing), and `t_work` scaled so that Shu's four workloads take their
    /// sequential times of Table 3 (Queen 10: 29.5 s, Fibonacci 32: 30.0 s, 15-puzzle: 50.2 s,
    /// Romberg 14: 24.8 s; other workloads: one unit of work per millisecond).
    pub fn ipsc2(workload: &Workload) -> CostModel {
        let (seq_ms, work) = match *workload {
            w if w == Workload::SHU_QUEEN10 => {
                (29_500.0, tree_size(&QueensTree { n: 10, cutoff: 3 }).1)
            }
            w if w == Workload::SHU_FIB32 => (30_000.0, fib_calls(32) as f64),
            Workload::Phased(p @ Phased::Puzzle15) => (50_200.0, p.size().1),
            Workload::Phased(p @ Phased::Romberg14) => (24_800.0, p.size().1),
            _ => (1.0, 1.0),
        };
        CostModel {
            t_work: seq_ms / work,
            msg_base: 0.45,
            msg_per_hop: 0.01,
            transfer_base: 0.75,
            transfer_per_hop: 0.01,
            t_access: 0.45,
            t_combine: 0.45,
            t_bus: 0.0,
            // Shu (section 5): bookkeeping "is about 250-400 microseconds whenever a new chare
            // is created or a message is sent", and every chare is two messages (Table 4:
            // 1186 messages for 593 chares, and so on): the one that creates it and its
            // response. 2 × 0.35 ms a chare, which is what his 1-PE runs pay above the
            // sequential time (Table 3: 0.67 ms a chare on Queen 10, 0.74 Fibonacci 32, 0.60
            // the 15-puzzle, 0.64 Romberg 14).
            t_task: 0.7,
            // "The overhead for each communication is about 450 microseconds" of processor
            // time, sending and receiving, which is what a remote chare costs above a local one
            // ("0.3 to 0.4" against "1.2 to 1.3" milliseconds): 2 × 0.45 ms for the message
            // that brings the chare, and as much for its response, which goes back to the
            // processor that created it. Both are charged where the chare runs.
            t_task_remote: 1.8,
            // "The period of load information exchanging is set to be 100 milliseconds for
            // ACWN and the best value of exchanging interval is also selected for the gradient
            // model" (section 5; his Figures 7 and 8 put the best period between 50 and 150 ms).
            // The gradient model's best value is not given: both exchange every 100 ms.
            load_period: 100.0,
            t_wake: 0.0,
        }
    }
}

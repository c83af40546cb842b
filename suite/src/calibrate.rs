//! `hypersteal-suite calibrate` and `predict`: the simulator's cost model measured on the
//! machine at hand, and the speedups it then predicts beside those a report measured
//! (`docs/simulator.md`, "Predicting the machine at hand").
//!
//! A [`Calibration`] is one named file per machine. It holds what the runtime costs there, each
//! measured through the runtime's own code paths:
//!
//! - **per-node work** of every calibrated workload: the time of its plain sequential code (the
//!   suite's baseline) divided by the units of work of the simulator's tree of the same
//!   computation ([`sim_tree`]);
//! - **task overhead**: what a 1-worker pool takes above the sequential time, divided by the
//!   simulated tree's tasks;
//! - **slowdown**: how much longer the sequential code takes on each of `P` pinned workers when
//!   all `P` run it at once than on the first of them alone (SMT siblings, shared caches and
//!   memory bandwidth, an all-core clock below the single-core one, a virtual machine's CPUs
//!   that do not run side by side);
//! - **request and transfer**: from a traced pool of two at join grain, the time from a thief's
//!   request to its victim's answer, and from the answer to the task's arrival;
//! - **wake-up**: from a traced pool of two, the time from a busy worker's promotion of a task
//!   to the sleeping worker's wake-up;
//! - **access**: the time one fetch-and-add holds a counter that two workers hammer at once
//!   (their time over their additions: GRR's counter, SB's queue, GRR-M's combining node).
//!
//! [`Calibration::cost`] turns it into the simulator's [`CostModel`] for a workload at `P`
//! workers, in nanoseconds; [`predict`] simulates every row of a report the simulator can
//! model and puts the predicted speedup beside the measured one.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use hypersteal::{EventKind, Placement, Policy, ThreadPool, Topology, Trace};
use hypersteal_sim::{self as sim, CostModel, FibTree, Idle, QueensTree, SimConfig, SimResult};
use serde::{Deserialize, Serialize};

use crate::bench::{hypersteal_builder, hypersteal_pool, median, Row, SEQUENTIAL};
use crate::fork::Hypersteal;
use crate::machine::{timestamp, Machine};
use crate::report::Results;
use crate::sim_cmd::UtsTaskTree;
use crate::workloads::uts::UtsTree;
use crate::workloads::Workload;

/// The workloads `calibrate` measures by default: the quick run's that the simulator models.
pub const DEFAULT_WORKLOADS: &str = "fib:35,nqueens:13,uts:T1";

/// What [`sim_tree`] accepts, for error messages.
pub const MODELLED: &str =
    "the simulator models fib up to n = 60, nqueens up to 16 queens, and the uts trees";

/// The simulator's tree of the same computation as a suite workload.
#[derive(Clone, Copy, Debug)]
pub enum SimTree {
    /// A built-in tree (`fib`, `queens`).
    Builtin(sim::Workload),
    /// A UTS sample tree, every node a task.
    Uts(&'static UtsTree),
}

impl SimTree {
    /// The simulator's spelling (`fib:35:11`, `queens:13:3`, `uts:T1`).
    pub fn spelling(&self) -> String {
        match self {
            SimTree::Builtin(w) => w.to_string(),
            SimTree::Uts(t) => format!("uts:{}", t.name),
        }
    }

    /// One simulated run on `config` (its `workload` is set here).
    pub fn simulate(&self, config: &SimConfig) -> Result<SimResult, String> {
        match *self {
            SimTree::Builtin(w) => sim::simulate(&SimConfig {
                workload: w,
                ..*config
            }),
            SimTree::Uts(t) => sim::simulate_tree(config, &self.spelling(), &UtsTaskTree(t)),
        }
        .map_err(|e| e.to_string())
    }
}

/// A simulation of one processor at no cost, whose workload [`SimTree::simulate`] sets: the
/// tree's units of work and tasks.
fn one_processor() -> SimConfig {
    SimConfig {
        policy: Policy::RandomPolling,
        topology: Topology::Hypercube,
        procs: 1,
        workload: sim::Workload::Fib(FibTree { n: 2, cutoff: 2 }),
        cost: CostModel::free(),
        seed: 1,
        idle: Idle::Park,
        cutoff_depth: None,
        heartbeat: 0.0,
    }
}

/// The simulator's tree of `w`, or `None` for a workload it does not model (loops, sorts,
/// matrices, and the searches whose forking differs from the simulator's stack splitting).
///
/// `fib:N,cutoff=C` forks while `n > C`; the simulator's `fib:N:C'` makes a task of every call
/// with `m >= C'`, so `C' = max(C + 1, 2)`. `nqueens:N` forks over the first `depth` rows, the
/// simulator's `queens:N:D` over the first `D`. UTS trees are the same trees (the same SHA-1
/// generator); the benchmark groups a node's children eight to a task where the simulator makes
/// every node a task, which the calibrated task overhead, counted per simulated task, absorbs.
pub fn sim_tree(w: &Workload) -> Option<SimTree> {
    match w {
        Workload::Fib(p) if p.n <= 60 => Some(SimTree::Builtin(sim::Workload::Fib(FibTree {
            n: p.n,
            cutoff: p.cutoff.saturating_add(1).max(2),
        }))),
        Workload::NQueens(p) if (1..=16).contains(&p.n) => {
            Some(SimTree::Builtin(sim::Workload::Queens(QueensTree {
                n: p.n,
                cutoff: p.depth,
            })))
        }
        Workload::Uts(p) => Some(SimTree::Uts(p.tree)),
        _ => None,
    }
}

/// How much longer each of `threads` workers takes for the plain sequential code while all of
/// them run it at once than one worker alone (medians of ratios taken round by round).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Slowdown {
    /// Workers running at once.
    pub threads: usize,
    /// Their mean time over one worker's (1.0 at one worker).
    pub factor: f64,
}

/// What one workload costs on the machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadCost {
    /// The suite's spelling (`fib:35`).
    pub workload: String,
    /// The simulator's tree of it (`fib:35:11`).
    pub sim: String,
    /// Units of work of that tree.
    pub units: f64,
    /// Its tasks.
    pub tasks: u64,
    /// Median time of the plain sequential code, seconds.
    pub sequential_s: f64,
    /// Median time in a 1-worker pool, seconds.
    pub one_worker_s: f64,
    /// Nanoseconds a unit of work: `sequential_s / units`.
    pub work_ns: f64,
    /// Nanoseconds a task above its work: `(one_worker_s - sequential_s) / tasks`, at least 0.
    pub task_ns: f64,
    /// The slowdown at each measured worker count.
    pub slowdown: Vec<Slowdown>,
}

/// One named calibration of a machine (module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Its name.
    pub name: String,
    /// The machine it was measured on.
    pub machine: Machine,
    /// When (UTC).
    pub started: String,
    /// The command line.
    pub command: String,
    /// The placement of the pinned workers it measured (`None`: not pinned).
    pub placement: Option<String>,
    /// Median time from a thief's request to its victim's answer, nanoseconds.
    pub request_ns: f64,
    /// Median time from that answer to the task's arrival at the thief, nanoseconds.
    pub transfer_ns: f64,
    /// Steals behind the two medians above.
    pub steals: usize,
    /// Median time from a busy worker's promotion of a task to a sleeping worker's wake-up,
    /// nanoseconds.
    pub wake_ns: f64,
    /// Wake-ups behind that median.
    pub wakes: usize,
    /// Time one fetch-and-add holds a counter two workers use at once: the time of their
    /// additions over their number (the accesses serialise), nanoseconds.
    pub access_ns: f64,
    /// The workloads measured.
    pub workloads: Vec<WorkloadCost>,
}

/// What `calibrate` measures and how.
#[derive(Clone, Debug)]
pub struct CalibratePlan {
    /// The calibration's name.
    pub name: String,
    /// Workloads the simulator models.
    pub workloads: Vec<Workload>,
    /// Worker counts of the slowdown (1 is always measured).
    pub threads: Vec<usize>,
    /// Timed runs of every median.
    pub runs: usize,
    /// Pinning and placement of every pool.
    pub pin: Option<Placement>,
}

impl CalibratePlan {
    /// Checks the plan: workloads the simulator models, worker counts 1 to the pool's limit.
    pub fn validate(&self) -> Result<(), String> {
        if self.name.trim().is_empty()
            || !self
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        {
            return Err(format!(
                "--name `{}`: expected letters, digits, `-`, `_` or `.` (it names the machine's calibration)",
                self.name
            ));
        }
        if self.workloads.is_empty() {
            return Err("--workload: expected at least one workload".into());
        }
        if let Some(w) = self.workloads.iter().find(|w| sim_tree(w).is_none()) {
            return Err(format!("--workload {w}: {MODELLED}"));
        }
        if let Some(&t) = self
            .threads
            .iter()
            .find(|&&t| t == 0 || t > hypersteal::MAX_WORKERS)
        {
            return Err(format!(
                "--threads {t}: expected 1 to {}",
                hypersteal::MAX_WORKERS
            ));
        }
        let most = crate::stopping::StoppingRule::MAX_RUNS_LIMIT;
        if !(3..=most).contains(&self.runs) {
            return Err(format!(
                "--runs {}: expected at least 3 (every figure is a median) and at most {most}",
                self.runs
            ));
        }
        Ok(())
    }
}

/// The median of `runs` timings of `f`, after one discarded run.
fn median_time(runs: usize, mut f: impl FnMut() -> Duration) -> f64 {
    f();
    let times: Vec<f64> = (0..runs).map(|_| f().as_secs_f64()).collect();
    median(&times)
}

/// One round of `w`'s plain sequential code on the first `workers` workers of `pool` at once
/// (the others return at once): the mean of their times, seconds.
fn at_once(pool: &ThreadPool, w: &Workload, workers: usize) -> f64 {
    let barrier = Barrier::new(pool.current_num_threads());
    let times = pool.broadcast(|ctx| {
        let mut instance = (ctx.index() < workers).then(|| w.prepare());
        barrier.wait();
        let t = Instant::now();
        if let Some(instance) = &mut instance {
            std::hint::black_box(instance.run_sequential());
        }
        let elapsed = t.elapsed();
        barrier.wait();
        elapsed.as_secs_f64()
    });
    times[..workers].iter().sum::<f64>() / workers as f64
}

/// The slowdown of `w` on `pool`: each round times the code on its first worker alone and then
/// on all its workers at once, and the median of the rounds' ratios is taken, so that a machine
/// whose speed drifts between rounds (a virtual machine's neighbours) moves both sides alike.
/// Both sides run on the pool's own CPUs, the first of the placement's order, where a pool of
/// that many workers runs.
fn slowdown(pool: &ThreadPool, w: &Workload, runs: usize) -> f64 {
    let n = pool.current_num_threads();
    at_once(pool, w, n);
    let ratios: Vec<f64> = (0..runs)
        .map(|_| {
            let alone = at_once(pool, w, 1);
            at_once(pool, w, n) / alone
        })
        .collect();
    median(&ratios)
}

/// The request, answer and arrival times of every steal in `trace` that went through a
/// victim's answer: `(request → answer, answer → arrival)` in nanoseconds. Each worker's events
/// are in time order, so a victim's answer is found by bisection.
pub fn steal_latencies(trace: &Trace) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for (thief, events) in trace.workers.iter().enumerate() {
        let mut sent: Vec<Option<u64>> = vec![None; trace.workers.len()];
        for e in events {
            let victim = e.peer as usize;
            if victim >= sent.len() {
                continue;
            }
            match e.kind {
                EventKind::RequestSent => sent[victim] = Some(e.ts_ns),
                EventKind::RequestRejected => sent[victim] = None,
                EventKind::Stolen => {
                    let Some(t0) = sent[victim].take() else {
                        continue;
                    };
                    let answers = &trace.workers[victim];
                    let from = answers.partition_point(|a| a.ts_ns < t0);
                    let answered = answers[from..]
                        .iter()
                        .take_while(|a| a.ts_ns <= e.ts_ns)
                        .find(|a| {
                            a.kind == EventKind::RequestAnswered
                                && a.peer as usize == thief
                                && a.hops == 1
                        });
                    if let Some(a) = answered {
                        out.push(((a.ts_ns - t0) as f64, (e.ts_ns - a.ts_ns) as f64));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// For every wake-up in `trace` that followed another worker's promotion of a task while the
/// woken worker slept: the time from the first such promotion (the one that woke it: a
/// promotion wakes a sleeper) to the wake-up, nanoseconds.
pub fn wake_latencies(trace: &Trace) -> Vec<f64> {
    let mut promotions: Vec<(u64, usize)> = trace
        .workers
        .iter()
        .enumerate()
        .flat_map(|(w, events)| {
            events
                .iter()
                .filter(|e| e.kind == EventKind::Promoted)
                .map(move |e| (e.ts_ns, w))
        })
        .collect();
    promotions.sort_unstable();
    let mut out = Vec::new();
    for (w, events) in trace.workers.iter().enumerate() {
        let mut slept_at = None;
        for e in events {
            match e.kind {
                EventKind::Sleep => slept_at = Some(e.ts_ns),
                EventKind::Wake => {
                    let Some(since) = slept_at.take() else {
                        continue;
                    };
                    let from = promotions.partition_point(|&(ts, _)| ts < since);
                    let first = promotions[from..]
                        .iter()
                        .take_while(|&&(ts, _)| ts <= e.ts_ns)
                        .find(|&&(_, by)| by != w);
                    if let Some(&(ts, _)) = first {
                        out.push((e.ts_ns - ts) as f64);
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// Fibonacci with a `join` at every call (the suite's `fib` without a cutoff): poll points
/// every few nanoseconds.
fn fib_join(n: u32) -> u64 {
    crate::workloads::fib::parallel(&mut Hypersteal, n, 0)
}

/// A traced pool of two (or of one, on a machine of one CPU), built as the suite builds its
/// pools.
fn traced_pool(pin: Option<Placement>) -> Result<ThreadPool, String> {
    let threads = crate::cli::cores().clamp(1, 2);
    hypersteal_builder(Policy::RandomPolling, Topology::Hypercube, threads, pin)
        .trace(true)
        .build()
        .map_err(|e| format!("cannot build a traced pool of {threads}: {e}"))
}

/// The fewest steals and wake-ups a calibration's medians rest on.
pub const MIN_SAMPLES: usize = 9;
/// How long the probe may go on gathering them.
const PROBE_LIMIT: Duration = Duration::from_secs(20);

/// What [`probe`] gathered: steal latencies, wake-up latencies and the last traced pool.
type Probed = (Vec<(f64, f64)>, Vec<f64>, ThreadPool);

/// Steal and wake-up latencies from traced pools of two (fresh pools, so that no ring fills),
/// batch after batch until each has [`MIN_SAMPLES`] or [`PROBE_LIMIT`] has passed (a loaded
/// machine may give the second worker no CPU for a while); the last pool is returned for the
/// counter's measurement. On a machine of one CPU there is no second worker: none of either,
/// and the figures are 0.
fn probe(plan: &CalibratePlan) -> Result<Probed, String> {
    let start = Instant::now();
    let (mut steals, mut wakes) = (Vec::new(), Vec::new());
    loop {
        let pool = traced_pool(plan.pin)?;
        for _ in 0..plan.runs {
            std::hint::black_box(pool.install(|| fib_join(27)));
        }
        // Steals are timed at join grain only, where the victim polls at every `join`: the
        // time is the hand-over itself, not a wait for the victim's next poll point (the
        // stretches below have none for 2 ms).
        steals.extend(steal_latencies(&pool.trace()));
        // Stretches that leave the other worker asleep (longer than the 50 us an idle worker
        // lingers), each followed by join-grain work it is woken for.
        for _ in 0..plan.runs * 4 {
            pool.install(|| {
                let t = Instant::now();
                while t.elapsed() < Duration::from_millis(2) {
                    std::hint::spin_loop();
                }
                std::hint::black_box(fib_join(22));
            });
        }
        wakes.extend(wake_latencies(&pool.trace()));
        let enough = steals.len() >= MIN_SAMPLES && wakes.len() >= MIN_SAMPLES;
        if pool.current_num_threads() < 2 || enough {
            return Ok((steals, wakes, pool));
        }
        if start.elapsed() > PROBE_LIMIT {
            return Err(format!(
                "in {} s the traced pools of two recorded {} steals through an answer and {} wake-ups after a promotion; a calibration needs {MIN_SAMPLES} of each (is the machine loaded?)",
                PROBE_LIMIT.as_secs(),
                steals.len(),
                wakes.len()
            ));
        }
        pool.shutdown();
    }
}

/// Measures a calibration as `plan` says; `progress` hears what is being measured.
pub fn calibrate(
    plan: &CalibratePlan,
    command: String,
    mut progress: impl FnMut(&str),
) -> Result<Calibration, String> {
    plan.validate()?;
    let mut threads: Vec<usize> = plan.threads.clone();
    threads.retain(|&t| t > 1);
    threads.sort_unstable();
    threads.dedup();
    // One pool at a time, each shut down before the next: pinned pools of one process take
    // CPUs no live pool holds, so only a pool built alone gets the CPUs a run's pool would.
    let pool = |t: usize| hypersteal_pool(Policy::RandomPolling, Topology::Hypercube, t, plan.pin);
    let mut workloads = Vec::new();
    for w in &plan.workloads {
        progress(&format!("{w}: sequential, 1 worker, slowdown"));
        let tree = sim_tree(w).expect("validated");
        let shape = tree.simulate(&one_processor())?;
        // The plain sequential code, as the suite's baseline rows time it: on the worker of
        // a pool of one.
        let one = pool(1)?;
        let mut instance = w.prepare();
        let outcome = one.install(|| instance.run_sequential());
        instance
            .check(&outcome)
            .map_err(|e| format!("{w}: the sequential run's answer is wrong: {e}"))?;
        let sequential_s = median_time(plan.runs, || {
            one.install(|| {
                let t = Instant::now();
                std::hint::black_box(instance.run_sequential());
                t.elapsed()
            })
        });
        let outcome = one.install(|| instance.run(&mut Hypersteal));
        instance
            .check(&outcome)
            .map_err(|e| format!("{w}: the 1-worker run's answer is wrong: {e}"))?;
        // Timed from the calling thread, hand-over to the pool included, as the suite times
        // its hypersteal rows (the sequential rows are timed inside the worker, as above).
        let one_worker_s = median_time(plan.runs, || {
            let t = Instant::now();
            std::hint::black_box(one.install(|| instance.run(&mut Hypersteal)));
            t.elapsed()
        });
        one.shutdown();
        let mut slowdowns = vec![Slowdown {
            threads: 1,
            factor: 1.0,
        }];
        for &t in &threads {
            let p = pool(t)?;
            slowdowns.push(Slowdown {
                threads: t,
                factor: slowdown(&p, w, plan.runs),
            });
            p.shutdown();
        }
        let units = shape.work;
        workloads.push(WorkloadCost {
            workload: w.to_string(),
            sim: tree.spelling(),
            units,
            tasks: shape.tasks,
            sequential_s,
            one_worker_s,
            work_ns: sequential_s * 1e9 / units,
            task_ns: ((one_worker_s - sequential_s) * 1e9 / shape.tasks.max(1) as f64).max(0.0),
            slowdown: slowdowns,
        });
    }

    progress("steals and wake-ups in a traced pool of two");
    let (steals, wakes, pool) = probe(plan)?;
    let request_ns = median(&steals.iter().map(|s| s.0).collect::<Vec<_>>());
    let transfer_ns = median(&steals.iter().map(|s| s.1).collect::<Vec<_>>());
    let wake_ns = median(&wakes);

    progress("a counter two workers share");
    let counter = AtomicU64::new(0);
    const ADDS: u64 = 1 << 20;
    let barrier = Barrier::new(pool.current_num_threads());
    let access = (0..plan.runs)
        .map(|_| {
            let times = pool.broadcast(|_| {
                barrier.wait();
                let t = Instant::now();
                for _ in 0..ADDS {
                    counter.fetch_add(1, Ordering::Relaxed);
                }
                t.elapsed().as_secs_f64()
            });
            let longest = times.iter().copied().fold(0.0, f64::max);
            longest * 1e9 / (ADDS * times.len() as u64) as f64
        })
        .collect::<Vec<_>>();

    Ok(Calibration {
        name: plan.name.clone(),
        machine: Machine::detect(),
        started: timestamp().1,
        command,
        placement: plan.pin.map(|p| p.to_string()),
        request_ns,
        transfer_ns,
        steals: steals.len(),
        wake_ns,
        wakes: wakes.len(),
        access_ns: median(&access),
        workloads,
    })
}

/// `what` must be a finite number of at least 0 (`positive`: above 0).
fn check_number(file: &Path, what: &str, v: f64, positive: bool) -> Result<(), String> {
    let ok = v.is_finite() && if positive { v > 0.0 } else { v >= 0.0 } && v <= CostModel::MAX;
    if ok {
        return Ok(());
    }
    Err(format!(
        "calibration {}: `{what}` is {v}; expected a finite number {} {:e}",
        file.display(),
        if positive {
            "above 0 and at most"
        } else {
            "from 0 to"
        },
        CostModel::MAX
    ))
}

impl Calibration {
    /// Reads and checks a calibration file: a bad one is an error naming the file, the field
    /// and its value.
    pub fn load(file: &Path) -> Result<Calibration, String> {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("calibration {}: {e}", file.display()))?;
        let c: Calibration = serde_json::from_str(&text).map_err(|e| {
            format!(
                "calibration {}: not a calibration `hypersteal-suite calibrate` writes: {e}",
                file.display()
            )
        })?;
        c.validate(file)?;
        Ok(c)
    }

    /// Checks every figure (what [`Calibration::load`] enforces).
    pub fn validate(&self, file: &Path) -> Result<(), String> {
        let bad = |what: String| Err(format!("calibration {}: {what}", file.display()));
        for (what, v) in [
            ("request_ns", self.request_ns),
            ("transfer_ns", self.transfer_ns),
            ("wake_ns", self.wake_ns),
            ("access_ns", self.access_ns),
        ] {
            check_number(file, what, v, false)?;
        }
        if self.workloads.is_empty() {
            return bad("`workloads` is empty; expected the workloads it measured".into());
        }
        for (i, w) in self.workloads.iter().enumerate() {
            let at = |f: &str| format!("workloads[{i}].{f}");
            let parsed: Workload = match w.workload.parse() {
                Ok(parsed) => parsed,
                Err(e) => return bad(format!("`{}` is `{}`: {e}", at("workload"), w.workload)),
            };
            let Some(tree) = sim_tree(&parsed) else {
                return bad(format!(
                    "`{}` is `{}`, which the simulator does not model: {MODELLED}",
                    at("workload"),
                    w.workload
                ));
            };
            if w.sim != tree.spelling() {
                return bad(format!(
                    "`{}` is `{}`, but {} is simulated as `{}`",
                    at("sim"),
                    w.sim,
                    w.workload,
                    tree.spelling()
                ));
            }
            check_number(file, &at("work_ns"), w.work_ns, true)?;
            check_number(file, &at("task_ns"), w.task_ns, false)?;
            if !w.slowdown.iter().any(|s| s.threads == 1) {
                return bad(format!("`{}` has no entry for 1 worker", at("slowdown")));
            }
            for (k, s) in w.slowdown.iter().enumerate() {
                if s.threads == 0 {
                    let field = at(&format!("slowdown[{k}].threads"));
                    return bad(format!("`{field}` is 0; expected 1 or more"));
                }
                check_number(file, &at(&format!("slowdown[{k}].factor")), s.factor, true)?;
            }
        }
        Ok(())
    }

    /// The entry for `w`: the same spelling, else the first simulated as a tree of the same
    /// kind (its per-node work and task overhead stand for other sizes).
    pub fn entry(&self, w: &Workload) -> Option<&WorkloadCost> {
        let spelled = w.to_string();
        self.workloads
            .iter()
            .find(|c| c.workload == spelled)
            .or_else(|| self.entry_of_kind(&sim_tree(w)?.spelling()))
    }

    /// The first entry simulated as a tree of the kind `sim` spells (`fib:..`, `queens:..`,
    /// `uts:..`: the part before the first colon).
    pub fn entry_of_kind(&self, sim: &str) -> Option<&WorkloadCost> {
        let kind = |s: &str| s.split(':').next().map(str::to_string);
        self.workloads.iter().find(|c| kind(&c.sim) == kind(sim))
    }

    /// The simulator's costs of `w` at `threads` workers, in nanoseconds. The slowdown is the
    /// one measured at `threads`, or `None` when `exact` and it was not measured; otherwise
    /// that of the largest measured count below `threads`.
    pub fn cost(&self, entry: &WorkloadCost, threads: usize, exact: bool) -> Option<CostModel> {
        let factor = match entry.slowdown.iter().find(|s| s.threads == threads) {
            Some(s) => s.factor,
            None if exact => return None,
            None => entry
                .slowdown
                .iter()
                .filter(|s| s.threads <= threads)
                .max_by_key(|s| s.threads)
                .map_or(1.0, |s| s.factor),
        };
        Some(CostModel {
            t_work: entry.work_ns * factor,
            msg_base: self.request_ns,
            msg_per_hop: 0.0,
            transfer_base: self.transfer_ns,
            transfer_per_hop: 0.0,
            t_access: self.access_ns,
            t_combine: self.access_ns,
            t_bus: 0.0,
            t_task: entry.task_ns * factor,
            t_task_remote: 0.0,
            load_period: 0.0,
            t_wake: self.wake_ns,
        })
    }

    /// The figures as a table for the terminal.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "calibration {} on {}: request {:.0} ns, transfer {:.0} ns ({} steals), wake-up {:.0} ns ({} wake-ups), shared counter {:.1} ns",
            self.name,
            self.machine.summary(),
            self.request_ns,
            self.transfer_ns,
            self.steals,
            self.wake_ns,
            self.wakes,
            self.access_ns
        );
        let mut t = vec![vec![
            "workload".to_string(),
            "simulated as".to_string(),
            "sequential ms".to_string(),
            "1 worker ms".to_string(),
            "ns / unit".to_string(),
            "ns / task".to_string(),
            "slowdown at P".to_string(),
        ]];
        for w in &self.workloads {
            t.push(vec![
                w.workload.clone(),
                w.sim.clone(),
                format!("{:.2}", w.sequential_s * 1e3),
                format!("{:.2}", w.one_worker_s * 1e3),
                format!("{:.3}", w.work_ns),
                format!("{:.1}", w.task_ns),
                w.slowdown
                    .iter()
                    .map(|s| format!("{}: {:.2}", s.threads, s.factor))
                    .collect::<Vec<_>>()
                    .join(", "),
            ]);
        }
        s.push_str(&crate::report::text_table(&t));
        s
    }
}

/// One row of a prediction: a measured report row and the simulator's figure for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// The workload's spelling.
    pub workload: String,
    /// The policy.
    pub policy: String,
    /// The topology.
    pub topology: String,
    /// Workers.
    pub threads: usize,
    /// The measured speedup (the report's, over its sequential median).
    pub measured: f64,
    /// The simulated speedup: the calibrated sequential time over the simulated time.
    pub predicted: f64,
    /// `predicted / measured - 1`.
    pub error: f64,
    /// Whether the report flags the measured row (noisy, contended, ...).
    pub flagged: bool,
}

/// What [`predict`] found: the rows it predicted and the ones it could not.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PredictionSet {
    /// The calibration's name.
    pub calibration: String,
    /// Predicted rows.
    pub rows: Vec<Prediction>,
    /// Rows of simulated workloads left out, with why.
    pub skipped: Vec<String>,
}

/// The largest errors of a prediction at one worker count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Worst {
    /// Workers.
    pub threads: usize,
    /// The largest error in absolute value over every row.
    pub all: f64,
    /// Rows.
    pub rows: usize,
    /// The largest over the rows the report does not flag.
    pub unflagged: f64,
    /// Rows the report does not flag.
    pub unflagged_rows: usize,
}

impl std::fmt::Display for Worst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "largest error {:.1}% over {} rows, {:.1}% over the {} rows the report does not flag",
            100.0 * self.all,
            self.rows,
            100.0 * self.unflagged,
            self.unflagged_rows
        )
    }
}

/// The runtime's default heartbeat in the calibration's nanoseconds: the period at which
/// sender-initiated processors are simulated at calibrated costs.
pub fn runtime_heartbeat_ns() -> f64 {
    hypersteal::DEFAULT_HEARTBEAT.as_nanos() as f64
}

/// Simulates every hypersteal row of `results` whose workload the simulator models, at the
/// calibrated costs of its worker count.
pub fn predict(c: &Calibration, results: &Results) -> PredictionSet {
    let mut set = PredictionSet {
        calibration: c.name.clone(),
        ..PredictionSet::default()
    };
    let rows: Vec<&Row> = results
        .rows
        .iter()
        .filter(|r| r.variant == "join" && r.policy != SEQUENTIAL)
        .collect();
    for r in rows {
        let Ok(policy) = r.policy.parse::<Policy>() else {
            continue; // rayon, chili
        };
        let spelling = format!("{}:{}", r.workload, r.size);
        let Ok(w) = spelling.parse::<Workload>() else {
            continue;
        };
        let Some(tree) = sim_tree(&w) else {
            continue;
        };
        let skip = |why: String| format!("{spelling} {policy} P={}: {why}", r.threads);
        let topology: Topology = match r.topology.parse() {
            Ok(t) => t,
            Err(e) => {
                set.skipped
                    .push(skip(format!("topology `{}`: {e}", r.topology)));
                continue;
            }
        };
        let Some(entry) = c.entry(&w) else {
            set.skipped.push(skip(format!(
                "the calibration measured no {} workload",
                w.name()
            )));
            continue;
        };
        let Some(cost) = c.cost(entry, r.threads, true) else {
            set.skipped.push(skip(format!(
                "the calibration has no slowdown at {} workers",
                r.threads
            )));
            continue;
        };
        let config = SimConfig {
            policy,
            topology,
            procs: r.threads,
            cost,
            // Receiver-initiated policies ignore it.
            heartbeat: runtime_heartbeat_ns(),
            ..one_processor()
        };
        let simulated = match tree.simulate(&config) {
            Ok(r) => r,
            Err(e) => {
                set.skipped.push(skip(e));
                continue;
            }
        };
        // `work` is the units times `t_work`: the sequential time at one worker's speed.
        let sequential_ns = entry.work_ns * simulated.work / config.cost.t_work;
        let predicted = sequential_ns / simulated.time;
        let measured = r.speedup;
        set.rows.push(Prediction {
            workload: spelling,
            policy: policy.to_string(),
            topology: r.topology.clone(),
            threads: r.threads,
            measured,
            predicted,
            error: predicted / measured - 1.0,
            flagged: !r.flags.is_empty(),
        });
    }
    set
}

impl PredictionSet {
    /// At each worker count: the largest error in absolute value over every row and over the
    /// rows the report does not flag, and how many rows of each there are.
    pub fn worst_by_threads(&self) -> Vec<Worst> {
        let mut threads: Vec<usize> = self.rows.iter().map(|r| r.threads).collect();
        threads.sort_unstable();
        threads.dedup();
        let worst = |rows: &[&Prediction]| rows.iter().map(|r| r.error.abs()).fold(0.0, f64::max);
        threads
            .into_iter()
            .map(|t| {
                let all: Vec<&Prediction> = self.rows.iter().filter(|r| r.threads == t).collect();
                let clean: Vec<&Prediction> = all.iter().copied().filter(|r| !r.flagged).collect();
                Worst {
                    threads: t,
                    all: worst(&all),
                    rows: all.len(),
                    unflagged: worst(&clean),
                    unflagged_rows: clean.len(),
                }
            })
            .collect()
    }

    /// The rows as cells, a header first (the terminal's table and the Markdown one).
    fn cells(&self) -> Vec<Vec<String>> {
        let header = [
            "workload",
            "policy",
            "topology",
            "P",
            "measured",
            "predicted",
            "error %",
        ];
        let mut t = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
        for r in &self.rows {
            t.push(vec![
                r.workload.clone(),
                r.policy.clone(),
                r.topology.clone(),
                r.threads.to_string(),
                format!("{:.2}{}", r.measured, if r.flagged { " *" } else { "" }),
                format!("{:.2}", r.predicted),
                format!("{:+.1}", 100.0 * r.error),
            ]);
        }
        t
    }

    /// The rows as a table, then the largest error at each worker count.
    pub fn table(&self) -> String {
        let mut s = crate::report::text_table(&self.cells());
        for w in self.worst_by_threads() {
            let _ = writeln!(s, "P={}: {w}", w.threads);
        }
        for k in &self.skipped {
            let _ = writeln!(s, "not predicted: {k}");
        }
        s
    }

    /// The table as Markdown, with a heading naming the calibration and the report.
    pub fn markdown(&self, results: &Results) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# Simulated against measured speedups\n");
        let _ = writeln!(
            s,
            "Calibration `{}`; report `{}` ({}, started {}). Speedup over the plain sequential \
             code; `*` marks a measured row the report flags; error = predicted / measured - 1.\n",
            self.calibration,
            results.command,
            results.machine.summary(),
            results.started
        );
        s.push_str(&crate::report::markdown_table(&self.cells()));
        s.push('\n');
        for w in self.worst_by_threads() {
            let _ = writeln!(s, "- P = {}: {w}", w.threads);
        }
        for k in &self.skipped {
            let _ = writeln!(s, "- not predicted: {k}");
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hypersteal::TraceEvent;

    fn ev(ts_ns: u64, kind: EventKind, peer: u32, hops: u32) -> TraceEvent {
        TraceEvent {
            ts_ns,
            kind,
            peer,
            hops,
        }
    }

    #[test]
    fn the_simulated_fib_tree_is_the_benchmarks_call_tree() {
        // The benchmark forks while n > cutoff; the simulator's units are the calls of the
        // sequential code, and its tasks one per forking call and per leaf.
        let w: Workload = "fib:20,cutoff=5".parse().unwrap();
        let tree = sim_tree(&w).unwrap();
        assert_eq!(tree.spelling(), "fib:20:6");
        let r = tree.simulate(&one_processor()).unwrap();
        fn calls(n: u32) -> u64 {
            if n < 2 {
                1
            } else {
                1 + calls(n - 1) + calls(n - 2)
            }
        }
        fn forks(n: u32, cutoff: u32) -> u64 {
            if n <= cutoff || n < 2 {
                1
            } else {
                1 + forks(n - 1, cutoff) + forks(n - 2, cutoff)
            }
        }
        assert_eq!(r.work, calls(20) as f64);
        assert_eq!(r.tasks, forks(20, 5));
        let q: Workload = "nqueens:10".parse().unwrap();
        assert_eq!(sim_tree(&q).unwrap().spelling(), "queens:10:3");
        assert!(sim_tree(&"mandelbrot:40".parse().unwrap()).is_none());
        assert!(sim_tree(&"nqueens:17".parse().unwrap()).is_none());
    }

    #[test]
    fn steals_are_timed_from_request_through_answer_to_arrival() {
        let trace = Trace {
            workers: vec![
                // Worker 0: the victim answers worker 1 twice (a task, then a reject).
                vec![
                    ev(150, EventKind::RequestAnswered, 1, 1),
                    ev(900, EventKind::RequestAnswered, 1, 0),
                ],
                // Worker 1: a steal through an answer, a rejected request, and a take from a
                // public deque with no answer (left out).
                vec![
                    ev(100, EventKind::RequestSent, 0, 0),
                    ev(170, EventKind::Stolen, 0, 1),
                    ev(880, EventKind::RequestSent, 0, 0),
                    ev(905, EventKind::RequestRejected, 0, 0),
                    ev(1000, EventKind::RequestSent, 0, 0),
                    ev(1010, EventKind::Stolen, 0, 1),
                ],
            ],
            dropped: vec![0, 0],
            elapsed: Duration::from_micros(2),
        };
        assert_eq!(steal_latencies(&trace), vec![(50.0, 20.0)]);
    }

    #[test]
    fn a_wake_up_is_timed_from_the_latest_promotion_while_asleep() {
        let trace = Trace {
            workers: vec![
                vec![
                    ev(50, EventKind::Promoted, NO, 0),
                    ev(300, EventKind::Promoted, NO, 0),
                    ev(400, EventKind::Promoted, NO, 0),
                    ev(2000, EventKind::Promoted, NO, 0),
                ],
                vec![
                    ev(100, EventKind::Sleep, NO, 0),
                    ev(450, EventKind::Wake, NO, 0),
                    // Woken with no promotion while asleep (a job from outside): left out.
                    ev(500, EventKind::Sleep, NO, 0),
                    ev(1500, EventKind::Wake, NO, 0),
                ],
            ],
            dropped: vec![0, 0],
            elapsed: Duration::from_micros(3),
        };
        // The first promotion after the sleep (at 300) woke it; the one at 50 came before.
        assert_eq!(wake_latencies(&trace), vec![150.0]);
    }

    const NO: u32 = hypersteal::trace::NO_PEER;

    fn calibration() -> (Calibration, WorkloadCost) {
        let entry = WorkloadCost {
            workload: "fib:30".into(),
            sim: "fib:30:11".into(),
            units: 1e6,
            tasks: 1000,
            sequential_s: 0.002,
            one_worker_s: 0.0021,
            work_ns: 2.0,
            task_ns: 100.0,
            slowdown: vec![
                Slowdown {
                    threads: 1,
                    factor: 1.0,
                },
                Slowdown {
                    threads: 4,
                    factor: 1.5,
                },
            ],
        };
        let c = Calibration {
            name: "m".into(),
            machine: Machine::detect(),
            started: String::new(),
            command: String::new(),
            placement: None,
            request_ns: 300.0,
            transfer_ns: 200.0,
            steals: 10,
            wake_ns: 5000.0,
            wakes: 10,
            access_ns: 40.0,
            workloads: vec![entry.clone()],
        };
        (c, entry)
    }

    #[test]
    fn the_cost_model_takes_the_slowdown_of_its_worker_count() {
        let (c, e) = calibration();
        let at4 = c.cost(&e, 4, true).unwrap();
        assert_eq!((at4.t_work, at4.t_task), (3.0, 150.0));
        assert_eq!(
            (at4.msg_base, at4.transfer_base, at4.t_wake, at4.t_access),
            (300.0, 200.0, 5000.0, 40.0)
        );
        // Not measured: none when exact, else the largest count measured below.
        assert!(c.cost(&e, 2, true).is_none());
        assert_eq!(c.cost(&e, 2, false).unwrap().t_work, 2.0);
        assert_eq!(c.cost(&e, 64, false).unwrap().t_work, 3.0);
        // Another size of the same workload takes its entry; another workload none.
        assert!(c.entry(&"fib:40".parse().unwrap()).is_some());
        assert!(c.entry(&"uts:T1".parse().unwrap()).is_none());
    }

    #[test]
    fn a_bad_figure_is_refused_naming_the_field_and_value() {
        let file = Path::new("m.json");
        let (mut c, _) = calibration();
        assert_eq!(c.validate(file), Ok(()));
        c.workloads[0].work_ns = -1.0;
        let e = c.validate(file).unwrap_err();
        assert!(
            e.contains("m.json") && e.contains("workloads[0].work_ns") && e.contains("-1"),
            "{e}"
        );
        let (mut c, _) = calibration();
        c.wake_ns = f64::INFINITY;
        assert!(c.validate(file).unwrap_err().contains("wake_ns"));
        let (mut c, _) = calibration();
        c.workloads[0].slowdown.remove(0);
        assert!(c
            .validate(file)
            .unwrap_err()
            .contains("no entry for 1 worker"));
        let (mut c, _) = calibration();
        c.workloads[0].workload = "matmul:64".into();
        assert!(c.validate(file).unwrap_err().contains("does not model"));
        let (mut c, _) = calibration();
        c.workloads[0].sim = "fib:30:5".into();
        let e = c.validate(file).unwrap_err();
        assert!(
            e.contains("workloads[0].sim") && e.contains("fib:30:11"),
            "{e}"
        );
    }
}

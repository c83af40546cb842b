//! `hypersteal-suite mpi` (feature `mpi`): UTS and N-Queens over MPI ranks with
//! `hypersteal-mpi`, answers checked against the oracles (`docs/mpi.md`).
//!
//! Run it under `mpirun`: `mpirun -n 4 hypersteal-suite mpi --workload uts:T1 --policy rp`.
//! Rank 0 prints the answer, whether it matches the known one, the time of each run and the
//! stats of every rank and their total; the other ranks print nothing. With `--baseline`, each
//! run is preceded by the same workload on one single-process hypersteal pool on rank 0, with as
//! many workers as the whole job and the same policy (the other ranks wait asleep), so the two
//! are timed side by side.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use hypersteal::{Policy, ThreadPoolBuilder, Topology};
use hypersteal_mpi::mpi::point_to_point::{Destination, Source};
use hypersteal_mpi::mpi::topology::{Communicator, SimpleCommunicator};
use hypersteal_mpi::{Config, MpiStats, RankStats, Task};
use serde::{Deserialize, Serialize};

use crate::fork::Hypersteal;
use crate::workloads::nqueens::{self, Board, NQueensParams};
use crate::workloads::uts::{self, Node, UtsParams, UtsStats, TREES};
use crate::workloads::Workload;

/// Flags of `hypersteal-suite mpi`.
#[derive(clap::Args, Debug, Clone)]
pub struct MpiArgs {
    /// Workload: a UTS tree `uts:T1` … `uts:T3L`, or `nqueens:N`.
    #[arg(long, default_value = "uts:T1")]
    pub workload: String,
    /// The policy between ranks: one of rp, nn, arr, grr, grr-m, sb, most-loaded, acwn,
    /// gradient, random-alloc, with parameters as in `run`, or `all`. Repeat the flag for
    /// several; each runs in turn in the same job.
    #[arg(long, default_values_t = ["rp".to_string()])]
    pub policy: Vec<String>,
    /// The virtual topology whose nodes are the ranks.
    #[arg(long, default_value = "hypercube")]
    pub topology: String,
    /// Worker threads of each rank's pool.
    #[arg(long, default_value_t = 1)]
    pub workers: usize,
    /// The policy of each rank's pool.
    #[arg(long, default_value = "rp")]
    pub pool_policy: String,
    /// Tasks a worker runs between two looks at the network.
    #[arg(long, default_value_t = 256)]
    pub step: usize,
    /// The sender-initiated policies' heartbeat between ranks, in microseconds (1 to 1,000,000;
    /// the baseline pool takes the same).
    #[arg(long, default_value_t = hypersteal::DEFAULT_HEARTBEAT.as_micros() as u64)]
    pub heartbeat_us: u64,
    /// Seed of the policies' random draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Runs (the time reported is their median).
    #[arg(long, default_value_t = 1)]
    pub runs: usize,
    /// Also time the workload on one single-process pool (ranks × workers workers, the same
    /// policy) before each run, on rank 0.
    #[arg(long)]
    pub baseline: bool,
    /// Testing the failure path: every task run on this rank panics.
    #[arg(long, value_name = "RANK")]
    pub fail_rank: Option<usize>,
}

/// The largest `--runs`.
pub const MAX_RUNS: usize = 1000;

/// Set on the rank named by `--fail-rank`: its tasks panic.
static FAIL: AtomicBool = AtomicBool::new(false);

fn check_failure() {
    if FAIL.load(Ordering::Relaxed) {
        panic!("injected failure (--fail-rank): a task panicked on this rank");
    }
}

/// A UTS node as a task: its state, depth and the tree it belongs to.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UtsTask {
    state: [u8; 20],
    depth: u32,
    tree: u8,
}

impl Task for UtsTask {
    /// Nodes, leaves, largest depth.
    type Output = (u64, u64, u32);

    fn run(self, children: &mut Vec<Self>) -> Self::Output {
        check_failure();
        let node = Node {
            state: self.state,
            depth: self.depth,
        };
        let kind = &TREES[self.tree as usize].kind;
        let n = uts::num_children(kind, &node);
        for i in 0..n {
            let c = node.child(i);
            children.push(UtsTask {
                state: c.state,
                depth: c.depth,
                tree: self.tree,
            });
        }
        (1, u64::from(n == 0), self.depth)
    }

    fn combine(a: Self::Output, b: Self::Output) -> Self::Output {
        (a.0 + b.0, a.1 + b.1, a.2.max(b.2))
    }
}

/// An N-Queens partial placement as a task: rows above `cutoff` expand into one task per free
/// column; a placement at the cut-off counts its solutions by backtracking.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct QueensTask {
    board: Board,
    row: u32,
    cutoff: u32,
}

impl QueensTask {
    fn place(&self, bit: u32) -> Self {
        QueensTask {
            board: self.board.place(bit),
            row: self.row + 1,
            cutoff: self.cutoff,
        }
    }
}

impl Task for QueensTask {
    type Output = u64;

    fn run(self, children: &mut Vec<Self>) -> u64 {
        check_failure();
        if self.row >= self.cutoff || self.board.cols == self.board.all {
            return self.board.count();
        }
        let mut free = self.board.free();
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            children.push(self.place(bit));
        }
        0
    }

    fn combine(a: u64, b: u64) -> u64 {
        a + b
    }
}

/// What `mpi` measures, parsed and checked before MPI is touched.
#[derive(Debug, Clone)]
pub struct MpiPlan {
    workload: Workload,
    config: Config,
    policies: Vec<Policy>,
    runs: usize,
}

/// Checks the flags (the workload, the policies, the topology, `--runs`; the rest is checked by
/// [`Config::validate`] once the number of ranks is known).
pub fn plan(args: &MpiArgs) -> Result<MpiPlan, String> {
    let workload: Workload = args
        .workload
        .parse()
        .map_err(|e| format!("--workload: {e}"))?;
    if !matches!(workload, Workload::Uts(_) | Workload::NQueens(_)) {
        return Err(format!(
            "--workload {}: `mpi` runs `uts:T1` … `uts:T3L` and `nqueens:N`",
            args.workload
        ));
    }
    let mut policies = Vec::new();
    for p in &args.policy {
        if p == "all" {
            policies.extend(Policy::all());
        } else {
            policies.push(p.parse().map_err(|e| format!("--policy {p}: {e}"))?);
        }
    }
    let pool_policy: Policy = args
        .pool_policy
        .parse()
        .map_err(|e| format!("--pool-policy: {e}"))?;
    let topology: Topology = args
        .topology
        .parse()
        .map_err(|e| format!("--topology: {e}"))?;
    if !(1..=MAX_RUNS).contains(&args.runs) {
        return Err(format!(
            "--runs {} is not allowed; --runs must be 1 to {MAX_RUNS}",
            args.runs
        ));
    }
    Ok(MpiPlan {
        workload,
        config: Config {
            policy: policies[0],
            topology,
            workers: args.workers,
            pool_policy,
            step: args.step,
            heartbeat: Duration::from_micros(args.heartbeat_us),
            seed: args.seed,
        },
        policies,
        runs: args.runs,
    })
}

/// Runs the plan on every rank; on rank 0 prints the report. Returns the exit status: 0 when
/// every answer is right, 1 when one is wrong, 2 for a bad setting.
pub fn run(args: &MpiArgs, plan: MpiPlan) -> i32 {
    let universe = hypersteal_mpi::initialize();
    let world = universe.world();
    let rank = world.rank() as usize;
    let ranks = world.size() as usize;
    if let Err(e) = plan.config.validate(ranks) {
        if rank == 0 {
            eprintln!("error: {e}");
        }
        return 2;
    }
    if let Some(r) = args.fail_rank {
        if r >= ranks {
            if rank == 0 {
                eprintln!(
                    "error: --fail-rank {r} is not a rank; ranks are 0 to {}",
                    ranks - 1
                );
            }
            return 2;
        }
        FAIL.store(r == rank, Ordering::Relaxed);
    }
    let mut status = 0;
    for &policy in &plan.policies {
        let c = Config {
            policy,
            ..plan.config.clone()
        };
        if rank == 0 {
            println!(
                "mpi: {} policy={} topology={} ranks={ranks} workers={} pool-policy={} step={} heartbeat={:?} runs={}",
                args.workload, c.policy, c.topology, c.workers, c.pool_policy, c.step, c.heartbeat, plan.runs
            );
        }
        let mut times = Vec::new();
        let mut base_times = Vec::new();
        let mut all_stats = Vec::new();
        for _ in 0..plan.runs {
            if args.baseline {
                base_times.push(baseline(&world, &plan, policy));
            }
            let (answer, stats) = match plan.workload {
                Workload::Uts(p) => run_uts(&world, &c, &p),
                Workload::NQueens(p) => run_queens(&world, &c, &p),
                _ => unreachable!("plan() admits only uts and nqueens"),
            };
            if let Some(answer) = answer {
                let total = stats.total().executed;
                match answer {
                    Ok(line) => println!("answer policy={policy}: {line}, {total} tasks run: ok"),
                    Err(line) => {
                        println!("answer policy={policy}: {line}, {total} tasks run: WRONG");
                        status = 1;
                    }
                }
                times.push(stats.elapsed);
                all_stats.push(stats);
            }
        }
        if rank == 0 {
            report(&times, &base_times, &all_stats);
        }
    }
    status
}

/// One UTS run; on rank 0 the checked answer (`Ok`/`Err` with a line saying it) and the stats.
fn run_uts(
    world: &SimpleCommunicator,
    config: &Config,
    p: &UtsParams,
) -> (Option<Result<String, String>>, MpiStats) {
    let index = TREES
        .iter()
        .position(|t| t.name == p.tree.name)
        .expect("the tree is one of TREES") as u8;
    let roots = if world.rank() == 0 {
        let root = Node::root(p.tree.seed);
        vec![UtsTask {
            state: root.state,
            depth: root.depth,
            tree: index,
        }]
    } else {
        Vec::new()
    };
    let outcome = hypersteal_mpi::run(world, config, roots).unwrap_or_else(|e| panic!("{e}"));
    let answer = outcome.output.map(|(nodes, leaves, max_depth)| {
        let got = UtsStats {
            nodes,
            leaves,
            max_depth,
        };
        match uts::check(p, &got) {
            Ok(()) => Ok(format!("{got} (published {})", p.tree.published)),
            Err(e) => Err(e.to_string()),
        }
    });
    (answer, outcome.stats)
}

/// One N-Queens run, as [`run_uts`].
fn run_queens(
    world: &SimpleCommunicator,
    config: &Config,
    p: &NQueensParams,
) -> (Option<Result<String, String>>, MpiStats) {
    let roots = if world.rank() == 0 {
        vec![QueensTask {
            board: Board::empty(p.n),
            row: 0,
            cutoff: p.depth,
        }]
    } else {
        Vec::new()
    };
    let outcome = hypersteal_mpi::run(world, config, roots).unwrap_or_else(|e| panic!("{e}"));
    let answer = outcome.output.map(|got| match nqueens::check(p, got) {
        Ok(()) => Ok(format!("{got} solutions of {}-queens", p.n)),
        Err(e) => Err(e.to_string()),
    });
    (answer, outcome.stats)
}

/// What the single-process pool did in one baseline run.
#[derive(Debug, Clone, Copy, Default)]
struct Base {
    time: Duration,
    requests: u64,
    requests_ok: u64,
    placed: u64,
}

/// Rank 0 times the workload on one single-process pool of as many workers as the whole job
/// (ranks × `--workers`) under the same policy, while the other ranks sleep; returns its time
/// and counters (zero on the other ranks).
fn baseline(world: &SimpleCommunicator, plan: &MpiPlan, policy: Policy) -> Base {
    let rank = world.rank();
    if rank != 0 {
        // Wait for rank 0's go, asleep: MPI's blocking receive would spin on the cores.
        loop {
            if world.process_at_rank(0).immediate_probe().is_some() {
                let (_go, _) = world.process_at_rank(0).receive::<u8>();
                return Base::default();
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
    let workers = plan.config.workers * world.size() as usize;
    let pool = ThreadPoolBuilder::new()
        .num_threads(workers)
        .policy(policy)
        .heartbeat(plan.config.heartbeat)
        .build()
        .expect("the configuration was validated");
    let start = Instant::now();
    match plan.workload {
        Workload::Uts(p) => {
            let got = pool.install(|| uts::run(&mut Hypersteal, &p));
            assert!(uts::check(&p, &got).is_ok(), "baseline answer {got}");
        }
        Workload::NQueens(p) => {
            let got = pool.install(|| nqueens::run(&mut Hypersteal, &p));
            assert!(nqueens::check(&p, got).is_ok(), "baseline answer {got}");
        }
        _ => unreachable!("plan() admits only uts and nqueens"),
    }
    let time = start.elapsed();
    let total = pool.stats().total();
    for r in 1..world.size() {
        world.process_at_rank(r).send(&1u8);
    }
    Base {
        time,
        requests: total.requests,
        requests_ok: total.requests_ok,
        placed: total.placed_out,
    }
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn median_of(stats: &[MpiStats], f: impl Fn(&RankStats) -> u64) -> u64 {
    let mut v: Vec<u64> = stats.iter().map(|s| f(&s.total())).collect();
    v.sort_unstable();
    v[v.len() / 2]
}

/// Rank 0's report: times, the last run's stats per rank and in total, medians over runs.
fn report(times: &[Duration], base: &[Base], stats: &[MpiStats]) {
    let mut t = times.to_vec();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let (lo, hi) = (
        t.iter().min().copied().unwrap_or_default(),
        t.iter().max().copied().unwrap_or_default(),
    );
    let med = median(&mut t);
    println!(
        "time: median {:.1} ms over {} runs (min {:.1}, max {:.1})",
        ms(med),
        times.len(),
        ms(lo),
        ms(hi)
    );
    if !base.is_empty() {
        let mut b: Vec<Duration> = base.iter().map(|b| b.time).collect();
        let bmed = median(&mut b);
        let mid = |f: fn(&Base) -> u64| {
            let mut v: Vec<u64> = base.iter().map(f).collect();
            v.sort_unstable();
            v[v.len() / 2]
        };
        println!(
            "baseline (single-process pool, same policy and workers): median {:.1} ms; mpi / pool = {:.2}; requests {} ok {} placed {}",
            ms(bmed),
            med.as_secs_f64() / bmed.as_secs_f64(),
            mid(|b| b.requests),
            mid(|b| b.requests_ok),
            mid(|b| b.placed),
        );
    }
    let Some(last) = stats.last() else { return };
    println!(
        "{:>6} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>9} {:>11} {:>9}",
        "rank",
        "executed",
        "requests",
        "ok",
        "placed",
        "transfers",
        "tasks",
        "messages",
        "bytes",
        "work bytes",
        "idle ms"
    );
    let row = |name: String, s: &RankStats| {
        println!(
            "{:>6} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>9} {:>11} {:>9.1}",
            name,
            s.executed,
            s.requests,
            s.requests_ok,
            s.placed_out,
            s.transfers,
            s.tasks_sent,
            s.messages,
            s.bytes,
            s.work_bytes,
            ms(s.idle)
        )
    };
    for (r, s) in last.ranks.iter().enumerate() {
        row(r.to_string(), s);
    }
    row("total".to_string(), &last.total());
    println!(
        "median over runs: requests {} transfers {} placed {} tasks moved {} messages {} bytes {}",
        median_of(stats, |s| s.requests),
        median_of(stats, |s| s.transfers),
        median_of(stats, |s| s.placed_out),
        median_of(stats, |s| s.tasks_sent),
        median_of(stats, |s| s.messages),
        median_of(stats, |s| s.bytes),
    );
}

//! The `hypersteal-suite` command line: the quick run (no arguments), `run`,
//! `overhead`, `report`, `topology`, and `sim` (the simulator, in
//! [`crate::sim_cmd`]).
//!
//! Bad arguments exit with status 2 and a message that lists what is valid
//! (clap's own errors do the same), before anything is measured: that covers
//! the stopping rule's flags, a `--out` directory that cannot be written and
//! a workload size whose data cannot fit in memory. A workload whose answer
//! is wrong, or any other failure during a run, exits with status 1 and says
//! what failed.
//!
//! This file holds the arguments and their parsers; `commands.rs` what each
//! command does with them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use hypersteal::iter::Schedule;
use hypersteal::{Placement, Policy, Topology, MAX_WORKERS};

use crate::bench::Plan;
use crate::machine::available_memory;
use crate::stopping::StoppingRule;
use crate::workloads::Workload;

mod commands;
pub use commands::{
    exit_status, main, quick_one_worker_policies, quick_plan, Failure, QUICK_BUDGET_S,
};

/// The benchmark suite of hypersteal: the papers' workloads, checked against
/// known answers, under every policy × topology × worker count, with the
/// sequential, rayon and chili baselines.
///
/// With no command: the quick run (every workload at a small size, every
/// policy at all cores and a few at 1 worker), a table on the terminal and a
/// report in `results/<timestamp>/`; the quick run's options may be given
/// without the word `quick`.
#[derive(Debug, Parser)]
#[command(
    name = "hypersteal-suite",
    version,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// What to do (default: the quick run).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The quick run's options, when no command is given.
    #[command(flatten)]
    pub quick: QuickArgs,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The quick run (what no arguments does).
    Quick(QuickArgs),
    /// Measure a matrix of workloads × policies × topologies × workers.
    Run(RunArgs),
    /// Per-join cost (fib and tree-sum without a cutoff) of every policy, rayon and chili.
    Overhead(OverheadArgs),
    /// Every policy against rayon, chili and the sequential code, in interleaved rounds
    /// (ratios taken within each round; coarse grains by default).
    Versus(VersusArgs),
    /// Rebuild report.md and the plots from a saved results.json.
    Report(ReportArgs),
    /// Print a topology's graph and the core each worker is pinned to.
    Topology(TopologyArgs),
    /// Simulate the policies on machines larger than this one (`docs/simulator.md`).
    Sim(Box<crate::sim_cmd::SimArgs>),
    /// Measure the simulator's costs on this machine into a named calibration file
    /// (`docs/simulator.md`, "Predicting the machine at hand").
    Calibrate(CalibrateArgs),
    /// The simulator's speedups at a calibration's costs beside those a report measured.
    Predict(PredictArgs),
    /// UTS and N-Queens across MPI ranks; run under `mpirun` (feature `mpi`, `docs/mpi.md`).
    #[cfg(feature = "mpi")]
    Mpi(crate::mpi_cmd::MpiArgs),
}

/// Output formats of `run` and `overhead`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Aligned columns.
    Table,
    /// The whole results.json.
    Json,
    /// One line per configuration.
    Csv,
}

/// How many times each configuration runs: the stopping rule's flags
/// (`docs/suite.md`).
#[derive(Debug, Clone, Args)]
pub struct TimingArgs {
    /// The least number of timed runs per configuration.
    #[arg(long, default_value_t = StoppingRule::MIN_RUNS, value_parser = parse_runs)]
    pub runs: usize,
    /// The most timed runs per configuration.
    #[arg(long, value_name = "N", default_value_t = StoppingRule::MAX_RUNS, value_parser = parse_runs)]
    pub max_runs: usize,
    /// Time again until the median's 95% confidence interval is within this many percent of it.
    #[arg(long, value_name = "PCT", default_value_t = 100.0 * StoppingRule::PRECISION, value_parser = parse_precision)]
    pub precision: f64,
    /// Seconds a configuration may take before it gets no runs beyond --runs
    /// (default: 0.5 for the quick run, 10 otherwise).
    #[arg(long, value_name = "SECONDS", value_parser = parse_budget)]
    pub budget: Option<f64>,
    /// Discarded runs before the timed ones.
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,
}

impl TimingArgs {
    /// The stopping rule these flags give, with `default_budget` seconds per
    /// configuration unless `--budget` is given; checked for consistency.
    pub fn rule(&self, default_budget: f64) -> Result<StoppingRule, String> {
        let rule = StoppingRule {
            min_runs: self.runs,
            max_runs: self.max_runs,
            precision: self.precision / 100.0,
            budget: Duration::from_secs_f64(self.budget.unwrap_or(default_budget)),
        };
        rule.validate()?;
        Ok(rule)
    }
}

/// Whether hypersteal's workers are pinned, and how they are laid onto the CPUs.
#[derive(Debug, Args)]
pub struct PinArgs {
    /// Do not pin hypersteal's workers to cores.
    #[arg(long)]
    pub no_pin: bool,
    /// How pinned workers are laid onto the CPUs: `hardware` (topology neighbours on cores that
    /// share caches, NUMA nodes crossed last) or `os` (the operating system's numbering).
    #[arg(long, value_name = "hardware|os", default_value = "hardware", value_parser = parse_placement, conflicts_with = "no_pin")]
    pub placement: Placement,
}

impl PinArgs {
    /// The placement of pinned workers, or `None` when they are not pinned.
    pub fn pin(&self) -> Option<Placement> {
        (!self.no_pin).then_some(self.placement)
    }
}

/// Options of the quick run.
#[derive(Debug, Args)]
pub struct QuickArgs {
    /// Directory for the report (default: `results/<timestamp>`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// How many times each configuration runs.
    #[command(flatten)]
    pub timing: TimingArgs,
    /// Measure every policy at 1 worker too (the quick run measures only rp
    /// and acwn there).
    #[arg(long)]
    pub no_trim: bool,
    /// Pinning and placement.
    #[command(flatten)]
    pub pin: PinArgs,
}

/// Options of `run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Workloads, comma-separated, each `name` (default size) or `name:SIZE`; or `all`.
    #[arg(long, short, value_name = "W[,W..]", default_value = "all", value_parser = parse_workloads)]
    pub workload: WorkloadList,
    /// Use the quick size for workloads given without a size.
    #[arg(long)]
    pub quick_sizes: bool,
    /// Policies, comma-separated (with parameters: `acwn:low=2,high=8`), or `all`.
    #[arg(long, short, value_name = "P[,P..]|all", default_value = "all", value_parser = parse_policies)]
    pub policy: PolicyList,
    /// Topologies, comma-separated, or `all`.
    #[arg(long, short = 'T', value_name = "T[,T..]", default_value = "hypercube", value_parser = parse_topologies)]
    pub topology: TopologyList,
    /// Worker counts, comma-separated (default: 1 and the number of cores).
    #[arg(long, short = 'n', value_name = "N[,N..]", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// How many times each configuration runs.
    #[command(flatten)]
    pub timing: TimingArgs,
    /// What to print on the terminal.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Directory for results.json, report.md and the plots (default: `results/<timestamp>`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Loop schedules for mandelbrot as a parallel loop, comma-separated, `all` or `none`.
    #[arg(long, value_name = "S[,S..]", default_value = "all", value_parser = parse_schedules)]
    pub schedules: ScheduleList,
    /// Policies the loop schedules run under (comma-separated or `all`).
    #[arg(long, value_name = "P[,P..]|all", default_value = "rp", value_parser = parse_policies)]
    pub loop_policy: PolicyList,
    /// Skip the rayon and chili baselines.
    #[arg(long)]
    pub no_baselines: bool,
    /// Skip matmul as master-worker tasks.
    #[arg(long)]
    pub no_tasks: bool,
    /// Pinning and placement.
    #[command(flatten)]
    pub pin: PinArgs,
    /// After timing each hypersteal configuration, run it once more on a
    /// traced pool (untimed) and write its Chrome trace into DIR; the report
    /// gains its timeline and transfer matrix (`docs/trace.md`).
    #[arg(long, value_name = "DIR")]
    pub trace: Option<PathBuf>,
    /// Show each worker's utilisation and queue length live while a
    /// configuration is timed (nothing when stdout is not a terminal).
    #[arg(long)]
    pub live: bool,
}

/// Options of `overhead`.
#[derive(Debug, Args)]
pub struct OverheadArgs {
    /// Workloads to measure (meant without a cutoff).
    #[arg(long, short, value_name = "W[,W..]", default_value = "fib:27,cutoff=0,tree-sum:20", value_parser = parse_workloads)]
    pub workload: WorkloadList,
    /// Policies, comma-separated, or `all`.
    #[arg(long, short, value_name = "P[,P..]|all", default_value = "all", value_parser = parse_policies)]
    pub policy: PolicyList,
    /// The topology.
    #[arg(long, short = 'T', default_value = "hypercube", value_parser = parse_topology)]
    pub topology: Topology,
    /// Worker counts (default: 1 and the number of cores).
    #[arg(long, short = 'n', value_name = "N[,N..]", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// How many times each configuration runs.
    #[command(flatten)]
    pub timing: TimingArgs,
    /// What to print.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also write results.json and report.md into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Pinning and placement.
    #[command(flatten)]
    pub pin: PinArgs,
}

/// Options of `versus`.
#[derive(Debug, Args)]
pub struct VersusArgs {
    /// Workloads, measured one after another.
    #[arg(long, short, value_name = "W[,W..]", default_value = crate::versus::DEFAULT_WORKLOADS, value_parser = parse_workloads)]
    pub workload: WorkloadList,
    /// Policies, comma-separated, or `all`.
    #[arg(long, short, value_name = "P[,P..]|all", default_value = "all", value_parser = parse_policies)]
    pub policy: PolicyList,
    /// The topology.
    #[arg(long, short = 'T', default_value = "hypercube", value_parser = parse_topology)]
    pub topology: Topology,
    /// Workers of every parallel contender (default: the number of cores).
    #[arg(long, short = 'n', value_parser = parse_thread_count)]
    pub threads: Option<usize>,
    /// Rounds per workload (at least 9); every contender runs once per round.
    #[arg(long, default_value_t = 15, value_parser = parse_rounds)]
    pub rounds: usize,
    /// What to print (`table` or `csv`; `json` prints the rows as JSON).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Pinning and placement.
    #[command(flatten)]
    pub pin: PinArgs,
}

/// Options of `report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A directory holding results.json (or the file itself).
    pub dir: PathBuf,
    /// Where to write report.md and the plots (default: next to results.json).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Options of `topology`.
#[derive(Debug, Args)]
pub struct TopologyArgs {
    /// The topology.
    #[arg(long, short = 'T', default_value = "hypercube", value_parser = parse_topology)]
    pub topology: Topology,
    /// Workers (default: the number of cores).
    #[arg(long, short = 'n', value_parser = parse_thread_count)]
    pub threads: Option<usize>,
    /// Pinning and placement.
    #[command(flatten)]
    pub pin: PinArgs,
    /// Also copy the files the hardware placement reads (sysfs and the process's allowed
    /// CPUs) into DIR, as the test fixtures under `tests/fixtures/hardware/` hold them.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
}

/// Options of `calibrate`.
#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// The calibration's name: the machine's (letters, digits, `-`, `_`, `.`).
    #[arg(long)]
    pub name: String,
    /// Workloads the simulator models (fib, nqueens, uts), comma-separated.
    #[arg(long, short, value_name = "W[,W..]", default_value = crate::calibrate::DEFAULT_WORKLOADS, value_parser = parse_workloads)]
    pub workload: WorkloadList,
    /// Worker counts of the slowdown (default: 1, 2, 4, ... up to the number of cores, and
    /// that number).
    #[arg(long, short = 'n', value_name = "N[,N..]", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// Timed runs (or rounds) of every median.
    #[arg(long, default_value_t = 15)]
    pub runs: usize,
    /// The file to write (default: `results/calibrations/NAME.json`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Pinning and placement, as the runs it is to predict used.
    #[command(flatten)]
    pub pin: PinArgs,
}

/// Options of `predict`.
#[derive(Debug, Args)]
pub struct PredictArgs {
    /// A calibration file `calibrate` wrote.
    #[arg(long, value_name = "FILE")]
    pub calibration: PathBuf,
    /// A report measured on the calibrated machine: its directory or its results.json.
    #[arg(long, value_name = "DIR|FILE")]
    pub results: PathBuf,
    /// Also write prediction.md and prediction.json into this directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// What to print (`table`, or `json`: the rows as JSON).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// A parsed `--workload` list: each workload, and whether a size was given.
#[derive(Debug, Clone)]
pub struct WorkloadList(pub Vec<(Workload, bool)>);
/// A parsed `--policy` list.
#[derive(Debug, Clone)]
pub struct PolicyList(pub Vec<Policy>);
/// A parsed `--topology` list.
#[derive(Debug, Clone)]
pub struct TopologyList(pub Vec<Topology>);
/// A parsed `--threads` list.
#[derive(Debug, Clone)]
pub struct ThreadList(pub Vec<usize>);
/// A parsed `--schedules` list.
#[derive(Debug, Clone)]
pub struct ScheduleList(pub Vec<Schedule>);

/// Splits a comma-separated list. A piece with `=` and no `:` continues the
/// previous item (`acwn:low=2,high=8`, `fib:27,cutoff=0`). Empty items are
/// an error.
pub fn split_list(s: &str) -> Result<Vec<String>, String> {
    let mut items: Vec<String> = Vec::new();
    for piece in s.split(',') {
        let p = piece.trim();
        if p.is_empty() {
            return Err(format!("malformed list `{s}`: an empty item"));
        }
        match items.last_mut() {
            Some(last) if p.contains('=') && !p.contains(':') => {
                last.push(',');
                last.push_str(p);
            }
            _ => items.push(p.to_string()),
        }
    }
    Ok(items)
}

/// A parse error that names every valid value (and `all`).
fn listing_valid(e: impl std::fmt::Display, what: &str, names: &[&str]) -> String {
    let e = e.to_string();
    if names.iter().all(|n| e.contains(n)) {
        format!("{e}; or all")
    } else {
        format!("{e}; valid {what}: {}, or all", names.join(", "))
    }
}

fn parse_workloads(s: &str) -> Result<WorkloadList, String> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Ok(WorkloadList(
            Workload::all_paper()
                .into_iter()
                .map(|w| (w, false))
                .collect(),
        ));
    }
    let items = split_list(s)?;
    let mut out = Vec::new();
    let available = available_memory();
    for item in items {
        let w: Workload = item
            .parse()
            .map_err(|e| listing_valid(e, "workloads", &Workload::NAMES))?;
        check_memory(&w, available)?;
        out.push((w, item.contains(':')));
    }
    Ok(WorkloadList(out))
}

fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// Refuses a workload whose data needs more than `available` bytes of
/// memory (no check when that is unknown).
pub fn check_memory(w: &Workload, available: Option<u64>) -> Result<(), String> {
    let need = w.memory_bytes();
    match available {
        Some(free) if need > free => Err(format!(
            "{w} needs about {} of memory for its data, more than the {} this machine has \
             available; give a smaller size",
            gib(need),
            gib(free)
        )),
        _ => Ok(()),
    }
}

/// Makes sure the report can be written into `dir` before anything is
/// measured: creates it if missing, then writes and removes a probe file.
/// Returns whether the directory was created here (so that a run that fails
/// can remove it again). The message names `--out`, the value and what is
/// allowed.
pub fn prepare_out(dir: &Path) -> Result<bool, String> {
    let bad = |why: String| {
        format!(
            "--out {}: {why}; give a directory that exists or can be created and that this user \
             can write",
            dir.display()
        )
    };
    if dir.exists() && !dir.is_dir() {
        return Err(bad("not a directory".to_string()));
    }
    let created = !dir.exists();
    std::fs::create_dir_all(dir).map_err(|e| bad(format!("cannot create it ({e})")))?;
    let probe = dir.join(format!(".hypersteal-suite-probe-{}", std::process::id()));
    let written = std::fs::write(&probe, b"probe");
    let _ = std::fs::remove_file(&probe);
    if let Err(e) = written {
        if created {
            let _ = std::fs::remove_dir(dir);
        }
        return Err(bad(format!("cannot write into it ({e})")));
    }
    Ok(created)
}

fn parse_placement(s: &str) -> Result<Placement, String> {
    s.parse()
}

fn parse_policies(s: &str) -> Result<PolicyList, String> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Ok(PolicyList(Policy::all()));
    }
    let items = split_list(s)?;
    let mut out = Vec::new();
    for item in items {
        if item.eq_ignore_ascii_case("all") {
            out.extend(Policy::all());
            continue;
        }
        let p: Policy = item
            .parse()
            .map_err(|e| listing_valid(e, "policies", &Policy::NAMES))?;
        out.push(p);
    }
    Ok(PolicyList(out))
}

fn parse_topology(s: &str) -> Result<Topology, String> {
    s.parse::<Topology>().map_err(|e| e.to_string())
}

fn parse_topologies(s: &str) -> Result<TopologyList, String> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Ok(TopologyList(Topology::ALL.to_vec()));
    }
    let mut out = Vec::new();
    for item in split_list(s)? {
        let t = parse_topology(&item)?;
        if !out.contains(&t) {
            out.push(t);
        }
    }
    Ok(TopologyList(out))
}

fn parse_thread_count(s: &str) -> Result<usize, String> {
    let n: usize = s.trim().parse().map_err(|_| {
        format!("`{s}` is not a number of workers; give whole numbers from 1 to {MAX_WORKERS}, as in 1,2,4")
    })?;
    if n == 0 {
        return Err(format!(
            "threads must be at least 1 (valid: 1 to {MAX_WORKERS}, as in 1,2,4)"
        ));
    }
    if n > MAX_WORKERS {
        return Err(format!(
            "{n} workers is more than the maximum, {MAX_WORKERS}"
        ));
    }
    Ok(n)
}

fn parse_threads(s: &str) -> Result<ThreadList, String> {
    let mut out = Vec::new();
    for item in split_list(s)? {
        let n = parse_thread_count(&item)?;
        if !out.contains(&n) {
            out.push(n);
        }
    }
    out.sort_unstable();
    Ok(ThreadList(out))
}

fn parse_runs(s: &str) -> Result<usize, String> {
    let max = StoppingRule::MAX_RUNS_LIMIT;
    match s.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{s}`: the number of runs must be a whole number of at least 1 and at most {max}"
        )),
    }
}

fn parse_rounds(s: &str) -> Result<usize, String> {
    let (min, max) = (crate::versus::MIN_ROUNDS, StoppingRule::MAX_RUNS_LIMIT);
    match s.trim().parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "`{s}`: the number of rounds must be a whole number of at least {min} and at most {max}"
        )),
    }
}

fn parse_precision(s: &str) -> Result<f64, String> {
    match s.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 100.0 => Ok(p),
        _ => Err(format!(
            "`{s}`: the precision is a percentage above 0 and at most 100, as in 3 or 2.5"
        )),
    }
}

fn parse_budget(s: &str) -> Result<f64, String> {
    match s.trim().trim_end_matches('s').parse::<f64>() {
        Ok(b) if b > 0.0 && b <= 86_400.0 => Ok(b),
        _ => Err(format!(
            "`{s}`: the budget is a number of seconds above 0 and at most 86400, as in 1 or 0.5"
        )),
    }
}

fn parse_schedules(s: &str) -> Result<ScheduleList, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "all" => return Ok(ScheduleList(Plan::all_schedules())),
        "none" => return Ok(ScheduleList(Vec::new())),
        _ => {}
    }
    let mut out = Vec::new();
    for item in split_list(s)? {
        out.push(
            item.parse::<Schedule>()
                .map_err(|e| format!("{e}, all or none"))?,
        );
    }
    Ok(ScheduleList(out))
}

/// The CPUs this process may use.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// 1, 2, 4, ... up to the number of cores, and that number.
fn doubling_threads() -> Vec<usize> {
    let top = cores().min(MAX_WORKERS);
    let mut v: Vec<usize> = std::iter::successors(Some(1usize), |t| Some(t * 2))
        .take_while(|&t| t < top)
        .collect();
    v.push(top);
    v
}

fn default_threads() -> Vec<usize> {
    let mut v = vec![1, cores().min(MAX_WORKERS)];
    v.dedup();
    v
}

fn command_line() -> String {
    let mut args: Vec<String> = std::env::args().collect();
    if let Some(first) = args.first_mut() {
        *first = "hypersteal-suite".to_string();
    }
    args.join(" ")
}

fn default_out(out: &Option<PathBuf>, stamp: &str) -> PathBuf {
    out.clone()
        .unwrap_or_else(|| Path::new("results").join(stamp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists() {
        assert_eq!(split_list("a,b").unwrap(), ["a", "b"]);
        assert_eq!(
            split_list("fib:27,cutoff=0,tree-sum:20").unwrap(),
            ["fib:27,cutoff=0", "tree-sum:20"]
        );
        assert_eq!(
            split_list("acwn:low=2,high=8,rp").unwrap(),
            ["acwn:low=2,high=8", "rp"]
        );
        assert!(split_list("1,,2").is_err());
        assert!(split_list("").is_err());
        assert_eq!(parse_threads("4,1,2,2").unwrap().0, [1, 2, 4]);
        assert!(parse_threads("0").unwrap_err().contains("at least 1"));
        assert!(parse_threads("x").is_err());
        assert_eq!(parse_policies("all").unwrap().0.len(), Policy::NAMES.len());
        assert_eq!(parse_policies("rp,acwn:low=3,high=9").unwrap().0.len(), 2);
        assert!(parse_policies("nope").unwrap_err().contains("random-alloc"));
        assert_eq!(parse_topologies("all").unwrap().0.len(), 5);
        assert_eq!(parse_schedules("none").unwrap().0.len(), 0);
        assert_eq!(parse_schedules("chunk:8,guided").unwrap().0.len(), 2);
        let w = parse_workloads("fib,nqueens:8").unwrap();
        assert!(!w.0[0].1 && w.0[1].1);
    }

    #[test]
    fn failures_map_to_exit_statuses() {
        // Bad input is status 2; anything failing while running (a wrong
        // answer, reported by `bench` as a message) is status 1.
        assert_eq!(Failure::Usage("bad".into()).status(), 2);
        let wrong: Failure = "WRONG ANSWER in fib:10 rp".to_string().into();
        assert_eq!(wrong, Failure::Run("WRONG ANSWER in fib:10 rp".into()));
        assert_eq!(exit_status(Err(wrong)), 1);
        assert_eq!(exit_status(Err(Failure::Usage("x".into()))), 2);
        assert_eq!(exit_status(Ok(())), 0);
    }

    #[test]
    fn memory_and_out_checks() {
        let big: Workload = "quicksort:4294967296".parse().unwrap();
        let e = check_memory(&big, Some(16 << 30)).unwrap_err();
        assert!(e.contains("96.0 GiB") && e.contains("16.0 GiB"), "{e}");
        assert!(check_memory(&big, None).is_ok());
        let small: Workload = "fib:10".parse().unwrap();
        assert!(check_memory(&small, Some(1)).is_ok());
        let dir = std::env::temp_dir().join(format!("hypersteal-suite-out-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(prepare_out(&dir), Ok(true));
        assert_eq!(prepare_out(&dir), Ok(false));
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "no probe left");
        let file = dir.join("f");
        std::fs::write(&file, "x").unwrap();
        let e = prepare_out(&file).unwrap_err();
        assert!(
            e.starts_with("--out ") && e.contains("not a directory"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn top_level_flags_are_the_quick_run_s() {
        let cli = Cli::try_parse_from(["hypersteal-suite", "--out", "x", "--runs", "11"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.quick.out, Some(PathBuf::from("x")));
        assert_eq!(cli.quick.timing.runs, 11);
        let rule = cli.quick.timing.rule(QUICK_BUDGET_S).unwrap();
        assert_eq!(rule.min_runs, 11);
        assert_eq!(rule.max_runs, StoppingRule::MAX_RUNS);
        assert_eq!(rule.budget, Duration::from_millis(500));
        // A command and the quick run's flags before it do not mix.
        assert!(Cli::try_parse_from(["hypersteal-suite", "--runs", "3", "run"]).is_err());
    }

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

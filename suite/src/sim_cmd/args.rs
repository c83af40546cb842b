//! The flags of `hypersteal-suite sim`.

use super::*;

/// Flags of `hypersteal-suite sim`.
#[derive(clap::Args, Debug, Clone)]
pub struct SimArgs {
    /// `isoefficiency`: the same as `--isoefficiency`.
    #[arg(value_name = "MODE")]
    pub mode: Option<SimMode>,
    /// Policies, comma separated (`rp,grr-m`), or `all`.
    #[arg(long, default_value = "rp,grr,grr-m")]
    pub policy: String,
    /// Topologies, comma separated (hypercube, mesh, torus, ring, complete).
    #[arg(long, default_value = "hypercube")]
    pub topology: String,
    /// Simulated processor counts, comma separated (1 to 16384).
    #[arg(long, default_value = "1,2,4,8,16,32,64,128,256,512,1024")]
    pub procs: String,
    /// Workload: `split:W[:A-B]`, `fib:N[:C]`, `queens:N[:C]`, `shu-fib32`, `shu-queen10`,
    /// `shu-puzzle15`, `shu-romberg14`, a
    /// UTS tree `uts:T1` … `uts:T3L`, or a tree search with stack splitting:
    /// `search:NODES[:b=B,cutoff=D|none,split=half|bottom|top,tree=S,poll=N,subtasks=D|none,
    /// takeback=yes|no]` (a synthetic tree), `sat:VARS[,terms=T,width=W,seed=S][:cutoff=D|none,
    /// split=..,poll=N,subtasks=..,takeback=..]` (the Davis-Putnam search of the `tautology`
    /// benchmark's formula) or `puzzle15:K[,bound=B][:cutoff=..]` (one IDA* iteration of the
    /// `puzzle15` benchmark); `subtasks=D` makes `sl`'s and `ml`'s managers subtask generators,
    /// and `takeback=yes` lets a spent one ask the workers it manages.
    #[arg(long, default_value = "split:1000000")]
    pub workload: String,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Cost-model preset the flags below override.
    #[arg(long, value_enum, default_value_t = CostPreset::Default)]
    pub cost: CostPreset,
    /// The costs of a real machine instead of a preset: a file `hypersteal-suite calibrate`
    /// wrote. Times are then nanoseconds; the per-node work and task overhead are those
    /// measured for the workload's kind (fib, queens, uts), slowed down as measured at each
    /// `--procs` (at a count not measured, as at the largest measured below it), and
    /// sender-initiated processors beat at the runtime's default heartbeat unless `--heartbeat`
    /// says otherwise. The flags below still override single costs.
    #[arg(long, value_name = "FILE", conflicts_with = "cost")]
    pub calibration: Option<PathBuf>,
    /// Time per unit of work.
    #[arg(long)]
    pub t_work: Option<f64>,
    /// Fixed time of a small message (request, reject, counter access).
    #[arg(long)]
    pub msg_base: Option<f64>,
    /// Per-hop time of a small message.
    #[arg(long)]
    pub msg_per_hop: Option<f64>,
    /// Fixed time of a work message.
    #[arg(long)]
    pub transfer_base: Option<f64>,
    /// Per-hop time of a work message.
    #[arg(long)]
    pub transfer_per_hop: Option<f64>,
    /// Time one access holds GRR's counter / SB's donor queue (they serialise).
    #[arg(long)]
    pub t_access: Option<f64>,
    /// GRR-M: time per combining-tree level, each way (no serialisation).
    #[arg(long)]
    pub t_combine: Option<f64>,
    /// Shared bus: every message holds it this long (0: switched network).
    #[arg(long)]
    pub t_bus: Option<f64>,
    /// Bookkeeping per executed task of a tree, processor time that is no work (ipsc2: 0.7, a chare and its response).
    #[arg(long)]
    pub t_task: Option<f64>,
    /// Further bookkeeping of a task placed from another processor (ipsc2: 1.8, sending and receiving both messages).
    #[arg(long)]
    pub t_task_remote: Option<f64>,
    /// Sender-initiated policies with `--heartbeat 0`: period of the load exchange that drives
    /// the standing phase (0: after every task; ipsc2: 100, Shu's period).
    #[arg(long)]
    pub load_period: Option<f64>,
    /// Time a parked processor takes to start asking again once there is work it may steal
    /// (0 in every preset).
    #[arg(long)]
    pub t_wake: Option<f64>,
    /// What an idle processor does when it sees nothing to steal: `park` (the runtime's
    /// sleep, the default) or `poll` (keep asking until the work is done, as the papers'
    /// message-passing machines).
    #[arg(long, default_value = "park")]
    pub idle: String,
    /// Tree workloads: give away only tasks at most this deep (the papers' cut-off depth of
    /// stack splitting); deeper work is never split.
    #[arg(long)]
    pub cutoff_depth: Option<u32>,
    /// Sender-initiated policies: simulated time between a processor's placement decisions
    /// (the runtime's heartbeat). 0: every new task is decided when it is created and the
    /// standing phase runs after every task.
    #[arg(long, default_value_t = 0.0)]
    pub heartbeat: f64,
    /// Output format on stdout: `table` or `json`.
    #[arg(long, default_value = "table")]
    pub format: String,
    /// Also write `sim.json` and an SVG plot into this directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Search the isoefficiency (problem size holding `--efficiency` as P grows) instead.
    #[arg(long)]
    pub isoefficiency: bool,
    /// Target efficiency of `--isoefficiency`.
    #[arg(long, default_value_t = 0.7)]
    pub efficiency: f64,
    /// Bisection steps per processor count of `--isoefficiency`.
    #[arg(long, default_value_t = 10)]
    pub steps: u32,
    /// Split fraction range `A-B` of the divisible work `--isoefficiency` grows (default 0.5-0.5).
    #[arg(long, default_value = "0.5-0.5")]
    pub alpha: String,
    /// The flags given on the command line (long names, without `--`), filled in by the
    /// command line's parser: `sim papers` refuses the ones it would ignore.
    #[arg(skip)]
    pub given: Vec<String>,
}

/// The cost-model presets of `--cost` (clap lists them in its help and in the error for any
/// other name).
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum CostPreset {
    /// Start-up dominates; distance weighed five times the Ncube/2's.
    Default,
    /// Only work takes time.
    Free,
    /// Seed 002's Ncube/2 (section 5.3.6).
    Ncube2,
    /// Seed 000's iPSC/2.
    Ipsc2,
}

/// What `sim` computes besides the default table of runs.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimMode {
    /// The problem size that holds an efficiency as P grows (seed 002 Table 1).
    Isoefficiency,
    /// Every table of both papers next to the simulator's numbers, with a verdict per row
    /// (`papers.md` in `--out`, or stdout); seed 002's tables search the Davis-Putnam trees of
    /// five formulas (`sat:40`, seeds 1 to 5); only `--seed` and `--out` apply, and any other
    /// flag is refused.
    Papers,
}

impl SimArgs {
    /// Whether the isoefficiency search was asked for (`sim isoefficiency` or
    /// `sim --isoefficiency`).
    pub fn iso(&self) -> bool {
        self.isoefficiency || self.mode == Some(SimMode::Isoefficiency)
    }
}

//! `hypersteal-suite sim`: the discrete-event simulator (`hypersteal_sim`) on machines larger
//! than the one at hand (`docs/simulator.md`), with table, JSON and SVG output.
//!
//! The library simulates and returns plain structs; this module parses the flags, provides the
//! UTS trees (same SHA-1 generator as the benchmark) as a [`TaskTree`], and formats the results.
//! The flags are in `args.rs`, the SVG plots in `plots.rs`.

use std::path::{Path, PathBuf};

use hypersteal::{Policy, Topology};
use hypersteal_sim::{
    self as sim, Architecture, CostModel, Idle, IsoConfig, IsoResult, SearchRules, Searched,
    SimConfig, SimResult, SplitWork, TaskTree, Workload,
};
use plotters::prelude::*;
use serde_json::{json, Value};

use crate::calibrate::{Calibration, WorkloadCost};
use crate::workloads::puzzle15::{self, IdaIteration, Puzzle15Params};
use crate::workloads::spec::Spec;
use crate::workloads::tautology::{self, Formula, TautologyParams};
use crate::workloads::uts::{self, Node, UtsTree};

mod args;
mod plots;
pub use args::{CostPreset, SimArgs, SimMode};
use plots::{plot, series, series_requests, write};

/// A UTS sample tree as a simulator task tree: every node costs one unit of work.
pub struct UtsTaskTree(pub &'static UtsTree);

impl TaskTree for UtsTaskTree {
    type Node = Node;
    fn root(&self) -> Node {
        Node::root(self.0.seed)
    }
    fn cost(&self, _: &Node) -> f64 {
        1.0
    }
    fn children(&self, node: &Node, out: &mut Vec<Node>) {
        let n = uts::num_children(&self.0.kind, node);
        out.extend((0..n).map(|i| node.child(i)));
    }
}

fn list<T>(
    s: &str,
    what: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let items: Vec<&str> = s.split(',').map(str::trim).collect();
    if items.iter().any(|x| x.is_empty()) {
        return Err(format!(
            "--{what} `{s}`: an empty item; expected a comma-separated list of values"
        ));
    }
    items
        .into_iter()
        .map(|x| parse(x).map_err(|e| format!("--{what} {x}: {e}")))
        .collect()
}

fn policies(s: &str) -> Result<Vec<Policy>, String> {
    if s.trim() == "all" {
        return Ok(Policy::all());
    }
    list(s, "policy", |x| {
        x.parse::<Policy>().map_err(|e| e.to_string())
    })
}

/// The cost model the flags describe.
fn cost_model(a: &SimArgs, workload: &Workload) -> Result<CostModel, String> {
    let mut c = match a.cost {
        CostPreset::Default => CostModel::default(),
        CostPreset::Free => CostModel::free(),
        CostPreset::Ncube2 => CostModel::ncube2(),
        CostPreset::Ipsc2 => CostModel::ipsc2(workload),
    };
    overrides(a, &mut c);
    Ok(c)
}

/// The single costs given on the command line, over `c`.
fn overrides(a: &SimArgs, c: &mut CostModel) {
    let set = |field: &mut f64, v: Option<f64>| {
        if let Some(v) = v {
            *field = v;
        }
    };
    set(&mut c.t_work, a.t_work);
    set(&mut c.msg_base, a.msg_base);
    set(&mut c.msg_per_hop, a.msg_per_hop);
    set(&mut c.transfer_base, a.transfer_base);
    set(&mut c.transfer_per_hop, a.transfer_per_hop);
    set(&mut c.t_access, a.t_access);
    set(&mut c.t_combine, a.t_combine);
    set(&mut c.t_bus, a.t_bus);
    set(&mut c.t_task, a.t_task);
    set(&mut c.t_task_remote, a.t_task_remote);
    set(&mut c.load_period, a.load_period);
    set(&mut c.t_wake, a.t_wake);
}

/// `--calibration FILE` read, and its entry for the workload's kind: `fib:..`, `queens:..` and
/// `uts:..` take the entry of the same kind.
fn calibrated(args: &SimArgs, file: &Path, workload: &str) -> Result<Calibrated, String> {
    let calibration = Calibration::load(file)?;
    let Some(entry) = calibration.entry_of_kind(workload).cloned() else {
        let kind = |s: &str| s.split(':').next().unwrap_or_default().to_string();
        let measured: Vec<String> = calibration.workloads.iter().map(|w| kind(&w.sim)).collect();
        return Err(format!(
            "--calibration {}: it measured {}; --workload {} needs a {} entry (calibrate the workload: hypersteal-suite calibrate --workload ...)",
            file.display(),
            measured.join(", "),
            args.workload,
            kind(workload)
        ));
    };
    Ok(Calibrated { calibration, entry })
}

/// A calibration and its entry for the simulated workload.
struct Calibrated {
    calibration: Calibration,
    entry: WorkloadCost,
}

impl Calibrated {
    /// The costs at `procs` processors, with the command line's single costs over them.
    fn cost(&self, args: &SimArgs, procs: usize) -> Result<CostModel, String> {
        let mut c = self
            .calibration
            .cost(&self.entry, procs, false)
            .expect("an inexact slowdown always exists");
        overrides(args, &mut c);
        c.validate()?;
        Ok(c)
    }
}

/// A tree of one of the suite's searches, searched depth first with stack splitting as
/// [`SearchRules`] say (seed 002 section 8's experiments): `--workload sat:...` ([`parse_sat`])
/// or `--workload puzzle15:...` ([`parse_puzzle15`]).
#[derive(Clone)]
pub struct TreeSearch<T> {
    /// The spelling without the rules: `sat:40,seed=2`.
    tree_name: String,
    tree: T,
    rules: SearchRules,
}

/// `--workload sat:TAUTOLOGY[:RULES]`: the Davis-Putnam search of a `tautology` formula.
pub type SatSearch = TreeSearch<Formula>;

/// `--workload puzzle15:K[,bound=B][:RULES]`: one complete IDA* iteration on a Korf instance.
pub type Puzzle15Search = TreeSearch<IdaIteration>;

/// A search's spelling: the tree's, then the rules' settings where they differ from the
/// defaults.
fn spelling(tree_name: &str, rules: SearchRules) -> String {
    let rules = rules.to_string();
    if rules.is_empty() {
        tree_name.to_string()
    } else {
        format!("{tree_name}:{rules}")
    }
}

impl<T: TaskTree + Sync> Searched for TreeSearch<T> {
    /// The spelling: the tree's, then the rules' settings where they differ from the defaults.
    fn name(&self) -> String {
        spelling(&self.tree_name, self.rules)
    }

    fn rules(&self) -> SearchRules {
        self.rules
    }

    /// One simulated search of the tree under `rules` on `config`'s machine.
    fn simulate_with(
        &self,
        config: &SimConfig,
        rules: SearchRules,
    ) -> Result<SimResult, sim::SimError> {
        sim::simulate_search(config, &spelling(&self.tree_name, rules), &self.tree, rules)
    }
}

/// Splits a search's spelling (after its `NAME:`) into the tree's part and the rules.
fn search_rules(name: &str, spec: &str) -> Result<(String, SearchRules), String> {
    let (tree, rules) = spec.split_once(':').unwrap_or((spec, ""));
    let rules = rules
        .parse()
        .map_err(|e| format!("--workload {name}:{spec}: {e}"))?;
    Ok((tree.to_string(), rules))
}

/// Parses the part after `sat:` (the `tautology` benchmark's spelling without its forking
/// `depth`, then the rules), generates the formula and refuses one that is not a tautology:
/// its parallel search would not visit the sequential search's tree.
pub fn parse_sat(spec: &str) -> Result<SatSearch, String> {
    let (formula_spec, rules) = search_rules("sat", spec)?;
    let params: TautologyParams = formula_spec
        .parse()
        .map_err(|e| format!("--workload sat:{spec}: {e}"))?;
    if params.depth != TautologyParams::DEFAULT_DEPTH {
        return Err(format!(
            "--workload sat:{spec}: depth={} is the benchmark's forking depth; a simulated search splits stacks instead (cutoff=D after a second colon)",
            params.depth
        ));
    }
    let formula = params.formula();
    let verdict = tautology::sequential(&formula);
    if !verdict.tautology {
        return Err(format!(
            "--workload sat:{spec}: the formula is not a tautology (a counterexample after {} nodes); the simulator searches whole trees, as the paper's unsatisfiable instances are searched: choose other terms or another seed",
            verdict.nodes
        ));
    }
    Ok(TreeSearch {
        tree_name: format!("sat:{params}"),
        tree: formula,
        rules,
    })
}

/// Parses the part after `puzzle15:`: `K[,bound=B]` (a Korf instance, as the `puzzle15`
/// benchmark spells it, and a threshold, by default the last below the optimal length), then
/// the rules. A threshold outside the instance's complete iterations is refused.
pub fn parse_puzzle15(spec: &str) -> Result<Puzzle15Search, String> {
    let (tree_spec, rules) = search_rules("puzzle15", spec)?;
    let bad = |e: &dyn std::fmt::Display| format!("--workload puzzle15:{spec}: {e}");
    let parsed =
        Spec::parse("puzzle15", &tree_spec, &["instance", "bound"]).map_err(|e| bad(&e))?;
    let number = parsed
        .size::<u32>("instance")
        .map_err(|e| bad(&e))?
        .unwrap_or(Puzzle15Params::paper().instance);
    let instance = puzzle15::known_korf(number).map_err(|e| bad(&e))?;
    let bound = parsed
        .get::<u32>("bound")
        .map_err(|e| bad(&e))?
        .unwrap_or(instance.optimal - 2);
    let tree = IdaIteration::new(instance, bound).map_err(|e| bad(&e))?;
    let tree_name = if bound == instance.optimal - 2 {
        format!("puzzle15:{number}")
    } else {
        format!("puzzle15:{number},bound={bound}")
    };
    Ok(TreeSearch {
        tree_name,
        tree,
        rules,
    })
}

fn no_uts_tree(name: &str) -> String {
    let names: Vec<&str> = uts::TREES.iter().map(|t| t.name).collect();
    format!(
        "--workload uts:{name}: no such UTS tree; valid trees are {}",
        names.join(", ")
    )
}

/// The `--idle` flag.
fn idle_mode(s: &str) -> Result<Idle, String> {
    match s {
        "park" => Ok(Idle::Park),
        "poll" => Ok(Idle::Poll),
        other => Err(format!("--idle {other}: expected park or poll")),
    }
}

/// One result as JSON.
pub fn result_json(r: &SimResult) -> Value {
    json!({
        "policy": r.policy, "topology": r.topology, "procs": r.procs, "workload": r.workload,
        "work": r.work, "time": r.time, "speedup": r.speedup, "efficiency": r.efficiency,
        "requests": r.requests, "requests_ok": r.requests_ok, "rejects": r.rejects,
        "transfers": r.transfers,
        "tasks": r.tasks, "max_hops": r.max_hops, "shared_wait": r.shared_wait,
        "answer_time": r.answer_time, "deferred": r.deferred,
        "shared_accesses": r.shared_accesses,
    })
}

/// One isoefficiency result as JSON.
pub fn iso_json(r: &IsoResult) -> Value {
    json!({
        "policy": r.policy, "arch": r.arch.name(), "efficiency": r.efficiency,
        "exponent": r.exponent, "paper": r.paper.map(|p| p.expr),
        "paper_exponent": r.paper_exponent,
        "points": r.points.iter().map(|p| json!({
            "procs": p.procs, "work": p.work, "efficiency": p.efficiency, "runs": p.runs,
        })).collect::<Vec<_>>(),
    })
}

/// The flags of `sim`, parsed and checked ([`plan`]), ready to [`run`].
pub struct Plan {
    procs: Vec<usize>,
    topologies: Vec<Topology>,
    policies: Vec<Policy>,
    idle: Idle,
    /// The UTS tree of `--workload uts:NAME`.
    uts_tree: Option<&'static UtsTree>,
    /// The suite's search of `--workload sat:...` or `puzzle15:...`.
    search: Option<Box<dyn Searched + Send>>,
    /// The built-in workload (a placeholder when `uts_tree` or `search` is set or for
    /// isoefficiency).
    workload: Workload,
    /// The split fraction range of the isoefficiency search.
    alpha: (f64, f64),
    /// The machine's costs.
    cost: CostModel,
    /// `--calibration`: the costs at each processor count instead of `cost`.
    calibrated: Option<Calibrated>,
    /// The heartbeat of sender-initiated processors: `--heartbeat`, or with a calibration and
    /// no `--heartbeat` the runtime's default heartbeat in nanoseconds.
    heartbeat: f64,
}

/// Parses and checks every flag of `sim` before anything runs; the command line exits with
/// status 2 and this message when one is bad (the same as clap's own usage errors).
pub fn plan(args: &SimArgs) -> Result<Plan, String> {
    if args.mode == Some(SimMode::Papers) {
        // Every table runs at its own settings (docs/simulator.md); a flag it would ignore is
        // refused rather than dropped.
        if let Some(flag) = args
            .given
            .iter()
            .find(|f| !matches!(f.as_str(), "seed" | "out"))
        {
            return Err(format!(
                "--{flag}: `sim papers` runs every table at the settings docs/simulator.md gives; only --seed and --out apply"
            ));
        }
    }
    if args.mode == Some(SimMode::Papers) {
        // Checked (by writing a probe file) before the tables' minutes of computing.
        if let Some(dir) = &args.out {
            crate::cli::prepare_out(dir)?;
        }
    }
    if !matches!(args.format.as_str(), "table" | "json") {
        return Err(format!("--format {}: expected table or json", args.format));
    }
    let procs = list(&args.procs, "procs", |x| {
        x.parse::<usize>().map_err(|e| e.to_string())
    })?;
    if let Some(p) = procs.iter().find(|&&p| p == 0 || p > hypersteal::MAX_NODES) {
        return Err(format!(
            "--procs {p}: expected 1 to {}",
            hypersteal::MAX_NODES
        ));
    }
    let topologies = list(&args.topology, "topology", |x| {
        x.parse::<Topology>().map_err(|e| e.to_string())
    })?;
    let mut plan = Plan {
        procs,
        topologies,
        policies: policies(&args.policy)?,
        idle: idle_mode(&args.idle)?,
        uts_tree: None,
        search: None,
        workload: Workload::Split(SplitWork::halving(1.0)),
        alpha: (0.5, 0.5),
        cost: CostModel::default(),
        calibrated: None,
        heartbeat: args.heartbeat,
    };
    if args.iso() {
        if args.cutoff_depth.is_some() {
            return Err("--cutoff-depth: the isoefficiency search grows divisible work, which has no tree to cut".into());
        }
        if args.heartbeat != 0.0 {
            return Err("--heartbeat: the isoefficiency search runs receiver-initiated policies only, which a heartbeat does not change".into());
        }
        if !(args.efficiency > 0.0 && args.efficiency < 1.0) {
            return Err(format!(
                "--efficiency {}: expected a value between 0 and 1",
                args.efficiency
            ));
        }
        plan.alpha = args
            .alpha
            .split_once('-')
            .and_then(|(a, b)| Some((a.parse::<f64>().ok()?, b.parse::<f64>().ok()?)))
            .filter(|&(a, b)| 0.0 < a && a <= b && b < 1.0)
            .ok_or_else(|| format!("--alpha {}: expected A-B with 0 < A <= B < 1", args.alpha))?;
    } else {
        let lower = args.workload.to_ascii_lowercase();
        if let Some(name) = lower.strip_prefix("uts:") {
            plan.uts_tree = Some(uts::tree(name).ok_or_else(|| no_uts_tree(name))?);
        } else if let Some(spec) = lower.strip_prefix("sat:") {
            plan.search = Some(Box::new(parse_sat(spec)?));
        } else if let Some(spec) = lower.strip_prefix("puzzle15:") {
            plan.search = Some(Box::new(parse_puzzle15(spec)?));
        } else {
            plan.workload = args.workload.parse().map_err(|e: String| {
                format!("{e}; or one of the suite's trees: uts:T1 … uts:T3L, sat:VARS[,..][:RULES] or puzzle15:K[,bound=B][:RULES]")
            })?;
        }
        if args.cutoff_depth.is_some() && plan.search.is_some() {
            return Err(format!(
                "--cutoff-depth: {} takes its cut-off in its spelling (after a second colon: :cutoff=D)",
                args.workload
            ));
        }
        if args.cutoff_depth.is_some() && matches!(plan.workload, Workload::Search(_)) {
            return Err(format!(
                "--cutoff-depth: {} takes its cut-off in its spelling (search:NODES:cutoff=D)",
                args.workload
            ));
        }
        if args.cutoff_depth.is_some()
            && plan.uts_tree.is_none()
            && plan.search.is_none()
            && !plan.workload.is_tree()
        {
            return Err(format!(
                "--cutoff-depth needs a tree workload, not {} (divisible work's cut-off is its grain)",
                args.workload
            ));
        }
    }
    if !(args.heartbeat.is_finite() && args.heartbeat >= 0.0) {
        return Err(format!(
            "--heartbeat {}: expected a simulated time of 0 or more",
            args.heartbeat
        ));
    }
    plan.cost = cost_model(args, &plan.workload)?;
    plan.cost.validate()?;
    if let Some(file) = &args.calibration {
        if args.iso() {
            return Err("--calibration: the isoefficiency search grows divisible work, for which a calibration measures no per-node cost".into());
        }
        if plan.search.is_some() || !(plan.uts_tree.is_some() || plan.workload.is_tree()) {
            return Err(format!(
                "--calibration: a calibration measures fib, queens and uts trees; not --workload {}",
                args.workload
            ));
        }
        let workload = match plan.uts_tree {
            Some(t) => format!("uts:{}", t.name),
            None => plan.workload.to_string(),
        };
        let c = calibrated(args, file, &workload)?;
        for &p in &plan.procs {
            c.cost(args, p)
                .map_err(|e| format!("--calibration {} at --procs {p}: {e}", file.display()))?;
        }
        plan.cost = c.cost(args, 1)?;
        plan.calibrated = Some(c);
        if !args.given.iter().any(|f| f == "heartbeat") {
            plan.heartbeat = crate::calibrate::runtime_heartbeat_ns();
        }
    }
    Ok(plan)
}

/// Runs `hypersteal-suite sim` as `plan` (made from the same `args`) says.
pub fn run(args: &SimArgs, plan: Plan) -> Result<(), String> {
    if args.mode == Some(SimMode::Papers) {
        return run_papers(args);
    }
    if args.iso() {
        return run_iso(args, &plan);
    }
    let Plan {
        procs,
        topologies,
        policies,
        idle,
        uts_tree,
        search,
        workload,
        cost,
        calibrated,
        heartbeat,
        ..
    } = plan;
    let mut results = Vec::new();
    for &topology in &topologies {
        for &policy in &policies {
            if policy.is_sender_initiated() && uts_tree.is_none() && !workload.is_tree() {
                eprintln!("sim: skipping {policy}: it places tasks and needs a tree workload");
                continue;
            }
            if policy.is_sender_initiated() && search.is_some() {
                eprintln!("sim: skipping {policy}: it places tasks; a search moves work only by splitting stacks on request");
                continue;
            }
            for &p in &procs {
                let cost = match &calibrated {
                    Some(c) => c.cost(args, p)?,
                    None => cost,
                };
                let config = SimConfig {
                    policy,
                    topology,
                    procs: p,
                    workload,
                    cost,
                    seed: args.seed,
                    idle,
                    cutoff_depth: args.cutoff_depth,
                    heartbeat,
                };
                let r = match (uts_tree, &search) {
                    (Some(t), _) => {
                        sim::simulate_tree(&config, &format!("uts:{}", t.name), &UtsTaskTree(t))
                    }
                    (None, Some(s)) => s.simulate(&config),
                    (None, None) => sim::simulate(&config),
                }
                .map_err(|e| e.to_string())?;
                results.push(r);
            }
        }
    }
    let mut doc = json!({
        "command": "sim",
        "seed": args.seed,
        "idle": args.idle,
        "cutoff_depth": args.cutoff_depth,
        "cost": cost_json(&cost),
        "calibration": calibrated.as_ref().map(|c| c.calibration.name.clone()),
        "results": results.iter().map(result_json).collect::<Vec<_>>(),
    });
    // Recorded only when set, so that a run without one reads as before heartbeats existed.
    if heartbeat > 0.0 {
        doc["heartbeat"] = json!(heartbeat);
    }
    match args.format.as_str() {
        "json" => println!(
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
        ),
        _ => print!("{}", sim::table(&results)),
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        write(
            &dir.join("sim.json"),
            &serde_json::to_string_pretty(&doc).unwrap_or_default(),
        )?;
        let series = series(&results, |r| r.efficiency);
        plot(
            &dir.join("sim-efficiency.svg"),
            "simulated efficiency",
            "efficiency",
            false,
            &series,
        )?;
        let series = series_requests(&results);
        plot(
            &dir.join("sim-requests.svg"),
            "work requests",
            "requests",
            true,
            &series,
        )?;
        eprintln!(
            "sim: wrote sim.json, sim-efficiency.svg, sim-requests.svg to {}",
            dir.display()
        );
    }
    Ok(())
}

fn cost_json(c: &CostModel) -> Value {
    json!({
        "t_work": c.t_work, "msg_base": c.msg_base, "msg_per_hop": c.msg_per_hop,
        "transfer_base": c.transfer_base, "transfer_per_hop": c.transfer_per_hop,
        "t_access": c.t_access, "t_combine": c.t_combine, "t_bus": c.t_bus, "t_task": c.t_task, "t_task_remote": c.t_task_remote,
        "load_period": c.load_period, "t_wake": c.t_wake,
    })
}

fn run_iso(args: &SimArgs, plan: &Plan) -> Result<(), String> {
    let (lo, hi) = plan.alpha;
    let cost = plan.cost;
    let procs: Vec<usize> = plan.procs.iter().copied().filter(|&p| p >= 2).collect();
    let mut results = Vec::new();
    for &topology in &plan.topologies {
        for &policy in plan.policies.iter().filter(|p| !p.is_sender_initiated()) {
            let mut cfg = IsoConfig::new(policy, Architecture::of(topology), procs.clone());
            if cost.t_bus > 0.0 && topology == Topology::Complete {
                cfg.arch = Architecture::Workstations;
            }
            cfg.efficiency = args.efficiency;
            cfg.cost = cost;
            cfg.seed = args.seed;
            cfg.idle = plan.idle;
            cfg.steps = args.steps;
            cfg.split = SplitWork {
                alpha_min: lo,
                alpha_max: hi,
                ..SplitWork::halving(1.0)
            };
            results.push(sim::isoefficiency(&cfg).map_err(|e| e.to_string())?);
        }
    }
    let doc = json!({
        "command": "sim --isoefficiency",
        "seed": args.seed,
        "idle": args.idle,
        "cost": cost_json(&cost),
        "results": results.iter().map(iso_json).collect::<Vec<_>>(),
    });
    match args.format.as_str() {
        "json" => println!(
            "{}",
            serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?
        ),
        _ => print!("{}", sim::iso_table(&results)),
    }
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        write(
            &dir.join("isoefficiency.json"),
            &serde_json::to_string_pretty(&doc).unwrap_or_default(),
        )?;
        let series: Vec<(String, Vec<(f64, f64)>)> = results
            .iter()
            .map(|r| {
                let pts = r
                    .points
                    .iter()
                    .filter_map(|p| Some((p.procs as f64, p.work?)))
                    .collect();
                (format!("{} ({})", r.policy, r.arch), pts)
            })
            .collect();
        plot(
            &dir.join("isoefficiency.svg"),
            "isoefficiency: W holding E",
            "W",
            true,
            &series,
        )?;
        eprintln!(
            "sim: wrote isoefficiency.json, isoefficiency.svg to {}",
            dir.display()
        );
    }
    Ok(())
}

/// `sim papers`: the document of [`sim::papers`] at the papers' processor counts.
/// Seed 002's problems for `sim papers`: five unsatisfiable instances of the `tautology`
/// generator at 40 variables, seeds 1 to 5 (1.05 to 1.98 million nodes each; the paper: "a
/// sample set of 5 problem instances", 10^5 to 10^7 nodes, 35 to 65 variables), searched with
/// the default rules.
pub const PAPER_SAT: [&str; 5] = ["40", "40,seed=2", "40,seed=3", "40,seed=4", "40,seed=5"];

/// The cross-check of seed 002's Table 3 in `sim papers`: the IDA* iteration at threshold 51
/// of each Korf instance here (2,757,822, 1,217,372 and 928,741 nodes), the 15-puzzle of Kumar
/// and Rao's earlier experiments that the paper recalls, at the size of its formulas.
pub const PAPER_PUZZLE15: [&str; 3] = ["1,bound=51", "2,bound=51", "3,bound=51"];

fn run_papers(args: &SimArgs) -> Result<(), String> {
    let sats = PAPER_SAT
        .iter()
        .map(|spec| parse_sat(spec))
        .collect::<Result<Vec<_>, _>>()?;
    let instances: Vec<&dyn Searched> = sats.iter().map(|s| s as &dyn Searched).collect();
    let puzzles = PAPER_PUZZLE15
        .iter()
        .map(|spec| parse_puzzle15(spec))
        .collect::<Result<Vec<_>, _>>()?;
    let cross_check: Vec<&dyn Searched> = puzzles.iter().map(|s| s as &dyn Searched).collect();
    let doc = sim::papers_with(
        &sim::PapersConfig::full(args.seed),
        &instances,
        &cross_check,
    )
    .map_err(|e| e.to_string())?;
    match &args.out {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| format!("--out {}: {e}", dir.display()))?;
            write(&dir.join("papers.md"), &doc)
        }
        None => {
            print!("{doc}");
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uts_task_tree_has_the_published_size() {
        let t = uts::tree("T1").unwrap();
        let (nodes, work) = sim::tree_size(&UtsTaskTree(t));
        assert_eq!(nodes, t.published.nodes);
        assert_eq!(work, nodes as f64);
    }

    /// Simulates `search` (whose tree the benchmark's sequential search visits in `nodes`
    /// nodes) under four policies at 1, 2, 64 and 1024 processors: every node is expanded once,
    /// the work is the tree's and every request is answered once.
    fn assert_searched_once<T>(search: &TreeSearch<T>, nodes: u64)
    where
        T: TaskTree + Clone + Send + Sync + 'static,
    {
        assert!(nodes > 1000, "a tree worth splitting: {nodes}");
        for policy in ["rp", "grr-m", "arr", "sl"] {
            for procs in [1, 2, 64, 1024] {
                let config = SimConfig {
                    policy: policy.parse().unwrap(),
                    topology: Topology::Hypercube,
                    procs,
                    workload: Workload::Split(SplitWork::halving(1.0)),
                    cost: CostModel::default(),
                    seed: 1,
                    idle: Idle::Poll,
                    cutoff_depth: None,
                    heartbeat: 0.0,
                };
                let r = {
                    let search = search.clone();
                    sim::within(120, move || search.simulate(&config)).unwrap()
                };
                let what = format!("{} {policy} P={procs}", search.name());
                assert_eq!(r.tasks, nodes, "{what}: every node expanded once");
                assert_eq!(r.work, nodes as f64, "{what}");
                assert_eq!(r.requests_ok + r.rejects, r.requests, "{what}");
                assert_eq!(r.workload, search.name());
                if procs > 1 {
                    assert!(r.requests_ok > 0, "{what}: the search spread");
                }
            }
        }
    }

    #[test]
    fn a_sat_search_visits_the_sequential_tree_once_under_every_policy() {
        let sat = parse_sat("30,seed=2:cutoff=12,poll=2").unwrap();
        assert_eq!(sat.name(), "sat:30,seed=2:cutoff=12,poll=2");
        assert_eq!(parse_sat("30").unwrap().name(), "sat:30");
        let nodes = tautology::sequential(&sat.tree).nodes;
        assert_eq!(
            sim::walk(&sat.tree).0,
            nodes,
            "the simulated tree is the search's"
        );
        assert_searched_once(&sat, nodes);
    }

    #[test]
    fn a_puzzle15_search_visits_the_sequential_iteration_once_under_every_policy() {
        let default = parse_puzzle15("2").unwrap();
        assert_eq!(default.name(), "puzzle15:2");
        assert_eq!(
            default.tree.bound(),
            53,
            "the last threshold below 55 moves"
        );
        let puzzle = parse_puzzle15("3,bound=47:split=bottom").unwrap();
        assert_eq!(puzzle.name(), "puzzle15:3,bound=47:split=bottom");
        let nodes = puzzle.tree.sequential_nodes();
        assert_eq!(
            parse_puzzle15("instance=3,bound=47")
                .unwrap()
                .tree
                .sequential_nodes(),
            nodes
        );
        assert_searched_once(&puzzle, nodes);
    }
}

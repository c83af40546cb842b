//! What each command does with its parsed arguments: the quick run, `run`, `versus`,
//! `overhead`, `report`, `topology` and the hand-off to `sim` and `mpi`; how a failure becomes
//! an exit status.

use super::*;
use std::io::IsTerminal;
use std::time::Instant;

use clap::{CommandFactory, FromArgMatches};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::bench::{self, on_big_stack, Watch};
use crate::load::LoadMonitor;
use crate::machine::{timestamp, Machine};
use crate::report::{self, Results, Settings};
use crate::trace_view::TraceOut;

/// Why a command failed: bad input (exit status 2) or a failure while
/// running (status 1: a wrong answer, a file that cannot be written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Bad input, found before anything ran.
    Usage(String),
    /// A failure while running.
    Run(String),
}

impl Failure {
    /// The process exit status: 2 for bad input, 1 for a failed run.
    pub fn status(&self) -> i32 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Run(_) => 1,
        }
    }

    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Failure::Usage(m) | Failure::Run(m) => m,
        }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure::Run(message)
    }
}

/// The exit status of a command's result, printing the message of a failure.
pub fn exit_status(result: Result<(), Failure>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(f) => {
            eprintln!("error: {}", f.message());
            f.status()
        }
    }
}

/// A report directory checked before measuring: removed again if it was
/// created for a run that then failed.
struct OutDir {
    path: PathBuf,
    created: bool,
}

impl OutDir {
    fn prepare(path: PathBuf) -> Result<Self, Failure> {
        let created = prepare_out(&path).map_err(Failure::Usage)?;
        Ok(Self { path, created })
    }

    /// Runs `f`; if it fails, removes the directory when it was created here
    /// and is still empty.
    fn around<T>(&self, f: impl FnOnce() -> Result<T, Failure>) -> Result<T, Failure> {
        let r = f();
        if r.is_err() && self.created {
            let _ = std::fs::remove_dir(&self.path);
        }
        r
    }
}

fn progress_bar(len: usize) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} eta {eta} {msg}",
        )
        .expect("a valid template"),
    );
    bar
}

/// The flags of subcommand `cmd` that its matches `m` got from the command line, by their long
/// names.
fn given_flags(cmd: &clap::Command, m: &clap::ArgMatches) -> Vec<String> {
    cmd.get_arguments()
        .filter(|a| {
            m.value_source(a.get_id().as_str()) == Some(clap::parser::ValueSource::CommandLine)
        })
        .filter_map(|a| a.get_long().map(str::to_string))
        .collect()
}

/// Parses the command line and runs it; returns the process exit code.
pub fn main() -> i32 {
    let command = Cli::command();
    let matches = command.clone().get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if let (Some(Command::Sim(args)), Some(("sim", m)), Some(sim)) = (
        &mut cli.command,
        matches.subcommand(),
        command.find_subcommand("sim"),
    ) {
        args.given = given_flags(sim, m);
    }
    // `sim` checks its flags itself: a bad one is a usage error too (exit 2).
    let sim_plan = match &cli.command {
        Some(Command::Sim(args)) => match crate::sim_cmd::plan(args) {
            Ok(plan) => Some(plan),
            Err(e) => return exit_status(Err(Failure::Usage(e))),
        },
        _ => None,
    };
    #[cfg(feature = "mpi")]
    if let Some(Command::Mpi(args)) = &cli.command {
        return match crate::mpi_cmd::plan(args) {
            Ok(plan) => crate::mpi_cmd::run(args, plan),
            Err(e) => exit_status(Err(Failure::Usage(e))),
        };
    }
    exit_status(on_big_stack(|| match cli.command {
        None => quick(&cli.quick),
        Some(Command::Quick(args)) => quick(&args),
        Some(Command::Run(args)) => run(&args),
        Some(Command::Overhead(args)) => overhead(&args),
        Some(Command::Versus(args)) => versus(&args),
        Some(Command::Report(args)) => rebuild(&args),
        Some(Command::Topology(args)) => Ok(topology(&args)?),
        Some(Command::Calibrate(args)) => calibrate(&args),
        Some(Command::Predict(args)) => predict(&args),
        Some(Command::Sim(args)) => Ok(crate::sim_cmd::run(
            &args,
            sim_plan.expect("`sim` was planned above"),
        )?),
        #[cfg(feature = "mpi")]
        Some(Command::Mpi(_)) => unreachable!("`mpi` returned above"),
    }))
}

/// The default time budget of a configuration in the quick run, seconds.
pub const QUICK_BUDGET_S: f64 = 0.5;
/// The default time budget of a configuration in `run` and `overhead`,
/// seconds.
pub const RUN_BUDGET_S: f64 = 10.0;

/// The hypersteal policies the quick run measures at 1 worker: one
/// receiver-initiated (random polling) and one sender-initiated (ACWN). At 1
/// worker no policy has anyone to steal from or place onto; the rows measure
/// the cost of the parallel code.
pub fn quick_one_worker_policies() -> Vec<Policy> {
    vec![
        Policy::RandomPolling,
        "acwn".parse().expect("a valid policy spelling"),
    ]
}

/// The quick run's plan: every workload at its quick size, every policy at
/// all cores, [`quick_one_worker_policies`] at 1 worker unless `trim` is
/// false.
pub fn quick_plan(rule: StoppingRule, warmup: usize, pin: Option<Placement>, trim: bool) -> Plan {
    Plan {
        workloads: Workload::all_quick(),
        policies: Policy::all(),
        topologies: vec![Topology::Hypercube],
        threads: default_threads(),
        rule,
        warmup,
        one_worker_policies: trim.then(quick_one_worker_policies),
        baselines: true,
        schedules: Plan::all_schedules(),
        loop_policies: vec![Policy::RandomPolling],
        matmul_tasks: true,
        pin,
    }
}

fn settings(plan: &Plan) -> Settings {
    Settings {
        runs: plan.rule.min_runs,
        max_runs: plan.rule.max_runs,
        precision: plan.rule.precision,
        budget_s: plan.rule.budget.as_secs_f64(),
        trimmed: plan.trimming(),
        warmup: plan.warmup,
        pin: plan.pin.is_some(),
        placement: plan.pin.map(|p| p.to_string()),
        threads: plan.threads.clone(),
        policies: plan.policies.iter().map(|p| p.to_string()).collect(),
        topologies: plan.topologies.iter().map(|t| t.to_string()).collect(),
        schedules: plan.schedules.iter().map(|s| s.to_string()).collect(),
    }
}

/// How long the machine is watched, idle, before a run starts.
const QUIET_SAMPLE: Duration = Duration::from_millis(500);

/// Measures `plan`, counting every configuration in `monitor` (which the
/// caller finishes once it has measured everything it will).
fn measure(
    plan: &Plan,
    watch: &Watch,
    started: String,
    monitor: &mut LoadMonitor,
) -> Result<Results, String> {
    let t0 = Instant::now();
    let bar = progress_bar(plan.points());
    if watch.live && std::io::stdout().is_terminal() {
        // The live view takes the terminal; two views drawing at once would garble both.
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let rows = bench::run_plan_watched(plan, watch, |label| {
        bar.set_message(label.to_string());
        bar.inc(1);
    });
    bar.finish_and_clear();
    let rows = rows?;
    for r in &rows {
        monitor.point(r.others_cpu);
    }
    Ok(Results {
        suite_version: env!("CARGO_PKG_VERSION").to_string(),
        started,
        command: command_line(),
        machine: Machine::detect(),
        settings: settings(plan),
        wall_s: t0.elapsed().as_secs_f64(),
        rows,
        overhead: Vec::new(),
        quiet: None,
    })
}

fn quick(args: &QuickArgs) -> Result<(), Failure> {
    let t0 = Instant::now();
    let rule = args.timing.rule(QUICK_BUDGET_S).map_err(Failure::Usage)?;
    let (stamp, started) = timestamp();
    let out = OutDir::prepare(default_out(&args.out, &stamp))?;
    let plan = quick_plan(rule, args.timing.warmup, args.pin.pin(), !args.no_trim);
    eprintln!(
        "quick run: {} workloads, {} policies, workers {:?}, {} configurations; each timed at \
         least {} times after {} warm-up, more (up to {}, within {:.1} s) until its median is \
         within ±{:.1}% at 95% confidence",
        plan.workloads.len(),
        plan.policies.len(),
        plan.threads,
        plan.configurations(),
        rule.min_runs,
        plan.warmup,
        rule.max_runs,
        rule.budget.as_secs_f64(),
        100.0 * rule.precision
    );
    if let Some(t) = plan.trimming() {
        eprintln!("trimmed to stay near two minutes: {t} (--no-trim measures them all)");
    }
    out.around(|| quick_measured(&plan, t0, started, &out.path))
}

fn quick_measured(plan: &Plan, t0: Instant, started: String, dir: &Path) -> Result<(), Failure> {
    let mut monitor = LoadMonitor::start(QUIET_SAMPLE);
    let mut results = measure(plan, &Watch::default(), started, &mut monitor)?;
    let overhead_workloads: Vec<Workload> = ["fib:25,cutoff=0", "tree-sum:18"]
        .iter()
        .map(|s| s.parse().expect("valid spellings"))
        .collect();
    let bar = progress_bar(
        overhead_workloads.len() * (2 + plan.threads.len() * (plan.policies.len() + 2)),
    );
    let overhead_plan = Plan {
        workloads: overhead_workloads,
        ..plan.clone()
    };
    let overhead = bench::run_overhead(&overhead_plan, |label| {
        bar.set_message(label.to_string());
        bar.inc(1);
    });
    bar.finish_and_clear();
    results.overhead = overhead?;
    results.quiet = Some(monitor.finish());
    results.wall_s = t0.elapsed().as_secs_f64();
    let files = results.write_all(dir)?;
    println!("{}", results.machine.summary());
    println!("layout: {}", results.machine.layout);
    print!("{}", report::summary_text(&results));
    println!("\nper-join overhead");
    print!(
        "{}",
        report::text_table(&report::overhead_table(&results.overhead))
    );
    println!();
    print!("{}", report::verdict_text(&results));
    println!(
        "{} configurations in {:.1} s; report: {} ({} files)",
        results.rows.len(),
        results.wall_s,
        dir.join("report.md").display(),
        files.len()
    );
    Ok(())
}

fn run(args: &RunArgs) -> Result<(), Failure> {
    let rule = args.timing.rule(RUN_BUDGET_S).map_err(Failure::Usage)?;
    if let Some(dir) = &args.trace {
        prepare_out(dir).map_err(|e| Failure::Usage(e.replacen("--out", "--trace", 1)))?;
    }
    let (stamp, started) = timestamp();
    let out = OutDir::prepare(default_out(&args.out, &stamp))?;
    let workloads = args
        .workload
        .0
        .iter()
        .map(|(w, sized)| {
            if args.quick_sizes && !sized {
                w.quick_size()
            } else {
                w.clone()
            }
        })
        .collect();
    let plan = Plan {
        workloads,
        policies: args.policy.0.clone(),
        topologies: args.topology.0.clone(),
        threads: args
            .threads
            .as_ref()
            .map_or_else(default_threads, |t| t.0.clone()),
        rule,
        warmup: args.timing.warmup,
        one_worker_policies: None,
        baselines: !args.no_baselines,
        schedules: args.schedules.0.clone(),
        loop_policies: args.loop_policy.0.clone(),
        matmul_tasks: !args.no_tasks,
        pin: args.pin.pin(),
    };
    let trace = args.trace.as_ref().map(|dir| TraceOut {
        json_dir: dir.clone(),
        svg_dir: out.path.clone(),
    });
    let watch = Watch {
        trace,
        live: args.live,
    };
    let results = out.around(|| {
        let mut monitor = LoadMonitor::start(QUIET_SAMPLE);
        let mut results = measure(&plan, &watch, started, &mut monitor)?;
        results.quiet = Some(monitor.finish());
        results.write_all(&out.path)?;
        Ok(results)
    })?;
    let dir = &out.path;
    match args.format {
        Format::Table => {
            println!("{}", results.machine.summary());
            println!("layout: {}", results.machine.layout);
            print!(
                "{}",
                report::text_table(&report::detail_table(&results.rows))
            );
            println!();
            print!("{}", report::verdict_text(&results));
            println!("report: {}", dir.join("report.md").display());
        }
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?
        ),
        Format::Csv => print!("{}", report::csv(&results.rows)),
    }
    Ok(())
}

fn versus(args: &VersusArgs) -> Result<(), Failure> {
    let threads = args.threads.unwrap_or_else(|| cores().min(MAX_WORKERS));
    let plan = crate::versus::VersusPlan {
        workloads: args.workload.0.iter().map(|(w, _)| w.clone()).collect(),
        policies: args.policy.0.clone(),
        topology: args.topology,
        threads,
        rounds: args.rounds,
        pin: args.pin.pin(),
    };
    let bar = progress_bar(plan.workloads.len() * plan.rounds);
    let rows = crate::versus::run_versus(&plan, |label| {
        bar.set_message(label.to_string());
        bar.inc(1);
    });
    bar.finish_and_clear();
    let rows = rows.map_err(Failure::Run)?;
    match args.format {
        Format::Table => {
            let machine = Machine::detect();
            println!("{}", machine.summary());
            println!("layout: {}", machine.layout);
            println!(
                "{} rounds; ÷ rayon and ÷ seq are medians of per-round ratios, IQR their quartiles",
                plan.rounds
            );
            print!("{}", crate::versus::table(&rows));
        }
        Format::Csv => print!("{}", crate::versus::csv(&rows)),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&rows).map_err(|e| e.to_string())?
        ),
    }
    Ok(())
}

fn overhead(args: &OverheadArgs) -> Result<(), Failure> {
    let rule = args.timing.rule(RUN_BUDGET_S).map_err(Failure::Usage)?;
    let out = match &args.out {
        Some(dir) => Some(OutDir::prepare(dir.clone())?),
        None => None,
    };
    let (_, started) = timestamp();
    let t0 = Instant::now();
    let threads = args
        .threads
        .as_ref()
        .map_or_else(default_threads, |t| t.0.clone());
    let workloads: Vec<Workload> = args.workload.0.iter().map(|(w, _)| w.clone()).collect();
    let bar = progress_bar(workloads.len() * (2 + threads.len() * (args.policy.0.len() + 2)));
    let plan = Plan {
        workloads,
        policies: args.policy.0.clone(),
        topologies: vec![args.topology],
        threads: threads.clone(),
        rule,
        warmup: args.timing.warmup,
        one_worker_policies: None,
        baselines: true,
        schedules: Vec::new(),
        loop_policies: Vec::new(),
        matmul_tasks: false,
        pin: args.pin.pin(),
    };
    let rows = bench::run_overhead(&plan, |label| {
        bar.set_message(label.to_string());
        bar.inc(1);
    });
    bar.finish_and_clear();
    let rows = match (rows, &out) {
        (Ok(rows), _) => rows,
        (Err(e), Some(out)) => return out.around(|| Err(Failure::Run(e))),
        (Err(e), None) => return Err(Failure::Run(e)),
    };
    let results = Results {
        suite_version: env!("CARGO_PKG_VERSION").to_string(),
        started,
        command: command_line(),
        machine: Machine::detect(),
        settings: Settings {
            runs: rule.min_runs,
            max_runs: rule.max_runs,
            precision: rule.precision,
            budget_s: rule.budget.as_secs_f64(),
            trimmed: None,
            warmup: args.timing.warmup,
            pin: args.pin.pin().is_some(),
            placement: args.pin.pin().map(|p| p.to_string()),
            threads,
            policies: args.policy.0.iter().map(|p| p.to_string()).collect(),
            topologies: vec![args.topology.to_string()],
            schedules: Vec::new(),
        },
        wall_s: t0.elapsed().as_secs_f64(),
        rows: Vec::new(),
        overhead: rows,
        quiet: None,
    };
    if let Some(out) = &out {
        results.write_all(&out.path)?;
    }
    match args.format {
        Format::Table => {
            println!("{}", results.machine.summary());
            println!("layout: {}", results.machine.layout);
            print!(
                "{}",
                report::text_table(&report::overhead_table(&results.overhead))
            );
        }
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?
        ),
        Format::Csv => {
            println!("workload,size,policy,threads,joins,median_s,ns_per_join,overhead_ns_per_join,ratio_to_sequential,runs,noisy");
            for r in &results.overhead {
                println!(
                    "{},\"{}\",{},{},{},{},{},{},{},{},{}",
                    r.workload,
                    r.size,
                    r.policy,
                    r.threads,
                    r.joins,
                    r.median_s,
                    r.ns_per_join,
                    r.overhead_ns_per_join,
                    r.ratio_to_sequential,
                    r.runs,
                    r.noisy
                );
            }
        }
    }
    Ok(())
}

fn rebuild(args: &ReportArgs) -> Result<(), Failure> {
    // A missing or unreadable results file is bad input, found before anything is written.
    let results = Results::load(&args.dir).map_err(Failure::Usage)?;
    let dir = match &args.out {
        Some(d) => d.clone(),
        None if args.dir.is_dir() => args.dir.clone(),
        None => args
            .dir
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
    };
    let files = results.write_report(&dir).map_err(Failure::Run)?;
    for f in files {
        println!("{}", f.display());
    }
    Ok(())
}

fn calibrate(args: &CalibrateArgs) -> Result<(), Failure> {
    let plan = crate::calibrate::CalibratePlan {
        name: args.name.clone(),
        workloads: args.workload.0.iter().map(|(w, _)| w.clone()).collect(),
        threads: args
            .threads
            .as_ref()
            .map_or_else(doubling_threads, |t| t.0.clone()),
        runs: args.runs,
        pin: args.pin.pin(),
    };
    plan.validate().map_err(Failure::Usage)?;
    let out = args.out.clone().unwrap_or_else(|| {
        Path::new("results")
            .join("calibrations")
            .join(format!("{}.json", args.name))
    });
    if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
        prepare_out(dir)
            .map_err(|e| Failure::Usage(e.replacen("--out", "--out's directory", 1)))?;
    }
    let c =
        crate::calibrate::calibrate(&plan, command_line(), |what| eprintln!("calibrate: {what}"))?;
    let text = serde_json::to_string_pretty(&c).map_err(|e| e.to_string())?;
    std::fs::write(&out, text + "\n").map_err(|e| format!("{}: {e}", out.display()))?;
    print!("{}", c.summary());
    println!("wrote {}", out.display());
    Ok(())
}

fn predict(args: &PredictArgs) -> Result<(), Failure> {
    if args.format == Format::Csv {
        return Err(Failure::Usage(
            "--format csv: predict prints a table or json".into(),
        ));
    }
    let c = crate::calibrate::Calibration::load(&args.calibration).map_err(Failure::Usage)?;
    let results = Results::load(&args.results).map_err(Failure::Usage)?;
    if let Some(dir) = &args.out {
        prepare_out(dir).map_err(Failure::Usage)?;
    }
    let set = crate::calibrate::predict(&c, &results);
    if set.rows.is_empty() {
        return Err(Failure::Usage(format!(
            "--results {}: no hypersteal row of a workload the simulator models (fib, nqueens, uts) that the calibration covers{}",
            args.results.display(),
            if set.skipped.is_empty() {
                String::new()
            } else {
                format!("; {}", set.skipped.join("; "))
            }
        )));
    }
    let json = serde_json::to_string_pretty(&set).map_err(|e| e.to_string())?;
    match args.format {
        Format::Json => println!("{json}"),
        _ => print!("{}", set.table()),
    }
    if let Some(dir) = &args.out {
        let write = |name: &str, text: &str| {
            let f = dir.join(name);
            std::fs::write(&f, text).map_err(|e| format!("{}: {e}", f.display()))
        };
        write("prediction.md", &set.markdown(&results))?;
        write("prediction.json", &(json + "\n"))?;
        eprintln!(
            "predict: wrote prediction.md, prediction.json to {}",
            dir.display()
        );
    }
    Ok(())
}

fn topology(args: &TopologyArgs) -> Result<(), String> {
    if let Some(dir) = &args.record {
        let n = crate::machine::record_layout(Path::new("/"), dir)
            .map_err(|e| format!("--record {}: {e}", dir.display()))?;
        println!(
            "recorded {n} files of this machine's layout into {}",
            dir.display()
        );
    }
    let threads = args.threads.unwrap_or_else(|| cores().min(MAX_WORKERS));
    let pool = bench::hypersteal_pool(Policy::default(), args.topology, threads, args.pin.pin())?;
    let g = pool.graph();
    println!(
        "topology {} over {} workers: diameter {}, mean distance {:.2}; {}",
        args.topology,
        g.len(),
        g.diameter(),
        g.mean_distance(),
        args.pin
            .pin()
            .map_or_else(|| "not pinned".to_string(), |p| format!("placement {p}"))
    );
    let mut t = vec![vec![
        "worker".to_string(),
        "core".to_string(),
        "neighbours".to_string(),
        "combining-tree parent".to_string(),
    ]];
    for k in 0..g.len() {
        let n: Vec<String> = g.neighbors(k).map(|j| j.to_string()).collect();
        t.push(vec![
            k.to_string(),
            pool.worker_core(k)
                .map_or_else(|| "not pinned".to_string(), |c| c.to_string()),
            if n.is_empty() {
                "(none)".to_string()
            } else {
                n.join(" ")
            },
            g.tree_parent(k)
                .map_or_else(|| "root".to_string(), |p| p.to_string()),
        ]);
    }
    print!("{}", report::text_table(&t));
    Ok(())
}

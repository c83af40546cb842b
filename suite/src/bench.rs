//! The measurement engine: runs a matrix of workloads × policies ×
//! topologies × worker counts (plus the sequential, rayon and chili
//! baselines), checks every run's answer, and summarises each configuration
//! as a [`Row`].
//!
//! Every configuration (a *point*) runs `warmup` discarded times, then is
//! timed until the plan's [`StoppingRule`] stops it: at least `min_runs`
//! runs, more until the 95% confidence interval of the median is within the
//! precision, unless the point's time budget runs out first (then the row is
//! marked noisy, see [`crate::flags`]). A hypersteal run resets the pool's
//! statistics just before its timer starts and reads them just after it
//! stops, so requests, locality and idle time cover exactly the timed run.
//! Every outcome, warm-up included, is checked against the known answer: a
//! wrong answer stops the whole matrix with an error, it never becomes a
//! row.
//!
//! The plain sequential code runs on the worker thread of a 1-worker pool
//! built like the 1-worker rows' pools (same pinning, same stack), called
//! directly, without a task or a `join`: the baseline and the 1-worker rows
//! then run on the same core, and a difference between them is the cost of
//! the parallel code, not of where the thread happened to run.
//!
//! This file holds the plan, the rows and the measurement loop; one timed
//! run of each kind of job is `bench/jobs.rs`, a point's samples become a
//! row in `bench/summary.rs`, and the `overhead` command is
//! `bench/overhead.rs`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use hypersteal::iter::Schedule;
use hypersteal::{Placement, Policy, PoolStats, ThreadPool, ThreadPoolBuilder, Topology};
use serde::{Deserialize, Serialize};

use crate::fork::{Fork, Hypersteal, Rayon, Sequential};
use crate::load::CpuTimes;
use crate::stopping::{MedianInterval, Stop, StoppingRule};
use crate::trace_view::sd_percent;
use crate::trace_view::{self, Live, TraceOut, TraceSummary, Window};
use crate::workloads::mandelbrot::Mandelbrot;
use crate::workloads::matmul::{self, Matrices};
use crate::workloads::{Instance, Outcome, Workload};

mod jobs;
mod overhead;
mod summary;

use jobs::run_job;
pub use overhead::{run_overhead, CountJoins, OverheadRow};
pub use summary::fill_speedups;
use summary::summarise;
#[cfg(test)]
pub(crate) use summary::synthetic_row;

/// Stack size of every worker thread and of the thread that drives a run
/// (UTS T3 nests about 1,200 joins; the memory is reserved, not committed).
pub const STACK: usize = 64 << 20;

/// The `policy` value of baseline rows: the plain sequential code.
pub const SEQUENTIAL: &str = "sequential";
/// The `policy` value of rayon rows.
pub const RAYON: &str = "rayon";
/// The `policy` value of chili rows.
pub const CHILI: &str = "chili";
/// The `topology` value of rows a topology does not apply to.
pub const NO_TOPOLOGY: &str = "-";

/// How a workload's parallelism is expressed in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// The generic fork-join version ([`Instance::run`]).
    Join,
    /// Mandelbrot as a parallel loop over rows under a loop schedule.
    Loop(Schedule),
    /// Matmul as master-worker tasks: the master spawns one task per block
    /// of rows (seed 004).
    Tasks,
}

impl Variant {
    /// `join`, `loop` or `tasks`.
    pub fn name(&self) -> &'static str {
        match self {
            Variant::Join => "join",
            Variant::Loop(_) => "loop",
            Variant::Tasks => "tasks",
        }
    }
}

/// What to measure.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The workloads, each at its size.
    pub workloads: Vec<Workload>,
    /// Hypersteal policies.
    pub policies: Vec<Policy>,
    /// Hypersteal topologies.
    pub topologies: Vec<Topology>,
    /// Worker counts.
    pub threads: Vec<usize>,
    /// When to stop timing a configuration.
    pub rule: StoppingRule,
    /// Discarded runs before the timed ones.
    pub warmup: usize,
    /// The hypersteal policies measured at 1 worker when the plan has larger
    /// worker counts too (`None`: every policy). The quick run trims this way.
    pub one_worker_policies: Option<Vec<Policy>>,
    /// Whether to run the rayon and chili baselines.
    pub baselines: bool,
    /// Loop schedules for `mandelbrot` as a parallel loop (empty: no loop
    /// rows). Loop rows are measured at every worker count above 1 (at 1
    /// too when it is the only one).
    pub schedules: Vec<Schedule>,
    /// Policies the loop schedules run under.
    pub loop_policies: Vec<Policy>,
    /// Whether to run `matmul` also as master-worker tasks.
    pub matmul_tasks: bool,
    /// Whether hypersteal pins its workers to cores, and how it lays them onto the machine
    /// (`None`: not pinned).
    pub pin: Option<Placement>,
}

impl Plan {
    /// Every loop schedule, with `chunk:16` for chunk self-scheduling.
    pub fn all_schedules() -> Vec<Schedule> {
        vec![
            Schedule::Adaptive,
            Schedule::Static,
            Schedule::SelfScheduling,
            Schedule::Chunk(16),
            Schedule::Guided,
            Schedule::Trapezoid,
            Schedule::Factoring,
            Schedule::Weighted,
        ]
    }

    fn variants(&self, w: &Workload) -> Vec<Variant> {
        let mut v = vec![Variant::Join];
        match w {
            Workload::Mandelbrot(_) => v.extend(self.schedules.iter().map(|s| Variant::Loop(*s))),
            Workload::Matmul(_) if self.matmul_tasks => v.push(Variant::Tasks),
            _ => {}
        }
        v
    }

    /// The number of configurations (rows) the plan measures.
    pub fn configurations(&self) -> usize {
        self.workloads.iter().map(|w| self.jobs(w).len()).sum()
    }

    /// The number of points the plan times: every configuration, and the
    /// sequential baseline a second time for each workload that has other
    /// configurations (see [`run_plan`]).
    pub fn points(&self) -> usize {
        self.workloads
            .iter()
            .map(|w| {
                let n = self.jobs(w).len();
                n + usize::from(n > 1)
            })
            .sum()
    }

    /// Whether configurations of `policy` at `threads` workers are measured
    /// (the trimming of [`Plan::one_worker_policies`]).
    fn measures(&self, policy: &Policy, threads: usize) -> bool {
        let many = self.threads.iter().any(|&t| t > 1);
        match &self.one_worker_policies {
            Some(keep) if threads == 1 && many => keep.contains(policy),
            _ => true,
        }
    }

    /// What the plan leaves out of the full matrix, in words (`None` when
    /// nothing is trimmed).
    pub fn trimming(&self) -> Option<String> {
        let keep = self.one_worker_policies.as_ref()?;
        if !self.threads.contains(&1) || !self.threads.iter().any(|&t| t > 1) {
            return None;
        }
        let dropped: Vec<String> = self
            .policies
            .iter()
            .filter(|p| !keep.contains(p))
            .map(|p| p.to_string())
            .collect();
        if dropped.is_empty() {
            return None;
        }
        let kept: Vec<String> = self
            .policies
            .iter()
            .filter(|p| keep.contains(p))
            .map(|p| p.to_string())
            .collect();
        let baselines = if self.baselines {
            " (and the rayon and chili baselines)"
        } else {
            ""
        };
        let others: Vec<String> = self
            .threads
            .iter()
            .filter(|&&t| t > 1)
            .map(|t| t.to_string())
            .collect();
        Some(format!(
            "at 1 worker only {}{baselines}; not {} (every policy runs at {} workers)",
            if kept.is_empty() {
                "no policy".to_string()
            } else {
                kept.join(", ")
            },
            dropped.join(", "),
            others.join(", ")
        ))
    }

    fn jobs(&self, w: &Workload) -> Vec<Job> {
        let mut jobs = vec![Job::Sequential];
        for variant in self.variants(w) {
            let many = self.threads.iter().any(|&t| t > 1);
            for &threads in &self.threads {
                // A loop on one worker has no imbalance to measure.
                if matches!(variant, Variant::Loop(_)) && threads == 1 && many {
                    continue;
                }
                // Rayon's `par_iter` has no schedule: one loop row per count.
                let first_loop = match variant {
                    Variant::Loop(s) => self.schedules.first() == Some(&s),
                    _ => true,
                };
                if self.baselines && first_loop {
                    jobs.push(Job::Rayon { threads, variant });
                    if variant == Variant::Join {
                        jobs.push(Job::Chili { threads });
                    }
                }
                let policies = match variant {
                    Variant::Loop(_) => &self.loop_policies,
                    _ => &self.policies,
                };
                for &topology in &self.topologies {
                    for &policy in policies.iter().filter(|p| self.measures(p, threads)) {
                        jobs.push(Job::Hypersteal {
                            policy,
                            topology,
                            threads,
                            variant,
                        });
                    }
                }
            }
        }
        jobs
    }
}

#[derive(Debug, Clone, Copy)]
enum Job {
    Sequential,
    Rayon {
        threads: usize,
        variant: Variant,
    },
    Chili {
        threads: usize,
    },
    Hypersteal {
        policy: Policy,
        topology: Topology,
        threads: usize,
        variant: Variant,
    },
}

impl Job {
    fn label(&self, w: &Workload) -> String {
        match self {
            Job::Sequential => format!("{w} sequential"),
            Job::Rayon { threads, variant } => format!("{w} {} rayon P={threads}", variant.name()),
            Job::Chili { threads } => format!("{w} chili P={threads}"),
            Job::Hypersteal {
                policy,
                topology,
                threads,
                variant,
            } => {
                let sched = match variant {
                    Variant::Loop(s) => format!(" {s}"),
                    _ => String::new(),
                };
                format!(
                    "{w} {}{sched} {policy} {topology} P={threads}",
                    variant.name()
                )
            }
        }
    }
}

/// One configuration's summary: a row of the report and of `results.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Workload name (`fib`, `uts`, ...).
    pub workload: String,
    /// The size part of its spelling (`27`, `T1`, ...).
    pub size: String,
    /// `join`, `loop` (mandelbrot under a loop schedule) or `tasks` (matmul
    /// as master-worker tasks).
    pub variant: String,
    /// The loop schedule of a `loop` row (`rayon` for rayon's `par_iter`).
    pub schedule: Option<String>,
    /// A hypersteal policy, or `sequential`, `rayon`, `chili`.
    pub policy: String,
    /// The topology, `-` for baselines.
    pub topology: String,
    /// Workers.
    pub threads: usize,
    /// Timed runs.
    pub runs: usize,
    /// Median of the timed runs, seconds.
    pub median_s: f64,
    /// Lower end of the median's 95% confidence interval, seconds (`None`
    /// for fewer than 6 runs).
    #[serde(default)]
    pub ci_low_s: Option<f64>,
    /// Upper end of the median's 95% confidence interval, seconds.
    #[serde(default)]
    pub ci_high_s: Option<f64>,
    /// The larger distance from the median to an end of that interval, as a
    /// fraction of the median: the spread the stopping rule bounds.
    #[serde(default)]
    pub ci_half_width: Option<f64>,
    /// Why timing stopped: `stable`, `budget` or `max-runs` (the last two
    /// make the row noisy).
    #[serde(default)]
    pub stop: String,
    /// Share of the cores other processes used while the point was timed
    /// (`None` where `/proc` cannot be read).
    #[serde(default)]
    pub others_cpu: Option<f64>,
    /// Sequential rows: the baseline is timed before and after the
    /// workload's other points; this is how far the second median lies from
    /// the first, as a fraction of it (`None` for other rows, or when the
    /// workload had no other point).
    #[serde(default)]
    pub drift: Option<f64>,
    /// Marks that the figures are not results as they stand: `noisy`,
    /// `beats-seq`, `eff>1`, `contended`, `drift` (see `crate::flags`).
    #[serde(default)]
    pub flags: Vec<String>,
    /// Slowest timed run, seconds.
    pub worst_s: f64,
    /// Fastest timed run, seconds.
    pub best_s: f64,
    /// Coefficient of variation of the timed runs (sample standard deviation
    /// over mean).
    pub cov: f64,
    /// Best sequential time over this row's median.
    pub speedup: f64,
    /// Speedup over workers.
    pub efficiency: f64,
    /// Requests sent per run, all workers (hypersteal rows only).
    pub requests: Option<f64>,
    /// Requests per run that obtained a task.
    pub requests_ok: Option<f64>,
    /// Share of executed tasks that ran on the worker that created them.
    pub locality: Option<f64>,
    /// Idle time over workers × elapsed.
    pub idle_fraction: Option<f64>,
    /// Tasks made available (and run) per run.
    pub tasks: Option<f64>,
    /// Tasks placed into other workers' inboxes per run (sender-initiated).
    pub placed: Option<f64>,
    /// Largest hop count of a moved task.
    pub max_hops: Option<u64>,
    /// Of `threads × median_s`: the computation (the best sequential time).
    pub computation_s: Option<f64>,
    /// Of `threads × median_s`: what is neither computation nor idle.
    pub overhead_s: Option<f64>,
    /// Of `threads × median_s`: the idle time.
    pub idle_s: Option<f64>,
    /// Loop rows: latest minus earliest worker finish time (median over runs).
    pub spread_s: Option<f64>,
    /// Loop rows: standard deviation of the finish times as % of their mean
    /// (median over runs).
    pub sd_pct: Option<f64>,
    /// Hypersteal rows: seed 001's balance metric, the standard deviation of
    /// the workers' busy times (elapsed minus idle) as % of their mean
    /// (median over runs).
    #[serde(default)]
    pub busy_sd_pct: Option<f64>,
    /// Hypersteal rows of `run --trace`: what one extra, traced run gave.
    #[serde(default)]
    pub trace: Option<TraceSummary>,
    /// The timed runs, seconds, in order.
    pub times_s: Vec<f64>,
}

/// One timed run.
#[derive(Debug, Clone)]
struct Sample {
    time: Duration,
    stats: Option<PoolStats>,
    /// Loop imbalance: spread and SD % of mean.
    imbalance: Option<(Duration, f64)>,
    /// Hypersteal runs: when the timed part began and ended on the pool's clock.
    window: Option<Window>,
}

/// The median of `v` (mean of the middle two for an even count); 0 if empty.
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

/// Sample standard deviation over mean; 0 for fewer than two values.
pub fn coefficient_of_variation(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return 0.0;
    }
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    var.sqrt() / mean
}

/// Builds a hypersteal pool for one configuration.
pub fn hypersteal_pool(
    policy: Policy,
    topology: Topology,
    threads: usize,
    pin: Option<Placement>,
) -> Result<ThreadPool, String> {
    hypersteal_builder(policy, topology, threads, pin)
        .build()
        .map_err(|e| format!("cannot build a {policy}/{topology} pool of {threads}: {e}"))
}

/// The builder of [`hypersteal_pool`]'s pools (the suite's stack size, pinning and placement),
/// for a pool that needs one more setting (a trace).
pub(crate) fn hypersteal_builder(
    policy: Policy,
    topology: Topology,
    threads: usize,
    pin: Option<Placement>,
) -> ThreadPoolBuilder {
    let builder = ThreadPoolBuilder::new()
        .num_threads(threads)
        .policy(policy)
        .topology(topology)
        .pin_threads(pin.is_some())
        .stack_size(STACK);
    match pin {
        Some(placement) => builder.placement(placement),
        None => builder,
    }
}

pub(crate) fn rayon_pool(threads: usize) -> Result<rayon::ThreadPool, String> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(STACK)
        .build()
        .map_err(|e| format!("cannot build a rayon pool of {threads}: {e}"))
}

pub(crate) fn chili_pool(threads: usize) -> chili::ThreadPool {
    chili::ThreadPool::with_config(chili::Config {
        thread_count: std::num::NonZero::new(threads.max(1)),
        ..Default::default()
    })
}

/// Runs `f` on a fresh thread with a [`STACK`]-sized stack (chili's runs use
/// the calling thread) and returns its result.
pub fn on_big_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| {
        match std::thread::Builder::new()
            .name("hypersteal-suite".into())
            .stack_size(STACK)
            .spawn_scoped(s, f)
            .expect("a thread for the runs")
            .join()
        {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// A wrong answer as an error message.
pub(crate) fn checked(instance: &mut Instance, label: &str, o: &Outcome) -> Result<(), String> {
    instance
        .check(o)
        .map_err(|e| format!("WRONG ANSWER in {label}: {e}"))
}

/// Runs the matrix: for each workload, the sequential baseline first, then
/// every configuration, then the sequential baseline again; its row holds
/// the runs of both and how far their medians drifted apart. `progress` is
/// called once per timed point with its label. Returns the rows (speedups and
/// flags filled in; the sequential row first), or the first error (a wrong
/// answer, a pool that cannot be built).
pub fn run_plan(plan: &Plan, progress: impl FnMut(&str)) -> Result<Vec<Row>, String> {
    run_plan_watched(plan, &Watch::default(), progress)
}

/// What `run` shows of the pools besides the timings: a traced run per
/// configuration (`--trace DIR`), the live view (`--live`).
#[derive(Debug, Clone, Default)]
pub struct Watch {
    /// Where the traced runs go (`None`: no traced runs).
    pub trace: Option<TraceOut>,
    /// Show the live view while configurations are timed (on a terminal).
    pub live: bool,
}

/// [`run_plan`], watched: after each hypersteal configuration is timed, one
/// more run on a traced pool of the same settings (untimed, so tracing does
/// not change the figures) when `watch.trace` is set; the live view while
/// it is timed when `watch.live` is set.
pub fn run_plan_watched(
    plan: &Plan,
    watch: &Watch,
    mut progress: impl FnMut(&str),
) -> Result<Vec<Row>, String> {
    let mut live = Live::new(watch.live);
    let rows = run_plan_in(plan, watch, &mut live, &mut progress);
    live.finish();
    rows
}

fn run_plan_in(
    plan: &Plan,
    watch: &Watch,
    live: &mut Live,
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Row>, String> {
    let mut rows = Vec::new();
    for w in &plan.workloads {
        let mut instance = w.prepare();
        let mut matrices = None;
        let mut workload_rows = Vec::new();
        let jobs = plan.jobs(w);
        let recheck = jobs.len() > 1;
        let mut baseline = None;
        for job in jobs {
            let label = job.label(w);
            let point = measure_point(
                plan,
                (watch, &mut *live),
                &mut instance,
                &mut matrices,
                job,
                &label,
            )?;
            match job {
                Job::Sequential => baseline = Some(point),
                _ => workload_rows.push(summarise_point(w, job, &point)),
            }
            progress(&label);
        }
        if let Some(first) = baseline {
            let row = if recheck {
                // The baseline again, after the workload's other points: it
                // then brackets them, and a machine whose speed drifted shows
                // as two medians apart.
                let label = format!("{} (again)", Job::Sequential.label(w));
                let again = measure_point(
                    plan,
                    (watch, &mut *live),
                    &mut instance,
                    &mut matrices,
                    Job::Sequential,
                    &label,
                )?;
                progress(&label);
                baseline_row(w, &first, &again, plan.rule.precision)
            } else {
                summarise_point(w, Job::Sequential, &first)
            };
            workload_rows.insert(0, row);
        }
        fill_speedups(&mut workload_rows);
        rows.extend(workload_rows);
    }
    Ok(rows)
}

/// What timing one point gave: its samples, why it stopped, and the share of
/// the cores other processes used meanwhile.
struct Point {
    samples: Vec<Sample>,
    stop: Stop,
    others: Option<f64>,
    trace: Option<TraceSummary>,
}

fn measure_point(
    plan: &Plan,
    watch: (&Watch, &mut Live),
    instance: &mut Instance,
    matrices: &mut Option<Matrices>,
    job: Job,
    label: &str,
) -> Result<Point, String> {
    let before = CpuTimes::read();
    let (samples, stop, trace) = run_job(plan, watch, instance, matrices, job, label)?;
    let others = before
        .zip(CpuTimes::read())
        .and_then(|(a, b)| a.others_share(&b));
    Ok(Point {
        samples,
        stop,
        others,
        trace,
    })
}

fn summarise_point(w: &Workload, job: Job, point: &Point) -> Row {
    let mut row = summarise(w, job, &point.samples);
    row.stop = point.stop.name().to_string();
    row.others_cpu = point.others;
    row.trace = point.trace.clone();
    row
}

/// The sequential row from the baseline measured before and after the
/// workload's other points: every timed run of both (the median and its
/// interval over all of them), the larger share of other processes, and the
/// drift between the two medians. It is noisy when the interval over all its
/// runs is wider than `precision` and one of the two measurements stopped
/// unsettled; two settled measurements whose medians differ are the `drift`
/// flag's business, not noise.
fn baseline_row(w: &Workload, before: &Point, after: &Point, precision: f64) -> Row {
    let both: Vec<Sample> = before
        .samples
        .iter()
        .chain(&after.samples)
        .cloned()
        .collect();
    let mut row = summarise(w, Job::Sequential, &both);
    let settled = row.ci_half_width.is_some_and(|h| h <= precision);
    let stop = if settled || !before.stop.is_noisy() && !after.stop.is_noisy() {
        Stop::Stable
    } else if before.stop.is_noisy() {
        before.stop
    } else {
        after.stop
    };
    row.stop = stop.name().to_string();
    row.others_cpu = match (before.others, after.others) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    row.drift = drift(&before.samples, &after.samples);
    row
}

/// The change of the median from `before` to `after`, as a fraction of the
/// first (`None` if either is empty or zero).
fn drift(before: &[Sample], after: &[Sample]) -> Option<f64> {
    let m = |v: &[Sample]| median(&v.iter().map(|s| s.time.as_secs_f64()).collect::<Vec<_>>());
    let (a, b) = (m(before), m(after));
    (a > 0.0 && b > 0.0).then(|| b / a - 1.0)
}

/// Times one point: `plan.warmup` discarded runs of `one`, then timed runs
/// until the plan's rule stops; returns the timed samples and why it stopped.
fn time_point(
    plan: &Plan,
    mut one: impl FnMut() -> Result<Sample, String>,
) -> Result<(Vec<Sample>, Stop), String> {
    let t0 = Instant::now();
    for _ in 0..plan.warmup {
        one()?;
    }
    let mut samples = Vec::new();
    let mut times = Vec::new();
    loop {
        let s = one()?;
        times.push(s.time.as_secs_f64());
        samples.push(s);
        if let Some(stop) = plan.rule.decide(&times, t0.elapsed()) {
            return Ok((samples, stop));
        }
    }
}

/// The 1-worker pool whose worker thread runs the plain sequential code
/// (see the module's documentation).
fn baseline_pool(plan: &Plan) -> Result<ThreadPool, String> {
    hypersteal_pool(Policy::default(), Topology::default(), 1, plan.pin)
}

/// A point's timed samples, why timing stopped, and its traced run.
type Timed = (Vec<Sample>, Stop, Option<TraceSummary>);

#[cfg(test)]
mod tests;

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

fn hypersteal_builder(
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

fn run_job(
    plan: &Plan,
    (watch, live): (&Watch, &mut Live),
    instance: &mut Instance,
    matrices: &mut Option<Matrices>,
    job: Job,
    label: &str,
) -> Result<Timed, String> {
    let untraced = |r: Result<(Vec<Sample>, Stop), String>| r.map(|(s, stop)| (s, stop, None));
    let workload = instance.workload().clone();
    match job {
        Job::Sequential => {
            let pool = baseline_pool(plan)?;
            untraced(pool.install(|| {
                time_point(plan, || {
                    instance.reset();
                    let t0 = Instant::now();
                    let o = instance.run_sequential();
                    let time = t0.elapsed();
                    checked(instance, label, &o)?;
                    Ok(plain(time))
                })
            }))
        }
        Job::Chili { threads } => {
            let pool = chili_pool(threads);
            untraced(time_point(plan, || {
                instance.reset();
                let mut scope = pool.scope();
                let t0 = Instant::now();
                let o = instance.run(&mut scope);
                let time = t0.elapsed();
                checked(instance, label, &o)?;
                Ok(plain(time))
            }))
        }
        Job::Rayon { threads, variant } => {
            let pool = rayon_pool(threads)?;
            untraced(time_point(plan, || {
                instance.reset();
                let t0 = Instant::now();
                let (o, imbalance) = match variant {
                    Variant::Join => (pool.install(|| instance.run(&mut Rayon)), None),
                    Variant::Loop(_) => {
                        let m = kernel(&workload);
                        let (count, imb) = pool.install(|| rayon_loop(&m, threads));
                        (Outcome::Mandelbrot(count), Some(imb))
                    }
                    Variant::Tasks => {
                        let m = matrices_for(&workload, matrices);
                        let chunk = matmul_chunk(&workload);
                        let sum = pool.install(|| rayon_tasks(m, chunk));
                        (Outcome::Matmul(sum), None)
                    }
                };
                let time = t0.elapsed();
                checked(instance, label, &o)?;
                Ok(Sample {
                    time,
                    stats: None,
                    imbalance,
                    window: None,
                })
            }))
        }
        Job::Hypersteal {
            policy,
            topology,
            threads,
            variant,
        } => {
            let pool = hypersteal_pool(policy, topology, threads, plan.pin)?;
            let mut one = |pool: &ThreadPool| {
                instance.reset();
                let begin = pool.clock();
                let (o, time, imbalance) = match variant {
                    Variant::Join => {
                        pool.reset_stats();
                        let t0 = Instant::now();
                        let o = pool.install(|| instance.run(&mut Hypersteal));
                        (o, t0.elapsed(), None)
                    }
                    Variant::Loop(schedule) => {
                        let m = kernel(&workload);
                        pool.reset_stats();
                        let t0 = Instant::now();
                        let (count, imb) = pool.install(|| hypersteal_loop(&m, schedule));
                        (Outcome::Mandelbrot(count), t0.elapsed(), Some(imb))
                    }
                    Variant::Tasks => {
                        let m = matrices_for(&workload, matrices);
                        let chunk = matmul_chunk(&workload);
                        pool.reset_stats();
                        let t0 = Instant::now();
                        let sum = pool.install(|| hypersteal_tasks(m, chunk));
                        (Outcome::Matmul(sum), t0.elapsed(), None)
                    }
                };
                let end = pool.clock();
                let stats = pool.stats();
                checked(instance, label, &o)?;
                Ok(Sample {
                    time,
                    stats: Some(stats),
                    imbalance,
                    window: Some(Window {
                        begin_ns: begin.as_nanos() as u64,
                        end_ns: end.as_nanos() as u64,
                    }),
                })
            };
            let (samples, stop) = live.watch(label, &pool, || time_point(plan, || one(&pool)))?;
            drop(pool);
            let Some(out) = &watch.trace else {
                return Ok((samples, stop, None));
            };
            // One more run, untimed, on a traced pool of the same settings.
            let traced = hypersteal_builder(policy, topology, threads, plan.pin)
                .trace(true)
                .build()
                .map_err(|e| format!("cannot build a traced pool for {label}: {e}"))?;
            let sample = one(&traced)?;
            let trace = traced.trace();
            let window = sample.window.expect("hypersteal runs have a window");
            let summary = trace_view::write_traced_run(out, label, &trace, window)?;
            Ok((samples, stop, Some(summary)))
        }
    }
}

fn plain(time: Duration) -> Sample {
    Sample {
        time,
        stats: None,
        imbalance: None,
        window: None,
    }
}

fn kernel(w: &Workload) -> Mandelbrot {
    match w {
        Workload::Mandelbrot(p) => p.kernel(),
        _ => unreachable!("loop rows are mandelbrot's"),
    }
}

fn matmul_chunk(w: &Workload) -> usize {
    match w {
        Workload::Matmul(p) => p.chunk.max(1),
        _ => unreachable!("task rows are matmul's"),
    }
}

fn matrices_for<'m>(w: &Workload, slot: &'m mut Option<Matrices>) -> &'m mut Matrices {
    let n = match w {
        Workload::Matmul(p) => p.n,
        _ => unreachable!("task rows are matmul's"),
    };
    slot.get_or_insert_with(|| Matrices::generate(n))
}

/// Mandelbrot rows as a hypersteal parallel loop; returns the count and the
/// loop's imbalance.
fn hypersteal_loop(m: &Mandelbrot, schedule: Schedule) -> (u64, (Duration, f64)) {
    use hypersteal::prelude::*;
    let count = AtomicU64::new(0);
    let report = (0..m.rows())
        .into_par_iter()
        .with_schedule(schedule)
        .for_each_with_report(|y| {
            count.fetch_add(m.row(y), Ordering::Relaxed);
        });
    (
        count.into_inner(),
        (report.spread(), report.sd_percent_of_mean()),
    )
}

/// Mandelbrot rows as a rayon `par_iter` loop, recording when each rayon
/// worker finished its last row.
fn rayon_loop(m: &Mandelbrot, threads: usize) -> (u64, (Duration, f64)) {
    use rayon::prelude::*;
    let count = AtomicU64::new(0);
    let finish: Vec<AtomicU64> = (0..threads.max(1)).map(|_| AtomicU64::new(0)).collect();
    let t0 = Instant::now();
    (0..m.rows()).into_par_iter().for_each(|y| {
        count.fetch_add(m.row(y), Ordering::Relaxed);
        if let Some(slot) = rayon::current_thread_index().and_then(|i| finish.get(i)) {
            slot.fetch_max((t0.elapsed().as_nanos() as u64).max(1), Ordering::Relaxed);
        }
    });
    let times: Vec<f64> = finish
        .iter()
        .map(|f| f.load(Ordering::Relaxed))
        .filter(|&ns| ns > 0)
        .map(|ns| ns as f64 * 1e-9)
        .collect();
    let spread = match (
        times.iter().copied().reduce(f64::min),
        times.iter().copied().reduce(f64::max),
    ) {
        (Some(lo), Some(hi)) => Duration::from_secs_f64(hi - lo),
        _ => Duration::ZERO,
    };
    (count.into_inner(), (spread, sd_percent(&times)))
}

/// Matmul as master-worker tasks in hypersteal: the calling worker spawns
/// one task per block of `chunk` rows into a scope.
fn hypersteal_tasks(m: &mut Matrices, chunk: usize) -> u64 {
    let sum = AtomicU64::new(0);
    let Matrices { n, a, b, c } = m;
    let (n, a, b, sum_ref) = (*n, &a[..], &b[..], &sum);
    hypersteal::scope(|s| {
        for (k, block) in c.chunks_mut(chunk * n).enumerate() {
            s.spawn(move |_| {
                let part = matmul::rows(a, b, block, n, k * chunk);
                sum_ref.fetch_add(part, Ordering::Relaxed);
            });
        }
    });
    sum.into_inner()
}

/// The same master-worker matmul with `rayon::scope`.
fn rayon_tasks(m: &mut Matrices, chunk: usize) -> u64 {
    let sum = AtomicU64::new(0);
    let Matrices { n, a, b, c } = m;
    let (n, a, b, sum_ref) = (*n, &a[..], &b[..], &sum);
    rayon::scope(|s| {
        for (k, block) in c.chunks_mut(chunk * n).enumerate() {
            s.spawn(move |_| {
                let part = matmul::rows(a, b, block, n, k * chunk);
                sum_ref.fetch_add(part, Ordering::Relaxed);
            });
        }
    });
    sum.into_inner()
}

fn summarise(w: &Workload, job: Job, samples: &[Sample]) -> Row {
    let times: Vec<f64> = samples.iter().map(|s| s.time.as_secs_f64()).collect();
    let (policy, topology, threads, variant) = match job {
        Job::Sequential => (SEQUENTIAL.to_string(), None, 1, Variant::Join),
        Job::Rayon { threads, variant } => (RAYON.to_string(), None, threads, variant),
        Job::Chili { threads } => (CHILI.to_string(), None, threads, Variant::Join),
        Job::Hypersteal {
            policy,
            topology,
            threads,
            variant,
        } => (policy.to_string(), Some(topology), threads, variant),
    };
    let schedule = match (variant, &job) {
        (Variant::Loop(_), Job::Rayon { .. }) => Some(RAYON.to_string()),
        (Variant::Loop(s), _) => Some(s.to_string()),
        _ => None,
    };
    let median_s = median(&times);
    let ci = MedianInterval::of(&times);
    let stats: Vec<&PoolStats> = samples.iter().filter_map(|s| s.stats.as_ref()).collect();
    let runs = samples.len().max(1) as f64;
    let per_run = |f: &dyn Fn(&PoolStats) -> u64| -> Option<f64> {
        (!stats.is_empty()).then(|| stats.iter().map(|s| f(s) as f64).sum::<f64>() / runs)
    };
    let requests = per_run(&|s| s.total().requests);
    let requests_ok = per_run(&|s| s.total().requests_ok);
    let tasks = per_run(&|s| s.total().executed);
    let placed = per_run(&|s| s.total().placed_out);
    let max_hops =
        (!stats.is_empty()).then(|| stats.iter().map(|s| s.total().max_hops).max().unwrap_or(0));
    let locality = (!stats.is_empty()).then(|| {
        let (local, all) = stats.iter().fold((0u64, 0u64), |(l, a), s| {
            let t = s.total();
            (l + t.executed_local, a + t.executed)
        });
        if all == 0 {
            1.0
        } else {
            local as f64 / all as f64
        }
    });
    let idle_fraction = (!stats.is_empty()).then(|| {
        let (idle, cap) = stats.iter().fold((0.0, 0.0), |(i, c), s| {
            (
                i + s.total().idle.as_secs_f64(),
                c + s.elapsed.as_secs_f64() * s.workers.len() as f64,
            )
        });
        if cap > 0.0 {
            (idle / cap).min(1.0)
        } else {
            0.0
        }
    });
    let imbalance: Vec<(f64, f64)> = samples
        .iter()
        .filter_map(|s| s.imbalance.map(|(d, sd)| (d.as_secs_f64(), sd)))
        .collect();
    let (spread_s, sd_pct) = if imbalance.is_empty() {
        (None, None)
    } else {
        let spreads: Vec<f64> = imbalance.iter().map(|x| x.0).collect();
        let sds: Vec<f64> = imbalance.iter().map(|x| x.1).collect();
        (Some(median(&spreads)), Some(median(&sds)))
    };
    Row {
        workload: w.name().to_string(),
        size: w.size(),
        variant: variant.name().to_string(),
        schedule,
        policy,
        topology: topology.map_or_else(|| NO_TOPOLOGY.to_string(), |t| t.to_string()),
        threads,
        runs: samples.len(),
        median_s,
        ci_low_s: ci.map(|c| c.low),
        ci_high_s: ci.map(|c| c.high),
        ci_half_width: ci.map(|c| c.half_width()),
        stop: String::new(),
        others_cpu: None,
        drift: None,
        flags: Vec::new(),
        worst_s: times.iter().copied().fold(0.0, f64::max),
        best_s: times.iter().copied().reduce(f64::min).unwrap_or(0.0),
        cov: coefficient_of_variation(&times),
        speedup: 0.0,
        efficiency: 0.0,
        requests,
        requests_ok,
        locality,
        idle_fraction,
        tasks,
        placed,
        max_hops,
        computation_s: None,
        overhead_s: None,
        idle_s: None,
        spread_s,
        sd_pct,
        busy_sd_pct: (!stats.is_empty()).then(|| {
            median(
                &stats
                    .iter()
                    .map(|s| trace_view::busy_sd_pct(s))
                    .collect::<Vec<_>>(),
            )
        }),
        trace: None,
        times_s: times,
    }
}

/// Fills speedup, efficiency, the computation / overhead / idle split and
/// the flags of one workload's rows from its best sequential time.
pub fn fill_speedups(rows: &mut [Row]) {
    let best_seq = rows
        .iter()
        .filter(|r| r.policy == SEQUENTIAL)
        .map(|r| r.median_s)
        .reduce(f64::min);
    let Some(seq) = best_seq else {
        crate::flags::mark(rows);
        return;
    };
    for r in rows.iter_mut() {
        if r.median_s > 0.0 {
            r.speedup = seq / r.median_s;
            r.efficiency = r.speedup / r.threads.max(1) as f64;
        }
        if let Some(idle) = r.idle_fraction {
            let pt = r.threads as f64 * r.median_s;
            let idle_s = idle * pt;
            let computation = seq.min(pt - idle_s).max(0.0);
            r.idle_s = Some(idle_s);
            r.computation_s = Some(computation);
            r.overhead_s = Some((pt - idle_s - computation).max(0.0));
        }
    }
    crate::flags::mark(rows);
}

/// A row with the given policy, worker count, median and stop reason and
/// nothing else, for tests of what is computed from rows.
#[cfg(test)]
pub(crate) fn synthetic_row(policy: &str, threads: usize, median_s: f64, stop: &str) -> Row {
    Row {
        workload: "w".into(),
        size: "1".into(),
        variant: "join".into(),
        schedule: None,
        policy: policy.into(),
        topology: if policy == SEQUENTIAL {
            NO_TOPOLOGY
        } else {
            "hypercube"
        }
        .into(),
        threads,
        runs: 9,
        median_s,
        ci_low_s: None,
        ci_high_s: None,
        ci_half_width: None,
        stop: stop.into(),
        others_cpu: None,
        drift: None,
        flags: Vec::new(),
        worst_s: median_s,
        best_s: median_s,
        cov: 0.0,
        speedup: 0.0,
        efficiency: 0.0,
        requests: None,
        requests_ok: None,
        locality: None,
        idle_fraction: None,
        tasks: None,
        placed: None,
        max_hops: None,
        computation_s: None,
        overhead_s: None,
        idle_s: None,
        spread_s: None,
        sd_pct: None,
        busy_sd_pct: None,
        trace: None,
        times_s: vec![median_s],
    }
}

/// A context that only counts the joins a workload makes (runs everything
/// sequentially).
#[derive(Debug, Default)]
pub struct CountJoins(pub u64);

impl Fork for CountJoins {
    type Ctx<'a> = CountJoins;

    fn join<A, B, RA, RB>(&mut self, a: A, b: B) -> (RA, RB)
    where
        A: FnOnce(&mut CountJoins) -> RA + Send,
        B: FnOnce(&mut CountJoins) -> RB + Send,
        RA: Send,
        RB: Send,
    {
        self.0 += 1;
        let ra = a(self);
        (ra, b(self))
    }
}

/// One row of the per-join overhead measurement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OverheadRow {
    /// Workload name.
    pub workload: String,
    /// Its size spelling.
    pub size: String,
    /// A hypersteal policy, `sequential` (plain code), `sequential-fork`
    /// (the parallel code with joins run inline), `rayon` or `chili`.
    pub policy: String,
    /// Workers.
    pub threads: usize,
    /// Joins per run.
    pub joins: u64,
    /// Median time of a run, seconds.
    pub median_s: f64,
    /// Median time over joins, nanoseconds.
    pub ns_per_join: f64,
    /// (median − plain sequential median) over joins, nanoseconds.
    pub overhead_ns_per_join: f64,
    /// Median over the plain sequential median.
    pub ratio_to_sequential: f64,
    /// Timed runs.
    #[serde(default)]
    pub runs: usize,
    /// Whether the median did not settle within the stopping rule's budget
    /// (see [`Stop::is_noisy`]).
    #[serde(default)]
    pub noisy: bool,
}

/// Measures the per-join cost of `plan.workloads` (meant without a cutoff)
/// for the plain sequential code, the parallel code run inline, every policy
/// in `plan.policies` (on the first of `plan.topologies`), rayon and chili, at
/// every worker count in `plan.threads`, timed as `plan.rule` says after
/// `plan.warmup` discarded runs. Loop schedules and master-worker rows do not
/// apply, nor does trimming.
pub fn run_overhead(
    plan: &Plan,
    mut progress: impl FnMut(&str),
) -> Result<Vec<OverheadRow>, String> {
    let topology = plan.topologies.first().copied().unwrap_or_default();
    let mut out = Vec::new();
    for w in &plan.workloads {
        let mut instance = w.prepare();
        let mut counter = CountJoins::default();
        let o = instance.run(&mut counter);
        checked(&mut instance, &format!("{w} counting joins"), &o)?;
        let joins = counter.0.max(1);
        let plan = Plan {
            workloads: vec![w.clone()],
            topologies: vec![topology],
            baselines: true,
            schedules: Vec::new(),
            loop_policies: Vec::new(),
            matmul_tasks: false,
            ..plan.clone()
        };
        let mut matrices = None;
        type Measured = (String, usize, f64, usize, bool);
        let mut measure = |job: Job, inline: bool| -> Result<Measured, String> {
            let label = job.label(w);
            let (samples, stop) = if inline {
                // Where the plain sequential code runs (see `baseline_pool`).
                let pool = baseline_pool(&plan)?;
                pool.install(|| {
                    time_point(&plan, || {
                        instance.reset();
                        let t0 = Instant::now();
                        let o = instance.run(&mut Sequential);
                        let time = t0.elapsed();
                        checked(&mut instance, &label, &o)?;
                        Ok(plain(time))
                    })
                })?
            } else {
                let mut live = Live::new(false);
                let watch = (&Watch::default(), &mut live);
                let (samples, stop, _) =
                    run_job(&plan, watch, &mut instance, &mut matrices, job, &label)?;
                (samples, stop)
            };
            progress(&label);
            let times: Vec<f64> = samples.iter().map(|s| s.time.as_secs_f64()).collect();
            let row = summarise(w, job, &[]);
            let name = if inline {
                "sequential-fork".to_string()
            } else {
                row.policy
            };
            Ok((
                name,
                row.threads,
                median(&times),
                times.len(),
                stop.is_noisy(),
            ))
        };
        let mut measured = vec![measure(Job::Sequential, false)?];
        measured.push(measure(Job::Sequential, true)?);
        for &t in &plan.threads {
            for &policy in &plan.policies {
                measured.push(measure(
                    Job::Hypersteal {
                        policy,
                        topology,
                        threads: t,
                        variant: Variant::Join,
                    },
                    false,
                )?);
            }
            measured.push(measure(
                Job::Rayon {
                    threads: t,
                    variant: Variant::Join,
                },
                false,
            )?);
            measured.push(measure(Job::Chili { threads: t }, false)?);
        }
        let seq = measured[0].2;
        for (policy, threads, median_s, runs, noisy) in measured {
            out.push(OverheadRow {
                workload: w.name().to_string(),
                size: w.size(),
                policy,
                threads,
                joins,
                median_s,
                ns_per_join: median_s * 1e9 / joins as f64,
                overhead_ns_per_join: (median_s - seq) * 1e9 / joins as f64,
                ratio_to_sequential: if seq > 0.0 { median_s / seq } else { 0.0 },
                runs,
                noisy,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_cov() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
        assert_eq!(coefficient_of_variation(&[1.0]), 0.0);
        let c = coefficient_of_variation(&[1.0, 3.0]);
        assert!((c - 2f64.sqrt() / 2.0).abs() < 1e-12, "{c}");
        assert_eq!(sd_percent(&[2.0, 2.0]), 0.0);
        assert!((sd_percent(&[1.0, 3.0]) - 50.0).abs() < 1e-12);
    }

    #[test]
    fn a_tiny_plan_runs_and_checks() {
        let plan = Plan {
            workloads: vec![
                "fib:15".parse().unwrap(),
                "mandelbrot:40,iters=50".parse().unwrap(),
                "matmul:12".parse().unwrap(),
            ],
            policies: vec![Policy::RandomPolling, "acwn".parse().unwrap()],
            topologies: vec![Topology::Hypercube],
            threads: vec![1, 2],
            rule: StoppingRule::fixed(2),
            warmup: 0,
            one_worker_policies: None,
            baselines: true,
            schedules: vec![Schedule::Guided, Schedule::Static],
            loop_policies: vec![Policy::RandomPolling],
            matmul_tasks: true,
            pin: None,
        };
        let mut n = 0;
        let rows = on_big_stack(|| run_plan(&plan, |_| n += 1)).unwrap();
        assert_eq!(n, plan.points());
        // One point more per workload: the baseline again.
        assert_eq!(n, rows.len() + plan.workloads.len());
        assert_eq!(rows.len(), plan.configurations());
        let loops = rows.iter().filter(|r| r.variant == "loop").count();
        // 2 schedules and rayon's loop, at 2 workers only.
        assert_eq!(loops, 2 + 1);
        assert!(rows
            .iter()
            .any(|r| r.variant == "tasks" && r.policy == "acwn"));
        for r in &rows {
            assert!(r.median_s > 0.0 && r.speedup > 0.0, "{r:?}");
            let is_hs = ![SEQUENTIAL, RAYON, CHILI].contains(&r.policy.as_str());
            assert_eq!(r.requests.is_some(), is_hs, "{r:?}");
            if r.variant == "loop" {
                assert!(r.sd_pct.is_some(), "{r:?}");
            }
        }
    }

    #[test]
    fn the_quick_trim_keeps_every_policy_at_all_cores() {
        let all = Policy::all();
        let keep = vec![Policy::RandomPolling, "acwn".parse().unwrap()];
        let mut plan = Plan {
            workloads: vec!["fib:15".parse().unwrap(), "matmul:12".parse().unwrap()],
            policies: all.clone(),
            topologies: vec![Topology::Hypercube],
            threads: vec![1, 2],
            rule: StoppingRule::fixed(1),
            warmup: 0,
            one_worker_policies: Some(keep.clone()),
            baselines: true,
            schedules: Vec::new(),
            loop_policies: vec![Policy::RandomPolling],
            matmul_tasks: true,
            pin: None,
        };
        let fib = &plan.workloads[0];
        let count = |jobs: &[Job], p: usize| {
            jobs.iter()
                .filter(|j| matches!(j, Job::Hypersteal { threads, .. } if *threads == p))
                .count()
        };
        let jobs = plan.jobs(fib);
        assert_eq!(count(&jobs, 2), all.len());
        assert_eq!(count(&jobs, 1), 2);
        // Baselines stay at both counts: sequential, rayon and chili at 1 and 2.
        assert_eq!(jobs.len() - count(&jobs, 1) - count(&jobs, 2), 5);
        // matmul's master-worker rows are trimmed the same way.
        let matmul = plan.jobs(&plan.workloads[1]);
        assert_eq!(count(&matmul, 2), 2 * all.len());
        assert_eq!(count(&matmul, 1), 2 * 2);
        let note = plan.trimming().unwrap();
        assert!(
            note.contains("only rp, acwn") && note.contains("at 2 workers"),
            "{note}"
        );
        assert!(note.contains("grr-m") && !note.contains("not rp"), "{note}");
        // Nothing to trim with one worker count, or without a list.
        plan.threads = vec![1];
        assert_eq!(count(&plan.jobs(fib), 1), all.len());
        assert!(plan.trimming().is_none());
        plan.threads = vec![1, 2];
        plan.one_worker_policies = None;
        assert!(plan.trimming().is_none());
    }

    #[test]
    fn every_point_gets_its_minimum_and_a_stop_reason() {
        let plan = Plan {
            workloads: vec!["fib:12".parse().unwrap()],
            policies: vec![Policy::RandomPolling],
            topologies: vec![Topology::Hypercube],
            threads: vec![1],
            // No interval of the median exists below 6 runs, so every point
            // runs to the cap of 5 and is called noisy, whatever the timings.
            rule: StoppingRule {
                min_runs: 3,
                max_runs: 5,
                precision: StoppingRule::PRECISION,
                budget: std::time::Duration::from_secs(600),
            },
            warmup: 1,
            one_worker_policies: None,
            baselines: false,
            schedules: Vec::new(),
            loop_policies: Vec::new(),
            matmul_tasks: false,
            pin: None,
        };
        let rows = on_big_stack(|| run_plan(&plan, |_| {})).unwrap();
        assert_eq!(rows.len(), 2);
        // rp: five runs, too few for an interval: noisy, whatever the timings.
        assert_eq!((rows[1].policy.as_str(), rows[1].runs), ("rp", 5));
        assert_eq!(rows[1].stop, "max-runs", "{:?}", rows[1]);
        assert!(
            rows[1].flags.contains(&"noisy".to_string()),
            "{:?}",
            rows[1]
        );
        assert!(rows[1].ci_half_width.is_none() && rows[1].drift.is_none());
        // The baseline, timed before and after rp: ten runs, an interval
        // over all of them, and the drift between the two medians. Each half
        // stopped unsettled at five runs, so the row is noisy exactly when the
        // interval over all ten is wider than the precision.
        let base = &rows[0];
        assert_eq!((base.policy.as_str(), base.runs), (SEQUENTIAL, 10));
        assert_eq!(base.times_s.len(), 10);
        assert!(base.ci_half_width.is_some() && base.drift.is_some());
        let wide = base.ci_half_width.unwrap() > StoppingRule::PRECISION;
        assert_eq!(
            base.stop,
            if wide { "max-runs" } else { "stable" },
            "{base:?}"
        );
        assert_eq!(base.flags.contains(&"noisy".to_string()), wide, "{base:?}");
    }

    #[test]
    fn a_wrong_answer_is_an_error() {
        let mut i = "fib:10".parse::<Workload>().unwrap().prepare();
        let e = checked(&mut i, "fib:10 rp", &Outcome::Fib(56)).unwrap_err();
        assert!(e.contains("WRONG ANSWER") && e.contains("fib:10 rp"), "{e}");
        assert!(checked(&mut i, "fib:10 rp", &Outcome::Fib(55)).is_ok());
    }

    #[test]
    fn counting_joins() {
        let mut i = "fib:10,cutoff=0".parse::<Workload>().unwrap().prepare();
        let mut c = CountJoins::default();
        let o = i.run(&mut c);
        i.check(&o).unwrap();
        // fib forks at every n >= 2 when the cutoff is 0: fib(11) - 1 joins.
        assert!(c.0 > 50, "{}", c.0);
    }
}

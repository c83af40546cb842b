//! The `overhead` command's measurement: the cost of one join (fib and tree-sum without a
//! cutoff) under every policy, rayon and chili, against the plain function.

use super::jobs::plain;
use serde::{Deserialize, Serialize};

use super::{
    baseline_pool, checked, median, run_job, summarise, time_point, Fork, Instant, Job, Live, Plan,
    Sequential, Variant, Watch,
};

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
    /// (see [`Stop::is_noisy`](crate::stopping::Stop::is_noisy)).
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

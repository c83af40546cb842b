//! One timed run of a job: the workload under a hypersteal pool, rayon, chili or the plain
//! sequential code, with the loop and matrix kernels the loop and task variants run.

use super::{
    baseline_pool, checked, chili_pool, hypersteal_builder, hypersteal_pool, matmul, rayon_pool,
    sd_percent, time_point, trace_view, AtomicU64, Duration, Hypersteal, Instance, Instant, Job,
    Live, Mandelbrot, Matrices, Ordering, Outcome, Plan, Rayon, Sample, Schedule, Stop, ThreadPool,
    Timed, Variant, Watch, Window, Workload,
};

pub(super) fn run_job(
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

pub(super) fn plain(time: Duration) -> Sample {
    Sample {
        time,
        stats: None,
        imbalance: None,
        window: None,
    }
}

pub(super) fn kernel(w: &Workload) -> Mandelbrot {
    match w {
        Workload::Mandelbrot(p) => p.kernel(),
        _ => unreachable!("loop rows are mandelbrot's"),
    }
}

pub(super) fn matmul_chunk(w: &Workload) -> usize {
    match w {
        Workload::Matmul(p) => p.chunk.max(1),
        _ => unreachable!("task rows are matmul's"),
    }
}

pub(super) fn matrices_for<'m>(w: &Workload, slot: &'m mut Option<Matrices>) -> &'m mut Matrices {
    let n = match w {
        Workload::Matmul(p) => p.n,
        _ => unreachable!("task rows are matmul's"),
    };
    slot.get_or_insert_with(|| Matrices::generate(n))
}

/// Mandelbrot rows as a hypersteal parallel loop; returns the count and the
/// loop's imbalance.
pub(super) fn hypersteal_loop(m: &Mandelbrot, schedule: Schedule) -> (u64, (Duration, f64)) {
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
pub(super) fn rayon_loop(m: &Mandelbrot, threads: usize) -> (u64, (Duration, f64)) {
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
pub(super) fn hypersteal_tasks(m: &mut Matrices, chunk: usize) -> u64 {
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
pub(super) fn rayon_tasks(m: &mut Matrices, chunk: usize) -> u64 {
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

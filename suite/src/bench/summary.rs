//! A point's samples summarised as a [`Row`]: the median and its confidence interval, the
//! spread, the pool's statistics, and the speed-ups filled in against the sequential rows.

use super::{
    coefficient_of_variation, median, trace_view, Job, MedianInterval, PoolStats, Row, Sample,
    Variant, Workload, CHILI, NO_TOPOLOGY, RAYON, SEQUENTIAL,
};

pub(super) fn summarise(w: &Workload, job: Job, samples: &[Sample]) -> Row {
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
